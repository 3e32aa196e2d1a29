//! Parallel execution of generated kernels.
//!
//! A kernel whose output is dense and whose outermost loop runs over the output's first
//! storage level computes each *row* (the output's components below one coordinate of that
//! level) independently of the others. With the cargo feature `parallel` (on by default),
//! the generated code hands those rows to [rayon](https://docs.rs/rayon), in the pool the
//! kernel is called from: the global pool, or the one a caller's
//! `rayon::ThreadPool::install` chose. A row is computed exactly as the serial loop computes
//! it, in the same order, so results are the same bit for bit with any number of threads,
//! floating-point sums included.
//!
//! A kernel whose output is a scalar (an inner product, a norm, a `min`) folds its outermost
//! loop in chunks of [`fold_chunk`] consecutive iterations, run in parallel, and combines the
//! chunks' values in order. The chunks' length is fixed (4096 iterations), not a share of the
//! threads, so the result is the same with any number of threads and without the feature;
//! a floating-point sum is reassociated where chunks meet (`#[schedule(parallel(never))]` or
//! [`with_fold_chunk`]`(usize::MAX, ..)` sums in the serial loop's order, which
//! `precompute(never)` keeps the order written: the guide's schedules chapter). Integer sums and products
//! stay serial (reassociated, a partial sum could overflow where the serial order does not);
//! folds by `min`, `max`, `and`, `or` are exact for every value type.
//!
//! Which kernels run in parallel, and how to keep one serial (`#[schedule(parallel(never))]`),
//! is in the guide's [schedules](crate::guide::schedules) chapter.
//!
//! Small kernels stay on the calling thread: rows are split into tasks of at least
//! [`min_rows`] rows, and a kernel with fewer rows than that runs as the plain loop.

use crate::Value;
use std::cell::Cell;

mod chained;
mod counted;
#[doc(hidden)]
pub use counted::{
    append_bounded, append_bounded_accumulated, append_counted, append_counted_accumulated,
    append_positions_bounded, append_runs_bounded, CountEntries, CountRows, Discard, FillEntries,
    FillRows, FillValues, KeyCounter,
};

/// The fewest output components a parallel task computes: below that, a task's work is
/// comparable to the cost of handing it to another thread (a few microseconds).
const TASK_COMPONENTS: usize = 4096;

/// The iterations of one chunk of a parallel fold ([`fold_chunk`]).
const FOLD_CHUNK: usize = 4096;

thread_local! {
    /// [`with_min_rows`]'s override on this thread.
    static MIN_ROWS: Cell<Option<usize>> = const { Cell::new(None) };
    /// [`with_fold_chunk`]'s override on this thread.
    static FOLD_CHUNK_SET: Cell<Option<usize>> = const { Cell::new(None) };
}

/// The iterations of one chunk of a parallel fold (a kernel whose output is a scalar sums
/// its outermost loop in chunks): 4096, unless [`with_fold_chunk`] says otherwise. Not a
/// share of the threads, so a floating-point sum is the same with any number of them.
pub fn fold_chunk() -> usize {
    FOLD_CHUNK_SET.with(Cell::get).unwrap_or(FOLD_CHUNK).max(1)
}

/// Runs `f` with folds in chunks of `iterations` for the kernels it calls on this thread:
/// `1` folds every iteration apart (what the differential tester does, to exercise the
/// combination of chunks on small inputs), `usize::MAX` folds every loop in one chunk, in
/// the serial loop's order. A floating-point sum is reassociated where chunks meet, so its
/// last bits depend on this setting (never on the number of threads). The previous setting
/// is restored when `f` returns or unwinds.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     fn dot(d: &mut f64, x: &Dense1<f64>, y: &Dense1<f64>) {
///         d = x(i) * y(i)
///     }
/// }
///
/// let x = Dense1::from_vec(vec![1e16, 1.0, -1e16, 1.0]);
/// let y = Dense1::from_vec(vec![1.0; 4]);
/// let mut d = 0.0;
/// // In order: ((1e16 + 1) - 1e16) + 1 = 1, as 1e16 + 1 rounds to 1e16.
/// sparse_runtime::parallel::with_fold_chunk(usize::MAX, || dot(&mut d, &x, &y))?;
/// assert_eq!(d, 1.0);
/// // In chunks of two: (1e16 + 1) + (-1e16 + 1) = 1e16 + -1e16 = 0.
/// sparse_runtime::parallel::with_fold_chunk(2, || dot(&mut d, &x, &y))?;
/// assert_eq!(d, 0.0);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn with_fold_chunk<R>(iterations: usize, f: impl FnOnce() -> R) -> R {
    with_setting(&FOLD_CHUNK_SET, iterations, f)
}

/// Runs `f` with `setting` set to `value` on this thread, restoring the previous value when
/// `f` returns or unwinds.
fn with_setting<R>(
    setting: &'static std::thread::LocalKey<Cell<Option<usize>>>,
    value: usize,
    f: impl FnOnce() -> R,
) -> R {
    struct Restore(
        &'static std::thread::LocalKey<Cell<Option<usize>>>,
        Option<usize>,
    );
    impl Drop for Restore {
        fn drop(&mut self) {
            self.0.with(|m| m.set(self.1));
        }
    }
    let _restore = Restore(setting, setting.with(|m| m.replace(Some(value))));
    f()
}

/// The fewest rows of `row_len` components each that one parallel task computes: enough
/// rows for 4096 components, at least one, unless [`with_min_rows`] says otherwise.
pub fn min_rows(row_len: usize) -> usize {
    MIN_ROWS
        .with(Cell::get)
        .unwrap_or(TASK_COMPONENTS / row_len.max(1))
        .max(1)
}

