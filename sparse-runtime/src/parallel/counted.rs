//! Two-phase assembly of a sparse output's rows in parallel: count, then fill in place.
//!
//! A loop that append-assembles a CSR-like output (a dense first level, a second that appends
//! segments) runs twice over the rows, in tasks of consecutive rows. The first phase runs the
//! loop against [`CountRows`], which records how many coordinates each row appends and keeps
//! none, and [`Discard`], which drops the values (their arithmetic is dead code there). A
//! prefix sum of the counts gives every row's place in the output; the output's coordinate
//! and value arrays are allocated once, exactly, and the second phase runs the loop again
//! against [`FillRows`] and [`FillValues`], which write each task's rows into its own window
//! of those arrays. Nothing is copied, and the fresh pages are first touched by the tasks, in
//! parallel.
//!
//! Where the operands bound the entries of each range of rows ([`append_bounded`]: a sparse
//! sum's rows have at most its operands' entries), the loop runs once: chunks of rows, taken
//! in order by the threads, each write their rows into a window as long as their bound
//! (in place where the chunks before have ended, else into scratch copied into place once
//! they have: see the `chained` module), recording their rows' ends. Counting cost as much
//! as a sum's merge, so two phases gained nothing on two threads.
//!
//! The loop is the serial one, so each row appends the same coordinates and values in the
//! same order as the serial assembly: the result is the serial output, bit for bit. Both
//! phases check what the loop does against what the other phase saw (segments recorded in
//! row order, contiguous, each row's count the same in both phases, every window written in
//! full); a mismatch, which only a compiler defect could cause, is an `Err`, never memory
//! left unwritten.

use super::{chained, AppendRows};
use crate::index::{fits, Index};
use crate::workspace::DenseAccumulator;
use crate::{alloc, Error, Value};
use std::marker::PhantomData;
use std::mem::MaybeUninit;
use std::sync::Mutex;

/// The segments a task's loop records with `append_edges`: parents in increasing order, each
/// segment starting where the previous one ended. Both phases check the same rules as
/// `Compressed::append_edges`.
#[derive(Default)]
struct Edges {
    /// The last recorded parent and the end of its segment.
    last: Option<(usize, usize)>,
    /// Whether a segment broke the rules.
    misuse: bool,
}

impl Edges {
    /// Records that `parent` owns `begin..end` of `len` appended coordinates; the segment's
    /// length, or `None` (remembered) if it breaks the rules.
    #[inline]
    fn record(&mut self, parent: usize, begin: usize, end: usize, len: usize) -> Option<usize> {
        let prev_end = self.last.map_or(0, |(_, e)| e);
        let ordered = self.last.is_none_or(|(p, _)| parent > p);
        if ordered && begin == prev_end && begin <= end && end <= len {
            self.last = Some((parent, end));
            return Some(end - begin);
        }
        self.misuse = true;
        None
    }

    /// Whether every segment kept the rules and together they cover all `len` coordinates.
    fn covers(&self, len: usize) -> bool {
        !self.misuse && self.last.map_or(0, |(_, e)| e) == len
    }
}

/// The first phase's stand-in for the output's last level: counts the coordinates each of a
/// task's rows appends (its parents `0..`), keeping none.
#[doc(hidden)]
pub struct CountRows<'a> {
    counts: &'a mut [usize],
    len: usize,
    edges: Edges,
}

impl<'a> CountRows<'a> {
    fn new(counts: &'a mut [usize]) -> Self {
        Self {
            counts,
            len: 0,
            edges: Edges::default(),
        }
    }

    /// Starts the task's rows (nothing to do: the counts start at 0).
    #[inline]
    pub fn append_init(&mut self, _parents: usize) {}

    /// The coordinates counted so far: a segment's bound.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Counts one coordinate.
    #[inline]
    pub fn append_coord(&mut self, _i: usize) {
        self.len += 1;
    }

    /// Counts `coords`' coordinates.
    #[inline]
    pub fn append_coords(&mut self, coords: impl ExactSizeIterator<Item = usize>) {
        self.len += coords.len();
    }

    /// Records that `parent` (a row of the task, from 0) owns `begin..end`.
    #[inline]
    pub fn append_edges(&mut self, parent: usize, begin: usize, end: usize) {
        match (
            self.edges.record(parent, begin, end, self.len),
            self.counts.get_mut(parent),
        ) {
            (Some(n), Some(count)) => *count = n,
            _ => self.edges.misuse = true,
        }
    }

    /// Ends the task's rows; `Err` if its segments broke the rules (see [`Self::check`]).
    #[inline]
    pub fn append_finalize(&mut self, _parents: usize) -> Result<(), Error> {
        self.check()
    }

    /// The stand-in for a level appended with its values by one writer
    /// (`Compressed::append_bounded_entries`): counts each entry, dropping its value.
    #[inline]
    pub fn append_entries<'s, V>(&'s mut self, _vals: &'s mut Discard<V>) -> CountEntries<'s, 'a> {
        CountEntries { rows: self }
    }

    /// `Err` unless the segments were recorded in row order, contiguous, and cover every
    /// counted coordinate: then `counts` holds each row's entries.
    fn check(&self) -> Result<(), Error> {
        match self.edges.covers(self.len) {
            true => Ok(()),
            false => Err(defect("counted rows")),
        }
    }
}

/// [`CountRows`] appended with its values: counts entries, keeping no value.
#[doc(hidden)]
pub struct CountEntries<'s, 'a> {
    rows: &'s mut CountRows<'a>,
}

impl CountEntries<'_, '_> {
    /// The entries counted so far: a segment's bound.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.rows.len
    }

    /// Counts one entry (coordinate `i`, value `v`).
    #[inline]
    pub fn append_entry<V>(&mut self, i: usize, _v: V) {
        self.rows.append_coord(i);
    }

    /// See [`CountRows::append_edges`].
    #[inline]
    pub fn append_edges(&mut self, parent: usize, begin: usize, end: usize) {
        self.rows.append_edges(parent, begin, end);
    }

    /// See [`CountRows::append_finalize`].
    #[inline]
    pub fn append_finalize(&mut self, parents: usize) -> Result<(), Error> {
        self.rows.append_finalize(parents)
    }
}

/// The first phase's stand-in for the output's values: drops them.
#[doc(hidden)]
pub struct Discard<V>(PhantomData<V>);

impl<V> Discard<V> {
    /// Drops `v`.
    #[inline]
    pub fn push(&mut self, _v: V) {}

    /// Drops `values`.
    #[inline]
    pub fn extend(&mut self, _values: impl IntoIterator<Item = V>) {}
}

/// The first phase's stand-in for a dense accumulator (a workspace of keys `0..size`, as
/// Gustavson's SpGEMM keeps for a row): counts the distinct keys added since the last
/// `clear`, keeping no value. A key is marked with the number of the current row (a
/// generation), so clearing is one increment.
#[doc(hidden)]
pub struct KeyCounter {
    marks: Vec<u32>,
    generation: u32,
    len: usize,
}

impl KeyCounter {
    /// A counter for keys `0..size`, or `Err` if its marks cannot be allocated.
    pub fn new(size: usize) -> Result<Self, Error> {
        Ok(Self {
            marks: alloc::filled(size, 0, "the marks of a key counter")?,
            generation: 1,
            len: 0,
        })
    }

    /// Counts `key` if it was not added since the last `clear`; drops the value.
    ///
    /// # Safety
    ///
    /// `key` is below the counter's size (as for `DenseAccumulator::add_unchecked`).
    #[inline]
    pub unsafe fn add_unchecked<V>(&mut self, key: usize, _v: V) {
        debug_assert!(key < self.marks.len());
        // SAFETY: the caller guarantees key < size == marks.len().
        let mark = unsafe { self.marks.get_unchecked_mut(key) };
        self.len += usize::from(*mark != self.generation);
        *mark = self.generation;
    }

    /// The number of distinct keys added (nothing to sort: only the count is kept).
    #[inline]
    pub fn sort(&mut self) -> usize {
        self.len
    }

    /// The number of distinct keys added since the last `clear`.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key was added since the last `clear`.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// As many keys as were added (their count is all the first phase needs).
    #[inline]
    pub fn keys(&self) -> std::ops::Range<usize> {
        0..self.len
    }

    /// No values: the first phase drops them.
    #[inline]
    pub fn values<V>(&self) -> std::iter::Empty<V> {
        std::iter::empty()
    }

    /// Forgets the added keys: a new generation (all marks reset when it wraps).
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.marks.fill(0);
            self.generation = 1;
        }
    }
}

/// The second phase's stand-in for the output's last level: writes a task's coordinates into
/// its window of the output's coordinate array, each row's count as the first phase found;
/// or, in one phase ([`append_bounded`]), into a window as long as a bound of its entries,
/// recording each row's end.
#[doc(hidden)]
pub struct FillRows<'a, I> {
    crd: &'a mut [MaybeUninit<I>],
    ends: Ends<'a, I>,
    size: usize,
    len: usize,
    edges: Edges,
}

