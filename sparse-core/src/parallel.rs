//! Parallel rows of a dense output: the outermost loop of a nest that runs over the first
//! storage level of an all-dense output (`for i in 0..dim_i`) becomes a [`Stmt::Rows`], which
//! the runtime's `parallel_rows` splits into tasks of consecutive rows run in parallel,
//! handing each task the output's values of its rows as its own `&mut` slice. A task runs
//! the loop over its rows as the serial code does (one call per task, not per row, so the
//! loop compiles as the serial one).
//!
//! Why this is sound and gives the serial result, bit for bit:
//! - **Disjoint writes.** Below coordinate `i` of a dense first level, every position of a
//!   dense output lies in `[i * len, (i + 1) * len)`, `len` being the product of the sizes of
//!   the levels below (a `Dense` level's position is its parent's times its size plus its
//!   coordinate). So an iteration that reaches the output only through positions it located
//!   under `i` writes only its row; the positions are rewritten as offsets from the first
//!   position of the task's first row ([`Local::RowBase`]) into the task's slice.
//! - **Nothing else shared is written.** An iteration may assign only the output's values
//!   and locals it binds itself, and read, besides its own locals, only dimensions, level
//!   structs, value arrays and parameters (all read-only). A scratch array, workspace,
//!   assembly guard, scalar output or any other statement with an effect keeps the loop
//!   serial. rustc checks this again: the row closure is `Fn + Sync`.
//! - **The same arithmetic.** Each row is computed by the same statements in the same order
//!   as in the serial loop; only which thread runs it changes.
//!
//! A zero-fill of the output right before such a loop moves into it (each row fills itself),
//! so it is parallel too. `#[schedule(parallel(never))]` keeps a kernel serial.
//!
//! **Loops over a sparse root.** Where the outermost loop runs over the positions of an
//! input's first level instead (`let (p, end) = b_l0.pos_bounds(0); for p in p..end { let i =
//! b_l0.pos_access(p); .. }`, MTTKRP on a `Csf3` or a `Coo3`, SpMV on a `Dcsr` or a `Coo`), `i`
//! the output's row variable, and that level is ordered and compact, its coordinates never
//! decrease along the positions. The runtime's `parallel_positions` then splits the positions
//! into tasks, each starting where a run of equal coordinates starts (a `Coo`'s level is not
//! unique: one row's positions are consecutive, and stay in one task, in order), and a task
//! owns the rows from its first position's coordinate up to the next task's first (the first
//! task from row 0, the last to the end): consecutive, disjoint ranges that cover every row,
//! each holding its positions' rows. A fill moved in fills the task's rows,
//! the rows no position names included. The same argument as above does the rest.
//!
//! **Compute-only rows of a sparse output** ([`segments`]). A compute-only variant
//! (`#[schedule(compute(..))]`) stores its values in iteration order through one counter,
//! `stored = store_next(vals, stored, v)?`, into an output assembled by the same kernel from
//! inputs of the same patterns (checked on entry), so the stores of row `i` fill exactly
//! `vals[pos[i]..pos[i + 1]]` where the output's first level is `Dense` and its second has a
//! `pos` array. The runtime's `parallel_segments` splits the rows into tasks balanced by
//! values, hands each task the values of its rows as its own slice, and the task runs the
//! loop from its own counter 0 and checks on its own that it stored its slice exactly. If
//! the contract were broken, a task would fail (`store_next` and the check are bounds
//! checks), never write outside its slice. The loop qualifies as above, except that it may
//! assign the counter, only through `store_next`, and must not index the output's values.
//!
//! **Assembling a sparse output** ([`appended`]). Where the output is assembled by appending
//! (a dense first level, a `Compressed` second), a loop over the rows runs in two phases
//! ([`Split::Counted`]), in tasks of rows: the runtime's `parallel_append_counted` hands the
//! task body a level that only counts each row's coordinates and values it drops (the
//! values' arithmetic, sums included, is dead code there), sums the counts into the
//! output's `pos`, allocates the coordinates and values once, and hands the body a level and
//! values that write each task's rows into its window of them. A dense accumulator the rows
//! share (Gustavson's SpGEMM) becomes each task's own: a key counter in the first phase. The
//! loop is deterministic over immutable inputs, so both runs append the same coordinates per
//! row; the runtime checks it anyway (a disagreement is an `Err`). The serial assembly stays
//! in an `else` branch, for one thread and small outputs. A row's appends are the serial
//! loop's, in the same order, so the output is the serial one.
//!
//! Where lowering's bound of the output's entries is made of operands' entry counts whose
//! rows are the output's (a sum or elementwise product of CSR-like operands), the split also
//! carries that bound per range of rows (`rows_bound`: each count made the operand's
//! `positions_below(row_lo, row_hi)`), and the runtime's `parallel_append_bounded` runs the
//! loop once: chunks of rows, taken in order by the threads, each write their rows into a
//! window as long as their bound and are placed after the chunks before them. Counting cost
//! a sparse sum as much as its merge, so the two phases had gained nothing on two threads.
//! A loop that sums each row into its accumulator and appends only the accumulator's keys
//! (Gustavson's SpGEMM) has a bound per row too, its adds (`crate::adds`): the split
//! carries the row's loops counting them ([`Bound::Adds`]), and the runtime's
//! `parallel_append_bounded_accumulated` sums every row's bound first (in parallel, a pass
//! over the outer operand's entries), then runs the loop once in the same chunks.
//!
//! A loop over the positions of a root (TTV on a `Csf3`) is split by positions instead
//! ([`Split::Appended`]), and only a loop that computes its entries by a sum below the
//! output's last level. Where a position's appends can be counted from the loop
//! (`adds::position_appends`: for TTV, the `(i, j)` positions below `i`), the split carries
//! the position's loops counting them ([`Bound::Appends`]) and sits in the `then` branch of
//! `parallel_splits_positions`, the serial assembly in the `else`: the runtime's
//! `parallel_append_positions_bounded` computes every position's bound, then runs the loop
//! once in chunks of positions placed in order, as `parallel_append_bounded` places chunks
//! of rows. Otherwise each task appends its rows, as parents from 0, to a level and values
//! of its own, and the runtime concatenates them in row order, shifting each task's `pos`
//! by the entries before it (each entry written twice: into the task's arrays, then into
//! place); the serial assembly again stays in the `else`.
//!
//! A root that is not unique (a `Coo3`'s) is iterated by its runs of equal coordinates
//! (`while p < end { let i = ..; let r = level.run_end(p, end); ..; p = r }`, or fused, the
//! run's end found by the loop that visits it: `let mut q = p; while q < end && .. { ..; q +=
//! 1 }; ..; p = q`). Its tasks start at runs, as above, so a task running the same loop from
//! `p = pos_lo` to `end = pos_hi` visits exactly the serial loop's runs of its positions
//! (`run_end`, or the fused loop, stops at `pos_hi`, which starts a run or ends the root).
//! A dense output's loop over runs splits the same way ([`Split::Positions`]: COO SpMV,
//! MTTKRP from a `Coo3`). An iteration covers a whole run, so no
//! per-position count of the loop bounds it. Where lowering reserved the output's entries as
//! the root tensor's entries and each level below the root holds one entry per position (a
//! `Coo3`'s singletons), the positions themselves bound them ([`Bound::Positions`]): the
//! runtime's `parallel_append_runs_bounded` fills chunks of runs into windows of their
//! position counts, placed in order, as above. Otherwise such a loop is assembled apart.