/// Runs `f` with tasks of at least `rows` rows for the kernels it calls on this thread: `1`
/// splits at every row (what the differential tester does, to exercise the parallel path on
/// small inputs), `usize::MAX` keeps every kernel serial. The previous setting is restored
/// when `f` returns or unwinds.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
///         y(i) = a(i, j) * x(j)
///     }
/// }
///
/// let a = Csr::<f64>::from_entries(&[3, 3], [([0, 0], 1.0), ([1, 2], 2.0), ([2, 1], 3.0)])?;
/// let x = Dense1::from_vec(vec![1.0, 2.0, 3.0]);
/// let mut y = Dense1::<f64>::new(&[3])?;
/// sparse_runtime::parallel::with_min_rows(1, || spmv(&mut y, &a, &x))?;
/// assert_eq!(y.as_slice(), &[1.0, 6.0, 6.0]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
pub fn with_min_rows<R>(rows: usize, f: impl FnOnce() -> R) -> R {
    with_setting(&MIN_ROWS, rows, f)
}

/// The input entries a parallel task of a dense output's rows reads, at least, where its rows
/// are few and each reads many (a 3-tensor's slices, a short matrix of long rows): about
/// 30-100 microseconds of work, against a few to hand a task to another thread.
#[cfg(feature = "parallel")]
const TASK_WORK: usize = 1 << 15;

/// The rows of one task over `rows` rows of `row_len` components each, of a loop that reads
/// `work` input entries: [`min_rows`], or fewer where that many rows read more than
/// [`TASK_WORK`] entries (on average), so that heavy rows still make several tasks: TTV into
/// a dense vector from a 2000-slice tensor of 8M entries had one task of 4096 rows, and ran
/// on one thread. [`with_min_rows`]'s where set.
#[cfg(feature = "parallel")]
fn task_rows(rows: usize, row_len: usize, work: usize) -> usize {
    let by_components = min_rows(row_len);
    if MIN_ROWS.with(Cell::get).is_some() {
        return by_components;
    }
    let per_row = work / rows.max(1);
    by_components.min(TASK_WORK.div_ceil(per_row.max(1))).max(1)
}

/// Calls `body(lo, hi, base, vals_lo_hi)` for consecutive ranges of rows `lo..hi` covering
/// the `rows` rows of `vals` (rows of equal length), where `vals_lo_hi` are those rows'
/// values, starting at position `base` of `vals`: once for all the rows when serial, once per
/// task of at least [`min_rows`] rows in parallel (feature `parallel`, enough rows), fewer
/// where the loop's `work` (the input entries it reads) makes rows heavy ([`task_rows`]).
/// The first `Err` (any, in parallel) is returned. Generated code calls it; `body` reaches
/// the output only through the slice it is given.
///
/// `vals.len()` must be a multiple of `rows`: it is, for a dense output whose first level
/// has `rows` coordinates; otherwise nothing is computed and the result is an `Err`.
#[doc(hidden)]
pub fn rows<V, F>(vals: &mut [V], rows: usize, work: usize, body: F) -> Result<(), crate::Error>
where
    V: Send,
    F: Fn(usize, usize, usize, &mut [V]) -> Result<(), crate::Error> + Sync + Send,
{
    if rows == 0 {
        return match vals.is_empty() {
            true => Ok(()),
            false => Err(uneven(vals.len(), rows)),
        };
    }
    let row_len = vals.len() / rows;
    if row_len * rows != vals.len() {
        return Err(uneven(vals.len(), rows));
    }
    #[cfg(feature = "parallel")]
    {
        let min = task_rows(rows, row_len, work);
        if rows > min && row_len > 0 {
            use rayon::prelude::*;
            let task = min * row_len;
            return vals
                .par_chunks_mut(task)
                .enumerate()
                .try_for_each(|(n, chunk)| {
                    let lo = n * min;
                    body(lo, lo + chunk.len() / row_len, lo * row_len, chunk)
                });
        }
    }
    let _ = work;
    body(0, rows, 0, vals)
}

/// The chunks a fold over the iterations `lo..hi` runs in: consecutive ranges of
/// [`fold_chunk`] iterations (the last one shorter), covering `lo..hi`; one empty chunk at
/// `lo` if the range is empty. Generated code folds them in order on the calling thread
/// where [`fold_splits`] says no, and [`fold`] hands them to threads otherwise: the same
/// chunks either way, so the same result.
#[doc(hidden)]
pub fn fold_chunks(lo: usize, hi: usize) -> impl Iterator<Item = (usize, usize)> {
    let n = hi.saturating_sub(lo);
    let chunk = fold_chunk();
    // `k * chunk < n` for every chunk `k` but the empty range's, so no bound overflows.
    (0..n.div_ceil(chunk).max(1)).map(move |k| {
        let first = lo + k * chunk;
        (first, first + chunk.min(n - k * chunk))
    })
}

/// Whether a fold over `lo..hi` runs its chunks on several threads ([`fold`]): more than one
/// chunk, the feature `parallel`, more than one thread in the current pool, and
/// [`with_min_rows`] not keeping kernels serial (`usize::MAX`). Otherwise generated code folds
/// the chunks in order itself, in the kernel's own loop (a chunk run through a closure reloads
/// the levels' arrays per row where LLVM runs out of registers).
#[doc(hidden)]
pub fn fold_splits(lo: usize, hi: usize) -> bool {
    #[cfg(feature = "parallel")]
    {
        let serial = MIN_ROWS.with(Cell::get) == Some(usize::MAX);
        hi.saturating_sub(lo) > fold_chunk() && !serial && rayon::current_num_threads() > 1
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = (lo, hi);
        false
    }
}