/// What a [`FillRows`] knows of its rows' ends.
enum Ends<'a, I> {
    /// As the first phase counted them, from the end of the row before the task's first
    /// (`row_hi - row_lo + 1` of the output's `pos`): each segment must match.
    Counted(&'a [I]),
    /// Not recorded: the task's entries are only counted (into an empty window), to size
    /// its window (`append_positions_bounded`, where the bounds' total does not fit).
    Counting,
    /// To be recorded: the end of each of the task's rows, from the window's start
    /// (`row_hi - row_lo` places of the output's `pos`, after the row before the task's
    /// first), those below `next` recorded so far.
    Recorded { ends: &'a mut [I], next: usize },
}

impl<'a, I: Index> FillRows<'a, I> {
    /// A task's stand-in writing into `crd`, coordinates below `size`, nothing written yet.
    fn new(crd: &'a mut [MaybeUninit<I>], ends: Ends<'a, I>, size: usize) -> Self {
        Self {
            crd,
            ends,
            size,
            len: 0,
            edges: Edges::default(),
        }
    }

    /// Starts the task's rows (nothing to do: the window is the task's).
    #[inline]
    pub fn append_init(&mut self, _parents: usize) {}

    /// The coordinates written so far: a segment's bound.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Writes coordinate `i` (below the level's size; debug builds assert it) at the next
    /// place of the window. Past the window's end nothing is written, and the task fails.
    #[inline]
    pub fn append_coord(&mut self, i: usize) {
        debug_assert!(i < self.size, "coordinate {i} >= size {}", self.size);
        if let Some(slot) = self.crd.get_mut(self.len) {
            slot.write(I::from_usize_unchecked(i));
        }
        self.len += 1;
    }

    /// Writes every coordinate of `coords`, as [`Self::append_coord`] does: into the rest of
    /// the window in one loop, any past its end only counted.
    #[inline]
    pub fn append_coords(&mut self, coords: impl ExactSizeIterator<Item = usize>) {
        let mut coords = coords;
        let start = self.len.min(self.crd.len());
        let size = self.size;
        let written = self.crd[start..]
            .iter_mut()
            .zip(&mut coords)
            .map(|(slot, i)| {
                debug_assert!(i < size, "coordinate {i} >= size {size}");
                slot.write(I::from_usize_unchecked(i));
            })
            .count();
        self.len += written;
        // The window is full: what is left is counted, not written (the task fails).
        for i in coords {
            self.append_coord(i);
        }
    }

    /// Records that `parent` (a row of the task, from 0) owns `begin..end`, which must be as
    /// many coordinates as the first phase counted for it (in one phase: within the window).
    #[inline]
    pub fn append_edges(&mut self, parent: usize, begin: usize, end: usize) {
        self.record_edges(parent, begin, end, self.len, self.crd.len());
    }

    /// [`Self::append_edges`] with `len` coordinates appended into a window of `window`.
    #[inline]
    fn record_edges(&mut self, parent: usize, begin: usize, end: usize, len: usize, window: usize) {
        let n = self.edges.record(parent, begin, end, len);
        match &mut self.ends {
            Ends::Counted(ends) => {
                let counted = match (ends.get(parent), ends.get(parent + 1)) {
                    (Some(b), Some(e)) => Some(e.to_usize() - b.to_usize()),
                    _ => None,
                };
                if n.is_none() || n != counted {
                    self.edges.misuse = true;
                }
            }
            Ends::Counting => {
                if n.is_none() {
                    self.edges.misuse = true;
                }
            }
            Ends::Recorded { ends, next } => {
                // The rows skipped since the last segment are empty: they end where it did
                // (`begin`, as segments are contiguous). Ends past the window are not
                // recorded (the task fails), so each recorded end fits the window.
                let rows = match n.is_some() && end <= window {
                    true => ends.get_mut(*next..=parent),
                    false => None,
                };
                match rows.and_then(|rows| rows.split_last_mut()) {
                    Some((last, empty)) => {
                        empty.fill(I::from_usize_unchecked(begin));
                        *last = I::from_usize_unchecked(end);
                        *next = parent + 1;
                    }
                    None => self.edges.misuse = true,
                }
            }
        }
    }

    /// The stand-in for a level appended with its values by one writer
    /// (`Compressed::append_bounded_entries`): writes each entry's coordinate and value
    /// under one count, as [`Self::append_coord`] and [`FillValues::push`] do. The values
    /// must have been pushed as often as coordinates appended (else the task fails).
    #[inline]
    pub fn append_entries<'s, 'b, V>(
        &'s mut self,
        values: &'s mut FillValues<'b, V>,
    ) -> FillEntries<'s, 'a, 'b, I, V> {
        if values.len != self.len {
            self.edges.misuse = true;
        }
        let (crd, vals) = (
            std::mem::take(&mut self.crd),
            std::mem::take(&mut values.vals),
        );
        FillEntries {
            room: crd.len().min(vals.len()),
            len: self.len,
            rows: self,
            values,
            crd,
            vals,
            given_back: false,
        }
    }

    /// Ends the task's rows; `Err` unless they filled the window as counted (in one phase:
    /// unless they kept within it, and then the rows after the last segment end there).
    #[inline]
    pub fn append_finalize(&mut self, _parents: usize) -> Result<(), Error> {
        if !self.complete() {
            return Err(defect("filled rows"));
        }
        if let Ends::Recorded { ends, next } = &mut self.ends {
            if let Some(rest) = ends.get_mut(*next..) {
                rest.fill(I::from_usize_unchecked(self.len));
            }
            *next = ends.len();
        }
        Ok(())
    }

    /// Whether every place of the window below `len` was written, once, with the segments as
    /// counted: `len` grows by one per place written, in order, and only past the window's
    /// end without a write. Counted, exactly the window's length were appended; in one
    /// phase, at most that many.
    fn complete(&self) -> bool {
        let within = match self.ends {
            Ends::Counted(_) => self.len == self.crd.len(),
            Ends::Counting => true,
            Ends::Recorded { .. } => self.len <= self.crd.len(),
        };
        within && self.edges.covers(self.len)
    }

    /// Whether, in one phase, every row's end was recorded (by `append_finalize`).
    fn recorded(&self) -> bool {
        match &self.ends {
            Ends::Counted(_) | Ends::Counting => true,
            Ends::Recorded { ends, next } => *next == ends.len(),
        }
    }
}

/// [`FillRows`] and [`FillValues`] written by one writer, which holds both windows and one
/// count of entries (the stand-ins' own counts are set from it when it gives the windows
/// back, at `append_finalize` or when dropped).
#[doc(hidden)]
pub struct FillEntries<'s, 'a, 'b, I, V> {
    rows: &'s mut FillRows<'a, I>,
    values: &'s mut FillValues<'b, V>,
    crd: &'a mut [MaybeUninit<I>],
    vals: &'b mut [MaybeUninit<V>],
    /// The shorter window's length: entries past it are counted, not written.
    room: usize,
    len: usize,
    given_back: bool,
}

impl<I: Index, V> FillEntries<'_, '_, '_, I, V> {
    /// The entries appended so far: a segment's bound.
    #[inline]
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Writes coordinate `i` (below the level's size; debug builds assert it) and its value
    /// `v` at the next place of both windows; past the shorter's end nothing is written, and
    /// the task fails.
    #[inline]
    pub fn append_entry(&mut self, i: usize, v: V) {
        debug_assert!(
            i < self.rows.size,
            "coordinate {i} >= size {}",
            self.rows.size
        );
        let k = self.len;
        if k < self.room {
            // SAFETY: `k < room`, the length of the shorter window.
            unsafe {
                self.crd
                    .get_unchecked_mut(k)
                    .write(I::from_usize_unchecked(i));
                self.vals.get_unchecked_mut(k).write(v);
            }
        }
        self.len = k + 1;
    }

    /// See [`FillRows::append_edges`].
    #[inline]
    pub fn append_edges(&mut self, parent: usize, begin: usize, end: usize) {
        let window = self.crd.len();
        self.rows.record_edges(parent, begin, end, self.len, window);
    }

    /// Gives the windows back and ends the task's rows (see [`FillRows::append_finalize`]).
    #[inline]
    pub fn append_finalize(&mut self, parents: usize) -> Result<(), Error> {
        self.give_back();
        self.rows.append_finalize(parents)
    }
}

impl<I, V> FillEntries<'_, '_, '_, I, V> {
    /// Gives the windows back to the stand-ins (once), with the entries counted as both
    /// coordinates and values.
    fn give_back(&mut self) {
        if !self.given_back {
            self.given_back = true;
            self.rows.crd = std::mem::take(&mut self.crd);
            self.values.vals = std::mem::take(&mut self.vals);
            (self.rows.len, self.values.len) = (self.len, self.len);
        }
    }
}

impl<I, V> Drop for FillEntries<'_, '_, '_, I, V> {
    /// On an early return, the windows go back as written (the task fails unless it
    /// finalized).
    fn drop(&mut self) {
        self.give_back();
    }
}

/// The second phase's stand-in for the output's values: writes a task's values into its
/// window of the output's values.
#[doc(hidden)]
pub struct FillValues<'a, V> {
    vals: &'a mut [MaybeUninit<V>],
    len: usize,
}

impl<V> FillValues<'_, V> {
    /// Writes `v` at the next place of the window (past its end, nothing: the task fails).
    #[inline]
    pub fn push(&mut self, v: V) {
        if let Some(slot) = self.vals.get_mut(self.len) {
            slot.write(v);
        }
        self.len += 1;
    }

    /// Writes every value of `values`, as [`Self::push`] does: into the rest of the window in
    /// one loop, any past its end only counted.
    #[inline]
    pub fn extend(&mut self, values: impl IntoIterator<Item = V>) {
        let mut values = values.into_iter();
        let start = self.len.min(self.vals.len());
        let written = self.vals[start..]
            .iter_mut()
            .zip(&mut values)
            .map(|(slot, v)| {
                slot.write(v);
            })
            .count();
        self.len += written;
        for v in values {
            self.push(v);
        }
    }

    /// Whether every place of the window was written, once (in order, one per push).
    fn complete(&self) -> bool {
        self.len == self.vals.len()
    }

    /// Whether exactly the first `n` places of the window were written, once.
    fn wrote(&self, n: usize) -> bool {
        self.len == n && n <= self.vals.len()
    }
}