use crate::adds::{self, AppendFns};
use crate::ir::{self, Bound, Expr, Local, Op, Split, Stmt};
use crate::level::LevelFn;
use crate::notation::{Kernel, TensorId, VarId};
use crate::workspace::Kind;
use std::collections::HashSet;

/// The kernel's body with every outer loop over its dense output's first level that can run
/// in parallel made a [`Stmt::Rows`].
pub fn rows(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    match row_output(kernel) {
        Some((t, v)) => Rows {
            kernel,
            output: t,
            var: v,
        }
        .block(body),
        None => body,
    }
}

/// A compute-only body (`crate::lower`'s `values_only`) with its loop over the rows of its
/// output made a [`Stmt::Rows`] over [`Split::Segments`], where the output's first level is
/// dense and its second, last, level has a `pos` array (see the module documentation).
pub fn segments(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let Some((t, v)) = segment_output(kernel) else {
        return body;
    };
    let mut out = Vec::with_capacity(body.len());
    let mut body = body.into_iter().peekable();
    while let Some(stmt) = body.next() {
        let opens = matches!(stmt, Stmt::Let(Local::Stored, true, Expr::Usize(0)));
        let row_loop = match (opens, body.peek()) {
            (true, Some(Stmt::For(var, lo, hi, loop_body))) => {
                row_loop(*var, lo, hi, v)
                    && independent_with(loop_body, t, *var, *var, Writes::Stored)
            }
            _ => false,
        };
        if !row_loop {
            out.push(stmt);
            continue;
        }
        let Some(Stmt::For(var, _, hi, loop_body)) = body.next() else {
            unreachable!("peeked above")
        };
        let rows = (ir::var(Local::RowLo), ir::var(Local::RowHi));
        let mut task = vec![stmt, Stmt::For(var, rows.0, rows.1, loop_body)];
        // The check of the count moves into each task, against the task's slice.
        task.extend(body.next_if(is_count_check));
        let level = Local::Level(t, 1);
        out.push(Stmt::Rows(t, Split::Segments { rows: hi, level }, task));
    }
    out
}

/// The output and its first level's variable, if the output's first level is dense and its
/// second, last, level appends segments (a `pos` array): CSR.
fn segment_output(kernel: &Kernel) -> Option<(TensorId, VarId)> {
    let a = kernel.output_access()?;
    let format = kernel.format_of(a);
    let [rows, values] = &format.levels[..] else {
        return None;
    };
    let dense_rows = rows.is_full()
        && rows.has_locate()
        && rows.iteration() == crate::level::Iteration::CoordinateValue;
    let unwindowed = kernel.accesses[a].windows.iter().all(Option::is_none);
    (dense_rows && values.appends_segments() && unwindowed).then(|| {
        (
            kernel.accesses[a].tensor,
            kernel.accesses[a].level_var(format, 0),
        )
    })
}

/// `check_all_stored(vals.len(), stored)?`, the end of a compute-only body.
fn is_count_check(s: &Stmt) -> bool {
    matches!(s, Stmt::Expr(Expr::Try(e)) if matches!(&**e, Expr::Runtime("check_all_stored", _)))
}

/// A body that append-assembles its sparse output, whose first level is dense and whose
/// second, last, level appends segments and can be split by parents
/// ([`LevelFn::AppendRows`]): `append_init(dim_i)`, the values cleared and reserved (and a
/// dense accumulator made), `for i in 0..dim_i { .. }`, `append_finalize(dim_i)?`. The loop
/// becomes a task over rows `row_lo..row_hi`, assembling them as parents
/// `0..row_hi - row_lo`, run in two phases ([`Split::Counted`], the serial region kept for
/// when the runtime does not split). Over a root's positions (or runs) instead, chunks of
/// positions are bounded by their appends, or each task assembles into a level and values
/// of its own, which the runtime concatenates in row order ([`Split::Appended`]; the
/// reservations stay, for a task that has all the rows), the serial region again kept. See
/// the module documentation.
pub fn appended(kernel: &Kernel, mut body: Vec<Stmt>) -> Vec<Stmt> {
    let Some((t, v)) = appended_output(kernel) else {
        return body;
    };
    let level = Local::Level(t, 1);
    let last = &kernel
        .format_of(kernel.output_access().expect("an output"))
        .levels[1];
    let method = |f: LevelFn| last.function(f).map(|f| f.name);
    let (Some(init), Some(finalize), Some(edges)) = (
        method(LevelFn::AppendInit),
        method(LevelFn::AppendFinalize),
        method(LevelFn::AppendEdges),
    ) else {
        return body;
    };
    let level_call = |s: &Stmt, name: &str| -> bool {
        let e = match s {
            Stmt::Expr(Expr::Try(e)) => &**e,
            Stmt::Expr(e) => e,
            _ => return false,
        };
        matches!(e, Expr::Call(r, m, args) if is_var(r, level) && *m == name
            && matches!(&args[..], [Expr::Var(Local::Dim(d))] if *d == v))
    };
    let Some(a) = body.iter().position(|s| level_call(s, init)) else {
        return body;
    };
    // The level's reservation, as it declares it (lowering calls it where it bounds the
    // output's entries).
    let reserve = method(LevelFn::AppendReserve);
    let prelude = body[a + 1..]
        .iter()
        .take_while(|s| is_reservation(s, t, (level, reserve)))
        .count();
    let at = a + 1 + prelude;
    // A dense accumulator the rows share (Gustavson's SpGEMM): each task gets its own.
    let workspace = match body.get(at) {
        Some(Stmt::Let(Local::Workspace, true, Expr::Try(new))) => match &**new {
            Expr::NewWorkspace(Kind::Dense, size) => Some((**size).clone()),
            _ => return body,
        },
        _ => None,
    };
    let at = at + usize::from(workspace.is_some());
    let fns = AppendFns::of(last.decl);
    let writes = match workspace {
        Some(_) => Writes::Accumulated(fns),
        None => Writes::Appended(fns),
    };
    // The loop over the rows: `for i in 0..dim_i`, or over the positions of a root level
    // whose coordinates are the rows (after the `let` of its bounds).
    let root_loop = RootLoop {
        kernel,
        output: t,
        row: v,
    };
    let (root, loop_at) = match (body.get(at), body.get(at + 1)) {
        (Some(Stmt::For(var, lo, hi, loop_body)), _)
            if row_loop(*var, lo, hi, v) && independent_with(loop_body, t, *var, *var, writes) =>
        {
            (None, at)
        }
        (Some(Stmt::LetPair(Some(p), Some(end), runs, bounds)), Some(next)) => {
            match root_loop.level((bounds, *p, *end, *runs), next, writes) {
                Some(r) => (Some((r, ir::var(*p), ir::var(*end))), at + 1),
                None => return body,
            }
        }
        _ => return body,
    };
    if !body
        .get(loop_at + 1)
        .is_some_and(|s| level_call(s, finalize))
    {
        return body;
    }
    // A loop over a root's runs (a `while`) is a loop over its positions whose iterations
    // each cover a run.
    let (var, loop_body, runs) = match (body.get(loop_at).cloned(), &root) {
        (Some(Stmt::For(var, _, _, loop_body)), _) => (var, loop_body, None),
        (Some(Stmt::While(_, loop_body)), Some((_, Expr::Var(p), Expr::Var(end)))) => {
            (*p, loop_body, Some(*end))
        }
        _ => unreachable!("matched above"),
    };
    // Over a root's positions, only a loop that sums each entry is assembled apart (a copy
    // of its entries costs less than the sums); with an accumulator, or over the rows, every
    // loop runs in two phases.
    if root.is_some() && (workspace.is_some() || !computes_entries(&loop_body, t)) {
        return body;
    }
    // The counting phase evaluates the values too (dropped), so a loop that calls the
    // user's code would call it twice per entry: such a loop keeps its single, serial pass.
    if root.is_none() && calls_user_code(kernel, &loop_body) {
        return body;
    }
    // The accumulator becomes the tasks' own: nothing after the loop may read it.
    if workspace.is_some() && !unused_after(&body[loop_at + 2..], Local::Workspace) {
        return body;
    }
    let mut region: Vec<Stmt> = body.drain(a..loop_at + 2).collect();
    let names = AppendNames {
        init,
        finalize,
        edges,
    };
    if root.is_none() {
        let bound = match workspace {
            None => region[1..1 + prelude]
                .iter()
                .find_map(|s| reserved(s, (level, reserve?)))
                .and_then(|b| rows_bound(kernel, v, b))
                .map(Bound::Rows),
            Some(_) => adds::row_adds(&loop_body, level, Local::Vals(t), &fns)
                .map(|adds| Bound::Adds(var, adds)),
        };
        let task = append_task(&names, level, v, &[], (var, None), loop_body, false);
        let output = (level, v, workspace, bound);
        body.insert(a, counted(kernel, t, output, task, region));
        return body;
    }
    let Some(root) = root else {
        unreachable!("a loop over the rows is counted above")
    };
    // Where each position's appends bound its entries, chunks of positions write into
    // windows of the output, placed in order. Otherwise each task appends into a level and
    // values of its own, concatenated in order (an iteration over a run covers several
    // positions, which a per-position count does not bound). Either way the serial assembly
    // stays where the runtime does not split (one thread, few positions).
    let bound = match runs {
        None => adds::position_appends(&loop_body, level, Local::Vals(t), &fns)
            .map(|appends| Bound::Appends(var, appends)),
        Some(_) => {
            let reservation = region[1..1 + prelude]
                .iter()
                .find_map(|s| reserved(s, (level, reserve?)));
            runs_bound(kernel, root.0, reservation).then_some(Bound::Positions)
        }
    };
    let reserves = match bound {
        Some(_) => &[][..],
        None => &region[1..1 + prelude],
    };
    let task = append_task(&names, level, v, reserves, (var, runs), loop_body, true);
    let work = work_of(kernel, t, &task);
    let splits = Expr::Runtime(
        "parallel_splits_positions",
        vec![root.1.clone(), root.2.clone(), work.clone()],
    );
    let split = Split::Appended {
        rows: ir::var(Local::Dim(v)),
        level,
        root,
        work,
        bound,
    };
    // The bounds of the root level go before the choice (the tasks read them).
    let bounds: Vec<Stmt> = region.drain(1 + prelude..loop_at - a).collect();
    let choice = Stmt::If(splits, vec![Stmt::Rows(t, split, task)], region);
    body.splice(a..a, bounds.into_iter().chain([choice]));
    body
}

