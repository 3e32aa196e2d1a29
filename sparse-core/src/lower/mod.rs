//! Lowering (taco, section 6; Chou 2018, section 4.5): for each index variable in loop order,
//! merge the levels of the operands that iterate it, compute values where every loop variable is
//! bound (scalar temporaries for inner sums), and assemble a sparse output by appending in loop
//! order.
//!
//! Two merge strategies share one scope:
//! - `merge`: taco's merge lattice, one loop per lattice point and one case per point of its
//!   sub-lattice. Each case knows statically which operands are present.
//! - `compact`: one loop over the union of the iterators, the coordinate their minimum, each
//!   iterator testing at run time whether it sits there. Operands then carry a run-time
//!   *presence* flag, and values and the output are gated by it. Its code grows linearly with
//!   the operands where a lattice grows exponentially, so it takes over when a lattice would be
//!   too large, and below any loop that used it (its presence flags are dynamic).
//!
//! Presence also decides what a sparse output stores: an entry is appended only where the
//! iteration space has a point, so an inner sum that received no term stores nothing.

mod assemble;
mod compact;
mod iterate;
mod merge;
mod workspace;

pub use compact::{MAX_CASE_COPIES, MAX_LATTICE_ITERATORS};

use crate::format::{Format, Iteration, LevelFn};
use crate::ir::{self, and, bin, call, index, or, select, var, Assign, Expr as IrExpr, Local, Op};
use crate::ir::{Stmt, ValueConst};
use crate::iteration_graph::root_sum_vars;
use crate::lattice::{Iter, LevelInfo};
use crate::level::Arg;
use crate::notation::{AccessId, AssignOp, Expr, Kernel, Output, VarId};
use crate::workspace::Workspace;

/// Position of a resolved level of an access.
#[derive(Clone, Debug)]
enum Pos {
    /// A single position.
    One(IrExpr),
    /// A run `[lo, hi)` of positions sharing one coordinate of a non-unique level.
    Run(IrExpr, IrExpr),
}

/// What is known at a point of the loop nest.
#[derive(Clone)]
struct Scope {
    /// Index variables bound by enclosing loops.
    bound: Vec<bool>,
    /// Positions of the resolved levels of each access, root first.
    pos: Vec<Vec<Pos>>,
    /// Whether each access is present here: `true` where the cases of a merge lattice
    /// guarantee it, a run-time flag below a compact merge.
    present: Vec<IrExpr>,
    /// Whether a compact merge encloses this point (some presence is a run-time flag).
    compact: bool,
    /// How many times the code here is emitted: the product of the case counts of the
    /// enclosing lattice merges (each case lowers the loops below it again).
    copies: usize,
    /// An enclosing loop scatters (iterates a non-unique level by position rather than by
    /// run), so the dense output accumulates what is computed here.
    scatter: bool,
    /// Iterators of the current loop that enumerate an ordered copy of their segment (iterator
    /// reordering, Chou 2018, 4.3): their coordinates and positions come from a scratch array.
    reordered: Vec<(AccessId, usize)>,
}

impl Scope {
    fn is_dynamic(&self, a: AccessId) -> bool {
        !matches!(self.present[a], IrExpr::Bool(true))
    }
}

/// Where computed values go.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// The kernel's output.
    Output,
    /// A scalar temporary accumulating an inner reduction (a sum, or a fold by `monoid`),
    /// and whether its presence flag is kept.
    Temp {
        id: usize,
        some: bool,
        monoid: Option<crate::algebra::FuncId>,
        /// The reduction covers its dimension (its body's fill is not its identity): every
        /// coordinate the loops visit is folded, operands present or not.
        covers: bool,
        /// The function's annihilator, where the loops stop once it is reached (the fold
        /// keeps it whatever follows): an `any` stops at the first true term.
        exit: bool,
    },
    /// The kernel's workspace, below the outer loops of its output (`crate::workspace`).
    Workspace,
}

/// Lowers a checked kernel under a loop order to the statements of its body (which follow
/// the shape checks and bindings), or reports an internal invariant failure.
pub fn lower(
    kernel: &Kernel,
    order: &[VarId],
    workspace: Option<&Workspace>,
    values_only: bool,
) -> Result<Vec<Stmt>, String> {
    let mut l = Lowerer::new(kernel, order, workspace);
    l.values_only = values_only;
    let body = l.run();
    match l.internal_error.into_inner() {
        Some(e) => Err(e),
        None => Ok(ir::prune_unused_lets(body)),
    }
}

