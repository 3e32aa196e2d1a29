//! A small imperative IR between lowering and Rust emission: loops, merges, cases and calls of
//! level functions. It prints as Rust-like pseudo-code for debugging and review.
//!
//! Every local of the generated code is a [`Local`]: a structured name (which iterator, which
//! level, which temporary) rather than a string, so that two different locals can never be
//! confused by a naming convention. [`crate::names::Names`] turns them into distinct identifiers.

use crate::names::Names;
use crate::notation::{AccessId, TensorId, VarId};
use std::collections::HashSet;
use std::fmt;

/// A local of the generated code. Lowering invents these; none is reachable from user code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Local {
    /// The loop variable (coordinate) of an index variable.
    Index(VarId),
    /// The size of an index variable's dimension.
    Dim(VarId),
    /// The position of an access at a level (iterated or located).
    Pos(AccessId, usize),
    /// The end of a position iterator.
    End(AccessId, usize),
    /// The coordinate under a position iterator.
    Coord(AccessId, usize),
    /// The end of a run of equal coordinates of a non-unique level (deduplication).
    RunEnd(AccessId, usize),
    /// Whether a position iterator sits at the current coordinate (compact merge).
    Matched(AccessId, usize),
    /// Whether `locate` found the coordinate in a level that is not full.
    Found(AccessId, usize),
    /// The scratch array holding an ordered copy of a level's segment (iterator reordering).
    Scratch(AccessId, usize),
    /// The level position of the current entry of a scratch array.
    ScratchPos(AccessId, usize),
    /// Whether a subexpression is present at the current point (a union or intersection of
    /// its operands' presence, computed once).
    Flag(usize),
    /// The first position of the output segment appended by a loop.
    SegBegin(AccessId, usize),
    /// The end of the output segment appended by a loop.
    SegEnd(AccessId, usize),
    /// Whether the dense block of the output's current appended tuple has been opened.
    BlockOpen(AccessId),
    /// The number of values in one dense block of the output.
    BlockLen(AccessId),
    /// A scalar temporary accumulating an inner sum.
    Temp(usize),
    /// Whether an inner sum received at least one term.
    TempSome(usize),
    /// Level `k` of a tensor parameter.
    Level(TensorId, usize),
    /// The values of a tensor parameter.
    Vals(TensorId),
    /// The assembly guard of a sparse output.
    Assembly(TensorId),
    /// How many values a compute-only kernel has stored (the next position of the output).
    Stored,
    /// The accumulator of the output's workspace.
    Workspace,
    /// The number of entries of the workspace's current slice.
    WorkspaceLen,
    /// The entry of the workspace being copied into the output.
    Cursor,
    /// The key of the workspace entry being copied.
    Key,
    /// The distance between consecutive keys of one output level's coordinate (the product
    /// of the dimensions of the workspace levels below it).
    Stride(usize),
    /// The key prefix (the key divided by the level's stride) shared by the workspace
    /// entries below one coordinate of an output level.
    Group(usize),
    /// The first position of a task of a parallel [`Stmt::Rows`] over positions
    /// ([`Split::Positions`]).
    PosLo,
    /// The end of the positions of such a task.
    PosHi,
    /// The first row of a task of a parallel [`Stmt::Rows`].
    RowLo,
    /// The end of the rows of a task of a parallel [`Stmt::Rows`].
    RowHi,
    /// The position of the first component of a task's rows of the dense output in a
    /// parallel [`Stmt::Rows`] (its values are those rows' there).
    RowBase,
    /// The register block of a dense output's innermost row (`crate::register_block`): an
    /// array of one of [`crate::register_block::WIDTHS`] values.
    Block,
    /// The first coordinate of the current register block.
    BlockStart,
    /// A lane of the register block (a coordinate, minus [`Local::BlockStart`]).
    Lane,
    /// The first iteration of the current strip of a strip-mined loop (`crate::strip_mine`).
    Strip,
    /// An iteration of a strip, minus [`Local::Strip`].
    StripLane,
    /// The sum of a loop's varying factors, multiplied by its invariant ones after the loop
    /// (`crate::precompute`): a value, or an array as long as the register block.
    Precomputed,
    /// The partial sums, one per lane, of the `n`th float sum a strip's lanes accumulate
    /// (`crate::lane_sums`): an array of [`crate::strip_mine::STRIP`] values.
    LaneSums(usize),
    /// The first iteration of a chunk of a parallel [`Stmt::Fold`].
    ChunkLo,
    /// The end of the iterations of a chunk of a parallel [`Stmt::Fold`].
    ChunkHi,
    /// The temporary's value before a [`Stmt::Fold`] (its start), where the fold's chunks
    /// run in order on the calling thread.
    FoldStart,
    /// The chunks' values combined so far, there (`None` before the first chunk).
    FoldTotal,
    /// The partial value of a chunk of a parallel fold, combined into the fold's temporary
    /// ([`Fold::combine`]).
    Partial,
    /// The adds of one row into its dense accumulator, counted as a bound of the row's
    /// entries ([`Bound::Adds`], `crate::adds`).
    Adds,
    /// The appends of one position of a root, counted as a bound of the entries it appends
    /// ([`Bound::Appends`], `crate::adds`).
    Appends,
}

/// Operators of index and value arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `>`
    Gt,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl From<crate::notation::BinOp> for Op {
    fn from(op: crate::notation::BinOp) -> Op {
        use crate::notation::BinOp;
        match op {
            BinOp::Add => Op::Add,
            BinOp::Sub => Op::Sub,
            BinOp::Mul => Op::Mul,
            BinOp::Div => Op::Div,
        }
    }
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Rem => "%",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Eq => "==",
            Op::Gt => ">",
            Op::And => "&&",
            Op::Or => "||",
        }
    }
}