/// A fold over the iterations `lo..hi` of a loop, in the chunks of [`fold_chunks`]:
/// `body(chunk_lo, chunk_hi, start)` folds one chunk into a value starting from `start` (the
/// fold's identity, the temporary's value before the loop), and the chunks' values are
/// combined in order, `combine(combine(v0, v1), v2)...`. Generated code calls it for the
/// outermost loop of a scalar reduction where [`fold_splits`] holds
/// (`crate::guide::schedules`).
///
/// The chunks are [`fold_chunk`] iterations long (4096), whatever the number of threads,
/// and they run in parallel with the feature `parallel`: a floating-point sum is
/// reassociated at the chunks' boundaries, the same way with any number of threads, with or
/// without the feature, so results are deterministic. A loop of at most one chunk
/// (`with_fold_chunk(usize::MAX, ..)` makes every loop one chunk) is folded exactly as the
/// serial loop folds it. The first `Err` (any, in parallel) is returned.
#[doc(hidden)]
pub fn fold<V, C, F>(
    start: V,
    (lo, hi): (usize, usize),
    combine: C,
    body: F,
) -> Result<V, crate::Error>
where
    V: Copy + Send + Sync,
    C: Fn(V, V) -> V,
    F: Fn(usize, usize, V) -> Result<V, crate::Error> + Sync + Send,
{
    let chunks: Vec<(usize, usize)> = fold_chunks(lo, hi).collect();
    #[cfg(feature = "parallel")]
    let values: Vec<V> = {
        use rayon::prelude::*;
        chunks
            .into_par_iter()
            .map(|(a, b)| body(a, b, start))
            .collect::<Result<_, _>>()?
    };
    #[cfg(not(feature = "parallel"))]
    let values: Vec<V> = chunks
        .into_iter()
        .map(|(a, b)| body(a, b, start))
        .collect::<Result<_, _>>()?;
    let mut values = values.into_iter();
    let first = values.next().unwrap_or(start);
    Ok(values.fold(first, combine))
}

/// [`rows`] for a loop over the positions `lo..hi` of a sparse level whose coordinates are the
/// output's rows (reading `work` input entries, as [`rows`]' loop): calls `body(row_lo, row_hi, row_base, pos_lo, pos_hi, vals_rows)` for
/// consecutive ranges of positions `pos_lo..pos_hi` covering `lo..hi`, each with the rows
/// `row_lo..row_hi` its positions' coordinates lie in and those rows' values (from position
/// `row_base` of `vals`). The row ranges are consecutive and cover all `rows` rows, so each
/// task also owns the rows between its coordinates (a fill of its slice fills them).
///
/// `row_of` is called only with positions in `lo..hi` (around each task's first position but
/// the first task's), on the calling thread: generated code reads a coordinate there without
/// a bounds check. A task starts where a run of equal coordinates starts (a binary search
/// over the positions past its share, for a level that is not unique: a `Coo`'s rows), its
/// rows at the coordinate of its first position, and it ends where the next task starts: for
/// the coordinates of a validated ordered level, which never decrease along its positions,
/// every position of a task has its coordinate among the task's rows, and each row's
/// positions are all in one task, in order.
/// (The split itself only ever hands out disjoint slices of `vals`, whatever `row_of` says:
/// row boundaries are clamped to be non-decreasing and at most `rows`.)
///
/// `vals.len()` must be a multiple of `rows` (see [`rows`]).
#[doc(hidden)]
pub fn positions<V, R, F>(
    vals: &mut [V],
    rows: usize,
    (lo, hi): (usize, usize),
    work: usize,
    row_of: R,
    body: F,
) -> Result<(), crate::Error>
where
    V: Send,
    R: Fn(usize) -> usize,
    F: Fn(usize, usize, usize, usize, usize, &mut [V]) -> Result<(), crate::Error> + Sync + Send,
{
    let row_len = match rows {
        0 if vals.is_empty() => 0,
        0 => return Err(uneven(vals.len(), rows)),
        _ if vals.len() % rows != 0 => return Err(uneven(vals.len(), rows)),
        _ => vals.len() / rows,
    };
    let count = hi.saturating_sub(lo);
    #[cfg(feature = "parallel")]
    {
        // A position is at least one row of work.
        let min = task_rows(count, row_len, work);
        if count > min && row_len > 0 {
            use rayon::prelude::*;
            let mut tasks = Vec::new();
            let mut rest = vals;
            for (row_lo, row_hi, pos_lo, pos_hi) in position_tasks(rows, (lo, hi), min, &row_of) {
                let (mine, after) = rest.split_at_mut((row_hi - row_lo) * row_len);
                tasks.push((row_lo, row_hi, pos_lo, pos_hi, mine));
                rest = after;
            }
            return tasks
                .into_par_iter()
                .try_for_each(|(row_lo, row_hi, pos_lo, pos_hi, mine)| {
                    body(row_lo, row_hi, row_lo * row_len, pos_lo, pos_hi, mine)
                });
        }
    }
    let _ = (row_of, count, row_len, work);
    body(0, rows, 0, lo, hi, vals)
}

/// [`rows`] for an output whose rows hold varying numbers of values, stored consecutively:
/// the values of a compute-only kernel's output with a `Dense` first level and a
/// `Compressed` second, row `i`'s values at `start_of(i)..start_of(i + 1)` of `vals`. Calls
/// `body(row_lo, row_hi, base, vals_rows)` for consecutive ranges of rows covering `0..rows`,
/// `vals_rows` being the values from position `base` (the first row's start) to the next
/// task's start: once for all the rows when serial; in parallel (feature `parallel`), in
/// tasks of about 4096 values each (so a row of many values does not make its task the
/// last to finish), or of [`with_min_rows`] rows where that is set.
///
/// `start_of` is called only with rows in `1..rows`, on the calling thread: generated code
/// reads `pos` there without a bounds check. The split itself only ever hands out disjoint
/// slices that tile `vals`, whatever `start_of` says (boundaries are clamped to be
/// non-decreasing and at most `vals.len()`); for a validated level, whose `pos` starts at 0,
/// never decreases and ends at `vals.len()`, a task's slice holds exactly its rows' values.
#[doc(hidden)]
pub fn segments<V, S, F>(
    vals: &mut [V],
    rows: usize,
    start_of: S,
    body: F,
) -> Result<(), crate::Error>
where
    V: Send,
    S: Fn(usize) -> usize,
    F: Fn(usize, usize, usize, &mut [V]) -> Result<(), crate::Error> + Sync + Send,
{
    #[cfg(feature = "parallel")]
    {
        let total = vals.len();
        let bounds = segment_rows(rows, total, &start_of);
        if bounds.len() > 2 {
            use rayon::prelude::*;
            let mut tasks = Vec::with_capacity(bounds.len() - 1);
            let (mut rest, mut base) = (vals, 0);
            for w in bounds.windows(2) {
                let (row_lo, row_hi) = (w[0], w[1]);
                let end = match row_hi < rows {
                    true => start_of(row_hi).clamp(base, total),
                    false => total,
                };
                let (mine, after) = rest.split_at_mut(end - base);
                tasks.push((row_lo, row_hi, base, mine));
                (rest, base) = (after, end);
            }
            return tasks
                .into_par_iter()
                .try_for_each(|(row_lo, row_hi, base, mine)| body(row_lo, row_hi, base, mine));
        }
    }
    let _ = &start_of;
    body(0, rows, 0, vals)
}