/// Two-phase assembly of the `rows` rows of an output whose first level is dense and whose
/// second, `level`, appends segments: `count(row_lo, row_hi, ..)` and then
/// `fill(row_lo, row_hi, ..)` run the same loop over rows `row_lo..row_hi` (as parents from
/// 0), in tasks in parallel (feature `parallel`), the first counting each row's entries and
/// the second writing them into place (see the module documentation). `work` (the entries
/// the loop reads) sizes the first phase's tasks; the second's are balanced by the entries
/// they write. The first `Err` (any, in parallel) is returned; the output is then left to
/// the caller's assembly guard.
#[doc(hidden)]
pub fn append_counted<L, V, C, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    rows: usize,
    work: usize,
    count: C,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>) -> Result<(), Error> + Sync + Send,
    F: Fn(usize, usize, &mut FillRows<'_, L::Coord>, &mut FillValues<'_, V>) -> Result<(), Error>
        + Sync
        + Send,
{
    let phases = Phases {
        count: |lo, hi, l: &mut CountRows<'_>, v: &mut Discard<V>, _: &mut ()| count(lo, hi, l, v),
        fill: |lo, hi, l: &mut FillRows<'_, L::Coord>, v: &mut FillValues<'_, V>, _: &mut ()| {
            fill(lo, hi, l, v)
        },
        counters: Pool::new(|| Ok(())),
        accumulators: Pool::new(|| Ok(())),
    };
    phases.run(level, vals, rows, work)
}

/// [`append_counted`] for a loop that sums each row into a dense accumulator of keys
/// `0..size` before appending it (Gustavson's SpGEMM): the first phase's tasks count the
/// distinct keys of each row with a [`KeyCounter`], the second's accumulate with a
/// `DenseAccumulator`; each task takes one from a pool (at most one per task running at
/// once, reused by the next: allocating one per task cost more than the rows it serves).
#[doc(hidden)]
pub fn append_counted_accumulated<L, V, C, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, work, size): (usize, usize, usize),
    count: C,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>, &mut KeyCounter) -> Result<(), Error>
        + Sync
        + Send,
    F: Fn(
            usize,
            usize,
            &mut FillRows<'_, L::Coord>,
            &mut FillValues<'_, V>,
            &mut DenseAccumulator<V>,
        ) -> Result<(), Error>
        + Sync
        + Send,
{
    let phases = Phases {
        count,
        fill,
        counters: Pool::new(|| KeyCounter::new(size)),
        accumulators: Pool::new(|| DenseAccumulator::new(size)),
    };
    phases.run(level, vals, rows, work)
}

/// The two phases of a loop: `count` and `fill` as the generated code passes them, each task
/// also given a workspace of its own from `counters` or `accumulators` (`()` where the loop
/// has none).
struct Phases<C, F, WC, WF> {
    count: C,
    fill: F,
    counters: WC,
    accumulators: WF,
}

impl<C, F, NC, NF, KC, KF> Phases<C, F, Pool<KC, NC>, Pool<KF, NF>>
where
    KC: Send,
    KF: Send,
    NC: Fn() -> Result<KC, Error> + Sync,
    NF: Fn() -> Result<KF, Error> + Sync,
{
    fn run<L, V>(
        self,
        level: &mut L,
        vals: &mut Vec<V>,
        rows: usize,
        work: usize,
    ) -> Result<(), Error>
    where
        L: AppendRows,
        V: Value,
        C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>, &mut KC) -> Result<(), Error>
            + Sync
            + Send,
        F: Fn(
                usize,
                usize,
                &mut FillRows<'_, L::Coord>,
                &mut FillValues<'_, V>,
                &mut KF,
            ) -> Result<(), Error>
            + Sync
            + Send,
    {
        let (mut pos, mut crd) = level.take_arrays();
        let count = |lo, hi, l: &mut CountRows<'_>, v: &mut Discard<V>| {
            self.counters.with(|w| (self.count)(lo, hi, l, v, w))
        };
        let (bounds, counts) = count_rows(rows, work, count)?;
        prefix_sum(&mut pos, &bounds, &counts)?;
        let total = pos[rows].to_usize();
        crd.clear();
        alloc::reserve(&mut crd, total, "appended coordinates")?;
        vals.clear();
        alloc::reserve(vals, total, "appended values")?;
        let bounds = fill_bounds(rows, &pos);
        let mut tasks = Vec::with_capacity(bounds.len().saturating_sub(1));
        let (mut crd_rest, mut vals_rest) = (
            &mut crd.spare_capacity_mut()[..total],
            &mut vals.spare_capacity_mut()[..total],
        );
        for w in bounds.windows(2) {
            let ends = &pos[w[0]..=w[1]];
            let n = ends[ends.len() - 1].to_usize() - ends[0].to_usize();
            let (c, c_rest) = crd_rest.split_at_mut(n);
            let (v, v_rest) = vals_rest.split_at_mut(n);
            (crd_rest, vals_rest) = (c_rest, v_rest);
            let rows = FillRows::new(c, Ends::Counted(ends), level.size());
            tasks.push((w[0], w[1], rows, FillValues { vals: v, len: 0 }));
        }
        let run = |(lo, hi, mut rows, mut values): Part<'_, L::Coord, V>| {
            self.accumulators
                .with(|w| (self.fill)(lo, hi, &mut rows, &mut values, w))?;
            match rows.complete() && values.complete() {
                true => Ok(()),
                false => Err(defect("filled rows")),
            }
        };
        #[cfg(feature = "parallel")]
        {
            use rayon::prelude::*;
            tasks.into_par_iter().try_for_each(run)?;
        }
        #[cfg(not(feature = "parallel"))]
        tasks.into_iter().try_for_each(run)?;
        // SAFETY: the tasks' windows tile the first `total` places of both spare capacities
        // (split consecutively at `pos` of the task boundaries, from `pos[0] == 0` to
        // `pos[rows] == total`), and every task completed: it wrote each place of its
        // windows, in order (`FillRows::complete`, `FillValues::complete`).
        unsafe {
            crd.set_len(total);
            vals.set_len(total);
        }
        level.set_arrays(pos, crd)
    }
}

/// One-phase assembly of the `rows` rows of an output whose first level is dense and whose
/// second, `level`, appends segments, where `bound(row_lo, row_hi)` bounds the entries rows
/// `row_lo..row_hi` append (the operands' entries in those rows, for a sum): the rows are
/// split into chunks ([`bounded_chunks`]), which the threads take in order
/// (`chained::fill`); each runs `fill(row_lo, row_hi, ..)` into a window as long as its
/// bound, recording its rows' ends: a window of the output's arrays where the chunks before
/// it have ended (on one thread, every chunk), else of its thread's scratch, copied into
/// place once they have. Each chunk then offsets its rows' ends by its start. The loop runs
/// once, not twice as in [`append_counted`]: a merge whose count costs as much as its fill
/// (a sparse sum) gains from a second thread only this way. A fresh output's pages are
/// touched first, each thread its part of them.
///
/// The output is the serial one, bit for bit (each row appends what the serial loop
/// appends). Should the windows' total not fit the level's index type, the two phases run
/// instead (`count`, then `fill`). A task that appends past its window, or breaks the
/// segments' rules, is an `Err` (only a compiler defect could cause it), never memory left
/// unwritten.
#[doc(hidden)]
pub fn append_bounded<L, V, B, C, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, work): (usize, usize),
    bound: B,
    count: C,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    B: Fn(usize, usize) -> usize + Sync,
    C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>) -> Result<(), Error> + Sync + Send,
    F: Fn(usize, usize, &mut FillRows<'_, L::Coord>, &mut FillValues<'_, V>) -> Result<(), Error>
        + Sync
        + Send,
{
    // A sum's bound is about its entries: touching its fresh pages first costs little extra.
    match fill_bounded(level, vals, (rows, true), &bound, &fill) {
        Some(filled) => filled,
        None => append_counted(level, vals, rows, work, count, fill),
    }
}

/// [`append_bounded`] for a loop that sums each row into a dense accumulator of keys
/// `0..size` before appending its keys (Gustavson's SpGEMM), where `row_adds(i)` counts the
/// adds of row `i` into the accumulator: each key appended was added at least once, so row
/// `i` appends at most `min(row_adds(i), size)` entries. The rows' bounds are computed
/// first (in parallel, a pass over the loop's outer operands only: for SpGEMM, the lengths
/// of `B`'s rows that `A`'s row names), then the loop runs once as [`append_bounded`]'s,
/// each chunk with an accumulator taken from a pool. Where the bounds' total does not fit
/// the index type, the two phases of [`append_counted_accumulated`] run instead.
#[doc(hidden)]
pub fn append_bounded_accumulated<L, V, R, C, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, work, size): (usize, usize, usize),
    row_adds: R,
    count: C,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    R: Fn(usize) -> usize + Sync,
    C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>, &mut KeyCounter) -> Result<(), Error>
        + Sync
        + Send,
    F: Fn(
            usize,
            usize,
            &mut FillRows<'_, L::Coord>,
            &mut FillValues<'_, V>,
            &mut DenseAccumulator<V>,
        ) -> Result<(), Error>
        + Sync
        + Send,
{
    let ends = row_ends(rows, &|i| row_adds(i).min(size))?;
    // A saturated total bounds nothing (its differences would be too small).
    if ends[rows] == usize::MAX {
        return append_counted_accumulated(level, vals, (rows, work, size), count, fill);
    }
    let bound = |lo: usize, hi: usize| ends[hi] - ends[lo];
    let accumulators = Pool::new(|| DenseAccumulator::new(size));
    let with_accumulator = |lo, hi, l: &mut FillRows<'_, L::Coord>, v: &mut FillValues<'_, V>| {
        accumulators.with(|w| fill(lo, hi, l, v, w))
    };
    // Adds bound a row's distinct keys loosely (SpGEMM on a 2-D stencil: 25 adds, 13
    // entries per row), so a fresh output's windows are left to fault where written.
    match fill_bounded(level, vals, (rows, false), &bound, &with_accumulator) {
        Some(filled) => filled,
        None => append_counted_accumulated(level, vals, (rows, work, size), count, fill),
    }
}