/// A loop over the rows assembled in two phases, counting and then filling in place
/// ([`Split::Counted`]), where the runtime splits it (`parallel_splits_counted`: more than
/// one thread, enough rows); the serial assembly `region` otherwise, as it was.
/// A dense accumulator of the rows (`workspace`, its size) becomes each task's own.
fn counted(
    kernel: &Kernel,
    t: TensorId,
    (level, v, workspace, bound): (Local, VarId, Option<Expr>, Option<Bound>),
    task: Vec<Stmt>,
    region: Vec<Stmt>,
) -> Stmt {
    let work = work_of(kernel, t, &task);
    let rows = ir::var(Local::Dim(v));
    let splits = Expr::Runtime("parallel_splits_counted", vec![rows.clone(), work.clone()]);
    let split = Split::Counted {
        rows,
        level,
        work,
        workspace,
        bound,
    };
    Stmt::If(splits, vec![Stmt::Rows(t, split, task)], region)
}

/// The bound `level.append_reserve(bound)` reserves (lowering's bound of the output's
/// entries), if `s` is that call (`reserve` the name the level declares for it).
fn reserved<'s>(s: &'s Stmt, (level, reserve): (Local, &str)) -> Option<&'s Expr> {
    match s {
        Stmt::Expr(Expr::Call(r, m, args)) if *m == reserve && is_var(r, level) => args.first(),
        _ => None,
    }
}

/// Whether a loop over the runs of `root` (a tensor's first level) appends at most one entry
/// per root position ([`Bound::Positions`]): lowering reserved the output's entries as that
/// tensor's entry count (`reservation`, `b_vals.len()`), every level of the tensor below its
/// root holds one entry per position (branchless and compact: a `Coo3`'s singletons, so the
/// entries below positions `lo..hi` are `hi - lo`), and no access reads it through a window.
/// As for [`rows_bound`], the entries the output's rows hold come from the operand's entries
/// of the same rows; the runtime checks every window regardless.
fn runs_bound(kernel: &Kernel, root: Local, reservation: Option<&Expr>) -> bool {
    let Local::Level(r, 0) = root else {
        return false;
    };
    let counts_root = matches!(reservation,
        Some(Expr::Call(x, "len", args)) if args.is_empty() && is_vals(x, r));
    let Some(tensor) = kernel.tensors.get(r) else {
        return false;
    };
    let format = &tensor.format;
    let one_per_position = format.remap.is_none()
        && format.levels[1..]
            .iter()
            .all(|l| l.is_branchless() && l.is_compact());
    let unwindowed = kernel
        .accesses
        .iter()
        .filter(|a| a.tensor == r)
        .all(|a| a.windows.iter().all(Option::is_none));
    counts_root && one_per_position && unwindowed
}

/// The bound of the entries the rows `row_lo..row_hi` append, from the bound of all of them
/// (lowering's `entry_bound`: operands' entry counts `x_vals.len()`, combined by
/// `saturating_add` and `min`): each count made the count of that operand's entries in those
/// rows, `x_l1.positions_below(row_lo, row_hi)`. Only an operand whose rows are the output's
/// (a first level at positions equal to its coordinates, storing the mode every access of the
/// operand indexes by the output's row variable, through no window) and whose entries are the positions of its
/// second and last level (which declares `positions_below`) has such a count, the output
/// itself not (its level is being assembled; `+=` reads a copy); `None` if any other occurs.
fn rows_bound(kernel: &Kernel, row: VarId, bound: &Expr) -> Option<Expr> {
    match bound {
        Expr::Call(x, "len", args) if args.is_empty() => {
            let Expr::Var(Local::Vals(t)) = **x else {
                return None;
            };
            let format = &kernel.tensors.get(t)?.format;
            // The output's own old entries are no operand's: its level is being assembled.
            let output = kernel.output_access().map(|a| kernel.accesses[a].tensor);
            let rows_are_the_outputs = output != Some(t)
                && format.levels.len() == 2
                && format.remap.is_none()
                && format.levels[0].is_contiguous()
                && kernel.accesses.iter().filter(|a| a.tensor == t).all(|a| {
                    // Through a window, row `i` is another row of the operand.
                    a.vars.get(format.mode_order[0]) == Some(&row)
                        && a.windows.iter().all(Option::is_none)
                });
            let below = format.levels[1].function(LevelFn::PositionsBelow)?.name;
            let range = vec![ir::var(Local::RowLo), ir::var(Local::RowHi)];
            rows_are_the_outputs.then(|| ir::call(ir::var(Local::Level(t, 1)), below, range))
        }
        Expr::Call(a, "saturating_add", args) if args.len() == 1 => {
            let (a, b) = (
                rows_bound(kernel, row, a)?,
                rows_bound(kernel, row, &args[0])?,
            );
            Some(ir::call(a, "saturating_add", vec![b]))
        }
        Expr::Min(a, b) => Some(Expr::Min(
            Box::new(rows_bound(kernel, row, a)?),
            Box::new(rows_bound(kernel, row, b)?),
        )),
        _ => None,
    }
}

