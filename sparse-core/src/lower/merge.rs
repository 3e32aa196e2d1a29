//! Lattice merges (taco, section 6; Chou 2018, section 4.4): one loop per lattice point, the
//! iterators it co-iterates driving it, and an if/else chain over the points of its
//! sub-lattice; each case knows which operands are present and computes only those.

use super::{conjoin, open_sum, Lowerer, Pos, Scope, Target};
use crate::format::LevelFn;
use crate::ir::{bin, var, Assign, Expr as IrExpr, Local, Op, Stmt};
use crate::lattice::{Iter, LatticePoint, MergeLattice, Strategy};
use crate::notation::{AccessId, BinOp, Expr, VarId};

impl Lowerer<'_> {
    /// The loops of a lattice over `v`, and whether they visit every coordinate of `v`.
    pub(super) fn lattice_merge(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        target: Target,
        loop_vars: &[VarId],
    ) -> (Vec<Stmt>, bool) {
        let strategy = Strategy::of(lattice, self.kernel, &self.info(scope, v));
        let mut scope = scope.clone();
        scope.copies = scope.copies.saturating_mul(lattice.cases());
        let loops = self.merge_loops(&scope, v, lattice, &strategy, target, loop_vars);
        (loops, strategy.exhausts)
    }

    /// A plain `for` when one iterator drives a single point, else a sequence of merge loops
    /// (one per point) sharing iterator state.
    fn merge_loops(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        strategy: &Strategy,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let Some(top) = lattice.points.first() else {
            return Vec::new();
        };
        let dense_driven = strategy.counting;
        let sparse = strategy.drivers(0).to_vec();
        if lattice.points.len() == 1 {
            if dense_driven && sparse.is_empty() {
                let body = self.case_body(scope, v, top, &[], target, loop_vars);
                return vec![Stmt::For(
                    Local::Index(v),
                    IrExpr::Usize(0),
                    self.dim(v),
                    body,
                )];
            }
            if !dense_driven && sparse.len() == 1 {
                return self.single_iterator_loop(scope, v, top, sparse[0], target, loop_vars);
            }
        }
        self.general_merge(scope, v, lattice, strategy, target, loop_vars)
    }

    /// `for p in lo..hi { let v = crd[p]; ... }`, with a deduplication step for non-unique levels
    /// unless the loop scatters. A level that is not compact skips its positions without a
    /// coordinate; an unordered one is reordered first when what the loop writes must come in
    /// coordinate order (a sparse output along `v`), and otherwise visited in storage order.
    fn single_iterator_loop(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        (a, k): (AccessId, usize),
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let scatters = self.scatters(scope, point, a, k, target);
        if let Some(stmts) = self.single_child(scope, v, point, (a, k), scatters, target, loop_vars)
        {
            return stmts;
        }
        if scatters {
            return self.scatter_loop(scope, v, point, (a, k), target, loop_vars);
        }
        let (p, end, run) = (Local::Pos(a, k), Local::End(a, k), Local::RunEnd(a, k));
        let level = &self.format(a).levels[k];
        let unique = level.is_unique();
        let mut scope = scope.clone();
        if !level.is_ordered() && self.writes_in_order(v, target) {
            scope.reordered.push((a, k));
        }
        let scope = &scope;
        let skips_empty = self.skips_empty(scope, a, k);
        let mut stmts = self.iterator_bounds(scope, a, k, !unique);
        let mut body = vec![Stmt::Let(
            Local::Index(v),
            false,
            self.iter_coord(scope, a, k),
        )];
        body.extend(self.bind_iter_pos(scope, a, k));
        if unique {
            body.extend(self.case_body(scope, v, point, &[(a, k)], target, loop_vars));
            if skips_empty {
                let stored = self.stored_at(scope, a, k, var(p));
                body = vec![Stmt::If(stored, body, vec![])];
            }
            stmts.push(self.segment_loop(scope, (a, k), body));
            return stmts;
        }
        if skips_empty {
            self.fail(format!(
                "level {k} of access {a} is neither unique nor compact"
            ));
        }
        let run_end = self.level_call_in(scope, a, k, LevelFn::RunEnd, vec![var(p), var(end)]);
        body.push(Stmt::Let(run, false, run_end));
        body.extend(self.case_body(scope, v, point, &[(a, k)], target, loop_vars));
        body.push(Stmt::Assign(var(p), Assign::Set, var(run)));
        let body = self.fuse_run_end(scope, v, (a, k), body);
        stmts.push(Stmt::While(bin(Op::Lt, var(p), var(end)), body));
        stmts
    }

    /// A run's end found by the loop that visits the run (a fused run end). Where the body of
    /// a loop over runs uses the run's end `r` only as the end of its child's loop over the
    /// run's positions (`let q = p; let e = r; for q in q..e { .. }`, a branchless child) and
    /// in the advance `p = r`, the scan for `r` goes and the child's loop tests each position
    /// itself: `let mut q = p; while q < end && coord(q) == v { ..; q += 1 }`, then `p = q`.
    /// One pass over the run instead of two, and one data-dependent exit per run instead of
    /// two (the scan's and the loop's): COO SpMV on 5 to 27 entries per row took 0.7-1.0x
    /// the time of the scan and loop in probes (0.7-0.8x on R-MAT's power-law rows).
    /// Otherwise (the end read elsewhere, the child's loop binding or assigning its position)
    /// the body is returned as it is. An early exit in the child's loop leaves a block that
    /// encloses the whole loop over runs (the child's loop is a statement of its body), so
    /// no run is left half visited.
    fn fuse_run_end(
        &self,
        scope: &Scope,
        v: VarId,
        (a, k): (AccessId, usize),
        mut body: Vec<Stmt>,
    ) -> Vec<Stmt> {
        let (p, end, run) = (Local::Pos(a, k), Local::End(a, k), Local::RunEnd(a, k));
        let child = body.windows(3).position(|w| match w {
            [Stmt::Let(q, false, IrExpr::Var(from)), Stmt::Let(e, false, IrExpr::Var(r)), Stmt::For(q2, IrExpr::Var(q3), IrExpr::Var(e2), _)] => {
                *from == p && *r == run && q2 == q && q3 == q && e2 == e
            }
            _ => false,
        });
        let Some(at) = child else {
            return body;
        };
        let (Stmt::Let(q, ..), Stmt::Let(e, ..)) = (&body[at], &body[at + 1]) else {
            unreachable!("matched above")
        };
        let (q, e) = (*q, *e);
        let uses = |l: Local| {
            let mut n = 0;
            crate::ir::visit_locals(&body, &mut |x| n += usize::from(x == l));
            n
        };
        let advances = matches!(body.last(), Some(Stmt::Assign(IrExpr::Var(x), Assign::Set, IrExpr::Var(r)))
            if *x == p && *r == run);
        let assigns_q = match &body[at + 2] {
            Stmt::For(_, _, _, visit) => crate::ir::sets_of(visit, q) > 0,
            _ => true,
        };
        if !advances
            || uses(run) != 3
            || uses(e) != 2
            || assigns_q
            || scope.reordered.contains(&(a, k))
        {
            return body;
        }
        let Stmt::For(_, _, _, mut visit) = body.remove(at + 2) else {
            unreachable!("matched above")
        };
        body.remove(at + 1);
        body[at] = Stmt::Let(q, true, var(p));
        visit.push(Stmt::Assign(var(q), Assign::Add, IrExpr::Usize(1)));
        let same = bin(
            Op::Eq,
            self.coord_at(scope, a, k, var(q)),
            var(Local::Index(v)),
        );
        let more = bin(Op::And, bin(Op::Lt, var(q), var(end)), same);
        body.insert(at + 1, Stmt::While(more, visit));
        body.retain(|s| !matches!(s, Stmt::Let(r, ..) if *r == run));
        if let Some(last) = body.last_mut() {
            *last = Stmt::Assign(var(p), Assign::Set, var(q));
        }
        body
    }

    /// `for p in p..end { body }` over the segment of level `k` of access `a`. A level whose
    /// full segments have a constant length (`width`) gets a second version of the loop for
    /// them, `for p in p..p + width`, whose trip count the backend knows and unrolls (BCSR's
    /// blocks); the guard makes both versions visit the same positions. In the version of the
    /// nest that runs when no segment is cut ([`Lowerer::uncut`]), only the constant one.
    fn segment_loop(&self, scope: &Scope, (a, k): (AccessId, usize), body: Vec<Stmt>) -> Stmt {
        let (p, end) = (Local::Pos(a, k), Local::End(a, k));
        let level = &self.format(a).levels[k];
        if level.function(LevelFn::Width).is_none() {
            return Stmt::For(p, var(p), var(end), body);
        }
        let width = self.level_call_in(scope, a, k, LevelFn::Width, vec![]);
        if self.uncut {
            return Stmt::For(p, var(p), bin(Op::Add, var(p), width), body);
        }
        let full = bin(Op::Eq, bin(Op::Sub, var(end), var(p)), width.clone());
        Stmt::If(
            full,
            vec![Stmt::For(
                p,
                var(p),
                bin(Op::Add, var(p), width),
                body.clone(),
            )],
            vec![Stmt::For(p, var(p), var(end), body)],
        )
    }

    /// Fused iteration over a non-unique level (Chou 2018, section 4.5, "fusing iterators"): when
    /// it alone drives the loop (everything else at `v` is located) and what the loop computes
    /// is linear in its access, the value over a run of equal coordinates is the sum of the
    /// values at each of its positions. So the loop visits positions, not runs: no
    /// deduplication scan, and a branchless child below becomes a single position (COO SpMV is
    /// one loop over the nonzeros). What it computes is accumulated: into a temporary, or into
    /// a dense output, which is then written with `+=` (it is zero-filled first, since a loop
    /// driven by a sparse level does not cover its dimension). A sparse output is appended in
    /// order and never scatters. Nor does a level whose branchless children are co-iterated
    /// with another operand: per position, that operand's iterator would restart for every
    /// nonzero instead of once per run (the paper's condition: the other levels merged with
    /// the fused ones can be located).
    ///
    /// Below a level that scatters, each position stands alone (its run is the position), so
    /// a level that would keep runs for the output's sake scatters too.
    fn scatters(
        &self,
        scope: &Scope,
        point: &LatticePoint,
        a: AccessId,
        k: usize,
        target: Target,
    ) -> bool {
        // A dense output accumulates only onto zeros: it is pre-filled with the right side's
        // fill value, which `+=` would add to (`exp(lt(x, d)) * a` over a 1-filled `a`).
        let accumulates = match target {
            Target::Temp { .. } | Target::Workspace => true,
            Target::Output => self.dense_output().is_some() && self.prefilled_with_zero(),
        };
        !self.format(a).levels[k].is_unique()
            && accumulates
            && linearity(&point.expr, a) == Linearity::Linear
            && self.chain_is_located_elsewhere(&point.expr, a, k)
            && (scope.scatter || !self.run_holds_output(a, k, target))
    }

    /// Whether a run of level `k` of `a` would keep what it adds to the dense output in
    /// registers: the output is indexed by the level's variable and by no variable of the
    /// level's branchless chain below it, so every position of a run adds to the same output
    /// components (COO SpMV: `y(i)` over a run of row `i`; MTTKRP from COO: row `i` of `A`).
    /// Visited by runs, those components are summed in a temporary (or a register block) and
    /// written once per run; visited by positions, each position loads and stores them, a
    /// chain through memory from one position to the next of the same run. Per run, the
    /// loop costs one data-dependent exit, which long runs amortize (COO SpMV on fem3's 27
    /// per row: 0.65x the scatter loop's time) and short rows of random columns do not
    /// (rand8's 8: 1.05-1.29x, the mispredicted exit holding back the next row's loads).
    fn run_holds_output(&self, a: AccessId, k: usize, target: Target) -> bool {
        let Some(out) = self
            .dense_output()
            .filter(|_| matches!(target, Target::Output))
        else {
            return false;
        };
        let format = self.format(a);
        let access = &self.kernel.accesses[a];
        let indexes = |m: usize| {
            self.kernel.accesses[out]
                .vars
                .contains(&access.level_var(format, m))
        };
        indexes(k)
            && !(k + 1..format.order())
                .take_while(|&m| format.levels[m].is_branchless())
                .any(indexes)
    }

    /// Whether every other access of `expr` that uses a variable of `a`'s branchless levels
    /// below `k` stores it in a level with `locate`.
    fn chain_is_located_elsewhere(&self, expr: &Expr, a: AccessId, k: usize) -> bool {
        let format = self.format(a);
        let chain: Vec<VarId> = (k + 1..format.order())
            .take_while(|&m| format.levels[m].is_branchless())
            .map(|m| self.kernel.accesses[a].level_var(format, m))
            .collect();
        let mut accesses = Vec::new();
        expr.accesses(&mut accesses);
        accesses.iter().filter(|&&b| b != a).all(|&b| {
            let other = self.format(b);
            (0..other.order()).all(|m| {
                !chain.contains(&self.kernel.accesses[b].level_var(other, m))
                    || other.levels[m].has_locate()
            })
        })
    }

    /// A branchless level below one present parent position has exactly one child, at the
    /// parent's position: no loop, just its coordinate. (Below a run, or when a non-unique
    /// level must be deduplicated, the general loop applies.)
    #[allow(clippy::too_many_arguments)]
    fn single_child(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        (a, k): (AccessId, usize),
        scatters: bool,
        target: Target,
        loop_vars: &[VarId],
    ) -> Option<Vec<Stmt>> {
        let level = &self.format(a).levels[k];
        let parent = match k.checked_sub(1).and_then(|j| scope.pos[a].get(j)) {
            Some(Pos::One(q)) => q.clone(),
            _ => return None,
        };
        let resolved_to_parent = scope.pos[a].len() == k;
        // Through a window the child may lie outside it: the general loop seeks.
        if self.window(a, k).is_some()
            || !level.is_branchless()
            || !resolved_to_parent
            || scope.is_dynamic(a)
            || !(level.is_unique() || scatters)
        {
            return None;
        }
        let p = Local::Pos(a, k);
        let coord = self.level_call_in(scope, a, k, LevelFn::PosAccess, vec![var(p)]);
        let mut body = vec![Stmt::Let(Local::Index(v), false, coord)];
        let mut inner = scope.clone();
        inner.bound[v] = true;
        inner.scatter |= scatters;
        inner.pos[a].push(Pos::One(var(p)));
        body.extend(self.continue_point(&mut inner, v, point, target, loop_vars));
        // A padded level's position may hold no coordinate: then there is no child.
        if !level.is_compact() {
            let stored = self.level_call_in(scope, a, k, LevelFn::Stored, vec![var(p)]);
            body = vec![Stmt::If(stored, body, vec![])];
        }
        let mut stmts = vec![Stmt::Let(p, false, parent)];
        stmts.extend(body);
        Some(stmts)
    }

    /// The scatter loop: `for p in lo..hi { let v = crd[p]; ... }` with position `p` standing
    /// for the whole run it belongs to.
    fn scatter_loop(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        (a, k): (AccessId, usize),
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let p = Local::Pos(a, k);
        if scope.pos[a].len() != k {
            self.fail(format!(
                "level {k} of access {a} iterated before its parent"
            ));
        }
        let mut stmts = self.iterator_bounds(scope, a, k, false);
        let coord = self.coord_at(scope, a, k, var(p));
        let mut inner = scope.clone();
        inner.bound[v] = true;
        inner.scatter = true;
        inner.pos[a].push(Pos::One(var(p)));
        let mut body = vec![Stmt::Let(Local::Index(v), false, coord)];
        body.extend(self.continue_point(&mut inner, v, point, target, loop_vars));
        stmts.push(Stmt::For(p, var(p), var(Local::End(a, k)), body));
        stmts
    }

    /// Taco's merge: one `while` per lattice point, cases for its sub-lattice, conditional
    /// advance of every iterator that took part in the current coordinate.
    fn general_merge(
        &mut self,
        scope: &Scope,
        v: VarId,
        lattice: &MergeLattice,
        strategy: &Strategy,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let dense_driven = strategy.counting;
        let all_sparse = strategy.drivers(0).to_vec();
        // Every loop continues the iterators the first one started.
        for p in 0..lattice.points.len() {
            let driven = strategy.drivers(p);
            if let Some(&(a, k)) = driven.iter().find(|d| !all_sparse.contains(d)) {
                self.fail(format!(
                    "a lattice point drives level {k} of access {a}, which its top point does not"
                ));
            }
        }
        // Merging needs each iterator's coordinates in order: an unordered level is merged
        // through an ordered copy of its segment; an ordered one that is not compact skips
        // its empty positions.
        let scope = &self.reorder_unordered(scope, &all_sparse);
        let mut stmts = Vec::new();
        for &(a, k) in &all_sparse {
            stmts.extend(self.iterator_bounds(scope, a, k, true));
            stmts.extend(self.skip_empty(scope, a, k));
        }
        if dense_driven {
            stmts.push(Stmt::Let(Local::Index(v), true, IrExpr::Usize(0)));
        }
        for (p, point) in lattice.points.iter().enumerate() {
            let sparse = strategy.drivers(p);
            let mut cond: Vec<IrExpr> = sparse
                .iter()
                .map(|&(a, k)| bin(Op::Lt, var(Local::Pos(a, k)), var(Local::End(a, k))))
                .collect();
            if dense_driven {
                cond.push(bin(Op::Lt, var(Local::Index(v)), self.dim(v)));
            }
            if cond.is_empty() {
                self.fail("a merge loop without a driving iterator");
            }
            let body = self.merge_body(
                scope,
                v,
                lattice,
                point,
                sparse,
                dense_driven,
                target,
                loop_vars,
            );
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
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let mut body = Vec::new();
        for &(a, k) in sparse {
            let coord = self.iter_coord(scope, a, k);
            body.push(Stmt::Let(Local::Coord(a, k), false, coord));
            body.extend(self.bind_iter_pos(scope, a, k));
        }
        let trivially_matched = !dense_driven && sparse.len() == 1;
        if !dense_driven {
            let coords = sparse.iter().map(|&(a, k)| var(Local::Coord(a, k)));
            let min = coords
                .reduce(|x, y| IrExpr::Min(Box::new(x), Box::new(y)))
                .unwrap_or(IrExpr::Usize(0));
            body.push(Stmt::Let(Local::Index(v), false, min));
        }
        if !trivially_matched {
            body.extend(self.bind_matched(sparse, dense_driven, v));
        }
        // Deduplicate only an iterator that sits at the current coordinate: scanning its run
        // on every step of a merge would rescan it until the merge reaches it.
        for &(a, k) in sparse
            .iter()
            .filter(|&&(a, k)| !self.format(a).levels[k].is_unique())
        {
            let p = var(Local::Pos(a, k));
            let run_end = self.level_call_in(
                scope,
                a,
                k,
                LevelFn::RunEnd,
                vec![p.clone(), var(Local::End(a, k))],
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
            body.push(Stmt::Let(Local::RunEnd(a, k), false, run));
        }
        let cases: Vec<LatticePoint> = lattice.sub_points(point).cloned().collect();
        let drivers = Drivers {
            sparse,
            trivially_matched,
        };
        let advancing = !trivially_matched && drivers.cover_every_step(&cases, dense_driven);
        body.extend(self.cases(scope, v, &cases, &drivers, advancing, target, loop_vars));
        if !advancing {
            for &(a, k) in sparse {
                let matched = match trivially_matched {
                    true => Matched::Yes,
                    false => Matched::Unknown,
                };
                body.extend(self.advance(scope, a, k, v, matched));
            }
        }
        if dense_driven {
            body.push(Stmt::Assign(
                var(Local::Index(v)),
                Assign::Add,
                IrExpr::Usize(1),
            ));
        }
        body
    }

    /// An if/else-if chain over the sub-lattice: the first point whose driving iterators all
    /// sit at the current coordinate computes its expression (its other iterators are
    /// located).
    ///
    /// Where a step always takes a case (`advancing`, see [`Drivers::cover_every_step`]), each
    /// case also advances the iterators itself: the ones it is driven by unconditionally, the
    /// ones an earlier case would have taken not at all, others by their flag; and the last
    /// case needs no test. Advances under a case's branch are control dependent, so on a
    /// pattern the branch predictor follows (a stencil's rows) the next step's loads issue
    /// before this step's comparison resolves; branch-free advances after the chain would
    /// wait for it on every step, and where the branch is mispredicted both forms wait alike.
    #[allow(clippy::too_many_arguments)]
    fn cases(
        &mut self,
        scope: &Scope,
        v: VarId,
        cases: &[LatticePoint],
        drivers: &Drivers,
        advancing: bool,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let mut arms = Vec::new();
        for (n, case) in cases.iter().enumerate() {
            let driven = drivers.of(case);
            let mut body = self.case_body(scope, v, case, &driven, target, loop_vars);
            for &(a, k) in drivers.sparse.iter().filter(|_| advancing) {
                let matched = drivers.in_case(cases, n, (a, k));
                body.extend(self.advance(scope, a, k, v, matched));
            }
            let conds: Vec<IrExpr> = match drivers.trivially_matched {
                true => Vec::new(),
                false => driven.iter().map(|&(a, k)| self.matches(a, k, v)).collect(),
            };
            let taken = conds.is_empty() || (advancing && n + 1 == cases.len());
            arms.push((conds, body));
            if taken {
                break;
            }
        }
        let mut chain = match arms.last() {
            Some((conds, _)) if !conds.is_empty() && !advancing => Vec::new(),
            _ => arms.pop().map(|(_, body)| body).unwrap_or_default(),
        };
        while let Some((conds, body)) = arms.pop() {
            chain = vec![Stmt::If(conjoin(conds), body, chain)];
        }
        chain
    }

    /// The step of iterator `(a, k)` past the current coordinate: to its next position (its
    /// run's end on a non-unique level, then past empty positions), if `matched`.
    fn advance(
        &self,
        scope: &Scope,
        a: AccessId,
        k: usize,
        v: VarId,
        matched: Matched,
    ) -> Vec<Stmt> {
        let unique = self.format(a).levels[k].is_unique();
        let next = match unique {
            true => bin(Op::Add, var(Local::Pos(a, k)), IrExpr::Usize(1)),
            false => var(Local::RunEnd(a, k)),
        };
        let skip = self.skip_empty(scope, a, k);
        let mut advance = vec![Stmt::Assign(var(Local::Pos(a, k)), Assign::Set, next)];
        match matched {
            Matched::No => Vec::new(),
            Matched::Yes => {
                advance.extend(skip);
                advance
            }
            Matched::Unknown if unique && skip.is_empty() => {
                let step = IrExpr::Select(
                    Box::new(self.matches(a, k, v)),
                    Box::new(IrExpr::Usize(1)),
                    Box::new(IrExpr::Usize(0)),
                );
                vec![Stmt::Assign(var(Local::Pos(a, k)), Assign::Add, step)]
            }
            Matched::Unknown => {
                advance.extend(skip);
                vec![Stmt::If(self.matches(a, k, v), advance, vec![])]
            }
        }
    }

    /// Whether iterator `(a, k)` sits at the current coordinate (bound by `bind_matched`).
    fn matches(&self, a: AccessId, k: usize, _v: VarId) -> IrExpr {
        var(Local::Matched(a, k))
    }

    /// Binds, once per step of a merge loop, whether each driving iterator sits at the
    /// current coordinate: the cases and the advances test these flags rather than recompute
    /// them. Two sparse iterators need no minimum for it: one sits at the coordinate exactly
    /// when its coordinate is not above the other's, one comparison each, which the backend
    /// turns into flags and branch-free advances.
    fn bind_matched(
        &self,
        sparse: &[(AccessId, usize)],
        dense_driven: bool,
        v: VarId,
    ) -> Vec<Stmt> {
        let coord = |(a, k): (AccessId, usize)| var(Local::Coord(a, k));
        sparse
            .iter()
            .map(|&(a, k)| {
                let matched = match sparse {
                    [x, y] if !dense_driven => {
                        let other = if (a, k) == *x { *y } else { *x };
                        bin(Op::Le, coord((a, k)), coord(other))
                    }
                    _ => bin(Op::Eq, coord((a, k)), var(Local::Index(v))),
                };
                Stmt::Let(Local::Matched(a, k), false, matched)
            })
            .collect()
    }

    /// The body of one case: bind the positions of the iterators that drive it (`driven`, each
    /// sitting at the coordinate), locate the point's other levels, and go on with the next
    /// loop.
    fn case_body(
        &mut self,
        scope: &Scope,
        v: VarId,
        point: &LatticePoint,
        driven: &[(AccessId, usize)],
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        let mut inner = scope.clone();
        inner.bound[v] = true;
        for &(a, k) in driven {
            if inner.pos[a].len() != k {
                self.fail(format!(
                    "level {k} of access {a} iterated before its parent"
                ));
                continue;
            }
            let p = self.iter_pos(scope, a, k);
            inner.pos[a].push(if self.format(a).levels[k].is_unique() {
                Pos::One(p)
            } else {
                Pos::Run(p, var(Local::RunEnd(a, k)))
            });
        }
        // What drives this loop is decided; the loops below decide their own.
        inner.reordered.clear();
        self.continue_point(&mut inner, v, point, target, loop_vars)
    }

    /// Whether the loop over `v` must produce coordinates in increasing order: it writes a
    /// sparse output that stores `v` (appended in order, as is every level below it).
    fn writes_in_order(&self, v: VarId, target: Target) -> bool {
        matches!(target, Target::Output)
            && self.appended_output().is_some()
            && self.kernel.output_vars().contains(&v)
    }

    /// Below a point's iterators: locate dense levels and go on with the next loop.
    fn continue_point(
        &mut self,
        inner: &mut Scope,
        v: VarId,
        point: &LatticePoint,
        target: Target,
        loop_vars: &[VarId],
    ) -> Vec<Stmt> {
        // Where an omitter point's iterators are, the value is the fill: nothing to write.
        // Unless one of them is located and may not hold the coordinate (a hash level): its
        // presence is then known only at run time, so the point is computed, each value
        // outside its region replaced by the fill (`Lowerer::applied`).
        let dynamic = self.located_maybe_absent(point, inner);
        if point.omit && !dynamic {
            return Vec::new();
        }
        // Likewise a point that takes an argument at one of its omitter points (`z + unless(b,
        // w)` where `w` is located): whether that argument is omitted is known only at run
        // time, so the point computes the operands it merges, gated by their presence.
        let expr = if dynamic { &point.merged } else { &point.expr };
        let mut accesses = Vec::new();
        expr.accesses(&mut accesses);
        let mut body = self.block_reset(v, target);
        body.extend(self.resolve_located(inner, &accesses));
        let expr = open_sum(self.kernel, expr.clone(), v);
        body.extend(self.lower_loops(inner, expr, target, loop_vars));
        body
    }
}

impl Lowerer<'_> {
    /// Whether some level iterator of `point` is located here by a level that is not full:
    /// whether it holds the coordinate is a run-time `found` flag, which no case tests.
    fn located_maybe_absent(&self, point: &LatticePoint, scope: &Scope) -> bool {
        point.iters.iter().any(|it| match *it {
            Iter::Level { access, level } => {
                let l = &self.format(access).levels[level];
                // Not driven by this loop (a driven level's position is already resolved).
                l.has_locate() && !l.is_full() && scope.pos[access].len() <= level
            }
            Iter::Universe => false,
        })
    }
}