/// [`append_bounded`] for a loop over the positions `lo..hi` of a sparse root whose
/// coordinates are the output's rows `0..rows` (read by `row_of`, at positions in `lo..hi`),
/// where `bound(p)` bounds the entries position `p` appends (TTV from CSF: the `(i, j)`
/// positions below `i`). Every position's bound is computed first (in parallel); the
/// positions are split into chunks of about [`CHUNK_ENTRIES`] bounded entries, each starting
/// at a run of equal coordinates and owning the rows from its first coordinate to the next
/// chunk's (as `super::positions` splits them); the threads take the chunks in order, and
/// `fill(row_lo, row_hi, pos_lo, pos_hi, ..)` runs each into a window as long as its bound,
/// placed as [`append_bounded`]'s are. Should the windows' total not fit the index type, each
/// chunk is counted first (its loop run into stand-ins that keep nothing), then filled into
/// windows of exactly its count.
///
/// The output is the serial one, bit for bit (each position appends what the serial loop
/// appends, in order). A task that appends past its window, or breaks the segments' rules,
/// is an `Err` (only a compiler defect could cause it), never memory left unwritten.
#[doc(hidden)]
pub fn append_positions_bounded<L, V, R, B, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    rows: usize,
    (lo, hi): (usize, usize),
    row_of: R,
    bound: B,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    R: Fn(usize) -> usize,
    B: Fn(usize) -> usize + Sync,
    F: Fn(
            usize,
            usize,
            usize,
            usize,
            &mut FillRows<'_, L::Coord>,
            &mut FillValues<'_, V>,
        ) -> Result<(), Error>
        + Sync
        + Send,
{
    let hi = hi.max(lo);
    let n = hi - lo;
    let ends = row_ends(n, &|k| bound(lo + k))?;
    let ends_at = |p: usize| ends[p - lo];
    // The bounds are the appends the loop runs: near its entries, so a fresh output's
    // windows are touched first.
    let prefault = true;
    chunks_bounded(
        level,
        vals,
        (rows, (lo, hi), prefault),
        &row_of,
        &ends_at,
        &fill,
    )
}

/// [`append_positions_bounded`] where every position bounds one entry: a loop over the runs
/// of a root (`while p < end { ..; p = run_end(p, end) }`) below which each of the root
/// tensor's levels holds one entry per position (TTV from a `Coo3`, whose singletons below
/// the root give each root position one entry), and whose entries bound the output's (the
/// reservation lowering made). A chunk's window is its count of positions, so nothing is
/// computed per position; chunks start at runs, so each runs whole runs, as the serial loop.
/// The bound is loose where runs repeat a row's coordinates (TTV: one entry per `(i, j)`
/// run, not per position), so a fresh output's windows are left to fault where written.
#[doc(hidden)]
pub fn append_runs_bounded<L, V, R, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    rows: usize,
    (lo, hi): (usize, usize),
    row_of: R,
    fill: F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    R: Fn(usize) -> usize,
    F: Fn(
            usize,
            usize,
            usize,
            usize,
            &mut FillRows<'_, L::Coord>,
            &mut FillValues<'_, V>,
        ) -> Result<(), Error>
        + Sync
        + Send,
{
    let hi = hi.max(lo);
    let ends_at = |p: usize| p - lo;
    chunks_bounded(
        level,
        vals,
        (rows, (lo, hi), false),
        &row_of,
        &ends_at,
        &fill,
    )
}

/// The chunks of positions `lo..hi` (`ends_at(p)`: the bounded entries of positions `lo..p`,
/// non-decreasing, `ends_at(hi)` the total) filled into windows of their bounds and placed
/// in order, or counted first where the windows' total does not fit the index type (see
/// [`append_positions_bounded`]).
fn chunks_bounded<L, V, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, (lo, hi), prefault): (usize, (usize, usize), bool),
    row_of: &impl Fn(usize) -> usize,
    ends_at: &impl Fn(usize) -> usize,
    fill: &F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    F: Fn(
            usize,
            usize,
            usize,
            usize,
            &mut FillRows<'_, L::Coord>,
            &mut FillValues<'_, V>,
        ) -> Result<(), Error>
        + Sync,
{
    let total = ends_at(hi);
    let chunks = position_chunks(rows, (lo, hi), total, ends_at, row_of);
    let row_bounds: Vec<usize> = chunks.iter().map(|c| c.0).collect();
    let chunk = |k: usize, l: &mut FillRows<'_, L::Coord>, v: &mut FillValues<'_, V>| {
        let ((row_lo, pos_lo), (row_hi, pos_hi)) = (chunks[k], chunks[k + 1]);
        fill(row_lo, row_hi, pos_lo, pos_hi, l, v)
    };
    // A saturated total bounds nothing (its differences would be too small).
    let windows = (total < usize::MAX).then(|| {
        let windows: Vec<usize> = chunks
            .windows(2)
            .map(|w| ends_at(w[1].1) - ends_at(w[0].1))
            .collect();
        (windows_total::<L::Coord>(&windows), windows)
    });
    if let Some((Some(total), windows)) = windows {
        let parts = (&row_bounds[..], &windows[..]);
        return fill_chunks(level, vals, (rows, total, prefault), parts, &chunk);
    }
    let counts = count_chunks::<L, V, _>(chunks.len() - 1, level.size(), &chunk)?;
    let total = windows_total::<L::Coord>(&counts);
    let sum = || counts.iter().fold(0usize, |a, &c| a.saturating_add(c));
    let total = total.ok_or_else(|| Error::overflow::<L::Coord>(sum()))?;
    fill_chunks(
        level,
        vals,
        (rows, total, true),
        (&row_bounds, &counts),
        &chunk,
    )
}

/// The chunks of [`append_positions_bounded`]: `(row, position)` where each starts, then
/// `(rows, hi)`. Their positions split `lo..hi` as [`bounded_chunks`] splits rows (by
/// `ends_at(p)`, the bounded entries of positions `lo..p`), each moved to the start of its
/// run of equal coordinates ([`super::run_start`]); their rows are their first positions'
/// coordinates, kept non-decreasing and at most `rows` (from 0 for the first chunk), so the
/// chunks' rows tile `0..rows`.
fn position_chunks(
    rows: usize,
    (lo, hi): (usize, usize),
    total: usize,
    ends_at: &impl Fn(usize) -> usize,
    row_of: &impl Fn(usize) -> usize,
) -> Vec<(usize, usize)> {
    let cuts = bounded_chunks(hi - lo, total, &|k| ends_at(lo + k));
    let mut chunks = vec![(0, lo)];
    for &cut in &cuts[1..cuts.len() - 1] {
        let (row_lo, pos_lo) = chunks[chunks.len() - 1];
        let at = super::run_start(lo + cut, hi, row_of);
        if at > pos_lo && at < hi {
            chunks.push((row_of(at).clamp(row_lo, rows), at));
        }
    }
    chunks.push((rows, hi));
    chunks
}

/// The entries each of `chunks` chunks appends, counted by running `fill(k, ..)` into
/// stand-ins with empty windows that record nothing (in parallel, feature `parallel`);
/// `Err` if a chunk fails or breaks the segments' rules.
fn count_chunks<L, V, F>(chunks: usize, size: usize, fill: &F) -> Result<Vec<usize>, Error>
where
    L: AppendRows,
    V: Value,
    F: Fn(usize, &mut FillRows<'_, L::Coord>, &mut FillValues<'_, V>) -> Result<(), Error> + Sync,
{
    let count = |k: usize| {
        let mut rows = FillRows::new(&mut [], Ends::Counting, size);
        let mut values = FillValues {
            vals: &mut [],
            len: 0,
        };
        fill(k, &mut rows, &mut values)?;
        match rows.complete() && values.len == rows.len {
            true => Ok(rows.len),
            false => Err(defect("counted rows")),
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..chunks).into_par_iter().map(count).collect()
    }
    #[cfg(not(feature = "parallel"))]
    (0..chunks).map(count).collect()
}

/// The running totals of `bound(i)` over rows `0..rows` (`rows + 1` of them, from 0), each
/// saturating at `usize::MAX`; the rows' bounds computed in parallel (feature `parallel`).
fn row_ends(rows: usize, bound: &(impl Fn(usize) -> usize + Sync)) -> Result<Vec<usize>, Error> {
    let mut ends = alloc::with_capacity(rows + 1, "the rows' bounds")?;
    ends.resize(rows + 1, 0);
    let each = |(c, part): (usize, &mut [usize])| {
        for (k, e) in part.iter_mut().enumerate() {
            *e = bound(c * ROW_ENDS_CHUNK + k);
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        ends[1..]
            .par_chunks_mut(ROW_ENDS_CHUNK)
            .enumerate()
            .for_each(each);
    }
    #[cfg(not(feature = "parallel"))]
    ends[1..]
        .chunks_mut(ROW_ENDS_CHUNK)
        .enumerate()
        .for_each(each);
    for i in 1..=rows {
        ends[i] = ends[i].saturating_add(ends[i - 1]);
    }
    Ok(ends)
}

/// The rows whose bounds one task of [`row_ends`] computes.
const ROW_ENDS_CHUNK: usize = 4096;

/// The one pass of [`append_bounded`], with `fill` the loop (over a chunk's rows, into its
/// windows); `None`, having touched nothing, if the windows' total does not fit the index
/// type (then the two phases run). With `prefault`, a fresh output's windows are touched
/// first, each thread its part.
fn fill_bounded<L, V, B, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, prefault): (usize, bool),
    bound: &B,
    fill: &F,
) -> Option<Result<(), Error>>
where
    L: AppendRows,
    V: Value,
    B: Fn(usize, usize) -> usize + Sync,
    F: Fn(usize, usize, &mut FillRows<'_, L::Coord>, &mut FillValues<'_, V>) -> Result<(), Error>
        + Sync,
{
    let chunks = bounded_chunks(rows, bound(0, rows), &|r| bound(0, r));
    let windows: Vec<usize> = chunks.windows(2).map(|w| bound(w[0], w[1])).collect();
    let total = windows_total::<L::Coord>(&windows)?;
    let chunk = |k: usize, l: &mut FillRows<'_, L::Coord>, v: &mut FillValues<'_, V>| {
        fill(chunks[k], chunks[k + 1], l, v)
    };
    Some(fill_chunks(
        level,
        vals,
        (rows, total, prefault),
        (&chunks, &windows),
        &chunk,
    ))
}

