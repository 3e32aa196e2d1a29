//! Lowering (taco, section 6; Chou 2018, section 4.5): for each index variable in loop order,
//! build its merge lattice and emit one merge loop per lattice point, with one case per point of
//! its sub-lattice; compute values where every output variable is bound, with scalar temporaries
//! for inner sums; assemble sparse outputs by appending in loop order.

use crate::format::{Assembly, Format};
use crate::ir::{self, bin, call, index, var, Assign, Expr as IrExpr, Op, Stmt, ValueConst};
use crate::iteration_graph::root_sum_vars;
use crate::lattice::{drivers, Iter, LatticePoint, LevelInfo, MergeLattice};
use crate::notation::{AccessId, AssignOp, Expr, Kernel, Output, VarId};

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
}

/// Where computed values go.
#[derive(Clone, Debug)]
enum Target {
    /// The kernel's output.
    Output,
    /// A scalar temporary accumulating an inner sum.
    Temp(String),
}

/// Lowers a checked kernel under a loop order to the statements of its body (which follow
/// the shape checks and bindings), or reports an internal invariant failure.
pub fn lower(kernel: &Kernel, order: &[VarId]) -> Result<Vec<Stmt>, String> {
    let mut l = Lowerer::new(kernel, order);
    let body = l.run();
    match l.internal_error {
        Some(e) => Err(e),
        None => Ok(ir::prune_unused_lets(body)),
    }
}

struct Lowerer<'k> {
    kernel: &'k Kernel,
    order: &'k [VarId],
    /// Root-sum variables iterated outside an output variable: the output accumulates.
    opened: Vec<VarId>,
    write: Assign,
    /// Whether every component of a dense output is written (else it is zero-filled first).
    covers: bool,
    temps: usize,
    internal_error: Option<String>,
}

impl<'k> Lowerer<'k> {
    fn new(kernel: &'k Kernel, order: &'k [VarId]) -> Self {
        let out_vars = kernel.output_vars();
        let last_out = out_vars
            .iter()
            .filter_map(|v| order.iter().position(|o| o == v))
            .max();
        let opened: Vec<VarId> = root_sum_vars(kernel)
            .into_iter()
            .filter(|v| last_out.is_some_and(|l| order.iter().position(|o| o == v) < Some(l)))
            .collect();
        let write = if opened.is_empty() && kernel.op == AssignOp::Assign {
            Assign::Set
        } else {
            Assign::Add
        };
        Lowerer {
            kernel,
            order,
            opened,
            write,
            covers: true,
            temps: 0,
            internal_error: None,
        }
    }

    fn run(&mut self) -> Vec<Stmt> {
        let k = self.kernel;
        let mut scope = Scope {
            bound: vec![false; k.vars.len()],
            pos: vec![Vec::new(); k.accesses.len()],
        };
        let mut body = self.assembly_init();
        let mut loop_vars = k.output_vars().to_vec();
        loop_vars.extend(&self.opened);
        body.extend(self.resolve_dense(&mut scope, &[]));
        body.extend(self.lower_loops(&scope, k.rhs.clone(), &Target::Output, &loop_vars));
        body.extend(self.assembly_finalize());
        if self.needs_zero_fill() {
            let fill = call(
                self.vals(self.kernel.output_access().unwrap_or(0)),
                "fill",
                vec![IrExpr::Value(ValueConst::Zero)],
            );
            body.insert(0, Stmt::Expr(fill));
        }
        body
    }

