//! Level access shared by both merge strategies: position iterators below a parent position
//! (`pos_bounds`, or the parent's own position or run for a branchless level) and `locate` on
//! levels that support it. Below an operand that may be absent (a compact merge), an iterator
//! is empty and a located position is never formed from an invalid parent position.

use super::{Lowerer, Pos, Scope};
use crate::format::LevelFn;
use crate::ir::{bin, select, var, Expr as IrExpr, Local, Op, Stmt};
use crate::notation::AccessId;

impl Lowerer<'_> {
    /// Locates every level with `locate` whose coordinate is bound and whose parent is
    /// resolved, for `accesses` and the output.
    pub(super) fn resolve_dense(&mut self, scope: &mut Scope, accesses: &[AccessId]) -> Vec<Stmt> {
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
                let coord = var(Local::Index(v));
                let pos = match scope.pos[a].last() {
                    None => coord,
                    Some(Pos::One(parent)) => {
                        let located =
                            self.level_call(a, k, LevelFn::Locate, vec![parent.clone(), coord]);
                        let located = match &scope.present[a] {
                            IrExpr::Bool(true) => located,
                            present => select(present.clone(), located, IrExpr::Usize(0)),
                        };
                        stmts.push(Stmt::Let(Local::Pos(a, k), false, located));
                        var(Local::Pos(a, k))
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
    /// for a singleton below a non-unique parent, the parent's run: iterator chaining). Empty
    /// where the access is absent.
    pub(super) fn iterator_bounds(
        &mut self,
        scope: &Scope,
        a: AccessId,
        k: usize,
        mutable: bool,
    ) -> Vec<Stmt> {
        let (p, end) = (Local::Pos(a, k), Local::End(a, k));
        let parent = k.checked_sub(1).and_then(|j| scope.pos[a].get(j)).cloned();
        let present = scope.present[a].clone();
        let dynamic = scope.is_dynamic(a);
        // A branchless level's positions are its parent's; otherwise its `pos` array gives the
        // segment below the parent position (the root's is position 0).
        match (self.format(a).levels[k].is_branchless(), parent) {
            // An absent parent's run is already empty (it ends where it starts).
            (true, Some(Pos::Run(lo, hi))) => {
                vec![Stmt::Let(p, mutable, lo), Stmt::Let(end, false, hi)]
            }
            (true, Some(Pos::One(q))) => {
                let next = bin(Op::Add, q.clone(), IrExpr::Usize(1));
                let next = if dynamic {
                    select(present, next, q.clone())
                } else {
                    next
                };
                vec![Stmt::Let(p, mutable, q), Stmt::Let(end, false, next)]
            }
            (false, parent @ (None | Some(Pos::One(_)))) => {
                let parent = match parent {
                    Some(Pos::One(q)) => q,
                    _ => IrExpr::Usize(0),
                };
                let bounds = self.level_call(a, k, LevelFn::PosBounds, vec![parent]);
                let bounds = if dynamic {
                    let empty =
                        IrExpr::Pair(Box::new(IrExpr::Usize(0)), Box::new(IrExpr::Usize(0)));
                    select(present, bounds, empty)
                } else {
                    bounds
                };
                vec![Stmt::LetPair(Some(p), Some(end), mutable, bounds)]
            }
            _ => {
                self.fail(format!("no position bounds for level {k} of access {a}"));
                Vec::new()
            }
        }
    }
}