/// A level whose append assembly can be split by parents: consecutive ranges of parent
/// positions each assembled into a level of their own (parent positions from 0), then
/// concatenated in order; or counted, then filled into their windows of the level's arrays
/// ([`append_counted`]). Sealed: implemented by `Compressed`.
#[doc(hidden)]
pub trait AppendRows: crate::level::Level + Sized {
    /// An empty level of this one's size, for one task's parents.
    fn task_level(&self) -> Self;
    /// Replaces this level with `parts`, each finalized under its task's parents, one after
    /// the other, under `parents` parent positions in all. `Err` if the parts do not record
    /// exactly `parents` parents or their positions overflow the index type.
    fn concat(&mut self, parts: Vec<Self>, parents: usize) -> Result<(), crate::Error>;
    /// The type of its coordinates.
    type Coord: crate::Index;
    /// Its `pos` and coordinate arrays, taken out (their allocations to be reused); the level
    /// is left to be [`Self::set_arrays`].
    fn take_arrays(&mut self) -> (Vec<Self::Coord>, Vec<Self::Coord>);
    /// Makes it the level of `pos.len() - 1` parents over `crd`, parent `i` owning positions
    /// `pos[i]..pos[i + 1]`. `Err` unless `pos` starts at 0, never decreases and ends at
    /// `crd.len()`.
    fn set_arrays(
        &mut self,
        pos: Vec<Self::Coord>,
        crd: Vec<Self::Coord>,
    ) -> Result<(), crate::Error>;
}

/// Whether [`append_counted`] splits the `rows` rows of a loop that reads `work` entries
/// here: more than one task's rows ([`counted_min`]), and more than one thread to run them
/// or [`with_min_rows`]'s override. Otherwise the serial assembly runs (the two phases would
/// only cost).
#[doc(hidden)]
pub fn splits_counted(rows: usize, work: usize) -> bool {
    #[cfg(feature = "parallel")]
    {
        rows > counted_min(rows, work) && splits_apart()
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = (rows, work);
        false
    }
}

/// Whether [`append_positions_bounded`] splits the positions `lo..hi` of a loop that reads
/// `work` entries here: as [`splits_counted`] splits rows (a position is a row of the
/// output). Otherwise the serial assembly runs.
#[doc(hidden)]
pub fn splits_positions(lo: usize, hi: usize, work: usize) -> bool {
    splits_counted(hi.saturating_sub(lo), work)
}

/// The rows of one task of [`append_counted`]'s first phase: [`with_min_rows`]'s where set;
/// else enough for about 4 * 4096 entries read, and at most 32 tasks per thread (a task is
/// a call and a few checks: nothing is allocated per task).
fn counted_min(rows: usize, work: usize) -> usize {
    #[cfg(feature = "parallel")]
    let (set, threads) = (MIN_ROWS.with(Cell::get), rayon::current_num_threads());
    #[cfg(not(feature = "parallel"))]
    let (set, threads) = (MIN_ROWS.with(Cell::get), 1);
    match set {
        Some(min) => min.max(1),
        None => {
            let per_task = (4 * TASK_COMPONENTS).div_ceil((work / rows.max(1)).max(1));
            per_task.max(rows.div_ceil(32 * threads)).max(1)
        }
    }
}

/// The fewest of `n` positions one task of [`append_positions`] takes, `work` the entries the
/// loop reads: [`with_min_rows`]'s where set; else enough for about 4096 entries, and at
/// most 8 tasks per thread: each task's level, values and workspace are allocated apart and
/// copied into place, so fewer, larger tasks cost less (8 per thread still balance).
#[cfg(feature = "parallel")]
fn apart_min(n: usize, work: usize) -> usize {
    match MIN_ROWS.with(Cell::get) {
        Some(min) => min.max(1),
        None => {
            let per_task = TASK_COMPONENTS.div_ceil((work / n.max(1)).max(1));
            per_task
                .max(n.div_ceil(8 * rayon::current_num_threads()))
                .max(1)
        }
    }
}

/// Whether [`append_positions`] splits its positions here: with more than one thread to run the tasks, or
/// where [`with_min_rows`] asks for the split (the differential tester). On one thread the
/// tasks' own levels and their concatenation would only cost.
#[cfg(feature = "parallel")]
fn splits_apart() -> bool {
    rayon::current_num_threads() > 1 || MIN_ROWS.with(Cell::get).is_some()
}

/// Append assembly of an output whose first level is dense with `rows` coordinates and whose
/// second, `level`, appends segments (CSR), by a loop over the positions `lo..hi` of a sparse
/// root whose coordinates are the output's rows, split as [`positions`] splits them (each
/// task starting at a run of equal coordinates, owning the rows from its first position's
/// coordinate to the next task's): calls `body(row_lo, row_hi, pos_lo, pos_hi, level, vals)`,
/// which assembles the rows `row_lo..row_hi` as parents `0..row_hi - row_lo` (starting with
/// `append_init` and ending with `append_finalize`) from the positions `pos_lo..pos_hi`, and
/// their values. Serially (one range, the output's own level and values) or, in parallel
/// (feature `parallel`, more positions than a task takes, more than one thread), each task
/// into a level and values of its own, concatenated in row order: the same level and values
/// as the serial assembly. The first `Err` (any, in parallel) is returned; the output is then
/// left to the caller's assembly guard. `row_of` is read only at positions in `lo..hi`.
#[doc(hidden)]
pub fn append_positions<L, V, R, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    rows: usize,
    (lo, hi): (usize, usize),
    work: usize,
    row_of: R,
    body: F,
) -> Result<(), crate::Error>
where
    L: AppendRows,
    V: Value,
    R: Fn(usize) -> usize,
    F: Fn(usize, usize, usize, usize, &mut L, &mut Vec<V>) -> Result<(), crate::Error>
        + Sync
        + Send,
{
    #[cfg(feature = "parallel")]
    {
        let count = hi.saturating_sub(lo);
        let min = apart_min(count, work);
        if count > min && splits_apart() {
            let tasks = position_tasks(rows, (lo, hi), min, &row_of);
            return assemble_apart(
                level,
                vals,
                rows,
                tasks,
                |(r_lo, r_hi, p_lo, p_hi), l, v| body(r_lo, r_hi, p_lo, p_hi, l, v),
            );
        }
    }
    let _ = (row_of, work);
    body(0, rows, lo, hi, level, vals)
}