/// An IR expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A local of the generated code.
    Var(Local),
    /// A parameter of the kernel (emitted with the user's span).
    Param(proc_macro2::Ident),
    /// An index constant.
    Usize(usize),
    /// A boolean constant.
    Bool(bool),
    /// A value-typed constant, already typed (`2f64`), or zero.
    Value(ValueConst),
    /// `a op b`
    Binary(Op, Box<Expr>, Box<Expr>),
    /// `-a`
    Neg(Box<Expr>),
    /// `!a` (a boolean)
    Not(Box<Expr>),
    /// `recv.method(args)`: a level function or slice method.
    Call(Box<Expr>, &'static str, Vec<Expr>),
    /// Element `index` of slice `base` (bounds guaranteed by validated invariants).
    Index(Box<Expr>, Box<Expr>),
    /// `min(a, b)`
    Min(Box<Expr>, Box<Expr>),
    /// `*a` (the scalar output).
    Deref(Box<Expr>),
    /// `a?` (an assembly step that can fail).
    Try(Box<Expr>),
    /// `if cond { a } else { b }`
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(a, b)`
    Pair(Box<Expr>, Box<Expr>),
    /// An empty scratch array for iterator reordering (the runtime's `Reordered::new()`).
    NewScratch,
    /// A workspace accumulator of the given kind for keys below `size` (a `Result`).
    NewWorkspace(crate::workspace::Kind, Box<Expr>),
    /// `::sparse_runtime::__private::name(args)`: a runtime helper function.
    Runtime(&'static str, Vec<Expr>),
    /// `&[a, b, ...]`
    Slice(Vec<Expr>),
    /// A function of the kernel (`Kernel::functions`) applied to values.
    Apply(Callee, Vec<Expr>),
    /// `[value; n]`: a register block's array.
    Repeat(Box<Expr>, usize),
    /// `array[lane]`, bounds-checked: an element of a register block (its lanes run over
    /// `0..n`, so LLVM removes the check).
    Lane(Box<Expr>, Box<Expr>),
}

/// What [`Expr::Apply`] calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// The function itself (the runtime's prelude, or the user's declared function).
    Function(crate::algebra::FuncId),
    /// Per-case body `n` of the function, over the arguments it binds.
    Case(crate::algebra::FuncId, usize),
}

/// Value constants.
#[derive(Clone, Debug)]
pub enum ValueConst {
    /// The additive identity of the value type.
    Zero,
    /// A literal written by the user.
    Literal(syn::Lit),
    /// The value type's infinity (`-inf` if `true`): `sparse_runtime::functions::Infinity`.
    Infinity(bool),
}

/// How an assignment combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assign {
    /// `=`
    Set,
    /// `+=`
    Add,
}

/// An IR statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name = value;`
    Let(Local, bool, Expr),
    /// `let (a, b) = value;` with `a` optionally mutable; `None` binds nothing (`_`).
    LetPair(Option<Local>, Option<Local>, bool, Expr),
    /// `target = value;` or `target += value;`
    Assign(Expr, Assign, Expr),
    /// `for var in lo..hi { body }`
    For(Local, Expr, Expr, Vec<Stmt>),
    /// `while cond { body }`
    While(Expr, Vec<Stmt>),
    /// `if cond { then } else { otherwise }`
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// An expression evaluated for its effect (an assembly call).
    Expr(Expr),
    /// `'reduce_n: { body }`: the loops of reduction `n`, which a [`Stmt::Exit`] leaves.
    Block(usize, Vec<Stmt>),
    /// `break 'reduce_n;`: the reduction's value can no longer change.
    Exit(usize),
    /// The rows `0..rows` of the first level of dense output `tensor`, split by the runtime's
    /// `parallel_rows` into tasks run in parallel where it can: `body` runs once per task,
    /// for rows [`Local::RowLo`]`..`[`Local::RowHi`], and inside it the output's values are
    /// those rows' alone, its positions offsets from [`Local::RowBase`] (`crate::parallel`).
    Rows(TensorId, Split, Vec<Stmt>),
    /// A fold of a scalar temporary over the iterations of a loop, split by the runtime's
    /// `parallel_fold` into chunks of consecutive iterations (`crate::reduction`): `body`
    /// runs once per chunk, for iterations [`Local::ChunkLo`]`..`[`Local::ChunkHi`], folding
    /// into its own copy of the temporary, which starts from the temporary's value before
    /// the loop (the fold's start); the chunks' values are then combined in order.
    Fold(Fold, Vec<Stmt>),
}

/// What a [`Stmt::Fold`] folds, and how its chunks' values combine.
#[derive(Clone, Debug)]
pub struct Fold {
    /// The temporary folded into ([`Local::Temp`]).
    pub acc: Local,
    /// The first iteration of the loop.
    pub lo: Expr,
    /// The end of its iterations.
    pub hi: Expr,
    /// The temporary's value with a chunk's value [`Local::Partial`] folded in, by the
    /// loop's own update (`acc + partial`, `f(acc, partial)`).
    pub combine: Expr,
}

impl Fold {
    /// Its expressions, in order.
    pub fn exprs(&self) -> [&Expr; 3] {
        [&self.lo, &self.hi, &self.combine]
    }

    /// The locals it reads.
    pub fn visit(&self, f: &mut impl FnMut(Local)) {
        self.exprs().into_iter().for_each(|e| visit_expr(e, f));
    }

    /// The fold with `g` applied to each expression.
    pub fn map(self, mut g: impl FnMut(Expr) -> Expr) -> Fold {
        Fold {
            acc: self.acc,
            lo: g(self.lo),
            hi: g(self.hi),
            combine: g(self.combine),
        }
    }
}