/// The level functions an assembly's loop is framed by, as the output's last level names
/// them.
struct AppendNames {
    init: &'static str,
    finalize: &'static str,
    edges: &'static str,
}

/// One task of [`appended`]: `append_init(row_hi - row_lo)`, the values cleared, the
/// reservations of `prelude` if the task has all the rows, the loop `var` over the task's
/// rows (or its root `positions`) with every segment's parent made `i - row_lo`, and
/// `append_finalize(row_hi - row_lo)?`.
fn append_task(
    names: &AppendNames,
    level: Local,
    v: VarId,
    prelude: &[Stmt],
    (var, runs): (Local, Option<Local>),
    loop_body: Vec<Stmt>,
    positions: bool,
) -> Vec<Stmt> {
    let (lo, row_hi) = (ir::var(Local::RowLo), ir::var(Local::RowHi));
    let (first, end) = match positions {
        true => (ir::var(Local::PosLo), ir::var(Local::PosHi)),
        false => (lo.clone(), row_hi.clone()),
    };
    let count = ir::bin(Op::Sub, row_hi.clone(), lo.clone());
    let whole = ir::bin(
        Op::And,
        ir::bin(Op::Eq, lo.clone(), Expr::Usize(0)),
        ir::bin(Op::Eq, row_hi, ir::var(Local::Dim(v))),
    );
    let (clears, reserves): (Vec<Stmt>, Vec<Stmt>) = prelude
        .iter()
        .cloned()
        .partition(|s| matches!(s, Stmt::Expr(Expr::Call(_, "clear", _))));
    let rebased = loop_body
        .into_iter()
        .map(|s| rebase_edges(s, level, names.edges, &lo))
        .collect();
    let init = ir::call(ir::var(level), names.init, vec![count.clone()]);
    let mut task = vec![Stmt::Expr(init)];
    task.extend(clears);
    if !reserves.is_empty() {
        task.push(Stmt::If(whole, reserves, Vec::new()));
    }
    match runs {
        None => task.push(Stmt::For(var, first, end, rebased)),
        // `let mut p = pos_lo; let end = pos_hi; while p < end { .. }`: the task's own.
        Some(last) => {
            let more = ir::bin(Op::Lt, ir::var(var), ir::var(last));
            task.push(Stmt::Let(var, true, first));
            task.push(Stmt::Let(last, false, end));
            task.push(Stmt::While(more, rebased));
        }
    }
    let fin = ir::call(ir::var(level), names.finalize, vec![count]);
    task.push(Stmt::Expr(Expr::Try(Box::new(fin))));
    task
}

/// The entries of the inputs `body` reads (`a_vals.len() + b_vals.len() + ..`): the work a
/// task split divides, so a few heavy rows (a tensor's slices) still make several tasks.
fn work_of(kernel: &Kernel, t: TensorId, body: &[Stmt]) -> Expr {
    let mut read = HashSet::new();
    ir::visit_locals(body, &mut |l| {
        if let Local::Vals(u) = l {
            read.insert(u);
        }
    });
    (0..kernel.tensors.len())
        .filter(|u| *u != t && read.contains(u))
        .map(|u| ir::call(ir::var(Local::Vals(u)), "len", vec![]))
        .reduce(|a, b| ir::call(a, "saturating_add", vec![b]))
        .unwrap_or(Expr::Usize(0))
}

/// The output and its first level's variable, if the output's first level is dense and its
/// second, last, level appends segments and can be split by parents.
fn appended_output(kernel: &Kernel) -> Option<(TensorId, VarId)> {
    let a = kernel.output_access()?;
    let format = kernel.format_of(a);
    let splits = format
        .levels
        .get(1)?
        .function(LevelFn::AppendRows)
        .is_some();
    segment_output(kernel).filter(|_| splits)
}

/// Whether assembling apart pays for the loop over a root's positions `body`: each entry
/// is written twice, into its task's level and values (fresh memory) and then into its
/// place, so the loop must do more per entry than copy it: hold a loop that sums into a
/// temporary and appends nothing, a sum below the output's last level (TTV on a `Csf3`). A
/// merge that only copies or adds its operands' entries ran slower on 2 threads than on 1
/// this way (a sparse sum over the rows).
fn computes_entries(body: &[Stmt], t: TensorId) -> bool {
    body.iter().any(|s| match s {
        Stmt::For(.., b) | Stmt::While(_, b) => {
            (sums(b) && !appends_within(b, t)) || computes_entries(b, t)
        }
        Stmt::If(_, a, b) => computes_entries(a, t) || computes_entries(b, t),
        Stmt::Block(_, b) => computes_entries(b, t),
        _ => false,
    })
}

/// Whether the statements `rest` never read `l` before binding it again (`let`).
fn unused_after(rest: &[Stmt], l: Local) -> bool {
    for s in rest {
        if matches!(s, Stmt::Let(m, ..) if *m == l) {
            return true;
        }
        let mut read = false;
        ir::visit_locals(std::slice::from_ref(s), &mut |m| read |= m == l);
        if read {
            return false;
        }
    }
    true
}

/// Whether a block calls a function the user declared, or one of its per-case bodies: code
/// that may do more than compute its result.
fn calls_user_code(kernel: &Kernel, body: &[Stmt]) -> bool {
    ir::any_expr(body, &mut |e| match e {
        Expr::Apply(ir::Callee::Case(..), _) => true,
        Expr::Apply(ir::Callee::Function(f), _) => {
            matches!(kernel.functions[*f].callee, crate::algebra::Callee::User(_))
        }
        _ => false,
    })
}

/// Whether a block updates an inner sum's temporary (`t += ..`, `t = f(t, ..)`, a precomputed
/// `pre` or a lane of one) at any depth: not a loop that only skips positions.
fn sums(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::Assign(Expr::Var(Local::Temp(_) | Local::Precomputed) | Expr::Lane(..), _, _) => true,
        Stmt::For(.., b) | Stmt::While(_, b) | Stmt::Block(_, b) => sums(b),
        Stmt::If(_, a, b) => sums(a) || sums(b),
        _ => false,
    })
}

/// Whether a block appends to output `t` (a call on its last level or values) at any depth.
fn appends_within(body: &[Stmt], t: TensorId) -> bool {
    let mut touched = false;
    ir::visit_locals(body, &mut |l| {
        touched |= matches!(l, Local::Level(u, 1) | Local::Vals(u) if u == t)
    });
    touched
}