/// Runs `task` for each of `tasks` (`(row_lo, row_hi, ..)`, consecutive rows covering
/// `0..rows`) in parallel, each into a level and values of its own, and replaces `level`
/// and `vals` with their concatenation in row order.
#[cfg(feature = "parallel")]
fn assemble_apart<L, V, T>(
    level: &mut L,
    vals: &mut Vec<V>,
    rows: usize,
    tasks: Vec<(usize, usize, usize, usize)>,
    task: T,
) -> Result<(), crate::Error>
where
    L: AppendRows,
    V: Value,
    T: Fn((usize, usize, usize, usize), &mut L, &mut Vec<V>) -> Result<(), crate::Error>
        + Sync
        + Send,
{
    use rayon::prelude::*;
    let empty = level.task_level();
    let parts = tasks
        .into_par_iter()
        .map(|t| {
            let (mut l, mut v) = (empty.task_level(), Vec::new());
            task(t, &mut l, &mut v).map(|()| (l, v))
        })
        .collect::<Result<Vec<(L, Vec<V>)>, crate::Error>>()?;
    let (levels, values): (Vec<L>, Vec<Vec<V>>) = parts.into_iter().unzip();
    level.concat(levels, rows)?;
    gather(&values, vals, "appended values")
}

/// Replaces `out` with the concatenation of `parts`, in `out`'s allocation if it is large
/// enough (an output assembled again) or a fresh one (huge pages where large), each part
/// copied by a task of its own: the copy, and the first touch of fresh pages, in parallel.
pub(crate) fn gather<T: Copy + Send + Sync>(
    parts: &[Vec<T>],
    out: &mut Vec<T>,
    what: &str,
) -> Result<(), crate::Error> {
    let total = parts.iter().map(Vec::len).sum::<usize>();
    out.clear();
    crate::alloc::reserve(out, total, what)?;
    let mut rest = &mut out.spare_capacity_mut()[..total];
    let mut slots = Vec::with_capacity(parts.len());
    for part in parts {
        let (mine, after) = rest.split_at_mut(part.len());
        slots.push(mine);
        rest = after;
    }
    let copy = |(slot, part): (&mut [std::mem::MaybeUninit<T>], &Vec<T>)| {
        for (dst, src) in slot.iter_mut().zip(part) {
            dst.write(*src);
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        slots.into_par_iter().zip(parts).for_each(copy);
    }
    #[cfg(not(feature = "parallel"))]
    slots.into_iter().zip(parts).for_each(copy);
    // SAFETY: the slots tile the first `total` elements of the spare capacity, and each
    // element of a slot was written above from its part (`zip` of equal lengths).
    unsafe { out.set_len(total) };
    Ok(())
}

/// The task boundaries of [`segments`]: `0`, the first row of each later task (strictly
/// increasing), `rows`. Tasks of [`with_min_rows`] rows where that is set; otherwise of
/// about [`TASK_COMPONENTS`] values, each boundary the last row that starts at or before its
/// share of the values (a binary search: `pos` never decreases).
#[cfg(feature = "parallel")]
fn segment_rows(rows: usize, total: usize, start_of: &impl Fn(usize) -> usize) -> Vec<usize> {
    split_rows(
        rows,
        total,
        (total / TASK_COMPONENTS).min(rows).max(1),
        start_of,
    )
}

/// The boundaries (`0`, the first row of each later task, `rows`) of `tasks` tasks of
/// consecutive rows, each about an equal share of `total` by `start_of` (where each row
/// starts, from 0, never decreasing), or of [`with_min_rows`]'s rows where set.
fn split_rows(
    rows: usize,
    total: usize,
    tasks: usize,
    start_of: &impl Fn(usize) -> usize,
) -> Vec<usize> {
    let mut bounds = vec![0];
    match MIN_ROWS.with(Cell::get) {
        Some(min) => bounds.extend((min.max(1)..rows).step_by(min.max(1))),
        None => {
            let tasks = tasks.max(1);
            let share = total / tasks;
            for t in 1..tasks {
                // The last row that starts at or before this task's share: the first row
                // past it that starts after the share, less one.
                let first = bounds[bounds.len() - 1] + 1;
                let (mut lo, mut hi) = (first, rows);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    match start_of(mid) <= share * t {
                        true => lo = mid + 1,
                        false => hi = mid,
                    }
                }
                // `lo == first`: the previous boundary's row reaches past the share.
                if lo > first {
                    bounds.push(lo - 1);
                }
            }
        }
    }
    bounds.push(rows);
    bounds
}

/// The first position in `at..hi` whose coordinate differs from its predecessor's (`hi` if
/// none), for `lo < at`: where a task may start without splitting a run of one row's
/// positions. `row_of` is read only in `at - 1..hi`; along an ordered level's positions the
/// coordinates never decrease, so the run of `row_of(at - 1)` ends at the first position
/// whose coordinate is greater (a binary search).
fn run_start(at: usize, hi: usize, row_of: &impl Fn(usize) -> usize) -> usize {
    if at >= hi {
        return hi;
    }
    let row = row_of(at - 1);
    let (mut lo, mut hi) = (at, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match row_of(mid) > row {
            true => hi = mid,
            false => lo = mid + 1,
        }
    }
    lo
}