/// What a parallel [`Stmt::Rows`] splits into tasks.
#[derive(Clone, Debug)]
pub enum Split {
    /// The rows `0..rows` of a loop over the output's first level (`for i in
    /// row_lo..row_hi` in each task).
    Rows {
        /// The number of the output's rows.
        rows: Expr,
        /// An estimate of the loop's work (the entries of the inputs it reads), so a few
        /// heavy rows still make several tasks.
        work: Expr,
    },
    /// The positions `lo..hi` of `level`, an ordered sparse level whose coordinates
    /// are the output's rows `0..rows` (`for p in pos_lo..pos_hi` in each task, which owns
    /// the rows `row_lo..row_hi` its positions' coordinates lie in).
    Positions {
        /// The number of the output's rows.
        rows: Expr,
        /// The level iterated.
        level: Local,
        /// Its first position.
        lo: Expr,
        /// Its end position.
        hi: Expr,
        /// An estimate of the loop's work, as [`Split::Rows`]'.
        work: Expr,
    },
    /// The rows `0..rows` of a compute-only loop over a sparse output whose first level is
    /// dense: each task gets the values of its rows, which `level` (the second, with a `pos`
    /// array) delimits, and stores into them from its own counter.
    Segments {
        /// The number of the output's rows.
        rows: Expr,
        /// The output's second level.
        level: Local,
    },
    /// The rows `0..rows` of a loop over the positions of a root that append-assembles a
    /// sparse output whose first level is dense: each task assembles its rows into a `level`
    /// and values of its own (parent positions from 0), which the runtime concatenates in row
    /// order; or, where the loop bounds each position's entries, the tasks are chunks of
    /// positions that write into windows of the output as long as their bound, placed in
    /// order (`sparse_runtime::parallel::append_positions_bounded`).
    Appended {
        /// The number of the output's rows.
        rows: Expr,
        /// The output's second level, which appends segments.
        level: Local,
        /// The input's ordered root level whose coordinates are the rows, and the positions
        /// `lo..hi` the loop runs over (split as [`Split::Positions`] splits them).
        root: (Local, Expr, Expr),
        /// An estimate of the loop's work (the entries of the inputs it reads), to size the
        /// tasks.
        work: Expr,
        /// A bound of each position's entries ([`Bound::Appends`]), if the loop gives one.
        bound: Option<Bound>,
    },
    /// The rows `0..rows` of a loop that append-assembles a sparse output whose first level
    /// is dense, in two phases: the tasks run the loop once to count each row's entries and,
    /// after a prefix sum sized the output, again to write them into place.
    Counted {
        /// The number of the output's rows.
        rows: Expr,
        /// The output's second level, which appends segments.
        level: Local,
        /// An estimate of the loop's work (the entries of the inputs it reads).
        work: Expr,
        /// The size of the dense accumulator the loop sums each row into, if it does
        /// (Gustavson's SpGEMM): each task gets one of its own, a key counter to count with.
        workspace: Option<Expr>,
        /// A bound of the entries each range of rows appends, if the loop gives one: then
        /// the loop runs once, each chunk of rows writing into a window as long as its bound
        /// (`sparse_runtime::parallel::append_bounded`), counting first only where the
        /// windows' total does not fit the index type.
        bound: Option<Bound>,
    },
}

/// A bound of the entries the rows of a [`Split::Counted`] loop, or the positions of a
/// [`Split::Appended`] one, append.
#[derive(Clone, Debug)]
pub enum Bound {
    /// Of the rows [`Local::RowLo`]`..`[`Local::RowHi`]: their operands' entries (a sum's).
    Rows(Expr),
    /// Of row `.0` (the loop's row variable): the value of [`Local::Adds`] after `.1`, the
    /// row's loops counting its adds into the accumulator (each key the row appends was
    /// added at least once; `crate::adds`). The runtime also caps it at the accumulator's
    /// size.
    Adds(Local, Vec<Stmt>),
    /// Of position `.0` of the root (the loop's variable): the value of [`Local::Appends`]
    /// after `.1`, the position's loops counting its appends (`crate::adds`).
    Appends(Local, Vec<Stmt>),
    /// Of the positions [`Local::PosLo`]`..`[`Local::PosHi`] of a root iterated by its runs:
    /// their count, where each root position holds one entry of its tensor and those
    /// entries bound the output's (`crate::parallel`).
    Positions,
}

impl Bound {
    /// Its expressions (a bound of rows' own; the statements' are their own).
    fn exprs(&self) -> Vec<&Expr> {
        match self {
            Bound::Rows(e) => vec![e],
            Bound::Adds(..) | Bound::Appends(..) | Bound::Positions => vec![],
        }
    }

    /// The locals it reads: its expression's, or the statements' own and those they bind.
    fn visit(&self, f: &mut impl FnMut(Local)) {
        match self {
            Bound::Rows(e) => visit_expr(e, f),
            Bound::Adds(row, body) | Bound::Appends(row, body) => {
                f(*row);
                visit_locals(body, f);
            }
            Bound::Positions => {}
        }
    }

    /// The bound with `g` applied to each expression, the statements' included.
    fn map(self, g: &mut dyn FnMut(Expr) -> Expr) -> Bound {
        match self {
            Bound::Rows(e) => Bound::Rows(g(e)),
            Bound::Adds(row, body) => Bound::Adds(row, map_exprs(body, &mut |e| g(e))),
            Bound::Appends(p, body) => Bound::Appends(p, map_exprs(body, &mut |e| g(e))),
            Bound::Positions => Bound::Positions,
        }
    }
}

