//! The compact merge: one loop over `v` for all of an expression's iterators, where a lattice
//! would need one loop per point and one case per sub-point (exponentially many in the number of
//! operands of a sum). The coordinate is the minimum over the iterators that are not exhausted
//! (or every coordinate, when some operand is present without any sparse iterator, as a dense
//! operand in a union or a constant). Each iterator records whether it sits at the coordinate;
//! that flag is its operand's presence, and values, temporaries and the output are gated by the
//! presence of their expression (see `Lowerer::value`), which is exactly what a lattice case
//! would compute. Code size is linear in the number of operands.

use super::{disjoin, open_sum, Lowerer, Pos, Scope, Target};
use crate::format::LevelFn;
use crate::ir::{and, bin, select, var, Assign, Expr as IrExpr, Local, Op, Stmt};
use crate::lattice::{Iter, LevelInfo, MergeLattice};
use crate::notation::{AccessId, Expr, VarId};

/// The most iterators a loop merges with a lattice; more merge compactly. A lattice over `n`
/// iterators has up to `2^n - 1` points and its loops and cases grow like `3^n`.
pub const MAX_LATTICE_ITERATORS: usize = 3;

/// The most times lattice cases may duplicate the code below them. Each case lowers the loops
/// under it again, so nested lattices multiply (a 4-way union of order-3 CSF tensors as
/// lattices is 13,000 lines); past this budget a loop merges compactly, whose code is emitted
/// once. A 2-way union of order-3 tensors (5 cases per level, 125 in all) stays a lattice.
pub const MAX_CASE_COPIES: usize = 256;