struct Lowerer<'k> {
    kernel: &'k Kernel,
    /// The loop order of the nest being lowered (below a workspace's outer loops, the order
    /// of one of its nests).
    order: Vec<VarId>,
    /// The output's workspace, if it is appended through one.
    workspace: Option<&'k Workspace>,
    /// Lowering a workspace's nests: the output is not written (nor located) there.
    filling: bool,
    /// Lowering the compute-only variant (the assemble/compute split): the output's pattern
    /// is assembled already, and its values are stored in the order it was appended.
    values_only: bool,
    /// Lowering the nests of a compute-only variant that reads its dense workspace back
    /// along the output's pattern: values are plainly added, without marks.
    gathering: bool,
    /// Root-sum variables iterated outside an output variable: the output accumulates.
    opened: Vec<VarId>,
    write: Assign,
    /// Whether every component of a dense output is written (else it is zero-filled first).
    covers: bool,
    temps: usize,
    flags: usize,
    /// The levels iterated through a scratch array somewhere: each gets one, bound before the
    /// loops and reused for every segment.
    scratches: std::collections::BTreeSet<(AccessId, usize)>,
    /// Lowering the version of the loop nest that runs when every level with constant-width
    /// segments reports none cut (`LevelFn::Uncut`): its segment loops have constant length.
    uncut: bool,
    internal_error: std::cell::RefCell<Option<String>>,
}

impl<'k> Lowerer<'k> {
    fn new(kernel: &'k Kernel, order: &[VarId], workspace: Option<&'k Workspace>) -> Self {
        let position = |v: &VarId| order.iter().position(|o| o == v);
        let last_out = kernel.output_vars().iter().filter_map(position).max();
        // Below a workspace's outer loops the workspace accumulates, never the output.
        let opened: Vec<VarId> = root_sum_vars(kernel)
            .into_iter()
            .filter(|v| last_out.is_some_and(|l| position(v) < Some(l)))
            .filter(|_| workspace.is_none())
            .collect();
        let write = if opened.is_empty() && kernel.op == AssignOp::Assign {
            Assign::Set
        } else {
            Assign::Add
        };
        Lowerer {
            kernel,
            order: order.to_vec(),
            workspace,
            filling: false,
            values_only: false,
            gathering: false,
            opened,
            write,
            covers: true,
            temps: 0,
            flags: 0,
            scratches: Default::default(),
            uncut: false,
            internal_error: std::cell::RefCell::new(None),
        }
    }

    fn run(&mut self) -> Vec<Stmt> {
        let k = self.kernel;
        let mut scope = Scope {
            bound: vec![false; k.vars.len()],
            pos: vec![Vec::new(); k.accesses.len()],
            present: vec![IrExpr::Bool(true); k.accesses.len()],
            compact: false,
            copies: 1,
            scatter: false,
            reordered: Vec::new(),
        };
        let mut body = self.assembly_init();
        body.extend(self.workspace_init());
        let mut loop_vars = match self.workspace {
            Some(w) => w.outer.clone(),
            None => k.output_vars().to_vec(),
        };
        loop_vars.extend(&self.opened);
        body.extend(self.resolve_located(&mut scope, &[]));
        let general = self.lower_loops(&scope, k.rhs.clone(), Target::Output, &loop_vars);
        let nest = match self.uncut_condition() {
            // Loop versioning: when no block is cut, a nest whose block loops have constant
            // length, so the backend unrolls them and keeps a block row's outputs in registers.
            Some(uncut) => {
                self.uncut = true;
                let fast = self.lower_loops(&scope, k.rhs.clone(), Target::Output, &loop_vars);
                self.uncut = false;
                vec![Stmt::If(uncut, fast, general)]
            }
            None => general,
        };
        match self.empty_covering_root() {
            Some(empty) => {
                let zero = self.zero_everywhere(&scope);
                body.push(Stmt::If(empty, zero, nest));
            }
            None => body.extend(nest),
        }
        body.extend(self.assembly_finalize());
        if let Some(a) = self.dense_output().filter(|_| self.needs_zero_fill()) {
            // What the loops do not write is the right side's fill value (zero when it
            // accumulates across a root sum, which then covers every coordinate).
            let fill = match self.prefill() {
                Some(f) => constant_expr(k, &f).unwrap_or(IrExpr::Value(ValueConst::Zero)),
                None => IrExpr::Value(ValueConst::Zero),
            };
            body.insert(0, Stmt::Expr(call(self.vals(a), "fill", vec![fill])));
        }
        let scratches = self
            .scratches
            .iter()
            .map(|&(a, k)| Stmt::Let(Local::Scratch(a, k), true, IrExpr::NewScratch));
        body.splice(0..0, scratches);
        body
    }