/// `vals.clear()`, `level.append_reserve(..)` (`reserve`, the name the level declares for it,
/// if it does) or `reserve_values(vals, ..)` of output `t`: what precedes an assembly's loop.
fn is_reservation(s: &Stmt, t: TensorId, (level, reserve): (Local, Option<&str>)) -> bool {
    match s {
        Stmt::Expr(Expr::Call(r, "clear", args)) => args.is_empty() && is_vals(r, t),
        Stmt::Expr(Expr::Call(r, m, _)) if Some(*m) == reserve => is_var(r, level),
        Stmt::Expr(Expr::Runtime("reserve_values", args)) => {
            args.first().is_some_and(|v| is_vals(v, t))
        }
        _ => false,
    }
}

/// The statement with the parent position `i` of every `level.append_edges(i, ..)` made
/// `i - row_lo`: a task assembles its rows as parents from 0.
fn rebase_edges(s: Stmt, level: Local, edges: &str, lo: &Expr) -> Stmt {
    let block = |b: Vec<Stmt>| {
        b.into_iter()
            .map(|s| rebase_edges(s, level, edges, lo))
            .collect()
    };
    match s {
        Stmt::Expr(Expr::Call(r, m, mut args)) if is_var(&r, level) && m == edges => {
            args[0] = ir::bin(Op::Sub, args[0].clone(), lo.clone());
            Stmt::Expr(Expr::Call(r, m, args))
        }
        Stmt::For(l, a, b, body) => Stmt::For(l, a, b, block(body)),
        Stmt::While(c, body) => Stmt::While(c, block(body)),
        Stmt::If(c, a, b) => Stmt::If(c, block(a), block(b)),
        Stmt::Block(n, body) => Stmt::Block(n, block(body)),
        other => other,
    }
}

/// The dense output whose rows run in parallel, and its first level's variable.
struct Rows<'a> {
    kernel: &'a Kernel,
    output: TensorId,
    var: VarId,
}

/// The output tensor and the index variable of its first level, if the output is a dense
/// tensor (not a scalar).
fn row_output(kernel: &Kernel) -> Option<(TensorId, VarId)> {
    let a = kernel.output_access()?;
    let format = kernel.format_of(a);
    if !format.is_all_dense() || format.order() == 0 {
        return None;
    }
    Some((
        kernel.accesses[a].tensor,
        kernel.accesses[a].level_var(format, 0),
    ))
}

impl Rows<'_> {
    /// Rewrites the statements of one block outside every loop (the body, or a branch of a
    /// top-level `if`, such as a versioned nest).
    fn block(&self, body: Vec<Stmt>) -> Vec<Stmt> {
        let (t, v) = (self.output, self.var);
        let mut out = Vec::with_capacity(body.len());
        let mut fill: Option<Stmt> = None;
        let mut body = body.into_iter().peekable();
        while let Some(stmt) = body.next() {
            match stmt {
                Stmt::Expr(e) if is_fill(&e, t) => {
                    out.extend(fill.take());
                    fill = Some(Stmt::Expr(e));
                }
                Stmt::For(var, lo, hi, loop_body) if row_loop(var, &lo, &hi, v) => {
                    if !independent(&loop_body, t, var) {
                        out.extend(fill.take());
                        out.push(Stmt::For(var, lo, hi, loop_body));
                        continue;
                    }
                    let (lo, end) = (ir::var(Local::RowLo), ir::var(Local::RowHi));
                    let work = work_of(self.kernel, t, &loop_body);
                    out.push(task(
                        t,
                        Split::Rows { rows: hi, work },
                        fill.take(),
                        var,
                        (lo, end),
                        loop_body,
                    ));
                }
                // `let (p, end) = level.pos_bounds(0); for p in p..end { let i = .. }`, or
                // `let (mut p, end) = ..; while p < end { let i = ..; let r = ..; .. }` over
                // the runs of a root that is not unique.
                Stmt::LetPair(Some(p), Some(end), runs, bounds) => {
                    let root = body
                        .peek()
                        .and_then(|next| self.position_loop(&bounds, (p, end, runs), next));
                    let next = body.next_if(|_| root.is_some());
                    // Split, a loop over runs advances the tasks' own positions.
                    let mutable = runs && root.is_none();
                    out.push(Stmt::LetPair(Some(p), Some(end), mutable, bounds));
                    let split = |level, lo, hi, loop_body: &[Stmt]| Split::Positions {
                        rows: ir::var(Local::Dim(v)),
                        level,
                        lo,
                        hi,
                        work: work_of(self.kernel, t, loop_body),
                    };
                    let (pos_lo, pos_hi) = (ir::var(Local::PosLo), ir::var(Local::PosHi));
                    match (root, next) {
                        (Some(level), Some(Stmt::For(var, lo, hi, loop_body))) => {
                            let split = split(level, lo, hi, &loop_body);
                            out.push(task(
                                t,
                                split,
                                fill.take(),
                                var,
                                (pos_lo, pos_hi),
                                loop_body,
                            ));
                        }
                        (Some(level), Some(Stmt::While(_, loop_body))) => {
                            let split = split(level, ir::var(p), ir::var(end), &loop_body);
                            let fill = fill.take();
                            out.push(runs_task(t, split, fill, (p, end), loop_body));
                        }
                        (_, next) => {
                            // The fill stays before the pair (it does not read it).
                            let pair = out.pop();
                            out.extend(fill.take());
                            out.extend(pair);
                            out.extend(next);
                        }
                    }
                }
                Stmt::If(c, then, otherwise) => {
                    out.extend(fill.take());
                    out.push(Stmt::If(c, self.block(then), self.block(otherwise)));
                }
                other => {
                    out.extend(fill.take());
                    out.push(other);
                }
            }
        }
        out.extend(fill);
        out
    }

    /// The level, if `next` is `for p in p..end { let i = level.pos_access(p); .. }` after
    /// `let (p, end) = level.pos_bounds(0)` (`bounds`), over the root of an input whose
    /// level is ordered and compact (so its coordinates never decrease along the positions),
    /// `i` the output's row variable, and its iterations independent.
    fn position_loop(
        &self,
        bounds: &Expr,
        (p, end, runs): (Local, Local, bool),
        next: &Stmt,
    ) -> Option<Local> {
        let root = RootLoop {
            kernel: self.kernel,
            output: self.output,
            row: self.var,
        };
        root.level((bounds, p, end, runs), next, Writes::Indexed)
    }
}

/// A loop over the positions of an input's root level whose coordinates are the rows of
/// `output` (its first level's variable `row`).
struct RootLoop<'a> {
    kernel: &'a Kernel,
    output: TensorId,
    row: VarId,
}