impl Lowerer<'_> {
    /// The lattice of `expr`'s loop over `v`, if it merges as a lattice: every operand is
    /// statically present (no enclosing compact merge made it a run-time flag), at most
    /// [`MAX_LATTICE_ITERATORS`] iterators merge, and its cases keep the code below within
    /// [`MAX_CASE_COPIES`] copies.
    pub(super) fn small_lattice(
        &self,
        scope: &Scope,
        expr: &Expr,
        v: VarId,
    ) -> Option<MergeLattice> {
        let info = self.info(scope, v);
        let mut accesses = Vec::new();
        expr.accesses(&mut accesses);
        let iterators = accesses
            .iter()
            .filter(|&&a| info.level_of(a).is_some())
            .count();
        if iterators > MAX_LATTICE_ITERATORS || accesses.iter().any(|&a| scope.is_dynamic(a)) {
            return None;
        }
        let lattice = MergeLattice::build(expr, self.kernel, &info);
        (scope.copies.saturating_mul(lattice.cases()) <= MAX_CASE_COPIES).then_some(lattice)
    }

    /// The compact loop over `v`, and whether it visits every coordinate.
    pub(super) fn compact_merge(
        &mut self,
        scope: &Scope,
        v: VarId,
        expr: Expr,
        target: Target,
        loop_vars: &[VarId],
    ) -> (Vec<Stmt>, bool) {
        let info = self.info(scope, v);
        let mut accesses = Vec::new();
        expr.accesses(&mut accesses);
        accesses.sort_unstable();
        accesses.dedup();
        let sparse: Vec<(AccessId, usize)> = accesses
            .iter()
            .filter_map(|&a| info.level_of(a).map(|k| (a, k)))
            .filter(|&(a, k)| {
                !info.has_locate(Iter::Level {
                    access: a,
                    level: k,
                })
            })
            .collect();
        // The minimum of the iterators' coordinates is the next coordinate only if each
        // visits its coordinates in order (an unordered level is iterated through a sorted
        // copy of its segment) and sits at one (an iterator over a level that is not compact
        // skips its empty positions).
        let scope = &self.reorder_unordered(scope, &sparse);
        let every_coordinate = self.present_without_sparse(scope, &expr, v);
        let mut stmts = Vec::new();
        for &(a, k) in &sparse {
            stmts.extend(self.iterator_bounds(scope, a, k, true));
            stmts.extend(self.skip_empty(scope, a, k));
        }
        let mut body = Vec::new();
        if !every_coordinate {
            // The smallest coordinate of an iterator that is not exhausted (`dim` stands for
            // "exhausted": every coordinate is below it).
            for &(a, k) in &sparse {
                let (p, end) = (var(Local::Pos(a, k)), var(Local::End(a, k)));
                let coord = self.iter_coord(scope, a, k);
                let coord = select(bin(Op::Lt, p, end), coord, self.dim(v));
                body.push(Stmt::Let(Local::Coord(a, k), false, coord));
            }
            let min = sparse
                .iter()
                .map(|&(a, k)| var(Local::Coord(a, k)))
                .reduce(|x, y| IrExpr::Min(Box::new(x), Box::new(y)))
                .unwrap_or_else(|| self.dim(v));
            body.push(Stmt::Let(Local::Index(v), false, min));
        }
        for &(a, k) in &sparse {
            let matched = if every_coordinate {
                let (p, end) = (var(Local::Pos(a, k)), var(Local::End(a, k)));
                let coord = self.iter_coord(scope, a, k);
                // `&&` short-circuits: the coordinate is read only before the end.
                and(
                    bin(Op::Lt, p, end),
                    bin(Op::Eq, coord, var(Local::Index(v))),
                )
            } else {
                bin(Op::Eq, var(Local::Coord(a, k)), var(Local::Index(v)))
            };
            body.push(Stmt::Let(Local::Matched(a, k), false, matched));
            // A reordered iterator's level position, read only where it sits at `v`.
            body.extend(self.bind_iter_pos_when(scope, a, k, var(Local::Matched(a, k))));
            if !self.format(a).levels[k].is_unique() {
                let p = var(Local::Pos(a, k));
                let run_end = self.level_call_in(
                    scope,
                    a,
                    k,
                    LevelFn::RunEnd,
                    vec![p.clone(), var(Local::End(a, k))],
                );
                let run = select(var(Local::Matched(a, k)), run_end, p);
                body.push(Stmt::Let(Local::RunEnd(a, k), false, run));
            }
        }
        let mut inner = scope.clone();
        inner.bound[v] = true;
        inner.compact = true;
        // What drives this loop is decided; the loops below decide their own.
        inner.reordered.clear();
        for &(a, k) in &sparse {
            let p = var(Local::Pos(a, k));
            inner.pos[a].push(if self.format(a).levels[k].is_unique() {
                Pos::One(self.iter_pos(scope, a, k))
            } else {
                Pos::Run(p, var(Local::RunEnd(a, k)))
            });
            // The iterator is empty where the access was absent, so matching implies presence.
            inner.present[a] = var(Local::Matched(a, k));
        }
        body.extend(self.block_reset(v, target));
        body.extend(self.resolve_located(&mut inner, &accesses));
        body.extend(self.lower_loops(&inner, open_sum(self.kernel, expr, v), target, loop_vars));
        for &(a, k) in &sparse {
            let next = if self.format(a).levels[k].is_unique() {
                bin(Op::Add, var(Local::Pos(a, k)), IrExpr::Usize(1))
            } else {
                var(Local::RunEnd(a, k))
            };
            let mut advance = vec![Stmt::Assign(var(Local::Pos(a, k)), Assign::Set, next)];
            advance.extend(self.skip_empty(scope, a, k));
            body.push(Stmt::If(var(Local::Matched(a, k)), advance, vec![]));
        }
        let looping = if every_coordinate {
            Stmt::For(Local::Index(v), IrExpr::Usize(0), self.dim(v), body)
        } else {
            let active = sparse
                .iter()
                .map(|&(a, k)| bin(Op::Lt, var(Local::Pos(a, k)), var(Local::End(a, k))))
                .collect();
            Stmt::While(disjoin(active), body)
        };
        stmts.push(looping);
        (stmts, every_coordinate)
    }

    /// Whether `expr` may be present at a coordinate of `v` where none of its sparse iterators
    /// over `v` is: its presence with those iterators absent and everything else (located
    /// levels, operands not indexed by `v`, constants) possibly present.
    fn present_without_sparse(&self, scope: &Scope, expr: &Expr, v: VarId) -> bool {
        let info = self.info(scope, v);
        let present = |e: &Expr| self.present_without_sparse(scope, e, v);
        match expr {
            Expr::Access(a) => match info.level_of(*a) {
                Some(k) => info.has_locate(Iter::Level {
                    access: *a,
                    level: k,
                }),
                None => true,
            },
            Expr::Scalar(_) | Expr::Literal(_) => true,
            Expr::Const(_) => false,
            Expr::Neg(e) => present(e),
            // A reduction whose body's fill is not its identity covers every coordinate.
            Expr::Sum(_, e) | Expr::Reduce(_, _, e) => {
                present(e) || crate::algebra::fill_of(self.kernel, expr).is_none()
            }
            Expr::Binary(..) | Expr::Call(..) => {
                let args = expr.children();
                let Some(region) = crate::algebra::region_of(self.kernel, expr) else {
                    return true;
                };
                // The region may hold if it holds for some choice among the arguments that
                // may be present (`x & !m` with `m` located: where `m` is not found).
                let may: Vec<bool> = args.iter().map(|a| present(a)).collect();
                region.may_hold(&vec![false; may.len()], &may)
            }
        }
    }
}