/// The position iterators driving one merge loop, for its cases.
struct Drivers<'a> {
    sparse: &'a [(AccessId, usize)],
    /// One iterator and no counting: every step sits at its coordinate, so cases need no test.
    trivially_matched: bool,
}

impl Drivers<'_> {
    /// The drivers among a case's iterators: the ones whose match it tests and whose positions
    /// it binds.
    fn of(&self, point: &LatticePoint) -> Vec<(AccessId, usize)> {
        self.sparse
            .iter()
            .copied()
            .filter(|&(access, level)| point.iters.contains(&Iter::Level { access, level }))
            .collect()
    }

    /// Whether every step of the merge takes one of `cases` (a union's loop does; an
    /// intersection's does not where one iterator is behind). A step's matched iterators are
    /// any nonempty set of drivers (any set, the empty one included, where a dense index
    /// counts the steps), and the first case whose drivers it contains is taken: so some case
    /// is taken on every step exactly when one needs at most one driver, each driver's own
    /// (or none, where the index counts).
    fn cover_every_step(&self, cases: &[LatticePoint], dense_driven: bool) -> bool {
        let driven: Vec<Vec<(AccessId, usize)>> = cases.iter().map(|c| self.of(c)).collect();
        if driven.iter().any(Vec::is_empty) {
            return true;
        }
        !dense_driven
            && self
                .sparse
                .iter()
                .all(|d| driven.iter().any(|c| c.as_slice() == [*d]))
    }

    /// Whether `iter` sits at the coordinate when case `n` of `cases` is taken: yes if the
    /// case is driven by it; no if an earlier case is driven by a subset of the case's drivers
    /// and `iter` (with `iter` there, that case would have been taken); else unknown.
    fn in_case(&self, cases: &[LatticePoint], n: usize, iter: (AccessId, usize)) -> Matched {
        let driven = self.of(&cases[n]);
        if driven.contains(&iter) {
            return Matched::Yes;
        }
        let earlier = cases[..n]
            .iter()
            .any(|c| self.of(c).iter().all(|d| *d == iter || driven.contains(d)));
        match earlier {
            true => Matched::No,
            false => Matched::Unknown,
        }
    }
}