impl Split {
    /// Its expressions, in order.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            Split::Rows { rows, work } => vec![rows, work],
            Split::Positions {
                rows, lo, hi, work, ..
            } => vec![rows, lo, hi, work],
            Split::Segments { rows, .. } => vec![rows],
            Split::Counted {
                rows,
                work,
                workspace,
                bound,
                ..
            } => [rows, work]
                .into_iter()
                .chain(workspace)
                .chain(bound.iter().flat_map(Bound::exprs))
                .collect(),
            Split::Appended {
                rows,
                root: (_, lo, hi),
                work,
                bound,
                ..
            } => [rows, lo, hi, work]
                .into_iter()
                .chain(bound.iter().flat_map(Bound::exprs))
                .collect(),
        }
    }

    /// The locals it reads.
    pub fn visit(&self, f: &mut impl FnMut(Local)) {
        if let Split::Positions { level, .. }
        | Split::Segments { level, .. }
        | Split::Appended { level, .. }
        | Split::Counted { level, .. } = self
        {
            f(*level);
        }
        if let Split::Appended {
            root: (root, _, _), ..
        } = self
        {
            f(*root);
        }
        if let Split::Counted {
            bound: Some(b @ Bound::Adds(..)),
            ..
        }
        | Split::Appended {
            bound: Some(b @ Bound::Appends(..)),
            ..
        } = self
        {
            b.visit(f);
        }
        self.exprs().into_iter().for_each(|e| visit_expr(e, f));
    }

    /// The split with `g` applied to each expression.
    pub fn map(self, mut g: impl FnMut(Expr) -> Expr) -> Split {
        match self {
            Split::Rows { rows, work } => Split::Rows {
                rows: g(rows),
                work: g(work),
            },
            Split::Positions {
                rows,
                level,
                lo,
                hi,
                work,
            } => Split::Positions {
                rows: g(rows),
                level,
                lo: g(lo),
                hi: g(hi),
                work: g(work),
            },
            Split::Segments { rows, level } => Split::Segments {
                rows: g(rows),
                level,
            },
            Split::Appended {
                rows,
                level,
                root,
                work,
                bound,
            } => Split::Appended {
                rows: g(rows),
                level,
                root: (root.0, g(root.1), g(root.2)),
                work: g(work),
                bound: bound.map(|b| b.map(&mut g)),
            },
            Split::Counted {
                rows,
                level,
                work,
                workspace,
                bound,
            } => Split::Counted {
                rows: g(rows),
                level,
                work: g(work),
                workspace: workspace.map(&mut g),
                bound: bound.map(|b| b.map(&mut g)),
            },
        }
    }
}

/// Calls `f` on every statement of `body`, nested ones included, outer ones first.
pub fn visit_stmts(body: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in body {
        f(s);
        match s {
            Stmt::For(_, _, _, b)
            | Stmt::While(_, b)
            | Stmt::Block(_, b)
            | Stmt::Rows(_, _, b)
            | Stmt::Fold(_, b) => visit_stmts(b, f),
            Stmt::If(_, a, b) => {
                visit_stmts(a, f);
                visit_stmts(b, f);
            }
            _ => {}
        }
    }
}

/// `e` with `f` applied to every subexpression, innermost first (`f` sees each node after
/// its operands were rewritten).
pub fn map_expr(mut e: Expr, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
    rewrite(&mut e, f);
    e
}

/// [`map_expr`] in place.
fn rewrite(e: &mut Expr, f: &mut impl FnMut(Expr) -> Expr) {
    for_each_child_mut(e, &mut |c| rewrite(c, f));
    *e = f(std::mem::replace(e, Expr::Bool(false)));
}

/// `stmts` with [`map_expr`]`(_, f)` applied to every expression, nested statements' too.
pub fn map_exprs(stmts: Vec<Stmt>, f: &mut impl FnMut(Expr) -> Expr) -> Vec<Stmt> {
    stmts.into_iter().map(|s| map_stmt_exprs(s, f)).collect()
}

fn map_stmt_exprs(s: Stmt, f: &mut impl FnMut(Expr) -> Expr) -> Stmt {
    match s {
        Stmt::Let(l, m, e) => Stmt::Let(l, m, map_expr(e, f)),
        Stmt::LetPair(a, b, m, e) => Stmt::LetPair(a, b, m, map_expr(e, f)),
        Stmt::Assign(t, op, v) => {
            let t = map_expr(t, f);
            Stmt::Assign(t, op, map_expr(v, f))
        }
        Stmt::For(l, lo, hi, b) => {
            let (lo, hi) = (map_expr(lo, f), map_expr(hi, f));
            Stmt::For(l, lo, hi, map_exprs(b, f))
        }
        Stmt::While(c, b) => {
            let c = map_expr(c, f);
            Stmt::While(c, map_exprs(b, f))
        }
        Stmt::If(c, a, b) => {
            let (c, a) = (map_expr(c, f), map_exprs(a, f));
            Stmt::If(c, a, map_exprs(b, f))
        }
        Stmt::Expr(e) => Stmt::Expr(map_expr(e, f)),
        Stmt::Block(n, b) => Stmt::Block(n, map_exprs(b, f)),
        Stmt::Rows(t, split, b) => {
            let split = split.map(|e| map_expr(e, f));
            Stmt::Rows(t, split, map_exprs(b, f))
        }
        Stmt::Fold(fold, b) => {
            let fold = fold.map(|e| map_expr(e, f));
            Stmt::Fold(fold, map_exprs(b, f))
        }
        Stmt::Exit(n) => Stmt::Exit(n),
    }
}

/// Shorthands used by lowering.
pub fn var(local: Local) -> Expr {
    Expr::Var(local)
}