    fn info<'s>(&self, scope: &'s Scope, v: VarId) -> LoopInfo<'s>
    where
        'k: 's,
    {
        LoopInfo {
            kernel: self.kernel,
            scope,
            v,
        }
    }

    fn fail(&mut self, message: impl Into<String>) {
        self.internal_error.get_or_insert(message.into());
    }

    // ----- names --------------------------------------------------------------------------

    /// A readable label per access: the tensor name, numbered when a tensor occurs twice.
    fn label(&self, a: AccessId) -> String {
        let k = self.kernel;
        let tensor = k.accesses[a].tensor;
        let name = k.tensors[tensor].name.to_string();
        let same: Vec<AccessId> = (0..k.accesses.len())
            .filter(|&b| k.accesses[b].tensor == tensor)
            .collect();
        if same.len() == 1 {
            name
        } else {
            let n = same.iter().position(|&b| b == a).unwrap_or(0);
            format!("{name}{}", n + 1)
        }
    }

    fn level_ref(&self, a: AccessId, level: usize) -> IrExpr {
        let tensor = &self.kernel.tensors[self.kernel.accesses[a].tensor];
        var(format!("{}_l{level}", tensor.name))
    }

    fn vals(&self, a: AccessId) -> IrExpr {
        let tensor = &self.kernel.tensors[self.kernel.accesses[a].tensor];
        var(format!("{}_vals", tensor.name))
    }

    fn var_name(&self, v: VarId) -> String {
        self.kernel.vars[v].name.to_string()
    }

    fn dim(&self, v: VarId) -> IrExpr {
        var(format!("dim_{}", self.var_name(v)))
    }

    fn format(&self, a: AccessId) -> &'k Format {
        self.kernel.format_of(a)
    }

    fn sparse_output(&self) -> Option<AccessId> {
        self.kernel
            .output_access()
            .filter(|&a| !self.format(a).is_all_dense())
    }

    // ----- loops ----------------------------------------------------------------------------

    /// Emits loops over the next unbound variable of `loop_vars`, or computes when none is left.
    fn lower_loops(
        &mut self,
        scope: &Scope,
        expr: Expr,
        target: &Target,
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

    fn lower_var(
        &mut self,
        scope: &Scope,
        v: VarId,
        expr: Expr,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let info = self.info(scope, v);
        let lattice = MergeLattice::build(&expr, &info);
        let writes_output = matches!(target, Target::Output);
        if writes_output && self.kernel.output_vars().contains(&v) && !lattice.is_full(&info) {
            self.covers = false;
        }
        let appended = if writes_output {
            self.appended_output_level(v)
        } else {
            None
        };
        let mut stmts = Vec::new();
        if let Some((a, k)) = appended {
            let len = call(self.level_ref(a, k), "len", vec![]);
            stmts.push(Stmt::Let(self.begin_name(a, k), false, len));
        }
        stmts.extend(self.merge_loops(scope, v, &lattice, target, loop_vars));
        if let Some((a, k)) = appended {
            stmts.extend(self.close_segment(scope, a, k));
        }
        stmts
    }

    /// The loops of one lattice: a plain `for` when one iterator drives a single point, else a
    /// sequence of merge loops (one per point) sharing iterator state.
    fn merge_loops(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let info = self.info(scope, v);
        let Some(top) = lattice.points.first() else {
            return Vec::new();
        };
        let dense_driven = lattice.is_full(&info);
        let (sparse, _) = drivers(top, &info);
        if lattice.points.len() == 1 {
            if dense_driven && sparse.is_empty() {
                let body = self.case_body(scope, v, top, target, loop_vars);
                return vec![Stmt::For(
                    self.var_name(v),
                    IrExpr::Usize(0),
                    self.dim(v),
                    body,
                )];
            }
            if !dense_driven && sparse.len() == 1 {
                return self.single_iterator_loop(scope, v, top, sparse[0], target, loop_vars);
            }
        }
        self.general_merge(scope, v, lattice, dense_driven, target, loop_vars)
    }

    /// `for p in lo..hi { let v = crd[p]; ... }`, with a deduplication step for non-unique levels.
    fn single_iterator_loop(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        (a, k): (AccessId, usize),
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let (p, end, run) = (self.p_name(a, k), self.end_name(a, k), self.run_name(a, k));
        let unique = self.format(a).levels[k].unique;
        let mut stmts = self.iterator_bounds(scope, a, k, !unique);
        let coord = call(self.level_ref(a, k), "pos_access_unchecked", vec![var(&p)]);
        let mut body = vec![Stmt::Let(self.var_name(v), false, coord)];
        if unique {
            body.extend(self.case_body(scope, v, point, target, loop_vars));
            stmts.push(Stmt::For(p.clone(), var(&p), var(&end), body));
            return stmts;
        }
        let run_end = call(
            self.level_ref(a, k),
            "run_end_unchecked",
            vec![var(&p), var(&end)],
        );
        body.push(Stmt::Let(run.clone(), false, run_end));
        body.extend(self.case_body(scope, v, point, target, loop_vars));
        body.push(Stmt::Assign(var(&p), Assign::Set, var(&run)));
        stmts.push(Stmt::While(bin(Op::Lt, var(&p), var(&end)), body));
        stmts
    }

    /// Taco's merge: one `while` per lattice point, cases for its sub-lattice, conditional
    /// advance of every iterator that took part in the current coordinate.
    fn general_merge(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        dense_driven: bool,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let info = self.info(scope, v);
        let top = &lattice.points[0];
        let all_sparse = drivers(top, &info).0;
        let mut stmts = Vec::new();
        for &(a, k) in &all_sparse {
            stmts.extend(self.iterator_bounds(scope, a, k, true));
        }
        let v_name = self.var_name(v);
        if dense_driven {
            stmts.push(Stmt::Let(v_name.clone(), true, IrExpr::Usize(0)));
        }
        for point in &lattice.points {
            let (sparse, _) = drivers(point, &info);
            let mut cond: Vec<IrExpr> = sparse
                .iter()
                .map(|&(a, k)| bin(Op::Lt, var(self.p_name(a, k)), var(self.end_name(a, k))))
                .collect();
            if dense_driven {
                cond.push(bin(Op::Lt, var(&v_name), self.dim(v)));
            }
            let body = self.merge_body(
                scope,
                v,
                lattice,
                point,
                &sparse,
                dense_driven,
                target,
                loop_vars,
            );
            if cond.is_empty() {
                self.fail("a merge loop without a driving iterator");
            }
            stmts.push(Stmt::While(conjoin(cond), body));
        }
        stmts
    }

    #[allow(clippy::too_many_arguments)]
    fn merge_body(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        point: &LatticePoint,
        sparse: &[(AccessId, usize)],
        dense_driven: bool,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let v_name = self.var_name(v);
        let mut body = Vec::new();
        for &(a, k) in sparse {
            let coord = call(
                self.level_ref(a, k),
                "pos_access_unchecked",
                vec![var(self.p_name(a, k))],
            );
            body.push(Stmt::Let(self.coord_name(a, k), false, coord));
        }
        let trivially_matched = !dense_driven && sparse.len() == 1;
        if !dense_driven {
            let coords = sparse.iter().map(|&(a, k)| var(self.coord_name(a, k)));
            let min = coords
                .reduce(|x, y| IrExpr::Min(Box::new(x), Box::new(y)))
                .unwrap_or(IrExpr::Usize(0));
            body.push(Stmt::Let(v_name.clone(), false, min));
        }
        // Deduplicate only an iterator that sits at the current coordinate: scanning its run
        // on every step of a merge would rescan it until the merge reaches it.
        for &(a, k) in sparse
            .iter()
            .filter(|&&(a, k)| !self.format(a).levels[k].unique)
        {
            let p = var(self.p_name(a, k));
            let run_end = call(
                self.level_ref(a, k),
                "run_end_unchecked",
                vec![p.clone(), var(self.end_name(a, k))],
            );
            let run = if trivially_matched {
                run_end
            } else {
                IrExpr::Select(
                    Box::new(self.matches(a, k, v)),
                    Box::new(run_end),
                    Box::new(p),
                )
            };
            body.push(Stmt::Let(self.run_name(a, k), false, run));
        }
        let cases: Vec<LatticePoint> = lattice.sub_points(point).cloned().collect();
        body.extend(self.cases(scope, v, &cases, trivially_matched, target, loop_vars));
        for &(a, k) in sparse {
            let next = if self.format(a).levels[k].unique {
                bin(Op::Add, var(self.p_name(a, k)), IrExpr::Usize(1))
            } else {
                var(self.run_name(a, k))
            };
            let advance = Stmt::Assign(var(self.p_name(a, k)), Assign::Set, next);
            body.push(if trivially_matched {
                advance
            } else {
                Stmt::If(self.matches(a, k, v), vec![advance], vec![])
            });
        }
        if dense_driven {
            body.push(Stmt::Assign(var(&v_name), Assign::Add, IrExpr::Usize(1)));
        }
        body
    }

    /// An if/else-if chain over the sub-lattice: the first point whose sparse iterators all sit
    /// at the current coordinate computes its expression.
    fn cases(
        &mut self,
        scope: &Scope,
        v: VarId,
        cases: &[LatticePoint],
        trivially_matched: bool,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let Some((first, rest)) = cases.split_first() else {
            return Vec::new();
        };
        let info = self.info(scope, v);
        let conds: Vec<IrExpr> = first
            .iters
            .iter()
            .filter_map(|&it| match it {
                Iter::Level { access, level } if !info.has_locate(it) && !trivially_matched => {
                    Some(self.matches(access, level, v))
                }
                _ => None,
            })
            .collect();
        let body = self.case_body(scope, v, first, target, loop_vars);
        if conds.is_empty() {
            return body;
        }
        let otherwise = self.cases(scope, v, rest, trivially_matched, target, loop_vars);
        vec![Stmt::If(conjoin(conds), body, otherwise)]
    }

    fn matches(&self, a: AccessId, k: usize, v: VarId) -> IrExpr {
        bin(Op::Eq, var(self.coord_name(a, k)), var(self.var_name(v)))
    }

    /// The body of one case: bind positions of the point's iterators, locate dense levels, and
    /// go on with the next loop.
    fn case_body(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        target: &Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let mut inner = scope.clone();
        inner.bound[v] = true;
        for &it in &point.iters {
            let Iter::Level {
                access: a,
                level: k,
            } = it
            else {
                continue;
            };
            let level = &self.format(a).levels[k];
            if level.has_locate() {
                continue;
            }
            if inner.pos[a].len() != k {
                self.fail(format!(
                    "level {k} of access {a} iterated before its parent"
                ));
                continue;
            }
            let p = var(self.p_name(a, k));
            inner.pos[a].push(if level.unique {
                Pos::One(p)
            } else {
                Pos::Run(p, var(self.run_name(a, k)))
            });
        }
        let mut accesses = Vec::new();
        point.expr.accesses(&mut accesses);
        let mut body = self.resolve_dense(&mut inner, &accesses);
        let expr = open_sum(point.expr.clone(), v);
        body.extend(self.lower_loops(&inner, expr, target, loop_vars));
        body
    }

    /// Locates every dense level whose coordinate is bound and whose parent is resolved.
    fn resolve_dense(&mut self, scope: &mut Scope, accesses: &[AccessId]) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let output = self.kernel.output_access();
        for a in accesses.iter().copied().chain(output) {
            let format = self.format(a);
            loop {
                let k = scope.pos[a].len();
                if k == format.order() || !format.levels[k].has_locate() {
                    break;
                }
                let v = self.kernel.accesses[a].level_var(format, k);
                if !scope.bound[v] {
                    break;
                }
                let coord = var(self.var_name(v));
                let pos = match scope.pos[a].last() {
                    None => coord,
                    Some(Pos::One(parent)) => {
                        let name = self.p_name(a, k);
                        let located =
                            call(self.level_ref(a, k), "locate", vec![parent.clone(), coord]);
                        stmts.push(Stmt::Let(name.clone(), false, located));
                        var(name)
                    }
                    Some(Pos::Run(..)) => {
                        self.fail("a dense level below a non-unique level");
                        break;
                    }
                };
                scope.pos[a].push(Pos::One(pos));
            }
        }
        stmts
    }

    /// `let (mut p, end) = bounds` for a position iterator below its parent's position (or,
    /// for a singleton below a non-unique parent, the parent's run: iterator chaining).
    fn iterator_bounds(
        &mut self,
        scope: &Scope,
        a: AccessId,
        k: usize,
        mutable: bool,
    ) -> Vec<Stmt> {
        let (p, end) = (self.p_name(a, k), self.end_name(a, k));
        let parent = k.checked_sub(1).and_then(|j| scope.pos[a].get(j)).cloned();
        // A branchless level's positions are its parent's; otherwise its `pos` array gives the
        // segment below the parent position (the root's is position 0).
        match (self.format(a).levels[k].is_branchless(), parent) {
            (true, Some(Pos::Run(lo, hi))) => {
                vec![Stmt::Let(p, mutable, lo), Stmt::Let(end, false, hi)]
            }
            (true, Some(Pos::One(q))) => vec![
                Stmt::Let(p, mutable, q.clone()),
                Stmt::Let(end, false, bin(Op::Add, q, IrExpr::Usize(1))),
            ],
            (false, parent @ (None | Some(Pos::One(_)))) => {
                let parent = match parent {
                    Some(Pos::One(q)) => q,
                    _ => IrExpr::Usize(0),
                };
                let bounds = call(self.level_ref(a, k), "pos_bounds_unchecked", vec![parent]);
                vec![Stmt::LetPair(p, end, mutable, bounds)]
            }
            _ => {
                self.fail(format!("no position bounds for level {k} of access {a}"));
                Vec::new()
            }
        }
    }

    fn p_name(&self, a: AccessId, k: usize) -> String {
        format!("p_{}{k}", self.label(a))
    }
    fn end_name(&self, a: AccessId, k: usize) -> String {
        format!("end_{}{k}", self.label(a))
    }
    fn coord_name(&self, a: AccessId, k: usize) -> String {
        format!("c_{}{k}", self.label(a))
    }
    fn run_name(&self, a: AccessId, k: usize) -> String {
        format!("r_{}{k}", self.label(a))
    }
    fn begin_name(&self, a: AccessId, k: usize) -> String {
        format!("begin_{}{k}", self.label(a))
    }

    // ----- compute ---------------------------------------------------------------------------

    /// Computes the value of `expr` (every loop variable bound) and stores it in `target`.
    fn compute(&mut self, scope: &Scope, expr: Expr, target: &Target) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        let value = self.value(scope, &expr, &mut stmts);
        match target {
            Target::Temp(t) => stmts.push(Stmt::Assign(var(t), Assign::Add, value)),
            Target::Output => stmts.extend(self.write_output(scope, value)),
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
            Output::Tensor(a) if self.sparse_output().is_some() => {
                let mut stmts: Vec<Stmt> = (self.lockstep_tail(*a)..self.format(*a).order())
                    .map(|level| {
                        let v = k.accesses[*a].level_var(self.format(*a), level);
                        let coord = vec![var(self.var_name(v))];
                        Stmt::Expr(call(self.level_ref(*a, level), "append_coord", coord))
                    })
                    .collect();
                stmts.push(Stmt::Expr(call(self.vals(*a), "push", vec![value])));
                stmts
            }
            Output::Tensor(a) => match scope.pos[*a].last() {
                Some(Pos::One(p)) if scope.pos[*a].len() == self.format(*a).order() => {
                    vec![Stmt::Assign(
                        index(self.vals(*a), p.clone()),
                        self.write,
                        value,
                    )]
                }
                _ => {
                    self.fail("output position unresolved at compute");
                    Vec::new()
                }
            },
        }
    }

    /// The value of an expression whose loops are all bound; inner sums become temporaries.
    fn value(&mut self, scope: &Scope, expr: &Expr, stmts: &mut Vec<Stmt>) -> IrExpr {
        match expr {
            Expr::Access(a) => match scope.pos[*a].last() {
                Some(Pos::One(p)) if scope.pos[*a].len() == self.format(*a).order() => {
                    index(self.vals(*a), p.clone())
                }
                _ => {
                    self.fail(format!("access {a} unresolved at compute"));
                    IrExpr::Value(ValueConst::Zero)
                }
            },
            Expr::Scalar(s) => IrExpr::Param(self.kernel.scalars[*s].name.clone()),
            Expr::Literal(l) => IrExpr::Value(ValueConst::Literal(l.lit.clone())),
            Expr::Neg(e) => IrExpr::Neg(Box::new(self.value(scope, e, stmts))),
            Expr::Binary(op, l, r) => {
                let op = match op {
                    crate::notation::BinOp::Add => Op::Add,
                    crate::notation::BinOp::Sub => Op::Sub,
                    crate::notation::BinOp::Mul => Op::Mul,
                    crate::notation::BinOp::Div => Op::Div,
                };
                let l = self.value(scope, l, stmts);
                let r = self.value(scope, r, stmts);
                bin(op, l, r)
            }
            Expr::Sum(vars, body) if vars.iter().all(|&v| scope.bound[v]) => {
                self.value(scope, body, stmts)
            }
            Expr::Sum(vars, _) => {
                let t = format!("t{}", self.temps);
                self.temps += 1;
                stmts.push(Stmt::Let(t.clone(), true, IrExpr::Value(ValueConst::Zero)));
                let target = Target::Temp(t.clone());
                stmts.extend(self.lower_loops(scope, expr.clone(), &target, vars));
                var(t)
            }
        }
    }

    // ----- output assembly -------------------------------------------------------------------

    fn needs_zero_fill(&self) -> bool {
        let dense_out = self.kernel.output_access().is_some() && self.sparse_output().is_none();
        dense_out && self.kernel.op == AssignOp::Assign && (!self.covers || !self.opened.is_empty())
    }

    /// First level of the output's lockstep tail: the last level with a `pos` array and the
    /// branchless levels below it append one coordinate each per computed entry.
    fn lockstep_tail(&self, a: AccessId) -> usize {
        let levels = &self.format(a).levels;
        (0..levels.len())
            .rev()
            .find(|&k| !levels[k].is_branchless())
            .unwrap_or(0)
    }

    /// The compressed output level appended by the loop over `v`, if any.
    fn appended_output_level(&self, v: VarId) -> Option<(AccessId, usize)> {
        let a = self.sparse_output()?;
        let format = self.format(a);
        (0..format.order())
            .find(|&k| {
                format.levels[k].appends_segments()
                    && self.kernel.accesses[a].level_var(format, k) == v
            })
            .map(|k| (a, k))
    }

    /// Clears the output's compressed levels and values before assembly.
    fn assembly_init(&self) -> Vec<Stmt> {
        let Some(a) = self.sparse_output() else {
            return Vec::new();
        };
        let mut stmts = Vec::new();
        let format = self.format(a);
        let appending = |k: &usize| format.levels[*k].assembly() == Assembly::Append;
        for k in (0..format.order()).filter(appending) {
            let hint = self.dense_prefix_size(a, k).unwrap_or(IrExpr::Usize(0));
            stmts.push(Stmt::Expr(call(
                self.level_ref(a, k),
                "append_init",
                vec![hint],
            )));
        }
        stmts.push(Stmt::Expr(call(self.vals(a), "clear", vec![])));
        stmts
    }

    /// Closes the segment of level `k` below its parent: records its edges when it is not empty
    /// and appends the parent's coordinate when the parent is compressed (taco 6.3: empty
    /// segments are elided).
    fn close_segment(&mut self, scope: &Scope, a: AccessId, k: usize) -> Vec<Stmt> {
        let level = self.level_ref(a, k);
        let begin = var(self.begin_name(a, k));
        let end = call(level.clone(), "len", vec![]);
        if k == 0 {
            return vec![Stmt::Expr(call(
                level,
                "append_edges",
                vec![IrExpr::Usize(0), begin, end],
            ))];
        }
        let format = self.format(a);
        let parent_assembly = format.levels[k - 1].assembly();
        let parent_pos = match (parent_assembly, scope.pos[a].get(k - 1)) {
            (Assembly::Append, _) => call(self.level_ref(a, k - 1), "len", vec![]),
            (_, Some(Pos::One(p))) => p.clone(),
            _ => {
                self.fail("output parent position unresolved");
                IrExpr::Usize(0)
            }
        };
        let end_name = format!("end_{}{k}", self.label(a));
        let mut then = vec![Stmt::Expr(call(
            level,
            "append_edges",
            vec![parent_pos, begin.clone(), var(&end_name)],
        ))];
        if parent_assembly == Assembly::Append {
            let v = self.kernel.accesses[a].level_var(format, k - 1);
            then.push(Stmt::Expr(call(
                self.level_ref(a, k - 1),
                "append_coord",
                vec![var(self.var_name(v))],
            )));
        }
        vec![
            Stmt::Let(end_name.clone(), false, end),
            Stmt::If(bin(Op::Gt, var(end_name), begin), then, vec![]),
        ]
    }

    fn assembly_finalize(&self) -> Vec<Stmt> {
        let Some(a) = self.sparse_output() else {
            return Vec::new();
        };
        self.compressed_levels(a)
            .map(|k| {
                let parents = match k {
                    0 => IrExpr::Usize(1),
                    _ if self.format(a).levels[k - 1].assembly() == Assembly::Append => {
                        call(self.level_ref(a, k - 1), "len", vec![])
                    }
                    _ => self.dense_prefix_size(a, k).unwrap_or(IrExpr::Usize(0)),
                };
                let finalize = call(self.level_ref(a, k), "append_finalize", vec![parents]);
                Stmt::Expr(ir::try_(finalize))
            })
            .collect()
    }

    fn compressed_levels(&self, a: AccessId) -> impl Iterator<Item = usize> + '_ {
        let format = self.format(a);
        (0..format.order()).filter(move |&k| format.levels[k].appends_segments())
    }

    /// Number of parent positions of level `k` when every level above it is dense.
    fn dense_prefix_size(&self, a: AccessId, k: usize) -> Option<IrExpr> {
        let format = self.format(a);
        if !format.levels[..k]
            .iter()
            .all(|l| l.assembly() == Assembly::Insert)
        {
            return None;
        }
        let dims = (0..k).map(|j| self.dim(self.kernel.accesses[a].level_var(format, j)));
        Some(
            dims.reduce(|x, y| bin(Op::Mul, x, y))
                .unwrap_or(IrExpr::Usize(1)),
        )
    }
}

/// Removes `v` from a sum at the root of `expr`: the enclosing loop now iterates it.
fn open_sum(expr: Expr, v: VarId) -> Expr {
    match expr {
        Expr::Sum(vars, body) if vars.contains(&v) => {
            let rest: Vec<VarId> = vars.into_iter().filter(|&u| u != v).collect();
            if rest.is_empty() {
                *body
            } else {
                Expr::Sum(rest, body)
            }
        }
        other => other,
    }
}

/// `a && b && ...` of a non-empty list: every merge loop has a driver and every case a
/// sparse iterator to test (a case without one is emitted without a condition).
fn conjoin(conds: Vec<IrExpr>) -> IrExpr {
    conds
        .into_iter()
        .reduce(|a, b| bin(Op::And, a, b))
        .unwrap_or(IrExpr::Usize(0))
}

/// Level facts for the lattice of one loop.
struct LoopInfo<'a> {
    kernel: &'a Kernel,
    scope: &'a Scope,
    v: VarId,
}

impl LevelInfo for LoopInfo<'_> {
    fn level_of(&self, a: AccessId) -> Option<usize> {
        let format = self.kernel.format_of(a);
        let first_unresolved = self.scope.pos[a].len();
        (first_unresolved..format.order())
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
}
