//! Register blocks of a dense output's innermost row: taco's precompute of the output into a
//! workspace (Kjolstad et al. 2019), the workspace a fixed number of values LLVM keeps in
//! registers.
//!
//! In SpMM, `C(i,k) = A(i,j) * B(j,k)` under the loop order `i, j, k`, each nonzero of A's row
//! `i` adds a multiple of B's row `j` to C's row `i`: lowered directly, every nonzero loads and
//! stores the whole row of C, and the loop over `k` has a run-time length. MTTKRP has the same
//! shape under two sparse loops. This pass takes such a *middle region* (the first and longest
//! run of statements of a block that holds the loop over `j`, or over `k, l`, with the
//! positions it starts from; what follows it reads no local the region binds below its top
//! level, as a loop over runs advancing its position after the run) and runs it once per
//! block of [`WIDTHS`] consecutive coordinates of the row's
//! variable: the block is loaded from the output into a local array before the region,
//! updated there (`block[lane] += ...`, a loop of constant length LLVM unrolls into
//! registers), and stored back after it. Coordinates past the last whole block run the
//! original region. Where the output was filled just before a loop over all its rows, a row's
//! blocks start from the fill value instead, and the fill moves into the rows.
//!
//! Why the result is the serial one, bit for bit: each output component still receives the
//! same terms in the same order (the middle loop's), starting from the value it held; only the
//! order between components changes, and components are independent because
//! - the region writes the output only through `vals[locate(parent, k)]` on the output's
//!   last level, `parent` a local the region does not bind or assign, so one block's
//!   components are distinct (a `Dense` level's positions are `parent * size + k`) and
//!   nothing else in the loop writes them;
//! - it reads the output nowhere else, so no statement sees a component the block holds;
//! - it has no other effect (no assembly call, no scalar output, no early exit) and assigns
//!   only locals it binds (lexically: not an outer local of the same name), so running it
//!   once per block repeats nothing observable;
//! - a row loop's body assigns only locals that body binds, so no state passes from one
//!   coordinate of the row to the next: its coordinates run block by block, and a cursor
//!   that followed a sparse operand along the row would begin every block where the row
//!   begins.

use crate::ir::{self, Assign, Expr, Local, Op, Stmt};
use crate::notation::{Kernel, TensorId, VarId};
use std::collections::HashSet;

/// The widths of the register blocks, widest first: a row runs in blocks of 16 while 16
/// coordinates remain, then in one of 8 if 8 remain, then one coordinate at a time.
///
/// A block of 16 `f64` is eight SSE registers. MTTKRP (rank 16) needs two arrays of them,
/// the block and its precomputed sum, so LLVM keeps the sum in registers and the block in
/// memory, as the hand loop does; what it gains is one pass over the tensor per row instead
/// of two (blocks of 8 ran 1.3-1.6x the hand loop's time, blocks of 16 1.05-1.2x). SpMM
/// runs as fast in blocks of 16 as of 8 once `crate::lanes` addresses each lane as a
/// constant offset (before, 16 lanes took eight registers for `block_start + lane` and ran
/// 1.3-1.5x the hand loop). The block of 8 keeps ranks 8 to 15 blocked.
pub const WIDTHS: [usize; 2] = [16, 8];

/// The kernel's body with every middle region that updates a row of its dense output run
/// per register block.
pub fn blocks(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let Some(a) = kernel.output_access() else {
        return body;
    };
    let format = kernel.format_of(a);
    if !format.is_all_dense() || format.order() == 0 {
        return body;
    }
    let out = Output {
        tensor: kernel.accesses[a].tensor,
        last: format.order() - 1,
        rows: (format.order() == 2).then(|| kernel.accesses[a].level_var(format, 0)),
    };
    out.top(body)
}

/// The dense output and its last level.
#[derive(Clone, Copy)]
struct Output {
    tensor: TensorId,
    last: usize,
    /// The variable of a matrix output's rows (its first level).
    rows: Option<VarId>,
}