/// `a op b`
pub fn bin(op: Op, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// `!a`
pub fn not(a: Expr) -> Expr {
    Expr::Not(Box::new(a))
}

/// `recv.method(args)`
pub fn call(recv: Expr, method: &'static str, args: Vec<Expr>) -> Expr {
    Expr::Call(Box::new(recv), method, args)
}

/// `base[index]`
pub fn index(base: Expr, i: Expr) -> Expr {
    Expr::Index(Box::new(base), Box::new(i))
}

/// `if c { a } else { b }`
pub fn select(c: Expr, a: Expr, b: Expr) -> Expr {
    Expr::Select(Box::new(c), Box::new(a), Box::new(b))
}

/// `e?`
pub fn try_(e: Expr) -> Expr {
    Expr::Try(Box::new(e))
}

/// `a && b`, folding constants.
pub fn and(a: Expr, b: Expr) -> Expr {
    match (a, b) {
        (Expr::Bool(true), x) | (x, Expr::Bool(true)) => x,
        (Expr::Bool(false), _) | (_, Expr::Bool(false)) => Expr::Bool(false),
        (a, b) => bin(Op::And, a, b),
    }
}

/// `a || b`, folding constants.
pub fn or(a: Expr, b: Expr) -> Expr {
    match (a, b) {
        (Expr::Bool(false), x) | (x, Expr::Bool(false)) => x,
        (Expr::Bool(true), _) | (_, Expr::Bool(true)) => Expr::Bool(true),
        (a, b) => bin(Op::Or, a, b),
    }
}

/// A listing of IR statements with the identifiers [`Names`] gives their locals.
pub struct Listing<'a> {
    /// The statements.
    pub stmts: &'a [Stmt],
    /// The identifier of each local.
    pub names: &'a Names,
}

impl fmt::Display for Listing<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Printer {
            f,
            names: self.names,
        }
        .block(self.stmts, 0)
    }
}

struct Printer<'a, 'b> {
    f: &'a mut fmt::Formatter<'b>,
    names: &'a Names,
}

impl Printer<'_, '_> {
    fn block(&mut self, stmts: &[Stmt], depth: usize) -> fmt::Result {
        for s in stmts {
            self.stmt(s, depth)?;
        }
        Ok(())
    }

    fn name(&self, local: Option<&Local>) -> String {
        local.map_or_else(|| "_".to_string(), |l| self.names.get(*l).to_string())
    }

    fn stmt(&mut self, s: &Stmt, depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        let mutable = |m: bool| if m { "mut " } else { "" };
        match s {
            Stmt::Let(n, m, v) => {
                let (n, v) = (self.name(Some(n)), self.expr(v));
                writeln!(self.f, "{pad}let {}{n} = {v}", mutable(*m))
            }
            Stmt::LetPair(a, b, m, v) => {
                let (a, b, v) = (self.name(a.as_ref()), self.name(b.as_ref()), self.expr(v));
                writeln!(self.f, "{pad}let ({}{a}, {b}) = {v}", mutable(*m))
            }
            Stmt::Assign(t, op, v) => {
                let op = if *op == Assign::Add { "+=" } else { "=" };
                let (t, v) = (self.expr(t), self.expr(v));
                writeln!(self.f, "{pad}{t} {op} {v}")
            }
            Stmt::For(v, lo, hi, body) => {
                let (v, lo, hi) = (self.name(Some(v)), self.expr(lo), self.expr(hi));
                writeln!(self.f, "{pad}for {v} in {lo}..{hi} {{")?;
                self.block(body, depth + 1)?;
                writeln!(self.f, "{pad}}}")
            }
            Stmt::While(c, body) => {
                let c = self.expr(c);
                writeln!(self.f, "{pad}while {c} {{")?;
                self.block(body, depth + 1)?;
                writeln!(self.f, "{pad}}}")
            }
            Stmt::If(c, then, otherwise) => {
                let c = self.expr(c);
                writeln!(self.f, "{pad}if {c} {{")?;
                self.block(then, depth + 1)?;
                if !otherwise.is_empty() {
                    writeln!(self.f, "{pad}}} else {{")?;
                    self.block(otherwise, depth + 1)?;
                }
                writeln!(self.f, "{pad}}}")
            }
            Stmt::Expr(e) => {
                let e = self.expr(e);
                writeln!(self.f, "{pad}{e}")
            }
            Stmt::Block(n, body) => {
                writeln!(self.f, "{pad}'reduce_{n}: {{")?;
                self.block(body, depth + 1)?;
                writeln!(self.f, "{pad}}}")
            }
            Stmt::Exit(n) => writeln!(self.f, "{pad}break 'reduce_{n}"),
            Stmt::Rows(_, split, body) => {
                match split {
                    Split::Rows { rows, .. } => {
                        let rows = self.expr(rows);
                        writeln!(self.f, "{pad}parallel rows 0..{rows} {{")?;
                    }
                    Split::Positions {
                        rows,
                        level,
                        lo,
                        hi,
                        ..
                    } => {
                        let (rows, lo, hi) = (self.expr(rows), self.expr(lo), self.expr(hi));
                        let level = self.name(Some(level));
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} by positions {lo}..{hi} of {level} {{"
                        )?;
                    }
                    Split::Segments { rows, level } => {
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} by values of {level} {{"
                        )?;
                    }
                    // Each position's bound first, as the closure the runtime calls per position.
                    Split::Appended {
                        rows,
                        level,
                        root: (r, lo, hi),
                        bound: Some(Bound::Appends(p, appends)),
                        ..
                    } => {
                        let (p, sum) = (self.name(Some(p)), self.name(Some(&Local::Appends)));
                        writeln!(
                            self.f,
                            "{pad}entries of position {p} at most {sum} after {{"
                        )?;
                        self.block(appends, depth + 1)?;
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        let (lo, hi, r) = (self.expr(lo), self.expr(hi), self.name(Some(r)));
                        writeln!(
                            self.f,
                            "{pad}}}: parallel rows 0..{rows} by positions {lo}..{hi} of {r} filling {level} in windows of those {{"
                        )?;
                    }
                    Split::Appended {
                        rows,
                        level,
                        root: (r, lo, hi),
                        bound: Some(Bound::Positions),
                        ..
                    } => {
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        let (lo, hi, r) = (self.expr(lo), self.expr(hi), self.name(Some(r)));
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} by runs of positions {lo}..{hi} of {r} filling {level} in windows of one entry per position {{"
                        )?;
                    }
                    Split::Appended {
                        rows,
                        level,
                        root: (r, lo, hi),
                        ..
                    } => {
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        let (lo, hi, r) = (self.expr(lo), self.expr(hi), self.name(Some(r)));
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} by positions {lo}..{hi} of {r} appending {level} {{"
                        )?;
                    }
                    Split::Counted {
                        rows,
                        level,
                        workspace: None,
                        bound: Some(Bound::Rows(bound)),
                        ..
                    } => {
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} filling {level} in windows of {} {{",
                            self.expr(bound)
                        )?;
                    }
                    // The row's bound first, as the closure the runtime calls per row.
                    Split::Counted {
                        rows,
                        level,
                        workspace: Some(size),
                        bound: Some(Bound::Adds(row, adds)),
                        ..
                    } => {
                        let (row, sum) = (self.name(Some(row)), self.name(Some(&Local::Adds)));
                        writeln!(self.f, "{pad}entries of row {row} at most {sum} after {{")?;
                        self.block(adds, depth + 1)?;
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        let size = self.expr(size);
                        writeln!(
                            self.f,
                            "{pad}}} and {size}: parallel rows 0..{rows} filling {level} in windows of those, each task with a DenseAccumulator::new({size}) {{"
                        )?;
                    }
                    Split::Counted {
                        rows,
                        level,
                        workspace,
                        ..
                    } => {
                        let (rows, level) = (self.expr(rows), self.name(Some(level)));
                        let each = match workspace {
                            Some(size) => format!(
                                ", each task with a DenseAccumulator::new({})",
                                self.expr(size)
                            ),
                            None => String::new(),
                        };
                        writeln!(
                            self.f,
                            "{pad}parallel rows 0..{rows} counting, then filling {level}{each} {{"
                        )?;
                    }
                }
                self.block(body, depth + 1)?;
                writeln!(self.f, "{pad}}}")
            }
            Stmt::Fold(fold, body) => {
                let (lo, hi, acc) = (
                    self.expr(&fold.lo),
                    self.expr(&fold.hi),
                    self.name(Some(&fold.acc)),
                );
                let combine = self.expr(&fold.combine);
                writeln!(
                    self.f,
                    "{pad}parallel fold of {acc} over {lo}..{hi}, combining {acc} = {combine} {{"
                )?;
                self.block(body, depth + 1)?;
                writeln!(self.f, "{pad}}}")
            }
        }
    }

