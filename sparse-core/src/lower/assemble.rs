//! Output assembly (Chou 2018, section 3.4; taco section 6.3). An output whose levels all
//! insert (dense rows of a hash table) is written in place like a dense one: its hash level
//! inserts each computed coordinate (where the value is present) and the value is written or
//! added at the returned position. Any other sparse output is appended in loop order (and a
//! dense block at its bottom, as in BCSR, is appended zero-filled with the first value
//! computed in it): its `Dense` prefix inserts (positions located from coordinates), and below it
//! come *groups*, each one level that appends segments (it has a `pos` array) followed by the
//! branchless levels that append in lockstep with it (a COO run). The last group appends one
//! coordinate per level for every computed entry. Every other group's coordinates are appended
//! when the segment of the group below closes non-empty, so empty segments are elided and a
//! group's tuple is stored only if something was stored below it.

use super::{Lowerer, Pos, Scope, Target};
use crate::format::Assembly;
use crate::format::LevelFn;
use crate::ir::{bin, call, index, try_, var, Assign, Expr as IrExpr, Local, Op, Stmt};
use crate::notation::{AccessId, AssignOp, VarId};

impl Lowerer<'_> {
    pub(super) fn needs_zero_fill(&self) -> bool {
        self.dense_output().is_some()
            && self.kernel.op == AssignOp::Assign
            && (!self.covers || !self.opened.is_empty())
    }

    /// The levels `start..=end` of the group of output level `k`: from the level with a `pos`
    /// array at or above `k` to the last branchless level below it.
    pub(super) fn group_of(&self, a: AccessId, k: usize) -> (usize, usize) {
        let levels = &self.format(a).levels;
        let start = (0..=k)
            .rev()
            .find(|&j| levels[j].appends_segments())
            .unwrap_or(k);
        let end = (k + 1..levels.len())
            .take_while(|&j| levels[j].is_branchless())
            .last()
            .unwrap_or(k);
        (start, end)
    }

    /// The output level with a `pos` array whose segment the loop over `v` appends, if any.
    pub(super) fn appended_output_level(&self, v: VarId) -> Option<(AccessId, usize)> {
        let a = self.appended_output()?;
        let format = self.format(a);
        (0..format.order())
            .find(|&k| {
                format.levels[k].appends_segments()
                    && self.kernel.accesses[a].level_var(format, k) == v
            })
            .map(|k| (a, k))
    }

    /// Clears the output's appending levels and values before assembly, or starts the insert
    /// assembly of an output whose levels all insert.
    pub(super) fn assembly_init(&self) -> Vec<Stmt> {
        if let Some(a) = self.inserted_output() {
            return self.insert_init(a);
        }
        let Some(a) = self.appended_output() else {
            return Vec::new();
        };
        if self.gathers_along_pattern() {
            return Vec::new();
        }
        if self.values_only {
            return vec![Stmt::Let(Local::Stored, true, IrExpr::Usize(0))];
        }
        let mut stmts = Vec::new();
        let format = self.format(a);
        for k in
            (0..format.order()).filter(|&k| format.levels[k].assembly() == Some(Assembly::Append))
        {
            let hint = self.dense_prefix_size(a, k).unwrap_or(IrExpr::Usize(0));
            stmts.push(Stmt::Expr(self.level_call(
                a,
                k,
                LevelFn::AppendInit,
                vec![hint],
            )));
        }
        stmts.push(Stmt::Expr(call(self.vals(a), "clear", vec![])));
        stmts.extend(self.reserve_entries(a));
        stmts.extend(self.block_len(a));
        stmts
    }

    /// Reserves room for the output's entries in its last group's levels and its values, from
    /// [`Lowerer::entry_bound`] (SciPy sizes a sum's arrays by `nnz(A) + nnz(B)` likewise):
    /// one allocation (with huge pages where large) instead of growth by doubling. Nothing
    /// when there is no bound, or when the last level is not appended (a dense block at the
    /// bottom stores a block per entry). A bound too small only costs growth.
    fn reserve_entries(&self, a: AccessId) -> Vec<Stmt> {
        let format = self.format(a);
        let last = format.order() - 1;
        if format.levels[last].assembly() != Some(Assembly::Append) {
            return Vec::new();
        }
        let Some(bound) = self.entry_bound(&self.kernel.rhs) else {
            return Vec::new();
        };
        let (start, end) = self.group_of(a, last);
        let mut stmts: Vec<Stmt> = (start..=end)
            .filter(|&k| format.levels[k].assembly() == Some(Assembly::Append))
            .map(|k| Stmt::Expr(self.level_call(a, k, LevelFn::AppendReserve, vec![bound.clone()])))
            .collect();
        let values = IrExpr::Runtime("reserve_values", vec![self.vals(a), bound]);
        stmts.push(Stmt::Expr(values));
        stmts
    }

    /// An upper bound on the entries the output receives, from its operands' stored counts:
    /// an operand that has every output variable stores at most `vals.len()` tuples of them
    /// (a reduction projects, which only merges); a product (an intersection, all fill values
    /// zero) at most the smaller of its factors' bounds; a sum or difference at most both
    /// together. `None` (no bound) for an operand broadcast along an output variable, a
    /// scalar, and for functions, other reductions, quotients and nonzero fill values, whose
    /// iteration space may be wider.
    fn entry_bound(&self, e: &crate::notation::Expr) -> Option<IrExpr> {
        use crate::notation::{BinOp, Expr};
        let kernel = self.kernel;
        match e {
            Expr::Access(a) => {
                let access = &kernel.accesses[*a];
                let tensor = &kernel.tensors[access.tensor];
                let covers = kernel.output_vars().iter().all(|v| access.vars.contains(v));
                (covers && tensor.fill.is_zero()).then(|| call(self.vals(*a), "len", vec![]))
            }
            Expr::Neg(e) | Expr::Sum(_, e) => self.entry_bound(e),
            Expr::Binary(BinOp::Mul, l, r) => {
                let (l, r) = (self.entry_bound(l), self.entry_bound(r));
                match (l, r) {
                    (Some(l), Some(r)) => Some(IrExpr::Min(Box::new(l), Box::new(r))),
                    (one, other) => one.or(other).filter(|_| self.zero_fills(e)),
                }
            }
            Expr::Binary(BinOp::Add | BinOp::Sub, l, r) => {
                let (l, r) = (self.entry_bound(l)?, self.entry_bound(r)?);
                Some(call(l, "saturating_add", vec![r]))
            }
            _ => None,
        }
    }

    /// Whether every operand of `e` has fill value zero and `e` holds only sums, differences,
    /// products and negations of operands, scalars and literals: then a product is present
    /// only where every operand factor is (an intersection).
    fn zero_fills(&self, e: &crate::notation::Expr) -> bool {
        use crate::notation::{BinOp, Expr};
        match e {
            Expr::Access(a) => self.kernel.tensors[self.kernel.accesses[*a].tensor]
                .fill
                .is_zero(),
            Expr::Scalar(_) | Expr::Literal(_) => true,
            Expr::Neg(e) | Expr::Sum(_, e) => self.zero_fills(e),
            Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, l, r) => {
                self.zero_fills(l) && self.zero_fills(r)
            }
            _ => false,
        }
    }

    /// Remembers where the segment of level `k` below the current parent begins (nothing
    /// when only values are computed: the pattern is already assembled).
    pub(super) fn open_segment(&self, a: AccessId, k: usize) -> Vec<Stmt> {
        if self.values_only {
            return Vec::new();
        }
        let len = self.level_call(a, k, LevelFn::Len, vec![]);
        vec![Stmt::Let(Local::SegBegin(a, k), false, len)]
    }

    /// Closes the segment of level `k` below its parent: records its edges when it is not
    /// empty, and then appends the parent group's coordinates when the parent appends (taco
    /// 6.3: empty segments are elided).
    pub(super) fn close_segment(&mut self, scope: &Scope, a: AccessId, k: usize) -> Vec<Stmt> {
        if self.values_only {
            return Vec::new();
        }
        let begin = var(Local::SegBegin(a, k));
        let end = self.level_call(a, k, LevelFn::Len, vec![]);
        if k == 0 {
            return vec![Stmt::Expr(self.level_call(
                a,
                k,
                LevelFn::AppendEdges,
                vec![IrExpr::Usize(0), begin, end],
            ))];
        }
        let format = self.format(a);
        let parent_appends = format.levels[k - 1].assembly() == Some(Assembly::Append);
        let parent_pos = match (parent_appends, scope.pos[a].get(k - 1)) {
            // The parent tuple is appended right after, at the parent level's next position.
            (true, _) => self.level_call(a, k - 1, LevelFn::Len, vec![]),
            (false, Some(Pos::One(p))) => p.clone(),
            _ => {
                self.fail("output parent position unresolved");
                IrExpr::Usize(0)
            }
        };
        let seg_end = Local::SegEnd(a, k);
        let mut then = vec![Stmt::Expr(self.level_call(
            a,
            k,
            LevelFn::AppendEdges,
            vec![parent_pos, begin.clone(), var(seg_end)],
        ))];
        if parent_appends {
            let (start, end) = self.group_of(a, k - 1);
            then.extend((start..=end).map(|j| self.append_coord(a, j)));
        }
        vec![
            Stmt::Let(seg_end, false, end),
            Stmt::If(bin(Op::Gt, var(seg_end), begin), then, vec![]),
        ]
    }

    /// Appends a computed entry: the coordinates of the last group, then the value. Below a
    /// dense block, the group's tuple is appended (with a zero block of values) when the
    /// first value of the block is computed, and the value is written at its place in it.
    pub(super) fn append_entry(&self, a: AccessId, value: IrExpr) -> Vec<Stmt> {
        if self.values_only {
            // The entries come in the order they were appended: the next position is this
            // value's (checked, so a broken assumption is an `Err`, never a stray write).
            let next = IrExpr::Runtime("store_next", vec![self.vals(a), var(Local::Stored), value]);
            return vec![Stmt::Assign(var(Local::Stored), Assign::Set, try_(next))];
        }
        let format = self.format(a);
        let last = self.last_appending_level(a);
        let (start, end) = self.group_of(a, last);
        let appends = (start..=end).map(|j| self.append_coord(a, j));
        if last + 1 == format.order() {
            let mut stmts: Vec<Stmt> = appends.collect();
            stmts.push(Stmt::Expr(call(self.vals(a), "push", vec![value])));
            return stmts;
        }
        let open = var(Local::BlockOpen(a));
        let mut first: Vec<Stmt> = appends.collect();
        // Checked (the block's size is bounded by no validated tensor: an empty output has no
        // blocks), so every position located in the block below is within `vals`.
        // The block's components no value is computed for are the statement's fill.
        let fill = crate::algebra::fill_of(self.kernel, &self.kernel.rhs)
            .filter(|f| !matches!(f, crate::notation::Expr::Const(c) if c.is_zero()))
            .and_then(|f| super::constant_expr(self.kernel, &f));
        first.push(Stmt::Expr(try_(match fill {
            None => IrExpr::Runtime(
                "append_zero_block",
                vec![self.vals(a), var(Local::BlockLen(a))],
            ),
            Some(fill) => IrExpr::Runtime(
                "append_fill_block",
                vec![self.vals(a), var(Local::BlockLen(a)), fill],
            ),
        })));
        first.push(Stmt::Assign(open.clone(), Assign::Set, IrExpr::Bool(true)));
        let closed = bin(Op::Eq, open, IrExpr::Bool(false));
        // The tuple's position, then the value's position in its block.
        let len = self.level_call(a, last, LevelFn::Len, vec![]);
        let mut pos = bin(Op::Sub, len, IrExpr::Usize(1));
        for k in last + 1..format.order() {
            let coord = var(Local::Index(self.kernel.accesses[a].level_var(format, k)));
            pos = self.level_call(a, k, LevelFn::Locate, vec![pos, coord]);
        }
        vec![
            Stmt::If(closed, first, vec![]),
            Stmt::Assign(index(self.vals(a), pos), Assign::Set, value),
        ]
    }

    /// The last level of an appended output that appends: below it, if anything, a dense
    /// block (levels that are all full).
    pub(super) fn last_appending_level(&self, a: AccessId) -> usize {
        let levels = &self.format(a).levels;
        (0..levels.len())
            .rev()
            .find(|&k| levels[k].assembly() == Some(Assembly::Append))
            .unwrap_or(levels.len() - 1)
    }

    /// `let block_len = block_len(&[dims of the dense block])?`, if the output has a dense
    /// block below its appending levels: the product, or `Err` if it overflows.
    fn block_len(&self, a: AccessId) -> Vec<Stmt> {
        let format = self.format(a);
        let last = self.last_appending_level(a);
        if last + 1 == format.order() {
            return Vec::new();
        }
        let dims = (last + 1..format.order())
            .map(|j| self.dim(self.kernel.accesses[a].level_var(format, j)))
            .collect();
        let len = try_(IrExpr::Runtime("block_len", vec![IrExpr::Slice(dims)]));
        vec![Stmt::Let(Local::BlockLen(a), false, len)]
    }

    /// At the start of each iteration of the loop over `v`: when `v` is stored by the last
    /// appending level of an output with a dense block below it, no block is open yet for the
    /// tuple this iteration computes.
    pub(super) fn block_reset(&self, v: VarId, target: Target) -> Vec<Stmt> {
        let Some(a) = self
            .appended_output()
            .filter(|_| matches!(target, Target::Output))
        else {
            return Vec::new();
        };
        let format = self.format(a);
        let last = self.last_appending_level(a);
        if last + 1 == format.order() || self.kernel.accesses[a].level_var(format, last) != v {
            return Vec::new();
        }
        vec![Stmt::Let(Local::BlockOpen(a), true, IrExpr::Bool(false))]
    }

    fn append_coord(&self, a: AccessId, k: usize) -> Stmt {
        let v = self.kernel.accesses[a].level_var(self.format(a), k);
        Stmt::Expr(self.level_call(a, k, LevelFn::AppendCoord, vec![var(Local::Index(v))]))
    }

    /// Ends assembly: every level with a `pos` array sizes it for its parent positions.
    pub(super) fn assembly_finalize(&self) -> Vec<Stmt> {
        let Some(a) = self.appended_output() else {
            return Vec::new();
        };
        if self.gathers_along_pattern() {
            return Vec::new();
        }
        if self.values_only {
            let len = call(self.vals(a), "len", vec![]);
            let check = IrExpr::Runtime("check_all_stored", vec![len, var(Local::Stored)]);
            return vec![Stmt::Expr(try_(check))];
        }
        let format = self.format(a);
        (0..format.order())
            .filter(|&k| format.levels[k].appends_segments())
            .map(|k| {
                let parents = match k {
                    0 => IrExpr::Usize(1),
                    _ if format.levels[k - 1].assembly() == Some(Assembly::Append) => {
                        self.level_call(a, k - 1, LevelFn::Len, vec![])
                    }
                    _ => self.dense_prefix_size(a, k).unwrap_or(IrExpr::Usize(0)),
                };
                let finalize = self.level_call(a, k, LevelFn::AppendFinalize, vec![parents]);
                Stmt::Expr(try_(finalize))
            })
            .collect()
    }

    /// Starts insert assembly: each level that is not full (a full one has fixed positions) is
    /// emptied, or kept for `+=`, its values zero.
    fn insert_init(&self, a: AccessId) -> Vec<Stmt> {
        let format = self.format(a);
        let keep = IrExpr::Bool(self.kernel.op == AssignOp::AddAssign);
        (0..format.order())
            .filter(|&k| !format.levels[k].is_full())
            .map(|k| {
                let parents = self.dense_prefix_size(a, k).unwrap_or(IrExpr::Usize(0));
                let init = self.level_call(
                    a,
                    k,
                    LevelFn::InsertInit,
                    vec![parents, keep.clone(), self.vals(a)],
                );
                Stmt::Expr(try_(init))
            })
            .collect()
    }

    /// Writes a computed entry into an output whose levels all insert: its last level (the
    /// only one that is not full) inserts the coordinate, and the value goes to the position.
    pub(super) fn insert_entry(
        &self,
        scope: &Scope,
        a: AccessId,
        mode: Assign,
        value: IrExpr,
    ) -> Vec<Stmt> {
        let format = self.format(a);
        let k = scope.pos[a].len();
        if k + 1 != format.order() {
            self.fail("an inserted output is resolved to other than its last level at compute");
            return Vec::new();
        }
        let parent = match scope.pos[a].last() {
            None => IrExpr::Usize(0),
            Some(Pos::One(p)) => p.clone(),
            Some(Pos::Run(..)) => {
                self.fail("an inserted output level below a run");
                IrExpr::Usize(0)
            }
        };
        let coord = var(Local::Index(self.kernel.accesses[a].level_var(format, k)));
        let insert = self.level_call(
            a,
            k,
            LevelFn::InsertCoord,
            vec![parent, coord, self.vals(a)],
        );
        let pos = Local::Pos(a, k);
        vec![
            Stmt::Let(pos, false, try_(insert)),
            Stmt::Assign(index(self.vals(a), var(pos)), mode, value),
        ]
    }

    /// Number of parent positions of level `k` when every level above it inserts.
    fn dense_prefix_size(&self, a: AccessId, k: usize) -> Option<IrExpr> {
        let format = self.format(a);
        if !format.levels[..k]
            .iter()
            .all(|l| l.assembly() == Some(Assembly::Insert))
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