/// Where a statement of a middle region sits: at its top, inside one of its loops, or in a
/// row loop.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Depth {
    Top,
    InLoop,
    InRow,
}

/// A row a middle loop updates: the output's components `locate(parent, k)` for every `k`.
#[derive(Clone, Copy, PartialEq)]
struct Row {
    parent: Local,
    k: VarId,
}

impl Output {
    /// The kernel's top-level statements, blocked. Where the output is filled right before a
    /// loop over all its rows (`vals.fill(z); for i in 0..dim_i { .. }`) and each row's
    /// middle region updates that row, the fill moves into the rows: a row's blocks start
    /// from `z` instead of loading the values the fill just wrote, and only its columns past
    /// the last whole block are filled. Every component is then written once less (in CSR
    /// SpMM, the fill was a fifth of the kernel's time).
    fn top(self, body: Vec<Stmt>) -> Vec<Stmt> {
        let mut out = Vec::with_capacity(body.len());
        let mut body = body.into_iter().peekable();
        while let Some(s) = body.next() {
            let z = match &s {
                Stmt::Expr(e) => self.fill_value(e),
                _ => None,
            };
            match (s, z, body.peek()) {
                (fill, Some(z), Some(Stmt::For(l, lo, _, _))) if self.is_row_loop(*l, lo) => {
                    let Some(Stmt::For(l, lo, hi, b)) = body.next() else {
                        unreachable!("peeked a `for`")
                    };
                    match self.filled_rows(b, &z) {
                        Ok(b) => out.push(Stmt::For(l, lo, hi, b)),
                        Err(b) => {
                            out.push(fill);
                            out.push(Stmt::For(l, lo, hi, self.block(b)));
                        }
                    }
                }
                (Stmt::If(c, a, b), ..) => out.push(Stmt::If(c, self.top(a), self.top(b))),
                (other, ..) => out.push(self.inside(other)),
            }
        }
        out
    }