    /// `l.is_uncut() && ...` over every level with constant-width segments, if there is one.
    fn uncut_condition(&self) -> Option<IrExpr> {
        let k = self.kernel;
        let mut seen = std::collections::BTreeSet::new();
        let mut checks = Vec::new();
        for a in 0..k.accesses.len() {
            let format = self.format(a);
            for level in 0..format.order() {
                if format.levels[level].function(LevelFn::Uncut).is_some()
                    && seen.insert((k.accesses[a].tensor, level))
                {
                    checks.push(self.level_call(a, level, LevelFn::Uncut, vec![]));
                }
            }
        }
        checks.into_iter().reduce(|all, c| bin(Op::And, all, c))
    }

    fn info(&self, scope: &Scope, v: VarId) -> LoopLevels<'k> {
        let resolved = scope.pos.iter().map(Vec::len).collect();
        LoopLevels::new(self.kernel, resolved, v)
    }

    fn fail(&self, message: impl Into<String>) {
        self.internal_error
            .borrow_mut()
            .get_or_insert_with(|| message.into());
    }

    // ----- names of the kernel's parts --------------------------------------------------------

    fn level_ref(&self, a: AccessId, level: usize) -> IrExpr {
        var(Local::Level(self.kernel.accesses[a].tensor, level))
    }

    /// A call of level function `f` of level `level` of access `a`, under the runtime name its
    /// declaration gives; an internal error if the level kind does not provide it. For a
    /// function that takes no extra arguments (assembly, `locate` of most kinds).
    fn level_call(&self, a: AccessId, level: usize, f: LevelFn, args: Vec<IrExpr>) -> IrExpr {
        self.level_call_with(None, a, level, f, args)
    }

    /// [`Self::level_call`] inside loops: after `args` come the extra arguments the level's
    /// declaration asks for, its parent's position or ancestors' coordinates, from `scope`.
    fn level_call_in(
        &self,
        scope: &Scope,
        a: AccessId,
        level: usize,
        f: LevelFn,
        args: Vec<IrExpr>,
    ) -> IrExpr {
        self.level_call_with(Some(scope), a, level, f, args)
    }

    fn level_call_with(
        &self,
        scope: Option<&Scope>,
        a: AccessId,
        level: usize,
        f: LevelFn,
        mut args: Vec<IrExpr>,
    ) -> IrExpr {
        let format = self.format(a);
        let Some(function) = format.levels[level].function(f) else {
            self.fail(format!(
                "level {level} of `{}` has no {f:?} level function",
                format.written
            ));
            return call(self.level_ref(a, level), "missing_level_function", args);
        };
        for extra in function.extra {
            args.push(self.extra_arg(scope, a, level, *extra));
        }
        call(self.level_ref(a, level), function.name, args)
    }

    /// The value of an extra level function argument of level `level` of access `a`.
    fn extra_arg(&self, scope: Option<&Scope>, a: AccessId, level: usize, arg: Arg) -> IrExpr {
        let access = &self.kernel.accesses[a];
        match arg {
            Arg::Ancestor(n) if (1..=level).contains(&n) => {
                var(Local::Index(access.level_var(self.format(a), level - n)))
            }
            Arg::ParentPos => {
                let parent = level
                    .checked_sub(1)
                    .and_then(|k| scope.and_then(|s| s.pos[a].get(k)));
                match parent {
                    Some(Pos::One(q)) => q.clone(),
                    _ => {
                        self.fail(format!(
                            "level {level} of access {a} needs its parent's position, which is not resolved here"
                        ));
                        IrExpr::Usize(0)
                    }
                }
            }
            Arg::Ancestor(n) => {
                self.fail(format!(
                    "level {level} of access {a} has no ancestor {n} levels up"
                ));
                IrExpr::Usize(0)
            }
        }
    }

    fn vals(&self, a: AccessId) -> IrExpr {
        var(Local::Vals(self.kernel.accesses[a].tensor))
    }

    fn dim(&self, v: VarId) -> IrExpr {
        var(Local::Dim(v))
    }

    fn format(&self, a: AccessId) -> &'k Format {
        self.kernel.format_of(a)
    }

    /// The value at which a fold by function `f` stops (its annihilator, the same for both
    /// parameters). Not for an operator: `prod` stopping at 0 would skip a later `inf` or
    /// NaN, whose product IEEE arithmetic defines; a function's annihilator holds exactly.
    /// Nor for an infinite annihilator (`min` at `-inf`): only infinite values reach it, so
    /// testing for it in every step costs more than it saves (and keeps `min` from
    /// vectorizing).
    fn early_exit(&self, f: crate::algebra::FuncId) -> Option<crate::algebra::Constant> {
        let function = &self.kernel.functions[f];
        if matches!(function.callee, crate::algebra::Callee::Operator(_)) {
            return None;
        }
        let first = function.annihilator.first()?.as_ref()?;
        if matches!(first, crate::algebra::Constant::Infinity { .. }) {
            return None;
        }
        function
            .annihilator
            .iter()
            .all(|z| z.as_ref().is_some_and(|z| z.same(first)))
            .then(|| first.clone())
    }

    /// The value a dense output is pre-filled with where the loops may not write, if not 0:
    /// the right side's fill value (zero when it accumulates across a root sum).
    fn prefill(&self) -> Option<Expr> {
        let k = self.kernel;
        crate::algebra::fill_of(k, &k.rhs)
            .filter(|_| self.opened.is_empty())
            .filter(|f| !matches!(f, Expr::Const(c) if c.is_zero()))
    }

    /// Whether a dense output starts from zeros where the loops write.
    fn prefilled_with_zero(&self) -> bool {
        self.prefill().is_none()
    }

    /// Where the right side is a sum that covers its dimensions and is not folded inside the
    /// output's loops (it is iterated outside them, or in a workspace's nests): the condition
    /// that one of its dimensions is empty. The sum is then 0 and present at every coordinate
    /// (`crate::algebra::fill_of` is `None`), while its loops write nothing.
    fn empty_covering_root(&self) -> Option<IrExpr> {
        // A workspace's parts are guarded one by one (`through_workspace`).
        if self.opened.is_empty() || self.values_only {
            return None;
        }
        self.empty_covering_sum(&self.kernel.rhs)
    }

    /// For a sum that covers its dimensions (its fill is `None`): the condition that one of
    /// them is empty.
    fn empty_covering_sum(&self, e: &Expr) -> Option<IrExpr> {
        let Expr::Sum(vars, _) = e else {
            return None;
        };
        if crate::algebra::fill_of(self.kernel, e).is_some() {
            return None;
        }
        Some(disjoin(
            vars.iter()
                .map(|&v| bin(Op::Eq, self.dim(v), IrExpr::Usize(0)))
                .collect(),
        ))
    }

    /// The output written at every coordinate with 0 (added to its old contents for `+=`),
    /// in its own loops.
    fn zero_everywhere(&mut self, scope: &Scope) -> Vec<Stmt> {
        let k = self.kernel;
        let (workspace, opened, write) =
            (self.workspace, std::mem::take(&mut self.opened), self.write);
        self.workspace = None;
        self.write = match k.op {
            AssignOp::Assign => Assign::Set,
            _ => Assign::Add,
        };
        let zero = zero_literal();
        // The output's variables in its storage order (a workspace's nests do not bind them
        // all).
        let storage: Vec<VarId> = match k.output_access() {
            Some(a) => (0..self.format(a).order())
                .map(|level| k.accesses[a].level_var(self.format(a), level))
                .collect(),
            None => Vec::new(),
        };
        let order = std::mem::replace(&mut self.order, storage.clone());
        let stmts = self.lower_loops(scope, zero, Target::Output, &storage);
        (self.workspace, self.opened, self.write) = (workspace, opened, write);
        self.order = order;
        stmts
    }

    /// A root sum iterated outside the output's loops (the output accumulates across it)
    /// whose body's fill is not zero: every coordinate it visits adds to the output.
    fn root_covers(&self) -> bool {
        !self.opened.is_empty() && crate::algebra::fill_of(self.kernel, &self.kernel.rhs).is_none()
    }

    fn sparse_output(&self) -> Option<AccessId> {
        self.kernel
            .output_access()
            .filter(|&a| !self.format(a).is_all_dense())
    }

    /// A sparse output whose levels all insert: written in place, in any order.
    fn inserted_output(&self) -> Option<AccessId> {
        self.sparse_output()
            .filter(|&a| self.format(a).inserts_everywhere())
    }

    /// A sparse output appended in storage order.
    fn appended_output(&self) -> Option<AccessId> {
        self.sparse_output()
            .filter(|&a| !self.format(a).inserts_everywhere())
    }

    fn dense_output(&self) -> Option<AccessId> {
        self.kernel
            .output_access()
            .filter(|&a| self.format(a).is_all_dense())
    }

    // ----- loops ----------------------------------------------------------------------------

    /// Emits loops over the next unbound variable of `loop_vars`, or computes when none is left.
    fn lower_loops(
        &mut self,
        scope: &Scope,
        expr: Expr,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let next = self
            .order
            .iter()
            .copied()
            .find(|v| loop_vars.contains(v) && !scope.bound[*v]);
        match next {
            None => self.compute(scope, expr, target),
            Some(v) => self.lower_var(scope, v, expr, target, loop_vars),
        }
    }

    /// The loops over `v`: a lattice merge when its lattice is small and every operand is
    /// statically present, else a compact merge; wrapped in the output segment `v` appends.
    fn lower_var(
        &mut self,
        scope: &Scope,
        v: VarId,
        expr: Expr,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let writes_output = matches!(target, Target::Output);
        let segment = self.appended_output_level(v).filter(|_| writes_output);
        let mut stmts = Vec::new();
        if let Some((a, k)) = segment {
            stmts.extend(self.open_segment(a, k));
        }
        let (loops, exhausts) = match self.small_lattice(scope, &expr, v) {
            Some(lattice) => self.lattice_merge(scope, v, &lattice, target, loop_vars),
            None => self.compact_merge(scope, v, expr, target, loop_vars),
        };
        if writes_output && self.kernel.output_vars().contains(&v) && !exhausts {
            self.covers = false;
        }
        stmts.extend(loops);
        if let Some((a, k)) = segment {
            stmts.extend(self.close_segment(scope, a, k));
        }
        stmts
    }

    // ----- compute ---------------------------------------------------------------------------

    /// Computes the value of `expr` (every loop variable bound) and stores it in `target`.
    fn compute(&mut self, scope: &Scope, expr: Expr, target: Target) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        if let (Target::Output, Some(w)) = (target, self.workspace) {
            return self.through_workspace(scope, expr, w);
        }
        let need_presence = match target {
            Target::Output => self.sparse_output().is_some(),
            Target::Temp { some, .. } => some,
            Target::Workspace => true,
        };
        let (value, present) = self.value(scope, &expr, need_presence, &mut stmts);
        let write = match target {
            Target::Temp {
                id,
                some,
                monoid,
                exit,
                ..
            } => {
                let temp = var(Local::Temp(id));
                let fold = match monoid {
                    None => Stmt::Assign(temp, Assign::Add, value),
                    Some(f) => Stmt::Assign(
                        temp.clone(),
                        Assign::Set,
                        apply(self.kernel, f, &[], vec![temp, value]),
                    ),
                };
                let mut w = vec![fold];
                if some {
                    let flag = var(Local::TempSome(id));
                    w.push(Stmt::Assign(flag, Assign::Set, IrExpr::Bool(true)));
                }
                if let Some(z) = monoid.filter(|_| exit).and_then(|f| self.early_exit(f)) {
                    let reached = bin(Op::Eq, var(Local::Temp(id)), constant(&z));
                    w.push(Stmt::If(reached, vec![Stmt::Exit(id)], vec![]));
                }
                w
            }
            Target::Output => self.write_output(scope, value),
            Target::Workspace => self.workspace_add(value),
        };
        // A dense or scalar output is written everywhere the loops go (zero where nothing is
        // present); a temporary, a workspace or a sparse output only where the iteration space
        // has a point.
        // A reduction that covers its dimension folds every coordinate, present or not.
        let covers = match target {
            Target::Temp { covers, .. } => covers,
            Target::Output | Target::Workspace => self.root_covers(),
        };
        let gated =
            !covers && (!matches!(target, Target::Output) || self.sparse_output().is_some());
        match present {
            IrExpr::Bool(true) => stmts.extend(write),
            IrExpr::Bool(false) if gated => {}
            present if gated => stmts.push(Stmt::If(present, write, vec![])),
            _ => stmts.extend(write),
        }
        stmts
    }

    fn write_output(&mut self, scope: &Scope, value: IrExpr) -> Vec<Stmt> {
        let k = self.kernel;
        match &k.output {
            Output::Scalar(name) => vec![Stmt::Assign(
                IrExpr::Deref(Box::new(IrExpr::Param(name.clone()))),
                if k.op == AssignOp::AddAssign {
                    Assign::Add
                } else {
                    Assign::Set
                },
                value,
            )],
            Output::Tensor(a) if self.inserted_output().is_some() => {
                self.insert_entry(scope, *a, self.write_mode(scope), value)
            }
            Output::Tensor(a) if self.sparse_output().is_some() => self.append_entry(*a, value),
            Output::Tensor(a) => match scope.pos[*a].last() {
                Some(Pos::One(p)) if scope.pos[*a].len() == self.format(*a).order() => {
                    let mode = self.write_mode(scope);
                    vec![Stmt::Assign(index(self.vals(*a), p.clone()), mode, value)]
                }
                _ => {
                    self.fail("output position unresolved at compute");
                    Vec::new()
                }
            },
        }
    }

    /// How a value is written into an output written in place: accumulated below a scatter
    /// loop (each position stands for part of a run), else as the kernel's assignment says.
    fn write_mode(&self, scope: &Scope) -> Assign {
        if scope.scatter {
            Assign::Add
        } else {
            self.write
        }
    }

    /// The value of an expression whose loops are all bound, and whether it is present (a
    /// boolean IR expression, `true` where the lattice guarantees it). Inner sums become
    /// temporaries; their presence flags are kept only when `need_presence` (a sparse output
    /// or an enclosing flag consumes them).
    fn value(
        &mut self,
        scope: &Scope,
        expr: &Expr,
        need_presence: bool,
        stmts: &mut Vec<Stmt>,
    ) -> (IrExpr, IrExpr) {
        let zero = || IrExpr::Value(ValueConst::Zero);
        match expr {
            Expr::Access(a) => match scope.pos[*a].last() {
                Some(Pos::One(p)) if scope.pos[*a].len() == self.format(*a).order() => {
                    let read = index(self.vals(*a), p.clone());
                    let present = scope.present[*a].clone();
                    // A position is only valid where its access is present; elsewhere the
                    // value is the tensor's fill.
                    let fill = &self.kernel.tensors[self.kernel.accesses[*a].tensor].fill;
                    let value = match &present {
                        IrExpr::Bool(true) => read,
                        flag => select(flag.clone(), read, constant(fill)),
                    };
                    (value, present)
                }
                _ => {
                    self.fail(format!("access {a} unresolved at compute"));
                    (zero(), IrExpr::Bool(false))
                }
            },
            Expr::Scalar(s) => (
                IrExpr::Param(self.kernel.scalars[*s].name.clone()),
                IrExpr::Bool(true),
            ),
            Expr::Literal(l) => (
                IrExpr::Value(ValueConst::Literal(l.lit.clone())),
                IrExpr::Bool(true),
            ),
            Expr::Neg(e) => {
                let (v, p) = self.value(scope, e, need_presence, stmts);
                (IrExpr::Neg(Box::new(v)), p)
            }
            Expr::Const(c) => (constant(c), IrExpr::Bool(false)),
            Expr::Binary(..) | Expr::Call(..) => self.applied(scope, expr, need_presence, stmts),
            Expr::Sum(vars, body) | Expr::Reduce(_, vars, body)
                if vars.iter().all(|&v| scope.bound[v]) =>
            {
                // Opened: its body at the loops' coordinate, present there if it covers.
                let (value, present) = self.value(scope, body, need_presence, stmts);
                match crate::algebra::fill_of(self.kernel, expr) {
                    None => (value, IrExpr::Bool(true)),
                    Some(_) => (value, present),
                }
            }
            Expr::Sum(vars, _) | Expr::Reduce(_, vars, _) => {
                let id = self.temps;
                self.temps += 1;
                // A fold starts from its identity (`0` for a sum).
                let (init, monoid) = match expr {
                    Expr::Reduce(f, ..) => {
                        let identity = self.kernel.functions[*f].fold_start().cloned();
                        match identity {
                            Some(i) => (constant(&i), Some(*f)),
                            None => {
                                self.fail("a reduction by a function without an identity");
                                (zero(), Some(*f))
                            }
                        }
                    }
                    _ => (zero(), None),
                };
                // Where the body's fill is not the reduction's identity, every coordinate
                // takes part, and the reduction has no single fill value: it is present
                // everywhere, over an empty dimension too (where it is its identity, `0` for
                // a sum), as `crate::algebra::fill_of` says by `None`.
                let covers = crate::algebra::fill_of(self.kernel, expr).is_none();
                let some = need_presence && !covers;
                stmts.push(Stmt::Let(Local::Temp(id), true, init));
                if some {
                    stmts.push(Stmt::Let(Local::TempSome(id), true, IrExpr::Bool(false)));
                }
                let exit = monoid.and_then(|f| self.early_exit(f));
                let target = Target::Temp {
                    id,
                    some,
                    monoid,
                    covers,
                    exit: exit.is_some(),
                };
                let loops = self.lower_loops(scope, expr.clone(), target, vars);
                // Labelled only where a fold can exit (a label nothing leaves is a warning).
                if ir::exits(&loops, id) {
                    stmts.push(Stmt::Block(id, loops));
                } else {
                    stmts.extend(loops);
                }
                let present = if some {
                    var(Local::TempSome(id))
                } else {
                    IrExpr::Bool(true)
                };
                (var(Local::Temp(id)), present)
            }
        }
    }

    /// An operator or a call over its arguments' values. It is present where its region
    /// (`crate::algebra::region_of`: a union, an intersection, a declared formula) holds over
    /// its arguments' presence; an absent argument's value is its fill. Under a compact merge
    /// the value is computed everywhere the loop goes, so outside the region it is replaced
    /// by the node's fill, as a lattice case would omit it (`0 * x` is `0` even for an
    /// infinite `x`).
    fn applied(
        &mut self,
        scope: &Scope,
        expr: &Expr,
        need_presence: bool,
        stmts: &mut Vec<Stmt>,
    ) -> (IrExpr, IrExpr) {
        let k = self.kernel;
        let args = expr.children();
        let region = crate::algebra::region_of(k, expr);
        // Outside a union the value is its arguments' fills' value, the node's fill: only
        // a narrower region needs the value replaced where it does not hold.
        let union = region == crate::algebra::Region::any(&(0..args.len()).collect::<Vec<_>>());
        // A declared region defines the value outside it as the fill, which the function
        // need not compute: where presence is a run-time flag (a located hash level, a
        // compact merge), the value is replaced there.
        let declared = matches!(expr, Expr::Call(f, _) if k.functions[*f].iterate.is_some());
        let dynamic = (scope.compact || declared) && !union;
        let need = need_presence || dynamic;
        let need = need || declared;
        let mut values = Vec::new();
        let mut presences = Vec::new();
        for arg in &args {
            let (v, p) = self.value(scope, arg, need, stmts);
            values.push(v);
            presences.push(p);
        }
        let value = match expr {
            Expr::Binary(op, ..) => {
                let ir_op = Op::from(*op);
                let mut values = values.into_iter();
                match (values.next(), values.next()) {
                    (Some(l), Some(r)) => bin(ir_op, l, r),
                    _ => IrExpr::Value(ValueConst::Zero),
                }
            }
            Expr::Call(f, args) => apply(k, *f, args, values),
            _ => IrExpr::Value(ValueConst::Zero),
        };
        let present = match &region {
            Some(r) => r.fold(
                &mut |n| presences.get(n).cloned().unwrap_or(IrExpr::Bool(false)),
                &and,
                &or,
                &|p| match p {
                    IrExpr::Bool(b) => IrExpr::Bool(!b),
                    p => IrExpr::Not(Box::new(p)),
                },
            ),
            None => IrExpr::Bool(true),
        };
        let present = self.flag(present, stmts);
        let fill = crate::algebra::fill_of(k, expr);
        match (&present, fill) {
            (IrExpr::Bool(true), _) | (_, None) => (value, present),
            (flag, Some(fill)) if dynamic => match constant_expr(k, &fill) {
                Some(fill) => (select(flag.clone(), value, fill), present),
                None => (value, present),
            },
            _ => (value, present),
        }
    }

    /// A compound presence bound to a local, so that enclosing expressions refer to it rather
    /// than copy it (a chain of products would otherwise grow quadratically).
    fn flag(&mut self, present: IrExpr, stmts: &mut Vec<Stmt>) -> IrExpr {
        if matches!(present, IrExpr::Bool(_) | IrExpr::Var(_)) {
            return present;
        }
        let local = Local::Flag(self.flags);
        self.flags += 1;
        stmts.push(Stmt::Let(local, false, present));
        var(local)
    }
}