/// The total of `windows`, if it fits the index type `I` (and [`chained::fill`]'s markers).
fn windows_total<I: Index>(windows: &[usize]) -> Option<usize> {
    let total = windows.iter().try_fold(0usize, |a, &b| a.checked_add(b));
    total.filter(|&t| t <= chained::MAX_TOTAL && fits::<I>(t).is_ok())
}

/// [`fill_bounded`] once the chunks' windows (`total` places) fit: chunk `k` owns the rows
/// `chunks[k]..chunks[k + 1]` and `fill(k, ..)` runs its loop.
fn fill_chunks<L, V, F>(
    level: &mut L,
    vals: &mut Vec<V>,
    (rows, total, prefault): (usize, usize, bool),
    (chunks, windows): (&[usize], &[usize]),
    fill: &F,
) -> Result<(), Error>
where
    L: AppendRows,
    V: Value,
    F: Fn(usize, &mut FillRows<'_, L::Coord>, &mut FillValues<'_, V>) -> Result<(), Error> + Sync,
{
    let (mut pos, mut crd) = level.take_arrays();
    pos.clear();
    alloc::reserve(&mut pos, rows + 1, "pos")?;
    pos.resize(rows + 1, L::Coord::default());
    crd.clear();
    vals.clear();
    let fresh = crd.capacity() < total || vals.capacity() < total;
    alloc::reserve(&mut crd, total, "appended coordinates")?;
    alloc::reserve(vals, total, "appended values")?;
    if prefault && fresh && workers() > 1 {
        chained::prefault(&mut crd.spare_capacity_mut()[..total], workers());
        chained::prefault(&mut vals.spare_capacity_mut()[..total], workers());
    }
    let size = level.size();
    // Each chunk's rows' ends, taken by the worker that fills it.
    let mut ends_rest = &mut pos[1..];
    let mut ends = Vec::with_capacity(windows.len());
    for w in chunks.windows(2) {
        let (e, rest) = ends_rest.split_at_mut(w[1] - w[0]);
        ends.push(Mutex::new(Some(e)));
        ends_rest = rest;
    }
    let run = |k: usize, c: &mut [MaybeUninit<L::Coord>], v: &mut [MaybeUninit<V>]| {
        let taken = ends[k].lock().ok().and_then(|mut e| e.take());
        let ends = taken.ok_or_else(|| defect("chunks"))?;
        let recorded = Ends::Recorded {
            ends: &mut *ends,
            next: 0,
        };
        let mut rows = FillRows::new(c, recorded, size);
        let mut values = FillValues { vals: v, len: 0 };
        fill(k, &mut rows, &mut values)?;
        match rows.complete() && rows.recorded() && values.wrote(rows.len) {
            true => Ok((rows.len, ends)),
            false => Err(defect("filled rows")),
        }
    };
    // Each end was recorded from its chunk's start and is at most the chunk's count: from
    // the output's start, at most the final length, which fits the index type (`total`).
    let place = |ends: &mut [L::Coord], start: usize| {
        for e in ends {
            *e = L::Coord::from_usize_unchecked(e.to_usize() + start);
        }
    };
    let spare = (
        &mut crd.spare_capacity_mut()[..total],
        &mut vals.spare_capacity_mut()[..total],
    );
    let bytes = total.saturating_mul(std::mem::size_of::<L::Coord>() + std::mem::size_of::<V>());
    let streaming = bytes >= STREAM_BYTES;
    let at = chained::fill(windows, spare, (workers(), streaming), run, place)?;
    // SAFETY: each chunk wrote the first places of its window, as many as it counted
    // (`run`'s checks), and `chained::fill` put them at places `start..start + len` that
    // tile `0..at` in chunk order; so the first `at` places of both arrays are written.
    unsafe {
        crd.set_len(at);
        vals.set_len(at);
    }
    level.set_arrays(pos, crd)
}

/// The size of an output from which chunks copied from scratch bypass the cache: well past
/// the per-core caches, where the copies' lines would only be written back (an output read
/// soon after, and small enough to stay cached, is copied with ordinary stores).
const STREAM_BYTES: usize = 32 << 20;

/// The threads a parallel loop may run on here.
fn workers() -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads();
    #[cfg(not(feature = "parallel"))]
    1
}

/// The entries a chunk of [`append_bounded`] may append, at most (unless one row has more):
/// its coordinates and values, 12 bytes an entry for `f64` and `u32`, then take under 1 MiB
/// of scratch, which stays in a core's cache until copied into place.
const CHUNK_ENTRIES: usize = 1 << 16;

/// The chunk boundaries of [`append_bounded`] (`0`, the first row of each later chunk,
/// `rows`): [`super::with_min_rows`]'s where set; else one chunk on one thread, or chunks
/// of about [`CHUNK_ENTRIES`] entries (at least one per thread), balanced by the entries
/// the rows may append (`bound_to(r)`, of rows `0..r`, never decreasing).
fn bounded_chunks(rows: usize, total: usize, bound_to: &impl Fn(usize) -> usize) -> Vec<usize> {
    let threads = workers();
    let chunks = match threads {
        1 => 1,
        _ => threads.max(total.div_ceil(CHUNK_ENTRIES)),
    };
    super::split_rows(rows, total, chunks.min(rows).max(1), bound_to)
}

/// A filling task: its rows `lo..hi`, and its windows of the output's coordinates and values.
type Part<'a, I, V> = (usize, usize, FillRows<'a, I>, FillValues<'a, V>);

/// Workspaces for tasks: one is taken for a task and given back after it, so there are at
/// most as many as tasks run at once; `new` makes one where none is free. A task that fails
/// drops its workspace (it may hold a row's keys).
struct Pool<W, N> {
    free: Mutex<Vec<W>>,
    new: N,
}

impl<W, N: Fn() -> Result<W, Error>> Pool<W, N> {
    fn new(new: N) -> Self {
        Self {
            free: Mutex::new(Vec::new()),
            new,
        }
    }

    fn with<R>(&self, task: impl FnOnce(&mut W) -> Result<R, Error>) -> Result<R, Error> {
        let free = self.free.lock().ok().and_then(|mut free| free.pop());
        let mut w = match free {
            Some(w) => w,
            None => (self.new)()?,
        };
        let r = task(&mut w)?;
        if let Ok(mut free) = self.free.lock() {
            free.push(w);
        }
        Ok(r)
    }
}

