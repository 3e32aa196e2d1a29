//! Level access shared by both merge strategies: position iterators below a parent position
//! (`pos_bounds`, or the parent's own position or run for a branchless level) and `locate` on
//! levels that support it. Below an operand that may be absent (a compact merge), an iterator
//! is empty and a located position is never formed from an invalid parent position.

use super::{Lowerer, Pos, Scope};
use crate::format::LevelFn;
use crate::ir::{and, bin, call, not, select, try_, var, Assign, Expr as IrExpr, Local, Op, Stmt};
use crate::notation::AccessId;

impl Lowerer<'_> {
    /// Locates every level with `locate` whose coordinate is bound and whose parent is
    /// resolved, for `accesses` and the output. A level that is not full may not hold the
    /// coordinate: its `locate` also says whether it found it, and that flag becomes part of
    /// the access's presence (so its value reads as zero and nothing below it is visited
    /// where it is absent).
    pub(super) fn resolve_located(
        &mut self,
        scope: &mut Scope,
        accesses: &[AccessId],
    ) -> Vec<Stmt> {
        let mut stmts = Vec::new();
        // A workspace's nests do not touch the output: its levels are resolved by the outer
        // loops and by the copy out of the workspace.
        let output = self.kernel.output_access().filter(|_| !self.filling);
        for a in accesses.iter().copied().chain(output) {
            let format = self.format(a);
            let is_output = output == Some(a);
            loop {
                let k = scope.pos[a].len();
                if k == format.order() || !format.levels[k].has_locate() {
                    break;
                }
                // An output level that is not full inserts its coordinate when a value is
                // written there (`insert_entry`), not wherever the loops go.
                if is_output && !format.levels[k].is_full() {
                    break;
                }
                let v = self.kernel.accesses[a].level_var(format, k);
                if !scope.bound[v] {
                    break;
                }
                // Through a window, the level holds coordinate `lo + step * v`.
                let coord = self.projected(a, k, var(Local::Index(v)));
                let level = &format.levels[k];
                // A full, ordered, unique, compact level below the root holds coordinate `i`
                // at position `i`: no call needed.
                let identity = level.is_full() && level.is_ordered() && level.is_compact();
                let parent = match scope.pos[a].last() {
                    None if identity => {
                        scope.pos[a].push(Pos::One(coord));
                        continue;
                    }
                    None => IrExpr::Usize(0),
                    Some(Pos::One(parent)) => parent.clone(),
                    Some(Pos::Run(..)) => {
                        self.fail("a located level below a non-unique level");
                        break;
                    }
                };
                let located = self.level_call_in(scope, a, k, LevelFn::Locate, vec![parent, coord]);
                // Where the access is absent, the located result is never used: position 0
                // (not found, for a level that reports it).
                let (absent, found) = match level.is_full() {
                    true => (IrExpr::Usize(0), None),
                    false => (
                        IrExpr::Pair(Box::new(IrExpr::Usize(0)), Box::new(IrExpr::Bool(false))),
                        Some(Local::Found(a, k)),
                    ),
                };
                let present = scope.present[a].clone();
                let located = match &present {
                    IrExpr::Bool(true) => located,
                    present => select(present.clone(), located, absent),
                };
                let p = Local::Pos(a, k);
                match found {
                    None => stmts.push(Stmt::Let(p, false, located)),
                    Some(found) => {
                        stmts.push(Stmt::LetPair(Some(p), Some(found), false, located));
                        scope.present[a] = and(present, var(found));
                    }
                }
                scope.pos[a].push(Pos::One(var(Local::Pos(a, k))));
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
        let Some(window) = self.window(a, k).cloned() else {
            return self.segment_bounds(scope, a, k, mutable);
        };
        // Through a window: the segment narrowed by binary search to the coordinates in
        // `lo..hi` (an ordered, compact level's, so every position in between is in the
        // window; `check` refuses windows on any other).
        let (p, end) = (Local::Pos(a, k), Local::End(a, k));
        let mut stmts = self.segment_bounds(scope, a, k, false);
        let seek = |from: IrExpr, to: IrExpr, coord: IrExpr| {
            IrExpr::Runtime("seek", vec![self.level_ref(a, k), from, to, coord])
        };
        if let Some(hi) = &window.hi {
            let hi = seek(var(p), var(end), bound(hi));
            stmts.push(Stmt::Let(end, false, hi));
        }
        let lo = seek(var(p), var(end), bound(&window.lo));
        stmts.push(Stmt::Let(p, mutable, lo));
        stmts
    }

    /// The window of level `k` of access `a`, if its mode is read through one.
    pub(super) fn window(&self, a: AccessId, k: usize) -> Option<&crate::notation::Window> {
        self.kernel.accesses[a].level_window(self.format(a), k)
    }

    /// The coordinate level `k` of access `a` holds for index value `i`: `lo + step * i`
    /// through a window, else `i`.
    pub(super) fn projected(&self, a: AccessId, k: usize, i: IrExpr) -> IrExpr {
        let Some(w) = self.window(a, k) else {
            return i;
        };
        let scaled = match &w.step {
            crate::notation::Bound::Const(1) => i,
            step => bin(Op::Mul, bound(step), i),
        };
        match &w.lo {
            crate::notation::Bound::Const(0) => scaled,
            lo => bin(Op::Add, bound(lo), scaled),
        }
    }

    /// The index value of coordinate `c` of level `k` of access `a`: `(c - lo) / step`
    /// through a window (where `c` is in it and aligned), else `c`.
    fn unprojected(&self, a: AccessId, k: usize, c: IrExpr) -> IrExpr {
        let Some(w) = self.window(a, k) else {
            return c;
        };
        let shifted = match &w.lo {
            crate::notation::Bound::Const(0) => c,
            lo => bin(Op::Sub, c, bound(lo)),
        };
        match &w.step {
            crate::notation::Bound::Const(1) => shifted,
            step => bin(Op::Div, shifted, bound(step)),
        }
    }

    /// The coordinate at position `p` of level `k` of access `a`, as an index value.
    pub(super) fn coord_at(&self, scope: &Scope, a: AccessId, k: usize, p: IrExpr) -> IrExpr {
        let c = self.level_call_in(scope, a, k, LevelFn::PosAccess, vec![p]);
        self.unprojected(a, k, c)
    }

    /// Whether position `p` of level `k` of access `a` holds a coordinate of the iteration:
    /// `is_stored(p)` for a level that is not compact; through a strided window, also that
    /// the coordinate is on the stride (`(c - lo) % step == 0`).
    pub(super) fn stored_at(&self, scope: &Scope, a: AccessId, k: usize, p: IrExpr) -> IrExpr {
        let mut test = IrExpr::Bool(true);
        if !self.format(a).levels[k].is_compact() {
            test = self.level_call_in(scope, a, k, LevelFn::Stored, vec![p.clone()]);
        }
        if let Some(w) = self.window(a, k).filter(|w| w.strided()) {
            let c = self.level_call_in(scope, a, k, LevelFn::PosAccess, vec![p]);
            let shifted = bin(Op::Sub, c, bound(&w.lo));
            let aligned = bin(
                Op::Eq,
                bin(Op::Rem, shifted, bound(&w.step)),
                IrExpr::Usize(0),
            );
            test = and(test, aligned);
        }
        test
    }

    fn segment_bounds(&mut self, scope: &Scope, a: AccessId, k: usize, mutable: bool) -> Vec<Stmt> {
        let (p, end) = (Local::Pos(a, k), Local::End(a, k));
        let parent = k.checked_sub(1).and_then(|j| scope.pos[a].get(j)).cloned();
        let present = scope.present[a].clone();
        let dynamic = scope.is_dynamic(a);
        if scope.reordered.contains(&(a, k)) {
            return self.reordered_bounds(a, k, parent, present, mutable);
        }
        // A branchless level's positions are its parent's; otherwise its `pos` array gives the
        // segment below the parent position (the root's is position 0).
        match (self.format(a).levels[k].is_branchless(), parent) {
            // An absent parent's run is already empty (it ends where it starts).
            (true, Some(Pos::Run(lo, hi))) => {
                vec![Stmt::Let(p, mutable, lo), Stmt::Let(end, false, hi)]
            }
            (true, Some(Pos::One(q))) => {
                let mut next = bin(Op::Add, q.clone(), IrExpr::Usize(1));
                // A padded level's segment below one position is that position when it holds
                // a coordinate, and empty otherwise: so its iterator visits only coordinates.
                if !self.format(a).levels[k].is_compact() {
                    let stored = self.level_call_in(scope, a, k, LevelFn::Stored, vec![q.clone()]);
                    next = select(stored, next, q.clone());
                }
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
                let bounds = self.level_call_in(scope, a, k, LevelFn::PosBounds, vec![parent]);
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

    /// Whether iterator `(a, k)` visits only positions that hold a coordinate: a compact
    /// level, or a branchless one below a single parent position (its bounds test that the
    /// position is stored, see [`Self::iterator_bounds`]). Any other iterator over a level
    /// that is not compact must skip empty positions or be reordered.
    pub(super) fn iterates_compactly(&self, scope: &Scope, a: AccessId, k: usize) -> bool {
        let level = &self.format(a).levels[k];
        let below_one = matches!(
            k.checked_sub(1).and_then(|j| scope.pos[a].get(j)),
            Some(Pos::One(_))
        );
        let strided = self.window(a, k).is_some_and(|w| w.strided());
        !strided && (level.is_compact() || level.is_branchless() && below_one)
    }

    /// Whether iterator `(a, k)` runs over positions that may hold no coordinate in storage
    /// order (an ordered level that is not compact, ELL's slots, not reordered): a merge then
    /// steps it over them with [`Self::skip_empty`].
    pub(super) fn skips_empty(&self, scope: &Scope, a: AccessId, k: usize) -> bool {
        !self.iterates_compactly(scope, a, k) && !scope.reordered.contains(&(a, k))
    }

    /// `while p < end && !is_stored(p) { p += 1 }` for an iterator that skips empty positions
    /// (nothing for any other). Emitted after its bounds and after each advance, so that a
    /// merge finds it at a stored coordinate or at its end and reads coordinates only there
    /// (iterator conversion, Chou 2018, 4.3: an ordered iterator over a non-compact level
    /// needs no reordering, only skipping).
    pub(super) fn skip_empty(&self, scope: &Scope, a: AccessId, k: usize) -> Vec<Stmt> {
        if !self.skips_empty(scope, a, k) {
            return Vec::new();
        }
        let p = var(Local::Pos(a, k));
        let stored = self.stored_at(scope, a, k, p.clone());
        let empty = and(bin(Op::Lt, p.clone(), var(Local::End(a, k))), not(stored));
        let step = bin(Op::Add, p.clone(), IrExpr::Usize(1));
        vec![Stmt::While(empty, vec![Stmt::Assign(p, Assign::Set, step)])]
    }

    /// The bounds of a reordered iterator: the level's segment below its parent, copied into
    /// its scratch array with the empty positions dropped and sorted by coordinate; the
    /// iterator then runs over the copy. Empty where the access is absent.
    fn reordered_bounds(
        &mut self,
        a: AccessId,
        k: usize,
        parent: Option<Pos>,
        present: IrExpr,
        mutable: bool,
    ) -> Vec<Stmt> {
        self.scratches.insert((a, k));
        let parent = match parent {
            None => IrExpr::Usize(0),
            Some(Pos::One(q)) => q,
            Some(Pos::Run(..)) => {
                self.fail(format!("level {k} of access {a} reordered below a run"));
                IrExpr::Usize(0)
            }
        };
        let fill = try_(call(
            var(Local::Scratch(a, k)),
            "fill",
            vec![self.level_ref(a, k), parent],
        ));
        let fill = match present {
            IrExpr::Bool(true) => fill,
            present => select(present, fill, IrExpr::Usize(0)),
        };
        vec![
            Stmt::Let(Local::Pos(a, k), mutable, IrExpr::Usize(0)),
            Stmt::Let(Local::End(a, k), false, fill),
        ]
    }

    /// The coordinate under position iterator `(a, k)` of the current loop.
    pub(super) fn iter_coord(&self, scope: &Scope, a: AccessId, k: usize) -> IrExpr {
        let it = var(Local::Pos(a, k));
        if scope.reordered.contains(&(a, k)) {
            call(var(Local::Scratch(a, k)), "coord", vec![it])
        } else {
            self.coord_at(scope, a, k, it)
        }
    }

    /// The level position under position iterator `(a, k)` of the current loop (bound by
    /// [`Self::bind_iter_pos`] for a reordered one).
    pub(super) fn iter_pos(&self, scope: &Scope, a: AccessId, k: usize) -> IrExpr {
        if scope.reordered.contains(&(a, k)) {
            var(Local::ScratchPos(a, k))
        } else {
            var(Local::Pos(a, k))
        }
    }

    /// Binds the level position of a reordered iterator's current entry (nothing otherwise),
    /// read only where `when` holds (position 0, never used, elsewhere).
    pub(super) fn bind_iter_pos_when(
        &self,
        scope: &Scope,
        a: AccessId,
        k: usize,
        when: IrExpr,
    ) -> Vec<Stmt> {
        if !scope.reordered.contains(&(a, k)) {
            return Vec::new();
        }
        let it = var(Local::Pos(a, k));
        let pos = call(var(Local::Scratch(a, k)), "pos", vec![it]);
        let pos = match when {
            IrExpr::Bool(true) => pos,
            when => select(when, pos, IrExpr::Usize(0)),
        };
        vec![Stmt::Let(Local::ScratchPos(a, k), false, pos)]
    }

    /// Binds the level position of a reordered iterator's current entry (nothing otherwise).
    pub(super) fn bind_iter_pos(&self, scope: &Scope, a: AccessId, k: usize) -> Vec<Stmt> {
        self.bind_iter_pos_when(scope, a, k, IrExpr::Bool(true))
    }

    /// `scope` with every unordered level among `iters` reordered: a merge needs each
    /// iterator's coordinates in order (Chou 2018, 4.3).
    pub(super) fn reorder_unordered(&self, scope: &Scope, iters: &[(AccessId, usize)]) -> Scope {
        let mut scope = scope.clone();
        for &(a, k) in iters {
            if !self.format(a).levels[k].is_ordered() {
                scope.reordered.push((a, k));
            }
        }
        scope
    }
}

/// A window bound as an index expression.
fn bound(b: &crate::notation::Bound) -> IrExpr {
    match b {
        crate::notation::Bound::Const(n) => IrExpr::Usize(*n),
        crate::notation::Bound::Param(p) => IrExpr::Param(p.clone()),
    }
}