/// The call of function `f` over `values` (the IR of the notation's `args`): a per-case
/// body where one matches the arguments that are fill constants (empty `args` matches
/// none), else the function.
pub(crate) fn apply(
    kernel: &Kernel,
    f: crate::algebra::FuncId,
    args: &[Expr],
    values: Vec<IrExpr>,
) -> IrExpr {
    use crate::algebra::CaseArg;
    let function = &kernel.functions[f];
    let matches = |case: &crate::algebra::Case| {
        args.len() == case.args.len()
            && case
                .args
                .iter()
                .zip(args)
                .all(|(pattern, arg)| match (pattern, arg) {
                    (CaseArg::Bind(_), _) => true,
                    (CaseArg::Const(c), Expr::Const(d)) => c.same(d),
                    (CaseArg::Const(_), _) => false,
                })
    };
    if let Some((n, case)) = function.cases.iter().enumerate().find(|(_, c)| matches(c)) {
        let bound: Vec<IrExpr> = case
            .args
            .iter()
            .zip(values)
            .filter(|(p, _)| matches!(p, CaseArg::Bind(_)))
            .map(|(_, v)| v)
            .collect();
        return IrExpr::Apply(crate::ir::Callee::Case(f, n), bound);
    }
    IrExpr::Apply(crate::ir::Callee::Function(f), values)
}