impl RootLoop<'_> {
    /// The level, if `next` is `for p in p..end { let i = level.pos_access(p); .. }` after
    /// `let (p, end) = level.pos_bounds(0)` (`bounds`), over the root of an input whose
    /// level is ordered and compact (so its coordinates never decrease along the positions),
    /// `i` the output's row variable, and its iterations independent (writing the output as
    /// `writes` says). With `runs`, `next` is instead the loop over the runs of equal
    /// coordinates of a root that is not unique ([`RootLoop::runs`]), after `let (mut p,
    /// end)`.
    fn level(
        &self,
        (bounds, p, end, runs): (&Expr, Local, Local, bool),
        next: &Stmt,
        writes: Writes,
    ) -> Option<Local> {
        let (tensor, level) = self.root(bounds)?;
        let root = &self.kernel.tensors[tensor].format.levels[0];
        let access = root.function(LevelFn::PosAccess)?.name;
        let body = match (next, runs) {
            (Stmt::For(var, Expr::Var(lo), Expr::Var(hi), body), false)
                if (*var, *lo, *hi) == (p, p, end) =>
            {
                body
            }
            (Stmt::While(_, body), true) if self.runs(root, level, (p, end), next) => body,
            _ => return None,
        };
        let reads_row = matches!(
            body.first(),
            Some(Stmt::Let(Local::Index(i), false, Expr::Call(l, m, a)))
                if *i == self.row && *m == access && is_var(l, level)
                    && matches!(&a[..], [Expr::Var(q)] if *q == p)
        );
        let increasing = root.is_ordered()
            && root.is_compact()
            && !root.is_branchless()
            && root.iteration() == crate::level::Iteration::CoordinatePosition;
        let row = Local::Index(self.row);
        // A loop over runs reads its end (the task's own) and advances its position.
        let independent = match runs {
            false => independent_with(body, self.output, p, row, writes),
            true => {
                let own = Stmt::Let(end, false, Expr::Usize(0));
                let body: Vec<Stmt> = [own].into_iter().chain(body.iter().cloned()).collect();
                independent_with(&body, self.output, p, row, writes)
            }
        };
        (tensor != self.output && reads_row && increasing && independent).then_some(level)
    }

    /// The input and its root level, if `bounds` is `level.pos_bounds(0)` of a root.
    fn root(&self, bounds: &Expr) -> Option<(TensorId, Local)> {
        let Expr::Call(level, name, args) = bounds else {
            return None;
        };
        let (Expr::Var(level @ Local::Level(tensor, 0)), [Expr::Usize(0)]) = (&**level, &args[..])
        else {
            return None;
        };
        let root = &self.kernel.tensors[*tensor].format.levels[0];
        (root.function(LevelFn::PosBounds)?.name == *name).then_some((*tensor, *level))
    }

    /// Whether `next` is `while p < end { let i = ..; let r = level.run_end(p, end); ..; p =
    /// r }`, the loop over the runs of a non-unique root (`crate::lower::merge`), or its fused
    /// form whose `r` is found by the loop visiting the run ([`fused_run`]), with `p` and
    /// `end` assigned nowhere else: an iteration covers the positions `p..r` of one
    /// coordinate, and a task over positions `lo..hi` that starts at a run runs it as `while
    /// p < hi` from `p = lo`.
    fn runs(
        &self,
        root: &crate::format::LevelFormat,
        level: Local,
        (p, end): (Local, Local),
        next: &Stmt,
    ) -> bool {
        let Stmt::While(Expr::Binary(Op::Lt, a, b), body) = next else {
            return false;
        };
        let Some(run_end) = root.function(LevelFn::RunEnd).map(|f| f.name) else {
            return false;
        };
        let scanned = match body.get(1) {
            Some(Stmt::Let(r, false, Expr::Call(l, m, args)))
                if *m == run_end
                    && is_var(l, level)
                    && matches!(&args[..], [x, y] if is_var(x, p) && is_var(y, end)) =>
            {
                Some(*r)
            }
            _ => None,
        };
        let Some(access) = root.function(LevelFn::PosAccess).map(|f| f.name) else {
            return false;
        };
        // The fused loop's test that its position is still in the run of `i`.
        let in_run = |q: Local, e: &Expr| {
            matches!(e, Expr::Binary(Op::Eq, c, i)
                if is_var(i, Local::Index(self.row))
                    && matches!(&**c, Expr::Call(l, m, a)
                        if is_var(l, level) && *m == access && matches!(&a[..], [x] if is_var(x, q))))
        };
        let Some(run) = scanned.or_else(|| fused_run(body, (p, end), in_run)) else {
            return false;
        };
        let advances = matches!(body.last(), Some(Stmt::Assign(Expr::Var(q), ir::Assign::Set, r))
            if *q == p && is_var(r, run));
        // Assigned or bound again anywhere but the final advance, `p` or `end` would not
        // be the run's.
        let assigned = ir::sets_of(body, p) + ir::sets_of(body, end);
        is_var(a, p) && is_var(b, end) && advances && assigned == 1
    }
}

/// The end of the run a fused loop over runs finds as it goes (`crate::lower::merge`'s
/// `fuse_run_end`): `q` of the last `let mut q = p; while q < end && .. { ..; q += 1 }` at the
/// top of the loop's `body` (a register block runs copies of it before, each in a block of
/// its own), `q` assigned or bound again nowhere in the `while` but its step, nor after it.
/// The loop stops at `end` (a task's own) or where the coordinate changes, so it covers
/// positions `p..q` of one run, as `run_end`'s `r` would (`in_run(q, test)`: the second
/// test is that `q`'s coordinate is the run's).
fn fused_run(
    body: &[Stmt],
    (p, end): (Local, Local),
    in_run: impl Fn(Local, &Expr) -> bool,
) -> Option<Local> {
    let at = body
        .iter()
        .rposition(|s| matches!(s, Stmt::Let(_, true, Expr::Var(x)) if *x == p))?;
    let Stmt::Let(q, ..) = body[at] else {
        unreachable!("matched above")
    };
    let Some(Stmt::While(Expr::Binary(Op::And, bound, same), visit)) = body.get(at + 1) else {
        return None;
    };
    let bounded = matches!(&**bound, Expr::Binary(Op::Lt, a, b) if is_var(a, q) && is_var(b, end))
        && in_run(q, same);
    let steps = matches!(visit.last(), Some(Stmt::Assign(Expr::Var(x), ir::Assign::Add, Expr::Usize(1))) if *x == q);
    // Its step only.
    (bounded && steps && ir::sets_of(&body[at + 1..], q) == 1).then_some(q)
}

/// A parallel loop over the output's rows: per task, the fill of its rows (if the output was
/// filled right before the loop), then the loop over `var` in `range` with output positions
/// made offsets into the task's rows.
fn task(
    t: TensorId,
    split: Split,
    fill: Option<Stmt>,
    var: Local,
    (lo, hi): (Expr, Expr),
    body: Vec<Stmt>,
) -> Stmt {
    let mut task: Vec<Stmt> = fill.into_iter().collect();
    let rows = offsets(body, t);
    task.push(Stmt::For(var, lo, hi, rows));
    Stmt::Rows(t, split, task)
}

/// [`task`] for a loop over the runs of a root: per task, `let mut p = pos_lo; let end =
/// pos_hi; while p < end { .. }`, the serial loop over the task's positions (which start at
/// a run, `crate::parallel`'s position splits keep runs whole).
fn runs_task(
    t: TensorId,
    split: Split,
    fill: Option<Stmt>,
    (p, end): (Local, Local),
    body: Vec<Stmt>,
) -> Stmt {
    let mut task: Vec<Stmt> = fill.into_iter().collect();
    task.push(Stmt::Let(p, true, ir::var(Local::PosLo)));
    task.push(Stmt::Let(end, false, ir::var(Local::PosHi)));
    let more = ir::bin(Op::Lt, ir::var(p), ir::var(end));
    task.push(Stmt::While(more, offsets(body, t)));
    Stmt::Rows(t, split, task)
}