/// The tasks of a split of positions `lo..hi` into ranges of about `min`, each starting at
/// a run of equal coordinates ([`run_start`]): `(row_lo, row_hi, pos_lo, pos_hi)`, the row
/// ranges consecutive from 0 to `rows` (clamped, whatever `row_of` says).
#[cfg(feature = "parallel")]
fn position_tasks(
    rows: usize,
    (lo, hi): (usize, usize),
    min: usize,
    row_of: &impl Fn(usize) -> usize,
) -> Vec<(usize, usize, usize, usize)> {
    let mut tasks = Vec::with_capacity(hi.saturating_sub(lo) / min.max(1) + 1);
    let (mut row_lo, mut pos_lo) = (0, lo);
    while pos_lo < hi {
        let pos_hi = run_start(pos_lo.saturating_add(min).min(hi), hi, row_of);
        let row_hi = match pos_hi < hi {
            true => row_of(pos_hi).clamp(row_lo, rows),
            false => rows,
        };
        tasks.push((row_lo, row_hi, pos_lo, pos_hi));
        (row_lo, pos_lo) = (row_hi, pos_hi);
    }
    tasks
}

/// The error of a value array that does not split into the rows a kernel expects: a
/// compiler defect, reported rather than computed wrong.
fn uneven(len: usize, rows: usize) -> crate::Error {
    crate::Error::LengthMismatch {
        what: "values of a dense output split into rows (internal error: please report it)",
        expected: rows * (len / rows.max(1)),
        found: len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doubled_rows(vals: &mut [u64], rows: usize) -> Result<(), crate::Error> {
        let row_len = vals.len() / rows.max(1);
        super::rows(vals, rows, 0, |lo, hi, base, task| {
            assert_eq!((task.len(), base), ((hi - lo) * row_len, lo * row_len));
            for i in lo..hi {
                for k in 0..row_len {
                    task[i * row_len + k - base] = (i * 10 + k) as u64;
                }
            }
            Ok(())
        })
    }

    /// A fold of `i * i` over `lo..hi` in chunks, recording each chunk it was given.
    fn squares(lo: usize, hi: usize) -> (u64, Vec<(usize, usize)>) {
        let seen = std::sync::Mutex::new(Vec::new());
        let sum = super::fold(
            0u64,
            (lo, hi),
            |a, b| a + b,
            |a, b, start| {
                seen.lock().unwrap().push((a, b));
                Ok((a..b).fold(start, |s, i| s + (i * i) as u64))
            },
        )
        .unwrap();
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        (sum, seen)
    }

    #[test]
    fn a_fold_covers_its_iterations_in_chunks() {
        let expected = |lo: usize, hi: usize| (lo..hi).map(|i| (i * i) as u64).sum::<u64>();
        for (lo, hi) in [
            (0, 0),
            (3, 3),
            (5, 2),
            (0, 1),
            (0, 4096),
            (0, 4097),
            (7, 10_000),
        ] {
            let (sum, chunks) = squares(lo, hi);
            assert_eq!(sum, expected(lo, hi.max(lo)));
            let n = hi.saturating_sub(lo);
            assert_eq!(chunks.len(), n.div_ceil(4096).max(1));
            assert_eq!(chunks.first().map(|c| c.0), Some(lo));
            assert!(chunks
                .windows(2)
                .all(|w| w[0].1 == w[1].0 && w[0].1 - w[0].0 == 4096));
        }
        let (sum, chunks) = with_fold_chunk(1, || squares(2, 9));
        assert_eq!((sum, chunks.len()), (expected(2, 9), 7));
        let (_, chunks) = with_fold_chunk(usize::MAX, || squares(0, 100_000));
        assert_eq!(chunks, [(0, 100_000)]);
    }

    #[test]
    fn chunks_combine_in_order_and_errors_come_back() {
        // A combine that is not commutative shows the order.
        let order = with_fold_chunk(1, || {
            super::fold(0usize, (0, 5), |a, b| a * 10 + b, |a, _, s| Ok(s + a + 1))
        });
        assert_eq!(order.unwrap(), 12345);
        let failed = with_fold_chunk(1, || {
            super::fold(
                0u32,
                (0, 50),
                |a, b| a + b,
                |a, _, s| match a {
                    17 => Err(uneven(a, 2)),
                    _ => Ok(s + 1),
                },
            )
        });
        assert!(failed.is_err());
    }

    #[test]
    fn every_row_gets_its_own_components() {
        for min in [1, 2, 1000] {
            let mut vals = vec![0u64; 12];
            with_min_rows(min, || doubled_rows(&mut vals, 4)).unwrap();
            assert_eq!(vals, [0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32]);
        }
    }

    #[test]
    fn uneven_and_empty_splits() {
        let mut vals = vec![0u64; 7];
        assert!(doubled_rows(&mut vals, 2).is_err());
        assert_eq!(vals, [0; 7], "nothing computed");
        assert!(doubled_rows(&mut [], 0).is_ok());
        assert!(doubled_rows(&mut [0], 0).is_err());
        // Rows of no component: the body still runs, over all of them.
        let calls = std::sync::atomic::AtomicUsize::new(0);
        super::rows(&mut [] as &mut [u64], 3, 0, |lo, hi, _, task| {
            assert!(task.is_empty() && (lo, hi) == (0, 3));
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
        assert_eq!(calls.into_inner(), 1);
    }

    #[test]
    fn the_first_error_is_returned() {
        let mut vals = vec![0u64; 100];
        let r = with_min_rows(1, || {
            super::rows(&mut vals, 100, 0, |lo, hi, _, _| {
                match (lo..hi).contains(&37) {
                    true => Err(crate::Error::NotRepresentable {
                        detail: "row 37".into(),
                    }),
                    false => Ok(()),
                }
            })
        });
        assert!(r.unwrap_err().to_string().contains("row 37"));
    }

    /// Positions with coordinates `crd`, non-decreasing, of 10 rows of 2 components: each
    /// task adds its positions' terms to their rows and fills the rows between them; returns
    /// the values and the tasks' position ranges.
    fn position_tasks(crd: &[usize], min: usize) -> (Vec<u64>, Vec<(usize, usize)>) {
        let mut vals = vec![7u64; 20];
        let tasks = std::sync::Mutex::new(Vec::new());
        with_min_rows(min, || {
            positions(
                &mut vals,
                10,
                (0, crd.len()),
                0,
                |p| {
                    assert!(p < crd.len(), "row_of({p}) outside lo..hi");
                    crd[p]
                },
                |r_lo, r_hi, base, p_lo, p_hi, task| {
                    assert_eq!((task.len(), base), ((r_hi - r_lo) * 2, r_lo * 2));
                    tasks.lock().unwrap().push((p_lo, p_hi));
                    task.fill(0);
                    for (p, &i) in crd.iter().enumerate().take(p_hi).skip(p_lo) {
                        assert!((r_lo..r_hi).contains(&i), "{i} outside {r_lo}..{r_hi}");
                        task[i * 2 - base] += 1;
                        task[i * 2 + 1 - base] += p as u64;
                    }
                    Ok(())
                },
            )
        })
        .unwrap();
        let mut tasks = tasks.into_inner().unwrap();
        tasks.sort();
        (vals, tasks)
    }

    /// Unique coordinates `[1, 2, 5, 6, 9]`, and runs of equal ones (a `Coo`'s rows): every
    /// split gives the serial values, and no run is split between tasks.
    #[test]
    fn position_tasks_own_their_coordinates_rows() {
        for crd in [
            &[1usize, 2, 5, 6, 9][..],
            &[0, 0, 0, 2, 5, 5, 6, 9, 9, 9, 9],
        ] {
            let (want, _) = position_tasks(crd, usize::MAX);
            let mut expected = vec![0u64; 20];
            for (p, &i) in crd.iter().enumerate() {
                expected[2 * i] += 1;
                expected[2 * i + 1] += p as u64;
            }
            assert_eq!(want, expected);
            for min in [1, 2, 3, 1000] {
                let (vals, tasks) = position_tasks(crd, min);
                assert_eq!(vals, want, "{crd:?}, min = {min}");
                for &(p_lo, _) in &tasks[1..] {
                    assert_ne!(crd[p_lo - 1], crd[p_lo], "a run split at {p_lo}: {tasks:?}");
                }
            }
        }
    }

    #[test]
    fn a_lying_row_of_still_splits_into_disjoint_slices() {
        // Decreasing, and past the rows: boundaries are clamped; the slices still tile `vals`.
        for row_of in [|p: usize| 9 - p, |p: usize| 100 + p] {
            let mut vals = vec![0u64; 10];
            let seen = std::sync::Mutex::new(Vec::new());
            with_min_rows(1, || {
                positions(
                    &mut vals,
                    10,
                    (0, 6),
                    0,
                    row_of,
                    |r_lo, r_hi, _, _, _, task| {
                        assert_eq!(task.len(), r_hi - r_lo);
                        seen.lock().unwrap().push((r_lo, r_hi));
                        Ok(())
                    },
                )
            })
            .unwrap();
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            assert_eq!(seen.first().map(|s| s.0), Some(0));
            assert!(seen.windows(2).all(|w| w[0].1 == w[1].0));
            assert_eq!(seen.last().map(|s| s.1), Some(10));
        }
        assert!(positions(
            &mut [0u64; 3],
            2,
            (0, 1),
            0,
            |p| p,
            |_, _, _, _, _, _| Ok(())
        )
        .is_err());
    }

    /// Runs [`segments`] over rows with the given numbers of values, each task writing its
    /// rows' numbers into its slice; returns the values and the tasks' row ranges.
    fn numbered_segments(
        counts: &[usize],
        start_of: impl Fn(usize) -> usize,
    ) -> (Vec<usize>, Vec<(usize, usize)>) {
        let mut vals = vec![usize::MAX; counts.iter().sum()];
        let tasks = std::sync::Mutex::new(Vec::new());
        segments(&mut vals, counts.len(), start_of, |lo, hi, base, task| {
            tasks.lock().unwrap().push((lo, hi));
            let mut at = 0;
            for (i, &n) in counts.iter().enumerate().take(hi).skip(lo) {
                for _ in 0..n {
                    let slot = task.get_mut(at).ok_or(crate::Error::NotRepresentable {
                        detail: format!("row {i} past its task's values (base {base})"),
                    })?;
                    *slot = i;
                    at += 1;
                }
            }
            assert_eq!(at, task.len(), "rows {lo}..{hi} fill their slice exactly");
            Ok(())
        })
        .unwrap();
        let mut tasks = tasks.into_inner().unwrap();
        tasks.sort();
        (vals, tasks)
    }

    fn starts(counts: &[usize]) -> Vec<usize> {
        counts
            .iter()
            .scan(0, |s, &n| {
                let at = *s;
                *s += n;
                Some(at)
            })
            .collect()
    }

    #[test]
    fn segment_tasks_hold_exactly_their_rows_values() {
        let counts = [3, 0, 0, 5, 1, 0, 2, 4, 0];
        let pos = starts(&counts);
        let want: Vec<usize> = counts
            .iter()
            .enumerate()
            .flat_map(|(i, &n)| std::iter::repeat_n(i, n))
            .collect();
        for min in [1, 2, 4, 1000, usize::MAX] {
            let (vals, tasks) = with_min_rows(min, || {
                numbered_segments(&counts, |r| {
                    assert!(
                        (1..counts.len()).contains(&r),
                        "start_of({r}) outside 1..rows"
                    );
                    pos[r]
                })
            });
            assert_eq!(vals, want, "min = {min}");
            assert_eq!((tasks[0].0, tasks[tasks.len() - 1].1), (0, counts.len()));
            assert!(tasks.windows(2).all(|w| w[0].1 == w[1].0), "{tasks:?}");
            if cfg!(feature = "parallel") && min < counts.len() {
                assert_eq!(tasks.len(), counts.len().div_ceil(min), "min = {min}");
            }
        }
        // No rows, and rows of no values.
        assert_eq!(numbered_segments(&[], |_| unreachable!()).1, [(0, 0)]);
        assert_eq!(
            with_min_rows(1, || numbered_segments(&[0, 0, 0], |_| 0)).0,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn segment_tasks_balance_values_not_rows() {
        // One heavy row among many light ones: tasks of about TASK_COMPONENTS values each.
        let mut counts = vec![1; 20_000];
        counts[10] = 6 * TASK_COMPONENTS;
        let pos = starts(&counts);
        let (vals, tasks) = numbered_segments(&counts, |r| pos[r]);
        assert_eq!(vals.len(), counts.iter().sum::<usize>());
        assert!(vals.windows(2).all(|w| w[0] <= w[1]));
        if cfg!(feature = "parallel") {
            // The heavy row starts a task; no other task holds much more than its share.
            assert!(tasks.iter().any(|t| t.0 == 10), "{tasks:?}");
            for &(lo, hi) in tasks.iter().filter(|t| !(t.0..t.1).contains(&10)) {
                let values = pos.get(hi).unwrap_or(&vals.len()) - pos[lo];
                assert!(values <= 2 * TASK_COMPONENTS, "{tasks:?}");
            }
        }
    }

    #[test]
    fn a_lying_start_of_still_splits_into_disjoint_slices() {
        for start_of in [|r: usize| 100 - r, |r: usize| 1000 + r] {
            let mut vals = vec![0u64; 50];
            let seen = std::sync::Mutex::new(Vec::new());
            with_min_rows(1, || {
                segments(&mut vals, 10, start_of, |lo, hi, base, task| {
                    seen.lock().unwrap().push((lo, hi, base, task.len()));
                    Ok(())
                })
            })
            .unwrap();
            let mut seen = seen.into_inner().unwrap();
            seen.sort();
            let covered: usize = seen.iter().map(|s| s.3).sum();
            assert_eq!(covered, 50);
            assert!(seen
                .windows(2)
                .all(|w| w[0].2 + w[0].3 == w[1].2 && w[0].1 == w[1].0));
        }
    }

    /// Rows `i` of a 5-column level holding columns `0..i % 4` (every fourth row empty),
    /// assembled by rows, or by the positions of a root that holds each row twice (runs, as
    /// a `Coo`'s) but rows 3 and 7 not at all: every split gives the serial level and values.
    #[test]
    fn appended_rows_concatenate_to_the_serial_assembly() {
        use crate::level::Compressed;
        let rows = 11;
        let row = |i: usize, l: &mut Compressed<u32>, v: &mut Vec<u64>, parent: usize| {
            let begin = l.len();
            for j in 0..i % 4 {
                l.append_coord(j);
                v.push((10 * i + j) as u64);
            }
            let end = l.len();
            if end > begin {
                l.append_edges(parent, begin, end);
            }
        };
        // Positions 0..2 * rows, position p on row p / 2 (rows 3 and 7 have no positions).
        let crd: Vec<usize> = (0..2 * rows)
            .map(|p| p / 2)
            .filter(|&i| i != 3 && i != 7)
            .collect();
        let by_positions = |min: usize| {
            let (mut l, mut v) = (
                Compressed::<u32>::from_raw(5, vec![0], vec![]).unwrap(),
                vec![],
            );
            with_min_rows(min, || {
                append_positions(
                    &mut l,
                    &mut v,
                    rows,
                    (0, crd.len()),
                    0,
                    |p| crd[p],
                    |r_lo, r_hi, p_lo, p_hi, l, v| {
                        l.append_init(r_hi - r_lo);
                        for p in (p_lo..p_hi).filter(|&p| p == 0 || crd[p - 1] != crd[p]) {
                            assert!((r_lo..r_hi).contains(&crd[p]));
                            row(crd[p], l, v, crd[p] - r_lo);
                        }
                        l.append_finalize(r_hi - r_lo)
                    },
                )
            })
            .unwrap();
            (l, v)
        };
        // The rows one after the other, into one level.
        let (mut l, mut v) = (
            Compressed::<u32>::from_raw(5, vec![0], vec![]).unwrap(),
            vec![],
        );
        l.append_init(rows);
        (0..rows)
            .filter(|&i| i != 3 && i != 7)
            .for_each(|i| row(i, &mut l, &mut v, i));
        l.append_finalize(rows).unwrap();
        let serial = (l, v);
        assert_eq!(by_positions(usize::MAX), serial);
        assert_eq!(
            serial.1.len(),
            (0..rows).map(|i| i % 4).sum::<usize>() - 3 - 3
        );
        for min in [1, 2, 3, 5, usize::MAX] {
            assert_eq!(by_positions(min), serial, "by positions, min = {min}");
        }
        // A task's error is the result.
        let mut l = Compressed::<u32>::from_raw(5, vec![0], vec![]).unwrap();
        let r = with_min_rows(2, || {
            append_positions(
                &mut l,
                &mut Vec::<u64>::new(),
                rows,
                (0, crd.len()),
                0,
                |p| crd[p],
                |lo, hi, _, _, _, _| match (lo..hi).contains(&4) {
                    true => Err(crate::Error::NotRepresentable {
                        detail: "row 4".into(),
                    }),
                    false => Ok(()),
                },
            )
        });
        assert!(r.unwrap_err().to_string().contains("row 4"));
    }

    #[test]
    #[cfg(feature = "parallel")]
    fn heavy_rows_make_smaller_tasks() {
        // Light rows: tasks of `min_rows`, as before.
        assert_eq!(task_rows(1 << 20, 1, 6 << 20), TASK_COMPONENTS);
        assert_eq!(task_rows(1 << 20, 16, 21 << 20), TASK_COMPONENTS / 16);
        // 2000 slices of 4000 entries each: tasks of 9 slices (about `TASK_WORK` entries).
        assert_eq!(task_rows(2000, 1, 8_000_000), TASK_WORK.div_ceil(4000));
        // No work, no rows, or a row heavier than a task: at least one row.
        assert_eq!(task_rows(0, 1, 0), TASK_COMPONENTS);
        assert_eq!(task_rows(10, 1, usize::MAX), 1);
        // The override wins.
        with_min_rows(3, || assert_eq!(task_rows(2000, 1, 8_000_000), 3));
    }

    #[test]
    fn the_override_is_restored() {
        assert_eq!(min_rows(1), TASK_COMPONENTS);
        with_min_rows(3, || assert_eq!(min_rows(1), 3));
        assert_eq!(min_rows(1), TASK_COMPONENTS);
        assert_eq!(min_rows(1 << 20), 1);
    }
}