/// The first phase: each row's entries, counted by `count` in tasks of consecutive rows. The
/// task boundaries (`0`, the first row of each later task, `rows`), and the counts.
fn count_rows<V, C>(rows: usize, work: usize, count: C) -> Result<(Vec<usize>, Vec<usize>), Error>
where
    V: Value,
    C: Fn(usize, usize, &mut CountRows<'_>, &mut Discard<V>) -> Result<(), Error> + Sync + Send,
{
    let mut counts = alloc::filled(rows, 0usize, "row counts")?;
    let min = super::counted_min(rows, work);
    let run = |(n, window): (usize, &mut [usize])| {
        let lo = n * min;
        let mut task = CountRows::new(window);
        count(
            lo,
            lo + task.counts.len(),
            &mut task,
            &mut Discard(PhantomData),
        )?;
        task.check()
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        counts.par_chunks_mut(min).enumerate().try_for_each(run)?;
    }
    #[cfg(not(feature = "parallel"))]
    counts.chunks_mut(min).enumerate().try_for_each(run)?;
    let bounds = (0..rows).step_by(min).chain([rows]).collect();
    Ok((bounds, counts))
}

/// Makes `pos` the running sum of `counts` from 0 (`rows + 1` entries), in parallel over the
/// tasks `bounds` of the first phase: each task's offset is the sum of the counts before it.
/// `Err` if the total does not fit the level's index type.
fn prefix_sum<I: Index>(pos: &mut Vec<I>, bounds: &[usize], counts: &[usize]) -> Result<(), Error> {
    let rows = counts.len();
    let sums: Vec<usize> = bounds
        .windows(2)
        .map(|w| counts[w[0]..w[1]].iter().sum())
        .collect();
    let total = sums
        .iter()
        .try_fold(0usize, |a, &b| a.checked_add(b))
        .ok_or_else(|| defect("row counts"))?;
    fits::<I>(total)?;
    pos.clear();
    alloc::reserve(pos, rows + 1, "pos")?;
    pos.resize(rows + 1, I::default());
    let mut parts = Vec::with_capacity(sums.len());
    let (mut rest, mut offset) = (&mut pos[1..], 0);
    for (w, sum) in bounds.windows(2).zip(sums) {
        let (mine, after) = rest.split_at_mut(w[1] - w[0]);
        parts.push((mine, &counts[w[0]..w[1]], offset));
        (rest, offset) = (after, offset + sum);
    }
    let run = |(ends, counts, mut end): (&mut [I], &[usize], usize)| {
        for (e, c) in ends.iter_mut().zip(counts) {
            end += c;
            // At most `total`, which fits `I`.
            *e = I::from_usize_unchecked(end);
        }
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        parts.into_par_iter().for_each(run);
    }
    #[cfg(not(feature = "parallel"))]
    parts.into_iter().for_each(run);
    Ok(())
}

/// The second phase's task boundaries: `0`, the first row of each later task, `rows`,
/// balanced by the entries they write ([`super::segment_rows`]).
fn fill_bounds<I: Index>(rows: usize, pos: &[I]) -> Vec<usize> {
    #[cfg(feature = "parallel")]
    {
        super::segment_rows(rows, pos[rows].to_usize(), &|i| pos[i].to_usize())
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = pos;
        vec![0, rows]
    }
}

/// The error of a loop whose phases disagree: a compiler defect, reported rather than
/// assembled wrong.
fn defect(what: &str) -> Error {
    Error::invalid_level(
        0,
        format!("parallel assembly: {what} do not match (internal error: please report it)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::level::Compressed;
    use crate::parallel::with_min_rows;

    /// Row `i` of a test output: coordinates `0..i % 5` (every fifth row empty), values
    /// `i + j / 10`.
    fn row(i: usize) -> impl ExactSizeIterator<Item = usize> {
        0..i % 5
    }

    /// A task's loop over rows `lo..hi` appending `filled(i)` coordinates `0..` to row `i`
    /// (values `i + j / 10`), for any of the phases' stand-ins.
    macro_rules! rows_loop {
        ($filled:expr) => {
            |lo, hi, l, v| {
                l.append_init(hi - lo);
                for i in lo..hi {
                    let begin = l.len();
                    for j in 0..($filled)(i) {
                        l.append_coord(j);
                        v.push(i as f64 + j as f64 / 10.0);
                    }
                    if l.len() > begin {
                        l.append_edges(i - lo, begin, l.len());
                    }
                }
                l.append_finalize(hi - lo)
            }
        };
    }

    /// [`rows_loop`] with each coordinate and its value appended by one writer
    /// (`append_entries`), as the compiler emits a task when the level declares it.
    macro_rules! entries_loop {
        ($filled:expr) => {
            |lo, hi, l, v| {
                l.append_init(hi - lo);
                let mut l = l.append_entries(v);
                for i in lo..hi {
                    let begin = l.len();
                    for j in 0..($filled)(i) {
                        l.append_entry(j, i as f64 + j as f64 / 10.0);
                    }
                    if l.len() > begin {
                        l.append_edges(i - lo, begin, l.len());
                    }
                }
                l.append_finalize(hi - lo)
            }
        };
    }

    /// Assembles `rows` rows in two phases, the fill phase appending `filled(i)` coordinates
    /// to row `i` (a lying kernel, where that is not `row(i).len()`).
    fn assemble(
        rows: usize,
        filled: impl Fn(usize) -> usize + Sync + Send,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        append_counted(
            &mut level,
            &mut vals,
            rows,
            rows * 2,
            rows_loop!(|i| row(i).len()),
            rows_loop!(&filled),
        )?;
        Ok((level, vals))
    }

    #[test]
    fn both_phases_give_the_serial_assembly() {
        for rows in [0, 1, 7, 40] {
            let (mut pos, mut crd, mut vals) = (vec![0u32], vec![], vec![]);
            for i in 0..rows {
                for j in row(i) {
                    crd.push(j as u32);
                    vals.push(i as f64 + j as f64 / 10.0);
                }
                pos.push(crd.len() as u32);
            }
            for min in [1, 2, 3, 1000] {
                let (level, got) = with_min_rows(min, || assemble(rows, |i| row(i).len())).unwrap();
                assert_eq!(
                    (level.pos(), level.crd()),
                    (&pos[..], &crd[..]),
                    "{rows} {min}"
                );
                assert_eq!(got, vals);
            }
        }
    }

    #[test]
    fn phases_that_disagree_are_errors() {
        for min in [1, 3, 1000] {
            // More coordinates in a row than counted, fewer (row 3 fills two of three), and
            // an empty row that fills one.
            let lies: [fn(usize) -> usize; 3] = [
                |i| i % 5 + usize::from(i == 6),
                |i| i % 5 - usize::from(i == 3),
                |i| i % 5 + usize::from(i == 5),
            ];
            for filled in lies {
                assert!(
                    with_min_rows(min, || assemble(12, filled)).is_err(),
                    "{min}"
                );
            }
        }
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![]).unwrap();
        let mut vals: Vec<f64> = vec![];
        // Parents out of order.
        let bad = with_min_rows(1, || {
            append_counted(
                &mut level,
                &mut vals,
                2,
                2,
                |_, _, l, _| {
                    l.append_coord(0);
                    l.append_edges(0, 0, 1);
                    l.append_coord(1);
                    l.append_edges(0, 1, 2);
                    Ok(())
                },
                |_, _, _, _| Ok(()),
            )
        });
        assert!(bad.is_err());
    }

    #[test]
    fn a_key_counter_counts_distinct_keys_per_row() {
        let mut k = KeyCounter::new(10).unwrap();
        for round in 0..3 {
            for key in [3, 7, 3, 0, 9, 7] {
                // SAFETY: every key is below the size, 10.
                unsafe { k.add_unchecked(key, 1.0) };
            }
            assert_eq!((k.sort(), k.keys().len(), k.len()), (4, 4, 4), "{round}");
            assert_eq!(k.values::<f64>().count(), 0);
            k.clear();
            assert!(k.is_empty());
        }
        // Past the last generation, the marks start again from zero.
        k.generation = u32::MAX;
        // SAFETY: below the size.
        unsafe { k.add_unchecked(5, 0u8) };
        k.clear();
        // SAFETY: below the size.
        unsafe { k.add_unchecked(5, 0u8) };
        assert_eq!(k.len(), 1);
    }

    #[test]
    fn a_failing_task_fails_the_assembly() {
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![]).unwrap();
        let mut vals: Vec<f64> = vec![];
        let r = with_min_rows(1, || {
            append_counted(
                &mut level,
                &mut vals,
                5,
                5,
                |_, _, _, _| Ok(()),
                |lo, hi, _, _| match (lo..hi).contains(&3) {
                    true => Err(Error::invalid_level(0, "row 3".into())),
                    false => Ok(()),
                },
            )
        });
        assert!(r.is_err());
        assert!(vals.is_empty());
    }

    /// Assembles `rows` rows in one phase in windows of `bound(lo, hi)` entries, appending
    /// `filled(i)` coordinates to row `i` (the two phases' loops are `assemble`'s).
    fn assemble_bounded(
        rows: usize,
        bound: impl Fn(usize, usize) -> usize + Sync,
        filled: impl Fn(usize) -> usize + Sync + Send,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        append_bounded(
            &mut level,
            &mut vals,
            (rows, rows * 2),
            bound,
            rows_loop!(&filled),
            rows_loop!(&filled),
        )?;
        Ok((level, vals))
    }

    /// The serial assembly of `rows` rows of `row(i)`.
    fn serial(rows: usize) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
        serial_of(rows, |_| true)
    }

    /// The serial assembly of `rows` rows, row `i` holding `row(i)` where `holds(i)`, else
    /// empty.
    fn serial_of(rows: usize, holds: impl Fn(usize) -> bool) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
        let (mut pos, mut crd, mut vals) = (vec![0u32], vec![], vec![]);
        for i in (0..rows).filter(|&i| holds(i)) {
            // The rows skipped since the last held one end where it did.
            pos.resize(i + 1, crd.len() as u32);
            for j in row(i) {
                crd.push(j as u32);
                vals.push(i as f64 + j as f64 / 10.0);
            }
            pos.push(crd.len() as u32);
        }
        pos.resize(rows + 1, crd.len() as u32);
        (pos, crd, vals)
    }

    #[test]
    fn bounded_windows_give_the_serial_assembly() {
        let exact = |lo: usize, hi: usize| (lo..hi).map(|i| row(i).len()).sum::<usize>();
        // Slack in every window (the entries of both operands of a union that overlap), and
        // as much slack as entries.
        let loose = |lo: usize, hi: usize| exact(lo, hi) + (hi - lo) * 3;
        let double = |lo: usize, hi: usize| 2 * exact(lo, hi);
        for rows in [0, 1, 7, 40] {
            let (pos, crd, vals) = serial(rows);
            for min in [Some(1), Some(2), Some(3), Some(1000), None] {
                for (k, bound) in [
                    &exact as &(dyn Fn(usize, usize) -> usize + Sync),
                    &loose,
                    &double,
                ]
                .into_iter()
                .enumerate()
                {
                    let (level, got) =
                        with_split(min, || assemble_bounded(rows, bound, |i| row(i).len()))
                            .unwrap();
                    assert_eq!(
                        (level.pos(), level.crd()),
                        (&pos[..], &crd[..]),
                        "{rows} {min:?} {k}"
                    );
                    assert_eq!(got, vals, "{rows} {min:?} {k}");
                }
            }
        }
    }

    fn with_split<R>(min: Option<usize>, f: impl FnOnce() -> R) -> R {
        match min {
            Some(m) => with_min_rows(m, f),
            None => f(),
        }
    }

    #[test]
    fn past_a_bound_or_against_the_rules_is_an_error() {
        let exact = |lo: usize, hi: usize| (lo..hi).map(|i| row(i).len()).sum::<usize>();
        for min in [1, 3, 1000] {
            // A row appending one more than the bound allows.
            let over = |i: usize| i % 5 + usize::from(i == 6);
            let r = with_min_rows(min, || assemble_bounded(12, exact, over));
            assert!(r.is_err(), "{min}");
        }
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![]).unwrap();
        let mut vals: Vec<f64> = vec![];
        // Parents out of order; values that are not one per coordinate.
        let out_of_order =
            |_: usize, _: usize, l: &mut FillRows<'_, u32>, v: &mut FillValues<'_, f64>| {
                l.append_coord(0);
                v.push(0.0);
                l.append_edges(1, 0, 1);
                l.append_coord(1);
                v.push(1.0);
                l.append_edges(0, 1, 2);
                l.append_finalize(2)
            };
        let short_values =
            |_: usize, _: usize, l: &mut FillRows<'_, u32>, _: &mut FillValues<'_, f64>| {
                l.append_coord(0);
                l.append_edges(0, 0, 1);
                l.append_finalize(2)
            };
        // Values pushed before one writer joins them to the coordinates.
        let early = |_: usize, _: usize, l: &mut FillRows<'_, u32>, v: &mut FillValues<'_, f64>| {
            v.push(1.0);
            let mut l = l.append_entries(v);
            l.append_entry(0, 2.0);
            l.append_edges(0, 0, 1);
            l.append_finalize(2)
        };
        // A joint writer dropped before it finalized: it gives the windows back as written,
        // and the rows' ends were not all recorded.
        let dropped =
            |_: usize, _: usize, l: &mut FillRows<'_, u32>, v: &mut FillValues<'_, f64>| {
                let mut l = l.append_entries(v);
                l.append_entry(0, 2.0);
                Ok(())
            };
        for fill in [
            &out_of_order
                as &(dyn Fn(
                    usize,
                    usize,
                    &mut FillRows<'_, u32>,
                    &mut FillValues<'_, f64>,
                ) -> Result<(), Error>
                      + Sync
                      + Send),
            &short_values,
            &early,
            &dropped,
        ] {
            let bad = append_bounded(
                &mut level,
                &mut vals,
                (2, 2),
                |_, _| 4,
                |_, _, _, _| Ok(()),
                fill,
            );
            assert!(bad.is_err());
            assert!(vals.is_empty());
        }
    }

    /// `go()` on a pool of `threads` threads (feature `parallel`; else on this thread).
    fn on_pool<R: Send>(threads: usize, go: impl FnOnce() -> R + Send) -> R {
        #[cfg(feature = "parallel")]
        return rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(go);
        #[cfg(not(feature = "parallel"))]
        {
            let _ = threads;
            go()
        }
    }

    /// Assembles `rows` rows as [`assemble_bounded`] does with exact bounds, each entry
    /// appended by one writer, on a pool of `threads` threads (feature `parallel`), in
    /// chunks of `min` rows where given.
    fn assemble_entries(
        rows: usize,
        (threads, min): (usize, Option<usize>),
        filled: impl Fn(usize) -> usize + Sync + Send,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let exact = |lo: usize, hi: usize| (lo..hi).map(|i| row(i).len()).sum::<usize>();
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        let go = || {
            with_split(min, || {
                append_bounded(
                    &mut level,
                    &mut vals,
                    (rows, rows * 2),
                    exact,
                    entries_loop!(&filled),
                    entries_loop!(&filled),
                )
            })
        };
        on_pool(threads, go)?;
        Ok((level, vals))
    }

    #[test]
    fn chunks_of_many_rows_give_the_serial_assembly() {
        // Enough entries for several chunks of `CHUNK_ENTRIES` on every pool.
        let rows = 3 * CHUNK_ENTRIES / 2 + 7;
        let (pos, crd, vals) = serial(rows);
        for threads in [1, 2, 3] {
            let (level, got) = assemble_entries(rows, (threads, None), |i| row(i).len()).unwrap();
            assert_eq!(
                (level.pos(), level.crd()),
                (&pos[..], &crd[..]),
                "{threads}"
            );
            assert_eq!(got, vals, "{threads}");
            // An output assembled again reuses its arrays.
            let mut reused = (level, got);
            append_bounded(
                &mut reused.0,
                &mut reused.1,
                (rows, rows * 2),
                |lo: usize, hi: usize| (lo..hi).map(|i| row(i).len()).sum::<usize>(),
                entries_loop!(|i| row(i).len()),
                entries_loop!(|i| row(i).len()),
            )
            .unwrap();
            assert_eq!((reused.0.pos(), &reused.1[..]), (&pos[..], &vals[..]));
        }
        // One row past its bound, in the last chunk: an error on every pool.
        for threads in [1, 2, 3] {
            let over = |i: usize| i % 5 + usize::from(i == rows - 2);
            assert!(
                assemble_entries(rows, (threads, None), over).is_err(),
                "{threads}"
            );
        }
    }

    #[test]
    fn one_writer_for_entries_gives_what_two_give() {
        for rows in [0, 1, 7, 40] {
            let (pos, crd, vals) = serial(rows);
            for min in [1, 2, 3, 1000] {
                let split = (2, Some(min));
                let (level, got) = assemble_entries(rows, split, |i| row(i).len()).unwrap();
                assert_eq!(
                    (level.pos(), level.crd()),
                    (&pos[..], &crd[..]),
                    "{rows} {min}"
                );
                assert_eq!(got, vals, "{rows} {min}");
            }
        }
    }

    /// A task's loop summing each row `i` into accumulator `w` (keys `(i + 3 * (t / 2)) %
    /// 8` for `t` in `0..adds(i)`, each added twice where `t` runs that far, values `t`) and
    /// appending its keys and values, as Gustavson's SpGEMM does; for either phase's
    /// accumulator (`KeyCounter` counts keys, `DenseAccumulator` sums).
    macro_rules! accumulating_loop {
        () => {
            |lo, hi, l, v, w| {
                l.append_init(hi - lo);
                for i in lo..hi {
                    for t in 0..adds(i) {
                        // SAFETY: every key is below 8, the accumulator's size.
                        unsafe { w.add_unchecked((i + 3 * (t / 2)) % 8, t as f64) };
                    }
                    w.sort();
                    let begin = l.len();
                    l.append_coords(w.keys());
                    v.extend(w.values());
                    if l.len() > begin {
                        l.append_edges(i - lo, begin, l.len());
                    }
                    w.clear();
                }
                l.append_finalize(hi - lo)
            }
        };
    }

    /// The adds of row `i` of [`accumulating_loop`].
    fn adds(i: usize) -> usize {
        2 * (i % 4) + i % 3
    }

    /// Assembles `rows` rows of [`accumulating_loop`] in one phase, row `i`'s bound
    /// `row_adds(i)`, on a pool of `threads` threads, in chunks of `min` rows where given.
    fn assemble_accumulated(
        rows: usize,
        (threads, min): (usize, Option<usize>),
        row_adds: impl Fn(usize) -> usize + Sync + Send,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        let go = || {
            with_split(min, || {
                append_bounded_accumulated(
                    &mut level,
                    &mut vals,
                    (rows, rows * 2, 8),
                    row_adds,
                    accumulating_loop!(),
                    accumulating_loop!(),
                )
            })
        };
        on_pool(threads, go)?;
        Ok((level, vals))
    }

    #[test]
    fn rows_bounded_by_their_adds_give_the_serial_assembly() {
        for rows in [0, 1, 7, 40, 3 * CHUNK_ENTRIES / 4] {
            // The serial loop, as the two phases run it on one task.
            let (want, want_vals) =
                assemble_accumulated(rows, (1, Some(usize::MAX)), |_| usize::MAX).unwrap();
            assert!(rows < 7 || want.crd().len() > rows, "{rows}");
            // Rows split at every one or two: on the small sizes (the large one's tens of
            // thousands of chunks took half a minute in debug builds); its own chunks there
            // are the default split's and 4096 rows.
            let splits: &[(usize, Option<usize>)] = match rows > 40 {
                false => &[
                    (1, Some(1)),
                    (2, Some(1)),
                    (3, Some(2)),
                    (2, None),
                    (3, None),
                ],
                true => &[(2, Some(4096)), (2, None), (3, None)],
            };
            for &split in splits {
                // Exact adds, and adds past the accumulator's size (capped at it).
                for bound in [adds as fn(usize) -> usize, |i| adds(i) + 10] {
                    let (level, got) = assemble_accumulated(rows, split, bound).unwrap();
                    assert_eq!(
                        (level.pos(), level.crd()),
                        (want.pos(), want.crd()),
                        "{rows} {split:?}"
                    );
                    assert_eq!(got, want_vals, "{rows} {split:?}");
                }
            }
            // Bounds one short of each row's entries (its distinct keys, `(i + 3u) % 8` for
            // `u` in `0..ceil(adds(i) / 2)`, 3 and 8 coprime): in all, fewer than the
            // entries, so some chunk's exceed its window, an error on any split.
            if rows >= 7 {
                let short = |i: usize| adds(i).div_ceil(2).saturating_sub(1);
                let splits: &[(usize, Option<usize>)] = match rows > 40 {
                    false => &[(1, Some(1)), (2, Some(3)), (2, None)],
                    true => &[(2, Some(4096)), (2, None)],
                };
                for &split in splits {
                    assert!(
                        assemble_accumulated(rows, split, short).is_err(),
                        "{split:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn row_bounds_sum_saturating() {
        assert_eq!(row_ends(0, &|_| 1).unwrap(), [0]);
        assert_eq!(row_ends(4, &|i| i).unwrap(), [0, 0, 1, 3, 6]);
        let big = row_ends(3, &|i| [usize::MAX - 1, 1, 5][i]).unwrap();
        assert_eq!(big, [0, usize::MAX - 1, usize::MAX, usize::MAX]);
        // Rows past one task's: every bound computed.
        let n = 2 * ROW_ENDS_CHUNK + 3;
        assert_eq!(row_ends(n, &|_| 2).unwrap()[n], 2 * n);
    }

    #[test]
    fn windows_past_the_index_type_count_first() {
        // A bound no `u32` position can hold: the two phases run, and give the same.
        let (pos, crd, vals) = serial(40);
        let huge = |lo: usize, hi: usize| (hi - lo) * (u32::MAX as usize);
        for min in [1, 3, 1000] {
            let (level, got) =
                with_min_rows(min, || assemble_bounded(40, huge, |i| row(i).len())).unwrap();
            assert_eq!((level.pos(), level.crd()), (&pos[..], &crd[..]), "{min}");
            assert_eq!(got, vals);
        }
    }

    /// A loop over root positions `pos_lo..pos_hi` with coordinates `crd` (unique,
    /// increasing), appending `filled(i)` coordinates to row `i = crd[p]` by one writer.
    macro_rules! positions_loop {
        ($crd:expr, $filled:expr) => {
            |row_lo, row_hi, pos_lo, pos_hi, l, v| {
                l.append_init(row_hi - row_lo);
                let mut l = l.append_entries(v);
                for p in pos_lo..pos_hi {
                    let i: usize = $crd[p];
                    let begin = l.len();
                    for j in 0..($filled)(i) {
                        l.append_entry(j, i as f64 + j as f64 / 10.0);
                    }
                    if l.len() > begin {
                        l.append_edges(i - row_lo, begin, l.len());
                    }
                }
                l.append_finalize(row_hi - row_lo)
            }
        };
    }

    /// The root coordinates of `rows` rows: every row but those `i % 3 == 1`, at positions
    /// from 2 (positions 0 and 1 hold coordinates past the rows, never to be read).
    fn root(rows: usize) -> Vec<usize> {
        let mut crd = vec![usize::MAX, usize::MAX];
        crd.extend((0..rows).filter(|i| i % 3 != 1));
        crd
    }

    /// Assembles the rows of [`root`]`(rows)` by positions, `bound(i)` bounding row `i`'s
    /// entries and row `i` appending `filled(i)`, on a pool of `threads` threads.
    fn assemble_positions(
        rows: usize,
        (threads, min): (usize, Option<usize>),
        bound: impl Fn(usize) -> usize + Sync,
        filled: impl Fn(usize) -> usize + Sync + Send,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let crd = root(rows);
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        let go = || {
            with_split(min, || {
                append_positions_bounded(
                    &mut level,
                    &mut vals,
                    rows,
                    (2, crd.len()),
                    |p| {
                        assert!((2..crd.len()).contains(&p), "row_of({p})");
                        crd[p]
                    },
                    |p| {
                        assert!((2..crd.len()).contains(&p), "bound({p})");
                        bound(crd[p])
                    },
                    positions_loop!(crd, &filled),
                )
            })
        };
        on_pool(threads, go)?;
        Ok((level, vals))
    }

    /// The serial assembly of [`assemble_positions`]: row `i` holds `row(i)` unless the root
    /// skips it.
    fn serial_positions(rows: usize) -> (Vec<u32>, Vec<u32>, Vec<f64>) {
        serial_of(rows, |i| i % 3 != 1)
    }

    #[test]
    fn chunks_of_positions_give_the_serial_assembly() {
        let exact = |i: usize| row(i).len();
        let loose = |i: usize| row(i).len() + 3;
        // No `u32` position can hold a window: each chunk is counted first.
        let huge = |_: usize| u32::MAX as usize + 1;
        for rows in [0, 1, 2, 7, 40] {
            let (pos, crd, vals) = serial_positions(rows);
            for min in [Some(1), Some(2), Some(3), Some(1000), None] {
                for threads in [1, 2] {
                    for (k, bound) in [&exact as &(dyn Fn(usize) -> usize + Sync), &loose, &huge]
                        .into_iter()
                        .enumerate()
                    {
                        let case = format!("{rows} {min:?} {threads} {k}");
                        let (level, got) =
                            assemble_positions(rows, (threads, min), bound, exact).unwrap();
                        assert_eq!((level.pos(), level.crd()), (&pos[..], &crd[..]), "{case}");
                        assert_eq!(got, vals, "{case}");
                    }
                }
            }
        }
        // Enough entries for several chunks of `CHUNK_ENTRIES` on every pool.
        let rows = 2 * CHUNK_ENTRIES + 7;
        let (pos, crd, vals) = serial_positions(rows);
        for threads in [1, 2, 3] {
            let (level, got) = assemble_positions(rows, (threads, None), exact, exact).unwrap();
            assert_eq!(
                (level.pos(), level.crd()),
                (&pos[..], &crd[..]),
                "{threads}"
            );
            assert_eq!(got, vals, "{threads}");
        }
    }

    #[test]
    fn a_position_past_its_bound_is_an_error() {
        let exact = |i: usize| row(i).len();
        // Row 39 appends one more than its bound; row 38 (skipped by the root) none.
        let over = |i: usize| row(i).len() + usize::from(i == 39);
        for min in [Some(1), Some(3), Some(1000), None] {
            for threads in [1, 2] {
                let got = assemble_positions(40, (threads, min), exact, over);
                assert!(got.is_err(), "{min:?} {threads}");
            }
        }
        // A segment of a row out of order, on the counting path too.
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![]).unwrap();
        let mut vals: Vec<f64> = vec![];
        for bound in [1, u32::MAX as usize] {
            let bad = with_min_rows(1, || {
                append_positions_bounded(
                    &mut level,
                    &mut vals,
                    4,
                    (0, 2),
                    |p| p,
                    |_| bound,
                    |row_lo, row_hi, _, _, l, v| {
                        l.append_init(row_hi - row_lo);
                        l.append_coord(0);
                        v.push(1.0);
                        l.append_edges(1, 0, 1);
                        l.append_coord(1);
                        v.push(1.0);
                        l.append_edges(0, 1, 2);
                        l.append_finalize(row_hi - row_lo)
                    },
                )
            });
            assert!(bad.is_err(), "{bound}");
        }
    }

    /// The root of [`assemble_runs`]: every row but those `i % 3 == 1`, row `i` at
    /// `max(i % 5, 1)` consecutive positions (a `Coo`'s root, not unique).
    fn runs_root(rows: usize) -> Vec<usize> {
        (0..rows)
            .filter(|i| i % 3 != 1)
            .flat_map(|i| std::iter::repeat_n(i, (i % 5).max(1)))
            .collect()
    }

    /// Assembles the rows of [`runs_root`]`(rows)` by its runs, as TTV from a `Coo3` does:
    /// each run of row `i` appends `row(i)` and `extra` more entries, on a pool of `threads`.
    fn assemble_runs(
        rows: usize,
        (threads, min): (usize, Option<usize>),
        extra: usize,
    ) -> Result<(Compressed<u32>, Vec<f64>), Error> {
        let crd = runs_root(rows);
        let mut level = Compressed::<u32>::from_raw(8, vec![0], vec![])?;
        let mut vals = vec![9.0; 3];
        let fill = |row_lo: usize,
                    row_hi: usize,
                    pos_lo: usize,
                    pos_hi: usize,
                    l: &mut FillRows<'_, u32>,
                    v: &mut FillValues<'_, f64>| {
            l.append_init(row_hi - row_lo);
            let mut l = l.append_entries(v);
            let mut p = pos_lo;
            while p < pos_hi {
                let i = crd[p];
                let run = p + crd[p..pos_hi].iter().take_while(|&&c| c == i).count();
                let begin = l.len();
                for j in 0..row(i).len() + extra {
                    l.append_entry(j, i as f64 + j as f64 / 10.0);
                }
                if l.len() > begin {
                    l.append_edges(i - row_lo, begin, l.len());
                }
                p = run;
            }
            l.append_finalize(row_hi - row_lo)
        };
        let go = || {
            with_split(min, || {
                append_runs_bounded(
                    &mut level,
                    &mut vals,
                    rows,
                    (0, crd.len()),
                    |p| crd[p],
                    fill,
                )
            })
        };
        on_pool(threads, go)?;
        Ok((level, vals))
    }

    #[test]
    fn chunks_of_runs_give_the_serial_assembly() {
        for rows in [0, 1, 2, 7, 40] {
            let (pos, crd, vals) = serial_positions(rows);
            for min in [Some(1), Some(2), Some(3), Some(1000), None] {
                for threads in [1, 2] {
                    let case = format!("{rows} {min:?} {threads}");
                    let (level, got) = assemble_runs(rows, (threads, min), 0).unwrap();
                    assert_eq!((level.pos(), level.crd()), (&pos[..], &crd[..]), "{case}");
                    assert_eq!(got, vals, "{case}");
                    // More entries than positions: past the windows, an `Err`.
                    if rows > 0 {
                        assert!(assemble_runs(rows, (threads, min), 2).is_err(), "{case}");
                    }
                }
            }
        }
        // Enough positions for several chunks on pools of 1 to 3 threads.
        let rows = 2 * CHUNK_ENTRIES + 7;
        let (pos, crd, vals) = serial_positions(rows);
        for threads in [1, 2, 3] {
            let (level, got) = assemble_runs(rows, (threads, None), 0).unwrap();
            assert_eq!(
                (level.pos(), level.crd()),
                (&pos[..], &crd[..]),
                "{threads}"
            );
            assert_eq!(got, vals, "{threads}");
        }
    }

    #[test]
    fn chunks_of_positions_start_at_runs_and_tile_the_rows() {
        // Coordinates with runs (a `Coo`'s rows), from position 1.
        let crd = [9, 0, 0, 0, 2, 5, 5, 6, 9, 9, 9, 9];
        let row_of = |p: usize| {
            assert!((1..crd.len()).contains(&p), "row_of({p})");
            crd[p]
        };
        for min in [1, 2, 3, 5, 1000] {
            let chunks = with_min_rows(min, || {
                position_chunks(10, (1, crd.len()), 11, &|p| p - 1, &row_of)
            });
            assert_eq!(
                (chunks[0], chunks[chunks.len() - 1]),
                ((0, 1), (10, crd.len()))
            );
            for w in chunks.windows(2) {
                assert!(w[0].0 <= w[1].0 && w[0].1 < w[1].1, "{min}: {chunks:?}");
            }
            for &(row, p) in &chunks[1..chunks.len() - 1] {
                assert_ne!(crd[p - 1], crd[p], "{min}: a run split at {p}");
                assert_eq!(row, crd[p], "{min}");
            }
        }
    }
}