/// What a case of a merge step knows about whether an iterator sits at the coordinate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Matched {
    Yes,
    No,
    Unknown,
}

/// How an expression depends on one access's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Linearity {
    /// Not at all.
    Constant,
    /// Linearly and homogeneously: a sum of terms each with one factor of the access.
    Linear,
    /// Any other way (an added constant, a product of two of its factors, a divisor).
    Other,
}

/// How `e` depends on access `a`: the condition under which splitting `a` into its positions
/// and summing the results gives the value of the whole (see `Lowerer::scatters`).
fn linearity(e: &Expr, a: AccessId) -> Linearity {
    use Linearity::{Constant, Linear, Other};
    match e {
        Expr::Access(b) if *b == a => Linear,
        Expr::Access(_) | Expr::Scalar(_) | Expr::Literal(_) | Expr::Const(_) => Constant,
        // A function is linear in none of its arguments, a reduction by one in nothing.
        Expr::Call(..) | Expr::Reduce(..) => {
            let mut ids = Vec::new();
            e.accesses(&mut ids);
            if ids.contains(&a) {
                Other
            } else {
                Constant
            }
        }
        Expr::Neg(x) | Expr::Sum(_, x) => linearity(x, a),
        Expr::Binary(op, l, r) => match (op, linearity(l, a), linearity(r, a)) {
            (_, Constant, Constant) => Constant,
            (BinOp::Add | BinOp::Sub, Linear, Linear) => Linear,
            (BinOp::Mul, Linear, Constant) | (BinOp::Mul, Constant, Linear) => Linear,
            (BinOp::Div, Linear, Constant) => Linear,
            _ => Other,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::{linearity, Linearity};
    use crate::notation::{BinOp, Expr};

    #[test]
    fn linearity_in_one_access() {
        let (a, b, s) = (Expr::Access(0), Expr::Access(1), Expr::Scalar(0));
        let op = |o, l: &Expr, r: &Expr| Expr::binary(o, l.clone(), r.clone());
        let sum = |e: Expr| Expr::Sum(vec![0], Box::new(e));
        let ab = op(BinOp::Mul, &a, &b);
        assert_eq!(linearity(&ab, 0), Linearity::Linear);
        assert_eq!(
            linearity(&sum(op(BinOp::Div, &ab, &s)), 0),
            Linearity::Linear
        );
        assert_eq!(
            linearity(&Expr::Neg(Box::new(ab.clone())), 0),
            Linearity::Linear
        );
        assert_eq!(linearity(&op(BinOp::Sub, &ab, &a), 0), Linearity::Linear);
        assert_eq!(linearity(&op(BinOp::Mul, &b, &s), 0), Linearity::Constant);
        // An added constant, a square and a divisor are not linear.
        assert_eq!(linearity(&op(BinOp::Add, &ab, &b), 0), Linearity::Other);
        assert_eq!(linearity(&op(BinOp::Mul, &ab, &a), 0), Linearity::Other);
        assert_eq!(linearity(&op(BinOp::Div, &b, &a), 0), Linearity::Other);
    }
}