/// A constant of the value type.
pub(crate) fn constant(c: &crate::algebra::Constant) -> IrExpr {
    use crate::algebra::Constant;
    match c {
        c if c.is_zero() => IrExpr::Value(ValueConst::Zero),
        Constant::Number { lit, negative, .. } => {
            let v = IrExpr::Value(ValueConst::Literal(lit.clone()));
            if *negative {
                IrExpr::Neg(Box::new(v))
            } else {
                v
            }
        }
        Constant::Infinity { negative } => IrExpr::Value(ValueConst::Infinity(*negative)),
    }
}

/// A constant expression (a fill value derived by `crate::algebra::fill_of`), or `None`
/// if it is not one.
pub(crate) fn constant_expr(kernel: &Kernel, e: &Expr) -> Option<IrExpr> {
    Some(match e {
        Expr::Const(c) => constant(c),
        Expr::Neg(x) => IrExpr::Neg(Box::new(constant_expr(kernel, x)?)),
        Expr::Binary(op, l, r) => {
            let op = Op::from(*op);
            bin(op, constant_expr(kernel, l)?, constant_expr(kernel, r)?)
        }
        Expr::Call(f, args) => {
            let values = args
                .iter()
                .map(|a| constant_expr(kernel, a))
                .collect::<Option<_>>()?;
            apply(kernel, *f, args, values)
        }
        _ => return None,
    })
}