/// `vals.fill(x)` of the output.
fn is_fill(e: &Expr, t: TensorId) -> bool {
    matches!(e, Expr::Call(recv, "fill", _) if matches!(**recv, Expr::Var(Local::Vals(u)) if u == t))
}

/// `for i in 0..dim_i` over the output's first level's variable `v`.
fn row_loop(var: Local, lo: &Expr, hi: &Expr, v: VarId) -> bool {
    var == Local::Index(v)
        && matches!(lo, Expr::Usize(0))
        && matches!(hi, Expr::Var(Local::Dim(d)) if *d == v)
}

/// How an iteration may write the output.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Writes {
    /// By index into its values, at positions under the iteration's row.
    Indexed,
    /// Only through the compute-only counter: `stored = store_next(vals, stored, v)?`.
    Stored,
    /// Only by appending to its last level and values (`append_coord`, `append_coords`,
    /// `append_edges` with the row as parent position, under the names the level declares;
    /// `vals.push`, `vals.extend`), into the task's own.
    Appended(AppendFns),
    /// As [`Writes::Appended`], through a dense accumulator of the task's own: adding to it,
    /// sorting, reading its keys and values (all of them), clearing it.
    Accumulated(AppendFns),
    /// Not at all: the iteration only folds a term into temporary `acc`, by `update`
    /// (`crate::reduction`), and may leave the fold's block when `acc` equals a constant.
    Folded {
        /// The temporary ([`Local::Temp`]).
        acc: Local,
        /// How each term is folded in.
        update: Update,
    },
}

/// How a fold's iteration folds a term into its temporary `acc`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Update {
    /// `acc += term`
    Add,
    /// `acc = f(acc, term)`
    Apply(ir::Callee),
}

impl Update {
    /// The update's term, if `s` is an update of `acc` of this kind.
    pub(crate) fn term(self, s: &Stmt, acc: Local) -> Option<&Expr> {
        let Stmt::Assign(Expr::Var(l), op, value) = s else {
            return None;
        };
        if *l != acc {
            return None;
        }
        match (self, op, value) {
            (Update::Add, ir::Assign::Add, term) => Some(term),
            (Update::Apply(f), ir::Assign::Set, Expr::Apply(g, args)) if f == *g => match &args[..]
            {
                [a, term] if is_var(a, acc) => Some(term),
                _ => None,
            },
            _ => None,
        }
    }

    /// The kind of update `s` is, if it updates `acc` by a fold.
    pub(crate) fn of(s: &Stmt, acc: Local) -> Option<Update> {
        let update = match s {
            Stmt::Assign(_, ir::Assign::Add, _) => Update::Add,
            // The function itself, never one of its per-case bodies (a case is the function
            // where an argument is absent, not a fold of two of its results).
            Stmt::Assign(_, ir::Assign::Set, Expr::Apply(f @ ir::Callee::Function(_), _)) => {
                Update::Apply(*f)
            }
            _ => return None,
        };
        update.term(s, acc).is_some().then_some(update)
    }

    /// `acc` with `partial` folded in by the same update.
    pub(crate) fn combine(self, acc: Local, partial: Local) -> Expr {
        let (acc, partial) = (ir::var(acc), ir::var(partial));
        match self {
            Update::Add => ir::bin(Op::Add, acc, partial),
            Update::Apply(f) => Expr::Apply(f, vec![acc, partial]),
        }
    }
}

/// Whether an iteration of a loop binding `var` writes only its row of output `t` and
/// locals it binds, and reads no local that another iteration could write.
fn independent(body: &[Stmt], t: TensorId, var: Local) -> bool {
    independent_with(body, t, var, var, Writes::Indexed)
}

fn independent_with(body: &[Stmt], t: TensorId, var: Local, row: Local, writes: Writes) -> bool {
    iterations_independent(body, Some(t), var, row, writes)
}

/// Whether an iteration of a loop binding `var` (over rows `row` of output `t`, if the
/// output is a tensor) writes only what `writes` allows and locals it binds, and reads no
/// local that another iteration could write.
pub(crate) fn iterations_independent(
    body: &[Stmt],
    t: Option<TensorId>,
    var: Local,
    row: Local,
    writes: Writes,
) -> bool {
    let mut bound = HashSet::from([var]);
    bound_locals(body, &mut bound);
    let scope = Scope {
        t,
        row,
        bound,
        writes,
    };
    body.iter().all(|s| scope.stmt_ok(s))
}

/// What an iteration of a loop over the output's rows (`row`, the row variable) may touch:
/// the output `t` as `writes` says, and the locals `bound`.
struct Scope {
    t: Option<TensorId>,
    row: Local,
    bound: HashSet<Local>,
    writes: Writes,
}

/// The locals a block binds (`let`, loop variables), at any depth.
pub(crate) fn bound_locals(body: &[Stmt], out: &mut HashSet<Local>) {
    for s in body {
        match s {
            Stmt::Let(l, _, _) => {
                out.insert(*l);
            }
            Stmt::LetPair(a, b, _, _) => out.extend(a.iter().chain(b)),
            Stmt::For(l, _, _, b) => {
                out.insert(*l);
                bound_locals(b, out);
            }
            Stmt::While(_, b) | Stmt::Block(_, b) | Stmt::Rows(_, _, b) | Stmt::Fold(_, b) => {
                bound_locals(b, out)
            }
            Stmt::If(_, a, b) => {
                bound_locals(a, out);
                bound_locals(b, out);
            }
            Stmt::Assign(..) | Stmt::Expr(_) | Stmt::Exit(_) => {}
        }
    }
}

impl Scope {
    fn stmt_ok(&self, s: &Stmt) -> bool {
        let block_ok = |b: &[Stmt]| b.iter().all(|s| self.stmt_ok(s));
        let expr_ok = |e: &Expr| self.expr_ok(e);
        if let Writes::Folded { acc, update } = self.writes {
            if let Some(term) = update.term(s, acc) {
                return expr_ok(term);
            }
            // The early exit of the fold, or of a reduction inside the loop.
            if let Stmt::If(Expr::Binary(Op::Eq, a, c), then, otherwise) = s {
                if is_var(a, acc) {
                    return expr_ok(c) && block_ok(then) && block_ok(otherwise);
                }
            }
        }
        match s {
            Stmt::Let(_, _, e) | Stmt::LetPair(_, _, _, e) => expr_ok(e),
            Stmt::Assign(Expr::Var(Local::Stored), ir::Assign::Set, value)
                if self.writes == Writes::Stored =>
            {
                self.stored_value(value).is_some_and(expr_ok)
            }
            Stmt::Assign(target, _, value) => {
                let target_ok = match target {
                    Expr::Var(l) => self.bound.contains(l),
                    Expr::Lane(base, at) => {
                        matches!(**base, Expr::Var(l) if self.bound.contains(&l)) && expr_ok(at)
                    }
                    Expr::Index(base, at) => self.indexed(base) && expr_ok(at),
                    _ => false,
                };
                target_ok && expr_ok(value)
            }
            Stmt::For(_, lo, hi, b) => expr_ok(lo) && expr_ok(hi) && block_ok(b),
            Stmt::While(c, b) => expr_ok(c) && block_ok(b),
            Stmt::If(c, a, b) => expr_ok(c) && block_ok(a) && block_ok(b),
            Stmt::Block(_, b) => block_ok(b),
            // An exit leaves a block around it: one inside the loop, or the fold's own
            // (`crate::reduction` checks the loop is alone in that one).
            Stmt::Exit(_) => true,
            Stmt::Expr(e) if self.appending() => self.appends(e) || self.accumulates(e),
            // An effect (an assembly or scratch call), or a nested parallel loop.
            Stmt::Expr(_) | Stmt::Rows(..) | Stmt::Fold(..) => false,
        }
    }