    fn expr(&self, e: &Expr) -> String {
        match e {
            Expr::Var(v) => self.name(Some(v)),
            Expr::Param(p) => p.to_string(),
            Expr::Usize(n) => n.to_string(),
            Expr::Bool(b) => b.to_string(),
            Expr::NewScratch => "Reordered::new()".to_string(),
            Expr::NewWorkspace(kind, size) => {
                format!("{kind:?}Accumulator::new({})", self.expr(size))
            }
            Expr::Runtime(name, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{name}({})", args.join(", "))
            }
            Expr::Slice(items) => {
                let items: Vec<String> = items.iter().map(|a| self.expr(a)).collect();
                format!("&[{}]", items.join(", "))
            }
            Expr::Repeat(v, n) => format!("[{}; {n}]", self.expr(v)),
            Expr::Lane(a, i) => format!("{}[{}]", self.expr(a), self.expr(i)),
            Expr::Value(ValueConst::Zero) => "0".to_string(),
            Expr::Value(ValueConst::Infinity(negative)) => {
                if *negative { "-inf" } else { "inf" }.to_string()
            }
            Expr::Apply(callee, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                let name = match callee {
                    Callee::Function(f) => format!("fn{f}"),
                    Callee::Case(f, n) => format!("fn{f}.case{n}"),
                };
                format!("{name}({})", args.join(", "))
            }
            Expr::Value(ValueConst::Literal(l)) => quote::ToTokens::to_token_stream(l).to_string(),
            Expr::Binary(op, a, b) => {
                format!("({} {} {})", self.expr(a), op.symbol(), self.expr(b))
            }
            Expr::Neg(a) => format!("-{}", self.expr(a)),
            Expr::Not(a) => format!("!{}", self.expr(a)),
            Expr::Call(r, m, args) => {
                let args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
                format!("{}.{m}({})", self.expr(r), args.join(", "))
            }
            Expr::Index(b, i) => format!("{}[{}]", self.expr(b), self.expr(i)),
            Expr::Min(a, b) => format!("min({}, {})", self.expr(a), self.expr(b)),
            Expr::Deref(a) => format!("*{}", self.expr(a)),
            Expr::Try(a) => format!("{}?", self.expr(a)),
            Expr::Select(c, a, b) => format!(
                "if {} {{ {} }} else {{ {} }}",
                self.expr(c),
                self.expr(a),
                self.expr(b)
            ),
            Expr::Pair(a, b) => format!("({}, {})", self.expr(a), self.expr(b)),
        }
    }
}