/// The literal `0`, present at every coordinate.
fn zero_literal() -> Expr {
    Expr::Literal(crate::notation::Literal {
        lit: syn::Lit::Int(syn::LitInt::new("0", proc_macro2::Span::call_site())),
    })
}

/// Removes `v` from a sum at the root of `expr`: the enclosing loop now iterates it.
fn open_sum(kernel: &Kernel, expr: Expr, v: VarId) -> Expr {
    match expr {
        Expr::Sum(vars, body) if vars.contains(&v) => {
            // A sum that covers its dimensions stays a node (over no variables) once they are
            // all open: the loops below must still visit every coordinate, where its body is
            // absent too (`Σ_k z(i, k)` over a 1-filled `z`, opened at `k`, adds the fill at
            // every `i` of a stored column).
            let covers = crate::algebra::fill_of(kernel, &body)
                .is_none_or(|f| !matches!(f, Expr::Const(c) if c.is_zero()));
            let rest: Vec<VarId> = vars.into_iter().filter(|&u| u != v).collect();
            if rest.is_empty() && !covers {
                *body
            } else {
                Expr::Sum(rest, body)
            }
        }
        other => other,
    }
}

/// `a && b && ...` of a non-empty list (`true` for an empty one).
fn conjoin(conds: Vec<IrExpr>) -> IrExpr {
    conds.into_iter().fold(IrExpr::Bool(true), and)
}