    /// `v` of `store_next(vals, stored, v)?` storing into the output's values.
    fn stored_value<'e>(&self, e: &'e Expr) -> Option<&'e Expr> {
        let Expr::Try(call) = e else { return None };
        let Expr::Runtime("store_next", args) = &**call else {
            return None;
        };
        match &args[..] {
            [vals, Expr::Var(Local::Stored), v] if self.is_output_vals(vals) => Some(v),
            _ => None,
        }
    }

    /// Whether `e` appends to the output's last level or values ([`Writes::Appended`]): a
    /// segment's parent must be the row itself (a task rebases it), and the output's first
    /// level is read nowhere (its positions are the whole output's).
    fn appends(&self, e: &Expr) -> bool {
        let (Some(t), Some(fns)) = (self.t, self.appends_by()) else {
            return false;
        };
        let level = Local::Level(t, 1);
        match e {
            Expr::Call(r, m, args)
                if is_var(r, level) && AppendFns::names(m, &[fns.coord, fns.coords]) =>
            {
                args.iter().all(|a| self.expr_ok(a))
            }
            Expr::Call(r, m, args) if is_var(r, level) && fns.edges == Some(*m) => {
                args.first().is_some_and(|p| is_var(p, self.row))
                    && args.iter().all(|a| self.expr_ok(a))
            }
            Expr::Call(r, "push" | "extend", args) if is_vals(r, t) => {
                args.iter().all(|a| self.expr_ok(a))
            }
            _ => false,
        }
    }

    /// Whether the loop appends, into a level and values of the task's own.
    fn appending(&self) -> bool {
        self.appends_by().is_some()
    }

    /// The output level's append functions, if the loop appends.
    fn appends_by(&self) -> Option<AppendFns> {
        match self.writes {
            Writes::Appended(fns) | Writes::Accumulated(fns) => Some(fns),
            _ => None,
        }
    }

    /// Whether the loop appends through a dense accumulator of the task's own.
    fn accumulating(&self) -> bool {
        matches!(self.writes, Writes::Accumulated(_))
    }

    /// Whether `e` adds to, sorts or clears the task's accumulator ([`Writes::Accumulated`]).
    fn accumulates(&self, e: &Expr) -> bool {
        match e {
            Expr::Call(r, "add_unchecked" | "sort" | "clear", args)
                if self.accumulating() && is_var(r, Local::Workspace) =>
            {
                args.iter().all(|a| self.expr_ok(a))
            }
            _ => false,
        }
    }

    /// Whether the output's values may be indexed here (`base` is them).
    fn indexed(&self, base: &Expr) -> bool {
        self.writes == Writes::Indexed && self.is_output_vals(base)
    }

    /// Whether `e` is the output's values.
    fn is_output_vals(&self, e: &Expr) -> bool {
        self.t.is_some_and(|t| is_vals(e, t))
    }

    /// Whether `e` is level `k` of the output.
    fn is_output_level(&self, e: &Expr, k: usize) -> bool {
        self.t.is_some_and(|t| is_var(e, Local::Level(t, k)))
    }

    /// Whether an expression reads only the iteration's own locals, read-only shared ones,
    /// and the output's values by index where they may be.
    fn expr_ok(&self, e: &Expr) -> bool {
        let ok = |e: &Expr| self.expr_ok(e);
        let apart = self.appending();
        match e {
            // All the keys or values of the task's accumulator, or their count.
            Expr::Call(r, "keys" | "values" | "len" | "is_empty", args)
                if self.accumulating() && is_var(r, Local::Workspace) =>
            {
                args.is_empty()
            }
            // The output's first level, while its rows are assembled apart.
            Expr::Var(Local::Level(u, 0)) if Some(*u) == self.t && apart => false,
            // Its last level, only for the task's own `len()`, a segment's bound.
            Expr::Call(r, m, args) if apart && self.is_output_level(r, 1) => {
                self.appends_by().is_some_and(|fns| fns.len == Some(*m)) && args.is_empty()
            }
            Expr::Var(l) => self.bound.contains(l) || shared_read_only(*l, self.t),
            Expr::Index(base, at) if self.indexed(base) => ok(at),
            Expr::Param(_) | Expr::Usize(_) | Expr::Bool(_) | Expr::Value(_) => true,
            // A scalar output, or fresh scratch and workspace storage.
            Expr::Deref(_) | Expr::NewScratch | Expr::NewWorkspace(..) => false,
            Expr::Binary(_, a, b)
            | Expr::Index(a, b)
            | Expr::Min(a, b)
            | Expr::Pair(a, b)
            | Expr::Lane(a, b) => ok(a) && ok(b),
            Expr::Neg(a) | Expr::Not(a) | Expr::Try(a) | Expr::Repeat(a, _) => ok(a),
            Expr::Call(recv, _, args) => ok(recv) && args.iter().all(ok),
            Expr::Runtime(_, args) | Expr::Slice(args) | Expr::Apply(_, args) => {
                args.iter().all(ok)
            }
            Expr::Select(c, a, b) => ok(c) && ok(a) && ok(b),
        }
    }
}

/// Locals bound outside the loop that every iteration may read: sizes, level structs and
/// the inputs' value arrays. The output's values only by index (`expr_ok`).
fn shared_read_only(l: Local, t: Option<TensorId>) -> bool {
    match l {
        Local::Dim(_) | Local::Level(..) => true,
        Local::Vals(u) => Some(u) != t,
        _ => false,
    }
}

fn is_var(e: &Expr, l: Local) -> bool {
    matches!(e, Expr::Var(v) if *v == l)
}

fn is_vals(e: &Expr, t: TensorId) -> bool {
    matches!(e, Expr::Var(Local::Vals(u)) if *u == t)
}

/// The statements with every position `p` into output `t`'s values made `p - row_base`.
fn offsets(body: Vec<Stmt>, t: TensorId) -> Vec<Stmt> {
    ir::map_exprs(body, &mut |e| match e {
        Expr::Index(base, at) if is_vals(&base, t) => {
            let at = ir::bin(Op::Sub, *at, ir::var(Local::RowBase));
            Expr::Index(base, Box::new(at))
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accumulator_read_after_the_loop_stays_shared() {
        let w = Local::Workspace;
        let read = Stmt::Expr(ir::call(ir::var(w), "clear", vec![]));
        let rebind = Stmt::Let(w, true, Expr::Usize(0));
        assert!(unused_after(&[], w));
        assert!(unused_after(&[rebind.clone(), read.clone()], w));
        assert!(!unused_after(&[read.clone(), rebind], w));
        let nested = Stmt::If(Expr::Bool(true), vec![read], vec![]);
        assert!(!unused_after(&[nested], w));
    }
}