    /// `z` of `vals.fill(z)` of the output.
    fn fill_value(self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::Call(recv, "fill", args) if self.is_vals(recv) => args.first().cloned(),
            _ => None,
        }
    }

    /// `for i in 0..` over the output's rows.
    fn is_row_loop(self, l: Local, lo: &Expr) -> bool {
        matches!((self.rows, l, lo), (Some(v), Local::Index(i), Expr::Usize(0)) if v == i)
    }

    /// A row loop's body blocked from the fill value `z` (see [`Output::top`]), or the body
    /// unchanged if its tail is no middle region updating the row, or a statement before
    /// that region uses the output.
    fn filled_rows(self, mut body: Vec<Stmt>, z: &Expr) -> Result<Vec<Stmt>, Vec<Stmt>> {
        let row_var = self.rows.map(Local::Index);
        for start in 0..body.len() {
            let Some(row) = self.region(&body[start..]) else {
                continue;
            };
            let before_ok = body[..start]
                .iter()
                .all(|s| !matches!(s, Stmt::Expr(_)) && !self.stmt_uses_output(s));
            if Some(row.parent) != row_var || !before_ok {
                return Err(body);
            }
            let region = body.split_off(start);
            body.extend(self.blocked(region, row, Some(z)));
            return Ok(body);
        }
        Err(body)
    }

    /// Whether a statement (at any depth) reads or writes the output's values.
    fn stmt_uses_output(self, s: &Stmt) -> bool {
        let mut used = false;
        ir::visit_locals(std::slice::from_ref(s), &mut |l| {
            used |= l == Local::Vals(self.tensor)
        });
        used
    }

    /// A block of statements with its first, longest blockable run of statements (its
    /// *middle region*) run per register block, and the statements around it (and every
    /// statement, if none) searched the same way inside.
    fn block(self, mut body: Vec<Stmt>) -> Vec<Stmt> {
        let region = (0..body.len()).find_map(|start| {
            (start + 1..=body.len()).rev().find_map(|end| {
                Some((start, end, self.region_before(&body[start..], end - start)?))
            })
        });
        let (middle, after) = match region {
            Some((start, end, row)) => {
                let after = body.split_off(end);
                (self.blocked(body.split_off(start), row, None), after)
            }
            None => (Vec::new(), Vec::new()),
        };
        let mut out: Vec<Stmt> = body.into_iter().map(|s| self.inside(s)).collect();
        out.extend(middle);
        out.extend(after.into_iter().map(|s| self.inside(s)));
        out
    }

    /// The row of the middle region `stmts[..end]`, if it is one and the statements after it
    /// read no local it binds inside its statements (blocked, those are scoped to a block).
    /// Those statements run once, after every block: a loop over runs advances its position
    /// after the run's region (`p = r`, or `p = q` where the region's own loop over the run
    /// found `q`). A local the region binds at its top level is bound again, to the same
    /// value, by the copy of the region that runs after the blocks (`blocked`'s remainder,
    /// which runs whatever is left of the row: the region reads no output value, so nothing
    /// it binds depends on the blocks).
    fn region_before(self, stmts: &[Stmt], end: usize) -> Option<Row> {
        let row = self.region(&stmts[..end])?;
        let mut bound = HashSet::new();
        crate::parallel::bound_locals(&stmts[..end], &mut bound);
        let mut top = HashSet::new();
        for s in &stmts[..end] {
            match s {
                Stmt::Let(l, ..) => {
                    top.insert(*l);
                }
                Stmt::LetPair(a, b, ..) => top.extend(a.iter().chain(b)),
                _ => {}
            }
        }
        let mut read_after = false;
        ir::visit_locals(&stmts[end..], &mut |l| {
            read_after |= bound.contains(&l) && !top.contains(&l)
        });
        (!read_after).then_some(row)
    }

    /// `s` with the blocks inside it searched.
    fn inside(self, s: Stmt) -> Stmt {
        let block = |b: Vec<Stmt>| self.block(b);
        match s {
            Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(b)),
            Stmt::While(c, b) => Stmt::While(c, block(b)),
            Stmt::If(c, a, b) => Stmt::If(c, block(a), block(b)),
            Stmt::Block(n, b) => Stmt::Block(n, block(b)),
            Stmt::Rows(t, n, b) => Stmt::Rows(t, n, block(b)),
            Stmt::Fold(fold, b) => Stmt::Fold(fold, block(b)),
            other => other,
        }
    }

    /// The row a middle region updates, if `region` can run once per register block (see the
    /// module documentation for the conditions): every row loop in it lies inside another
    /// loop of it (else a block would gain nothing), updates the same row, and the row's
    /// parent is bound outside it.
    fn region(self, region: &[Stmt]) -> Option<Row> {
        let mut rows = Vec::new();
        if !self.block_ok(region, &HashSet::new(), Depth::Top, &mut rows) {
            return None;
        }
        let (row, _) = *rows.first()?;
        let mut bound = HashSet::new();
        crate::parallel::bound_locals(region, &mut bound);
        let same = rows
            .iter()
            .all(|&(r, depth)| r == row && depth == Depth::InLoop);
        (same && !bound.contains(&row.parent)).then_some(row)
    }

    /// Whether every statement of a block of a middle loop is allowed there, collecting the
    /// rows of its row loops. `scope` holds the locals the middle loop has bound where the
    /// block starts (lexically: a local assigned must be the middle loop's own, not one of
    /// the same name bound outside it, which a second run would see changed).
    fn block_ok(
        self,
        b: &[Stmt],
        scope: &HashSet<Local>,
        depth: Depth,
        rows: &mut Vec<(Row, Depth)>,
    ) -> bool {
        let mut scope = scope.clone();
        for s in b {
            if !self.stmt_ok(s, &scope, depth, rows) {
                return false;
            }
            match s {
                Stmt::Let(l, _, _) => {
                    scope.insert(*l);
                }
                Stmt::LetPair(a, b, _, _) => scope.extend(a.iter().chain(b)),
                _ => {}
            }
        }
        true
    }

    fn stmt_ok(
        self,
        s: &Stmt,
        scope: &HashSet<Local>,
        depth: Depth,
        rows: &mut Vec<(Row, Depth)>,
    ) -> bool {
        let with = |l: Local| {
            let mut inner = scope.clone();
            inner.insert(l);
            inner
        };
        let in_row = depth == Depth::InRow;
        if let (false, Some(row)) = (in_row, self.row_loop(s)) {
            rows.push((row, depth));
            let Stmt::For(k, _, _, body) = s else {
                unreachable!("a row loop is a `for`")
            };
            // A row loop's iterations become lanes that run block by block, so its body may
            // assign only locals it binds itself: a cursor carried from one coordinate to
            // the next (a sparse operand followed by position along the row) would start
            // each later block, and the remainder, where the row starts.
            return self.block_ok(body, &HashSet::from([*k]), Depth::InRow, rows);
        }
        let inner = match depth {
            Depth::Top => Depth::InLoop,
            other => other,
        };
        let e = |e: &Expr| !self.reads_output(e);
        match s {
            Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) => e(v),
            Stmt::Assign(Expr::Var(l), _, v) => scope.contains(l) && e(v),
            // A row loop's update (`row_loop` checked it is the only use of the output).
            Stmt::Assign(Expr::Index(base, _), Assign::Add, _) => in_row && self.is_vals(base),
            Stmt::For(l, lo, hi, b) => e(lo) && e(hi) && self.block_ok(b, &with(*l), inner, rows),
            Stmt::While(c, b) => e(c) && self.block_ok(b, scope, inner, rows),
            Stmt::If(c, a, b) => {
                e(c) && self.block_ok(a, scope, depth, rows) && self.block_ok(b, scope, depth, rows)
            }
            // Another write, an effect, an early exit, or a parallel loop.
            Stmt::Assign(..)
            | Stmt::Expr(_)
            | Stmt::Block(..)
            | Stmt::Exit(_)
            | Stmt::Rows(..)
            | Stmt::Fold(..) => false,
        }
    }

    /// The row of `for k in 0..dim_k { ..; let p = out_last.locate(parent, k); ..;
    /// vals[p] += value }`, where the loop's only use of the output is that one update (it
    /// may sit under an `if`), `p` is used nowhere else and `parent` is a plain local.
    fn row_loop(self, s: &Stmt) -> Option<Row> {
        let Stmt::For(Local::Index(k), Expr::Usize(0), Expr::Var(Local::Dim(d)), body) = s else {
            return None;
        };
        if k != d {
            return None;
        }
        let (p, parent) = body.iter().find_map(|s| self.locate(s, *k))?;
        let mut updates = 0;
        let mut other_uses = false;
        ir::visit_stmts(body, &mut |s| match s {
            Stmt::Assign(Expr::Index(base, at), Assign::Add, v)
                if self.is_vals(base) && matches!(**at, Expr::Var(l) if l == p) =>
            {
                updates += 1;
                other_uses |= self.reads_output(v) || uses(v, p);
            }
            Stmt::Let(l, _, _) if *l == p => {}
            other => other_uses |= self.stmt_touches(other, p),
        });
        (updates == 1 && !other_uses).then_some(Row { parent, k: *k })
    }

    /// `let p = out_last.locate(parent, k)`: `p` and `parent`.
    fn locate(self, s: &Stmt, k: VarId) -> Option<(Local, Local)> {
        let Stmt::Let(p, false, Expr::Call(recv, "locate", args)) = s else {
            return None;
        };
        let level = Local::Level(self.tensor, self.last);
        match (&**recv, args.as_slice()) {
            (Expr::Var(l), [Expr::Var(parent), Expr::Var(Local::Index(c))])
                if *l == level && *c == k =>
            {
                Some((*p, *parent))
            }
            _ => None,
        }
    }

    /// Whether a statement (not the update, not `p`'s binding) reads or writes the output's
    /// values or reads `p`, at its top level (`visit_row_body` walks nested statements).
    fn stmt_touches(self, s: &Stmt, p: Local) -> bool {
        let e = |e: &Expr| self.reads_output(e) || uses(e, p);
        match s {
            Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) => e(v),
            Stmt::Assign(t, _, v) => !matches!(t, Expr::Var(_)) || e(t) || e(v),
            Stmt::For(_, lo, hi, _) => e(lo) || e(hi),
            Stmt::While(c, _) | Stmt::If(c, _, _) => e(c),
            Stmt::Expr(_) | Stmt::Block(..) | Stmt::Exit(_) | Stmt::Rows(..) | Stmt::Fold(..) => {
                true
            }
        }
    }

    fn reads_output(self, e: &Expr) -> bool {
        uses(e, Local::Vals(self.tensor))
    }

    fn is_vals(self, e: &Expr) -> bool {
        matches!(e, Expr::Var(Local::Vals(t)) if *t == self.tensor)
    }

    /// The middle region per register block, blocks of each of [`WIDTHS`] in turn, then the
    /// coordinates past the last whole block:
    ///
    /// ```text
    /// let mut block_start = 0
    /// while block_start + W <= dim_k {      (for each width W)
    ///   let mut block = [0; W]
    ///   for lane in 0..W { let k = block_start + lane; let p = locate(parent, k); block[lane] = vals[p] }
    ///   region, its row loops `for lane in 0..W { let k = block_start + lane; ..; block[lane] += value }`
    ///   for lane in 0..W { let k = ..; let p = ..; vals[p] = block[lane] }
    ///   block_start += W
    /// }
    /// region, its row loops `for k in block_start..dim_k`
    /// ```
    fn blocked(self, region: Vec<Stmt>, row: Row, fill: Option<&Expr>) -> Vec<Stmt> {
        let mut out = vec![Stmt::Let(Local::BlockStart, true, Expr::Usize(0))];
        for width in WIDTHS {
            out.push(self.blocks_of(width, &region, row, fill));
        }
        if let Some(z) = fill {
            let k = Local::Index(row.k);
            let fill_one = Stmt::Assign(self.component(row), Assign::Set, z.clone());
            let dim = ir::var(Local::Dim(row.k));
            out.push(Stmt::For(
                k,
                ir::var(Local::BlockStart),
                dim,
                vec![fill_one],
            ));
        }
        out.extend(region.into_iter().map(|s| self.remainder(s, row)));
        out
    }

    /// The loop running the region over every whole block of `width` lanes left in the row.
    fn blocks_of(self, width: usize, region: &[Stmt], row: Row, fill: Option<&Expr>) -> Stmt {
        let start = ir::var(Local::BlockStart);
        let lane_k = || {
            Stmt::Let(
                Local::Index(row.k),
                false,
                ir::bin(Op::Add, start.clone(), ir::var(Local::Lane)),
            )
        };
        let per_lane = |step: Stmt| {
            Stmt::For(
                Local::Lane,
                Expr::Usize(0),
                Expr::Usize(width),
                vec![lane_k(), step],
            )
        };
        let whole = ir::bin(
            Op::Le,
            ir::bin(Op::Add, start.clone(), Expr::Usize(width)),
            ir::var(Local::Dim(row.k)),
        );
        // Starting from the fill value, or from the values the block covers.
        let first = fill.cloned().unwrap_or(Expr::Value(ir::ValueConst::Zero));
        let mut per_block = vec![Stmt::Let(
            Local::Block,
            true,
            Expr::Repeat(Box::new(first), width),
        )];
        if fill.is_none() {
            per_block.push(per_lane(Stmt::Assign(
                block_lane(),
                Assign::Set,
                self.component(row),
            )));
        }
        per_block.extend(
            region
                .iter()
                .cloned()
                .map(|s| self.in_lanes(s, row, width, &lane_k)),
        );
        per_block.push(per_lane(Stmt::Assign(
            self.component(row),
            Assign::Set,
            block_lane(),
        )));
        per_block.push(Stmt::Assign(start, Assign::Add, Expr::Usize(width)));
        Stmt::While(whole, per_block)
    }

    /// `vals[locate(parent, k)]`: the output's component at the row's coordinate `k`.
    fn component(self, row: Row) -> Expr {
        let level = ir::var(Local::Level(self.tensor, self.last));
        let position = ir::call(
            level,
            "locate",
            vec![ir::var(row.parent), ir::var(Local::Index(row.k))],
        );
        ir::index(ir::var(Local::Vals(self.tensor)), position)
    }

    /// `s` with each row loop run over the lanes of the block, updating the block.
    fn in_lanes(self, s: Stmt, row: Row, width: usize, lane_k: &impl Fn() -> Stmt) -> Stmt {
        self.map_row_loops(s, &mut |body| {
            let (p, _) = body
                .iter()
                .find_map(|s| self.locate(s, row.k))
                .expect("a row loop binds its output position");
            let mut lanes = vec![lane_k()];
            lanes.extend(body.into_iter().filter_map(|s| self.to_lane(s, p)));
            Stmt::For(Local::Lane, Expr::Usize(0), Expr::Usize(width), lanes)
        })
    }

    /// A statement of a row loop's body with the update of position `p` made an update of
    /// the block's lane, and `p`'s binding dropped.
    fn to_lane(self, s: Stmt, p: Local) -> Option<Stmt> {
        let block = |b: Vec<Stmt>| b.into_iter().filter_map(|s| self.to_lane(s, p)).collect();
        Some(match s {
            Stmt::Let(l, _, _) if l == p => return None,
            Stmt::Assign(Expr::Index(base, at), op, v)
                if self.is_vals(&base) && matches!(*at, Expr::Var(l) if l == p) =>
            {
                Stmt::Assign(block_lane(), op, v)
            }
            Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(b)),
            Stmt::While(c, b) => Stmt::While(c, block(b)),
            Stmt::If(c, a, b) => Stmt::If(c, block(a), block(b)),
            other => other,
        })
    }

    /// `s` with each row loop starting at the first coordinate no block took.
    fn remainder(self, s: Stmt, row: Row) -> Stmt {
        self.map_row_loops(s, &mut |body| {
            let dim = ir::var(Local::Dim(row.k));
            Stmt::For(Local::Index(row.k), ir::var(Local::BlockStart), dim, body)
        })
    }

    /// `s` with every row loop replaced by `f(its body)`.
    fn map_row_loops(self, s: Stmt, f: &mut impl FnMut(Vec<Stmt>) -> Stmt) -> Stmt {
        if self.row_loop(&s).is_some() {
            let Stmt::For(_, _, _, body) = s else {
                unreachable!("a row loop is a `for`")
            };
            return f(body);
        }
        let mut block = |b: Vec<Stmt>| b.into_iter().map(|s| self.map_row_loops(s, f)).collect();
        match s {
            Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(b)),
            Stmt::While(c, b) => Stmt::While(c, block(b)),
            Stmt::If(c, a, b) => {
                let a = block(a);
                Stmt::If(c, a, block(b))
            }
            other => other,
        }
    }
}

/// Whether `e` reads local `l`.
fn uses(e: &Expr, l: Local) -> bool {
    let mut found = false;
    ir::visit_expr(e, &mut |v| found |= v == l);
    found
}

/// `block[lane]`: the current lane of the register block.
fn block_lane() -> Expr {
    Expr::Lane(
        Box::new(ir::var(Local::Block)),
        Box::new(ir::var(Local::Lane)),
    )
}