/// `a || b || ...` (`false` for an empty list).
fn disjoin(conds: Vec<IrExpr>) -> IrExpr {
    conds.into_iter().fold(IrExpr::Bool(false), or)
}

/// Level facts for the lattice of the loop over `v`, given how many levels of each access
/// (from the root) the loops around it resolve. Lowering and `crate::explain` both ask it.
pub struct LoopLevels<'a> {
    kernel: &'a Kernel,
    /// Per access, how many of its levels are resolved around the loop.
    resolved: Vec<usize>,
    v: VarId,
}

impl<'a> LoopLevels<'a> {
    /// The facts of the loop over `v` with `resolved[a]` levels of access `a` resolved.
    pub fn new(kernel: &'a Kernel, resolved: Vec<usize>, v: VarId) -> Self {
        LoopLevels {
            kernel,
            resolved,
            v,
        }
    }

    /// The loop's variable.
    pub fn var(&self) -> VarId {
        self.v
    }
}

impl LevelInfo for LoopLevels<'_> {
    fn level_of(&self, a: AccessId) -> Option<usize> {
        let format = self.kernel.format_of(a);
        (self.resolved[a]..format.order())
            .find(|&k| self.kernel.accesses[a].level_var(format, k) == self.v)
    }

    fn is_full(&self, it: Iter) -> bool {
        match it {
            Iter::Universe => true,
            Iter::Level { access, level } => self.kernel.format_of(access).levels[level].is_full(),
        }
    }

    fn has_locate(&self, it: Iter) -> bool {
        match it {
            Iter::Universe => true,
            Iter::Level { access, level } => {
                self.kernel.format_of(access).levels[level].has_locate()
            }
        }
    }

    fn settled(&self, a: AccessId) -> bool {
        // Every level is resolved, or this loop's is the last and all above it are: a last
        // level reached before its parents (a dense level located once they are, `g(j, i)`
        // of a `(Compressed, Dense)` `g` at `i` outside `j`) still waits on them.
        let order = self.kernel.format_of(a).order();
        self.resolved[a] == order
            || (self.level_of(a) == Some(order - 1) && self.resolved[a] == order - 1)
    }

    fn iterates_positions(&self, it: Iter) -> bool {
        match it {
            Iter::Universe => false,
            Iter::Level { access, level } => {
                let l = &self.kernel.format_of(access).levels[level];
                l.iteration() == Iteration::CoordinatePosition
                    && (!l.has_locate() || self.resolved[access] == level)
            }
        }
    }
}