/// Removes `let` bindings (of pure expressions) whose locals are never read, so generated code
/// compiles without unused-variable warnings; in a pair the unused local becomes `_`. A
/// backward liveness pass per block, linear in the size of the code.
pub fn prune_unused_lets(stmts: Vec<Stmt>) -> Vec<Stmt> {
    prune_block(stmts).0
}

/// The pruned block and every local it reads (or assigns) after pruning.
fn prune_block(stmts: Vec<Stmt>) -> (Vec<Stmt>, HashSet<Local>) {
    let mut live: HashSet<Local> = HashSet::new();
    let mut kept_rev: Vec<Stmt> = Vec::new();
    for stmt in stmts.into_iter().rev() {
        let stmt = match stmt {
            Stmt::Let(name, m, value) => {
                if !live.remove(&name) {
                    continue;
                }
                Stmt::Let(name, m, value)
            }
            Stmt::LetPair(a, b, m, value) => {
                let a = a.filter(|l| live.remove(l));
                let b = b.filter(|l| live.remove(l));
                if a.is_none() && b.is_none() {
                    continue;
                }
                Stmt::LetPair(a, b, m && a.is_some(), value)
            }
            Stmt::For(v, lo, hi, body) => Stmt::For(v, lo, hi, prune_nested(body, &mut live)),
            Stmt::Rows(t, rows, body) => Stmt::Rows(t, rows, prune_nested(body, &mut live)),
            Stmt::Fold(fold, body) => Stmt::Fold(fold, prune_nested(body, &mut live)),
            Stmt::While(c, body) => Stmt::While(c, prune_nested(body, &mut live)),
            Stmt::Block(n, body) => Stmt::Block(n, prune_nested(body, &mut live)),
            Stmt::If(c, t, e) => {
                let t = prune_nested(t, &mut live);
                Stmt::If(c, t, prune_nested(e, &mut live))
            }
            other => other,
        };
        shallow_reads(&stmt, &mut |l| {
            live.insert(l);
        });
        kept_rev.push(stmt);
    }
    kept_rev.reverse();
    (kept_rev, live)
}

fn prune_nested(body: Vec<Stmt>, live: &mut HashSet<Local>) -> Vec<Stmt> {
    let (body, reads) = prune_block(body);
    live.extend(reads);
    body
}

/// The locals a statement reads outside its nested blocks (whose reads `prune_block` reports).
pub(crate) fn shallow_reads(stmt: &Stmt, f: &mut impl FnMut(Local)) {
    match stmt {
        Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) | Stmt::Expr(v) => visit_expr(v, f),
        Stmt::Assign(t, _, v) => {
            visit_expr(t, f);
            visit_expr(v, f);
        }
        Stmt::For(_, lo, hi, _) => {
            visit_expr(lo, f);
            visit_expr(hi, f);
        }
        Stmt::While(c, _) | Stmt::If(c, _, _) => visit_expr(c, f),
        Stmt::Rows(_, split, _) => split.visit(f),
        Stmt::Fold(fold, _) => fold.visit(f),
        Stmt::Block(..) | Stmt::Exit(_) => {}
    }
}

fn stmt_uses(stmt: &Stmt, name: Local) -> bool {
    match stmt {
        Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) | Stmt::Expr(v) => expr_uses(v, name),
        Stmt::Assign(t, _, v) => expr_uses(t, name) || expr_uses(v, name),
        Stmt::For(_, lo, hi, body) => {
            expr_uses(lo, name) || expr_uses(hi, name) || block_uses(body, name)
        }
        Stmt::While(c, body) => expr_uses(c, name) || block_uses(body, name),
        Stmt::Rows(_, split, body) => {
            let mut found = false;
            split.visit(&mut |l| found |= l == name);
            found || block_uses(body, name)
        }
        Stmt::Fold(fold, body) => {
            let mut found = false;
            fold.visit(&mut |l| found |= l == name);
            found || block_uses(body, name)
        }
        Stmt::If(c, t, e) => expr_uses(c, name) || block_uses(t, name) || block_uses(e, name),
        Stmt::Block(_, body) => block_uses(body, name),
        Stmt::Exit(_) => false,
    }
}

/// Whether a block leaves reduction `n`'s loops anywhere (`Stmt::Exit(n)`).
pub fn exits(stmts: &[Stmt], n: usize) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Exit(m) => *m == n,
        Stmt::For(_, _, _, body)
        | Stmt::While(_, body)
        | Stmt::Block(_, body)
        | Stmt::Rows(_, _, body)
        | Stmt::Fold(_, body) => exits(body, n),
        Stmt::If(_, t, e) => exits(t, n) || exits(e, n),
        _ => false,
    })
}

/// Whether `e` reads local `name`.
pub fn expr_uses(e: &Expr, name: Local) -> bool {
    let mut found = false;
    visit_expr(e, &mut |l| found |= l == name);
    found
}

/// How many statements of a block, at any depth, bind or assign local `name` (a `let`, a
/// pair, a `for`'s variable, `name = ..` or `name += ..`).
pub fn sets_of(stmts: &[Stmt], name: Local) -> usize {
    let mut n = 0;
    visit_stmts(stmts, &mut |s| {
        n += match s {
            Stmt::Assign(Expr::Var(l), ..) | Stmt::Let(l, ..) | Stmt::For(l, ..) => {
                usize::from(*l == name)
            }
            Stmt::LetPair(a, b, ..) => a.iter().chain(b).filter(|l| **l == name).count(),
            _ => 0,
        }
    });
    n
}

/// Whether a block reads local `name` anywhere.
pub fn block_uses(stmts: &[Stmt], name: Local) -> bool {
    stmts.iter().any(|s| stmt_uses(s, name))
}

