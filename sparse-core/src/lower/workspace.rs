//! Lowering through a workspace (`crate::workspace`): below the outer loops, the nests that
//! compute the current slice into the accumulator, then the copy of its entries, in key order,
//! into the output's workspace levels, then the accumulator cleared for the next slice.
//!
//! The copy walks the sorted entries once with a cursor. Each workspace level that is not in
//! the output's last appending group loops over the runs of entries sharing its coordinate (the
//! key divided by the level's stride), so a `Dense` level locates its position once per
//! coordinate and an appending level opens its segment once per parent, exactly as the loops
//! of an output appended directly do; the last group appends one entry per accumulator entry.

use super::Pos;
use super::{zero_literal, Lowerer, Scope, Target};
use crate::format::LevelFn;
use crate::ir::{and, bin, call, index, try_, var, Assign, Expr as IrExpr, Local, Op, Stmt};
use crate::iteration_graph::root_sum_vars;
use crate::notation::Expr;
use crate::workspace::{Kind, Workspace};

impl Lowerer<'_> {
    /// `let mut workspace = Accumulator::new(size)?;` and the strides of its levels.
    pub(super) fn workspace_init(&self) -> Vec<Stmt> {
        let Some(w) = self.workspace else {
            return Vec::new();
        };
        let n = w.vars.len();
        let size = match n {
            1 => self.dim(w.vars[0]),
            _ => {
                let dims = w.vars.iter().map(|&v| self.dim(v)).collect();
                try_(IrExpr::Runtime("workspace_size", vec![IrExpr::Slice(dims)]))
            }
        };
        let new = try_(IrExpr::NewWorkspace(w.kind, Box::new(size)));
        let mut stmts = vec![Stmt::Let(Local::Workspace, true, new)];
        // Below the size, which did not overflow.
        for j in (0..n.saturating_sub(1)).rev() {
            let below = self.dim(w.vars[j + 1]);
            let stride = match j + 2 == n {
                true => below,
                false => bin(Op::Mul, below, var(Local::Stride(j + 1))),
            };
            stmts.push(Stmt::Let(Local::Stride(j), false, stride));
        }
        stmts
    }

    /// The stride of workspace level `j` (relative to the first workspace level).
    fn stride(&self, w: &Workspace, j: usize) -> Option<IrExpr> {
        (j + 1 < w.vars.len()).then(|| var(Local::Stride(j)))
    }

    /// Adds a computed value at the key of the bound workspace coordinates (a plain addition
    /// where a compute-only variant gathers: the keys were zeroed, no marks are kept).
    pub(super) fn workspace_add(&self, value: IrExpr) -> Vec<Stmt> {
        let Some(w) = self.workspace else {
            self.fail("a workspace target without a workspace");
            return Vec::new();
        };
        let key = (0..w.vars.len())
            .map(|j| {
                let coord = var(Local::Index(w.vars[j]));
                match self.stride(w, j) {
                    Some(stride) => bin(Op::Mul, coord, stride),
                    None => coord,
                }
            })
            .reduce(|sum, term| bin(Op::Add, sum, term))
            .unwrap_or(IrExpr::Usize(0));
        // SAFETY (emit.rs): each coordinate is below its dimension, so the key is below the
        // product of the dimensions, the accumulator's size.
        let method = if self.gathering {
            "accumulate_unchecked"
        } else {
            "add_unchecked"
        };
        vec![Stmt::Expr(call(
            var(Local::Workspace),
            method,
            vec![key, value],
        ))]
    }

    /// At a point of the outer loops: the nests computing the slice of `expr` into the
    /// workspace (one per group of terms that shares an order), then the copy into the output.
    pub(super) fn through_workspace(
        &mut self,
        scope: &Scope,
        expr: Expr,
        w: &Workspace,
    ) -> Vec<Stmt> {
        let mut inner = w.inner.clone();
        inner.rhs = expr;
        let mut diags = crate::diagnostic::Diagnostics::default();
        let Some(parts) = crate::split::parts_after(&inner, &w.outer, &mut diags) else {
            self.fail("a workspace slice has no loop order below the outer loops");
            return Vec::new();
        };
        let gather = self.gathers(scope, w);
        let outer_order = std::mem::take(&mut self.order);
        self.filling = true;
        let mut stmts = Vec::new();
        if let Some(parent) = &gather {
            // Only the pattern's keys are read back: they start at zero, the rest may hold
            // anything (nothing is ever read from them).
            let zero =
                |coord| Stmt::Expr(call(var(Local::Workspace), "zero_unchecked", vec![coord]));
            stmts.extend(self.over_pattern(scope, w, parent.clone(), zero));
        }
        self.gathering = gather.is_some();
        for part in parts {
            let mut loop_vars = w.vars.clone();
            loop_vars.extend(root_sum_vars(&part.kernel));
            // A part that is a sum covering its dimensions is 0 and present at every
            // coordinate where one of them is empty, though its loops run zero times.
            let empty = self.empty_covering_sum(&part.kernel.rhs);
            let zero = empty.as_ref().map(|_| {
                self.order = part
                    .order
                    .iter()
                    .copied()
                    .filter(|v| w.vars.contains(v))
                    .collect();
                self.lower_loops(scope, zero_literal(), Target::Workspace, &w.vars)
            });
            self.order = part.order;
            let rhs = part.kernel.rhs;
            let nest = self.lower_loops(scope, rhs, Target::Workspace, &loop_vars);
            match (empty, zero) {
                (Some(empty), Some(zero)) => stmts.push(Stmt::If(empty, zero, nest)),
                _ => stmts.extend(nest),
            }
        }
        self.filling = false;
        self.gathering = false;
        self.order = outer_order;
        match gather {
            Some(parent) => {
                let (a, k) = (self.appended_output_or_fail(), w.level);
                let vals = self.vals(a);
                let read = |coord| {
                    let value = call(var(Local::Workspace), "get_unchecked", vec![coord]);
                    Stmt::Assign(
                        index(vals.clone(), var(Local::Pos(a, k))),
                        Assign::Set,
                        value,
                    )
                };
                stmts.extend(self.over_pattern(scope, w, parent, read));
            }
            None => stmts.extend(self.copy_out(scope, w)),
        }
        stmts
    }

    /// In a compute-only variant, a dense workspace of the output's last level below outer
    /// levels that are all located (`Dense`) needs neither marks nor a sort: the pattern the
    /// kernel assembled lists the keys of the slice, so they are zeroed before the nests,
    /// accumulated into by plain additions, and read back in pattern order into their
    /// positions. The position of the slice's parent, if so.
    fn gathers(&self, scope: &Scope, w: &Workspace) -> Option<IrExpr> {
        if !self.gathers_along_pattern() {
            return None;
        }
        let a = self.appended_output()?;
        match w.level.checked_sub(1) {
            None => Some(IrExpr::Usize(0)),
            Some(j) => match scope.pos[a].get(j) {
                Some(Pos::One(p)) if scope.pos[a].len() == w.level => Some(p.clone()),
                _ => {
                    self.fail("the outer levels of a gathering workspace are not located");
                    None
                }
            },
        }
    }

    /// Whether the compute-only variant reads its workspace back along the output's
    /// pattern: a dense workspace of the output's last level, an appending one, below
    /// `Dense` levels only (their positions are located, so the slice's segment is known).
    pub(super) fn gathers_along_pattern(&self) -> bool {
        let (Some(w), Some(a)) = (self.workspace, self.appended_output()) else {
            return false;
        };
        let levels = &self.format(a).levels;
        let last = levels.len() - 1;
        self.values_only
            && w.kind == Kind::Dense
            && w.level == last
            && levels[last].appends_segments()
            && levels[..last].iter().all(|l| l.has_locate() && l.is_full())
    }

    /// `for p in segment(parent) { f(crd[p]) }` over the output's last level.
    fn over_pattern(
        &mut self,
        scope: &Scope,
        w: &Workspace,
        parent: IrExpr,
        f: impl Fn(IrExpr) -> Stmt,
    ) -> Vec<Stmt> {
        let (a, k) = (self.appended_output_or_fail(), w.level);
        let bounds = self.level_call_in(scope, a, k, LevelFn::PosBounds, vec![parent]);
        let coord =
            self.level_call_in(scope, a, k, LevelFn::PosAccess, vec![var(Local::Pos(a, k))]);
        let body = vec![f(coord)];
        let (lo, hi) = (Local::SegBegin(a, k), Local::SegEnd(a, k));
        vec![
            Stmt::LetPair(Some(lo), Some(hi), false, bounds),
            Stmt::For(Local::Pos(a, k), var(lo), var(hi), body),
        ]
    }

    fn appended_output_or_fail(&self) -> usize {
        self.appended_output().unwrap_or_else(|| {
            self.fail("a workspace without an appended output");
            0
        })
    }

    /// Sorts the slice's entries (unless the only workspace level is unordered), appends them
    /// to the output, and clears the accumulator.
    fn copy_out(&mut self, scope: &Scope, w: &Workspace) -> Vec<Stmt> {
        let Some(a) = self.appended_output() else {
            self.fail("a workspace without an appended output");
            return Vec::new();
        };
        let levels = &self.format(a).levels;
        let ordered = w.vars.len() > 1 || levels[w.level].is_ordered();
        let mut stmts = Vec::new();
        if ordered {
            // A statement of its own: the count below may go unused (a bulk append), and
            // an unused `let` is pruned with its value.
            stmts.push(Stmt::Expr(call(var(Local::Workspace), "sort", vec![])));
        }
        let len = call(var(Local::Workspace), "len", vec![]);
        stmts.push(Stmt::Let(Local::WorkspaceLen, false, len));
        let (last_group, _) = self.group_of(a, self.last_appending_level(a));
        if w.level < last_group {
            stmts.push(Stmt::Let(Local::Cursor, true, IrExpr::Usize(0)));
        }
        let mut scope = scope.clone();
        stmts.extend(self.copy_level(&mut scope, w, w.level, None));
        stmts.push(Stmt::Expr(call(var(Local::Workspace), "clear", vec![])));
        stmts
    }

    /// The copy of the entries below output level `d` (the first of the remaining workspace
    /// levels), within the run of entries sharing the group key of workspace level `within`.
    fn copy_level(
        &mut self,
        scope: &mut Scope,
        w: &Workspace,
        d: usize,
        within: Option<usize>,
    ) -> Vec<Stmt> {
        let Some(a) = self.appended_output() else {
            return Vec::new();
        };
        let format = self.format(a);
        let (last_group, _) = self.group_of(a, self.last_appending_level(a));
        let in_run = self.in_run(w, within);
        if d >= last_group {
            let entries = match self.bulk_append(a, d, within) {
                Some(bulk) => bulk,
                None => self.entry_loop(scope, w, a, d, within, in_run),
            };
            if !(d == last_group && format.levels[d].appends_segments()) {
                return entries;
            }
            let mut stmts = self.open_segment(a, d);
            stmts.extend(entries);
            stmts.extend(self.close_segment(scope, a, d));
            return stmts;
        }
        // A `Dense` level (located) or an appending group above the last one: one iteration
        // per run of entries sharing its coordinates.
        let appends = format.levels[d].appends_segments();
        let end = if appends { self.group_of(a, d).1 } else { d };
        let j_end = end - w.level;
        let mut inner = scope.clone();
        let group = match self.stride(w, j_end) {
            Some(stride) => bin(Op::Div, var(Local::Key), stride),
            None => var(Local::Key),
        };
        let mut body = self.bind_coords(&mut inner, w, d, end);
        body.push(Stmt::Let(Local::Group(j_end), false, group));
        if !appends {
            // Only the output's levels are bound here; `resolve_located` locates `d`.
            body.extend(self.resolve_located(&mut inner, &[]));
        }
        body.extend(self.copy_level(&mut inner, w, end + 1, Some(j_end)));
        let mut stmts = Vec::new();
        if appends {
            stmts.extend(self.open_segment(a, d));
        }
        stmts.push(Stmt::While(in_run, body));
        if appends {
            stmts.extend(self.close_segment(scope, a, d));
        }
        stmts
    }

    /// One output entry per accumulator entry of the run (all of them at the top).
    fn entry_loop(
        &mut self,
        scope: &mut Scope,
        w: &Workspace,
        a: usize,
        d: usize,
        within: Option<usize>,
        in_run: IrExpr,
    ) -> Vec<Stmt> {
        let last = self.format(a).order() - 1;
        let mut body = self.bind_coords(scope, w, d, last);
        let cursor = vec![var(Local::Cursor)];
        let value = call(var(Local::Workspace), "value_unchecked", cursor);
        body.extend(self.append_entry(a, value));
        if within.is_none() {
            let len = var(Local::WorkspaceLen);
            return vec![Stmt::For(Local::Cursor, IrExpr::Usize(0), len, body)];
        }
        body.push(Stmt::Assign(
            var(Local::Cursor),
            Assign::Add,
            IrExpr::Usize(1),
        ));
        vec![Stmt::While(in_run, body)]
    }

    /// The whole slice appended at once when it is all of one level (the output's last, alone
    /// in its group, whose keys are its coordinates): its coordinates in one `append_coords`
    /// and its values in one `extend`, each a single reservation and a tight loop where a push
    /// per entry would reload the output's arrays and store their lengths every time.
    fn bulk_append(&self, a: usize, d: usize, within: Option<usize>) -> Option<Vec<Stmt>> {
        let format = self.format(a);
        let last = format.order() - 1;
        let alone = self.group_of(a, last) == (d, last);
        let bulk = format.levels[d].function(LevelFn::AppendCoords).is_some();
        if self.values_only || within.is_some() || d != last || !alone || !bulk {
            return None;
        }
        let keys = call(var(Local::Workspace), "keys", vec![]);
        let values = call(var(Local::Workspace), "values", vec![]);
        Some(vec![
            Stmt::Expr(self.level_call(a, d, LevelFn::AppendCoords, vec![keys])),
            Stmt::Expr(call(self.vals(a), "extend", vec![values])),
        ])
    }

    /// `entry < len && key(entry) / stride == group` (the run of the enclosing level), or
    /// just the bound at the top. The key is read only below the bound.
    fn in_run(&self, w: &Workspace, within: Option<usize>) -> IrExpr {
        let bound = bin(Op::Lt, var(Local::Cursor), var(Local::WorkspaceLen));
        let Some(j) = within else {
            return bound;
        };
        let key = self.key_at_cursor();
        let prefix = match self.stride(w, j) {
            Some(stride) => bin(Op::Div, key, stride),
            None => key,
        };
        and(bound, bin(Op::Eq, prefix, var(Local::Group(j))))
    }

    fn key_at_cursor(&self) -> IrExpr {
        call(
            var(Local::Workspace),
            "key_unchecked",
            vec![var(Local::Cursor)],
        )
    }

    /// `let key = ...;` and the coordinates of output levels `d..=end` decoded from it.
    fn bind_coords(&self, scope: &mut Scope, w: &Workspace, d: usize, end: usize) -> Vec<Stmt> {
        let Some(a) = self.appended_output() else {
            return Vec::new();
        };
        let format = self.format(a);
        let mut stmts = vec![Stmt::Let(Local::Key, false, self.key_at_cursor())];
        for k in d..=end {
            let j = k - w.level;
            let v = self.kernel.accesses[a].level_var(format, k);
            let mut coord = var(Local::Key);
            if let Some(stride) = self.stride(w, j) {
                coord = bin(Op::Div, coord, stride);
            }
            if j > 0 {
                coord = bin(Op::Rem, coord, self.dim(v));
            }
            stmts.push(Stmt::Let(Local::Index(v), false, coord));
            scope.bound[v] = true;
        }
        stmts
    }
}