/// Calls `f` on every local a block binds or reads, in order of appearance.
pub fn visit_locals(stmts: &[Stmt], f: &mut impl FnMut(Local)) {
    for s in stmts {
        match s {
            Stmt::Let(n, _, v) => {
                f(*n);
                visit_expr(v, f);
            }
            Stmt::LetPair(a, b, _, v) => {
                a.iter().chain(b).for_each(|l| f(*l));
                visit_expr(v, f);
            }
            Stmt::Assign(t, _, v) => {
                visit_expr(t, f);
                visit_expr(v, f);
            }
            Stmt::For(n, lo, hi, body) => {
                f(*n);
                visit_expr(lo, f);
                visit_expr(hi, f);
                visit_locals(body, f);
            }
            Stmt::While(c, body) => {
                visit_expr(c, f);
                visit_locals(body, f);
            }
            Stmt::If(c, t, e) => {
                visit_expr(c, f);
                visit_locals(t, f);
                visit_locals(e, f);
            }
            Stmt::Expr(e) => visit_expr(e, f),
            Stmt::Block(_, body) => visit_locals(body, f),
            Stmt::Exit(_) => {}
            Stmt::Rows(_, split, body) => {
                [Local::RowLo, Local::RowHi, Local::RowBase]
                    .into_iter()
                    .for_each(&mut *f);
                if let Split::Positions { .. } = split {
                    [Local::PosLo, Local::PosHi].into_iter().for_each(&mut *f);
                }
                split.visit(f);
                visit_locals(body, f);
            }
            Stmt::Fold(fold, body) => {
                [
                    Local::ChunkLo,
                    Local::ChunkHi,
                    Local::Partial,
                    Local::FoldStart,
                    Local::FoldTotal,
                ]
                .into_iter()
                .for_each(&mut *f);
                fold.visit(f);
                visit_locals(body, f);
            }
        }
    }
}

/// Whether `pred` holds for some expression of a block, at any depth (subexpressions
/// included).
pub fn any_expr(stmts: &[Stmt], pred: &mut impl FnMut(&Expr) -> bool) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) | Stmt::Expr(v) => expr_any(v, pred),
        Stmt::Assign(t, _, v) => expr_any(t, pred) || expr_any(v, pred),
        Stmt::For(_, lo, hi, body) => {
            expr_any(lo, pred) || expr_any(hi, pred) || any_expr(body, pred)
        }
        Stmt::While(c, body) => expr_any(c, pred) || any_expr(body, pred),
        Stmt::If(c, t, e) => expr_any(c, pred) || any_expr(t, pred) || any_expr(e, pred),
        Stmt::Block(_, body) => any_expr(body, pred),
        Stmt::Exit(_) => false,
        Stmt::Rows(_, split, body) => {
            split.exprs().into_iter().any(|e| expr_any(e, pred)) || any_expr(body, pred)
        }
        Stmt::Fold(fold, body) => {
            fold.exprs().into_iter().any(|e| expr_any(e, pred)) || any_expr(body, pred)
        }
    })
}

/// Whether `pred` holds for `e` or one of its subexpressions.
pub fn expr_any(e: &Expr, pred: &mut impl FnMut(&Expr) -> bool) -> bool {
    let mut found = pred(e);
    for_each_child(e, &mut |c| found = found || expr_any(c, pred));
    found
}

pub(crate) fn visit_expr(e: &Expr, f: &mut impl FnMut(Local)) {
    if let Expr::Var(v) = e {
        f(*v);
    }
    for_each_child(e, &mut |c| visit_expr(c, f));
}

/// Calls `f` on each operand of `e`, in order (not deeper).
fn for_each_child(e: &Expr, f: &mut impl FnMut(&Expr)) {
    match e {
        Expr::Var(_)
        | Expr::Param(_)
        | Expr::Usize(_)
        | Expr::Bool(_)
        | Expr::Value(_)
        | Expr::NewScratch => {}
        Expr::Binary(_, a, b)
        | Expr::Index(a, b)
        | Expr::Min(a, b)
        | Expr::Pair(a, b)
        | Expr::Lane(a, b) => {
            f(a);
            f(b);
        }
        Expr::Neg(a)
        | Expr::Not(a)
        | Expr::Deref(a)
        | Expr::Try(a)
        | Expr::NewWorkspace(_, a)
        | Expr::Repeat(a, _) => f(a),
        Expr::Call(r, _, args) => {
            f(r);
            args.iter().for_each(f);
        }
        Expr::Runtime(_, args) | Expr::Slice(args) | Expr::Apply(_, args) => {
            args.iter().for_each(f)
        }
        Expr::Select(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
    }
}

/// [`for_each_child`] with mutable operands.
fn for_each_child_mut(e: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    match e {
        Expr::Var(_)
        | Expr::Param(_)
        | Expr::Usize(_)
        | Expr::Bool(_)
        | Expr::Value(_)
        | Expr::NewScratch => {}
        Expr::Binary(_, a, b)
        | Expr::Index(a, b)
        | Expr::Min(a, b)
        | Expr::Pair(a, b)
        | Expr::Lane(a, b) => {
            f(a);
            f(b);
        }
        Expr::Neg(a)
        | Expr::Not(a)
        | Expr::Deref(a)
        | Expr::Try(a)
        | Expr::NewWorkspace(_, a)
        | Expr::Repeat(a, _) => f(a),
        Expr::Call(r, _, args) => {
            f(r);
            args.iter_mut().for_each(f);
        }
        Expr::Runtime(_, args) | Expr::Slice(args) | Expr::Apply(_, args) => {
            args.iter_mut().for_each(f)
        }
        Expr::Select(c, a, b) => {
            f(c);
            f(a);
            f(b);
        }
    }
}
