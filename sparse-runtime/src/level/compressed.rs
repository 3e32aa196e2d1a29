//! Compressed levels: the children of parent position `p` are the positions
//! `pos[p]..pos[p+1]`, whose coordinates are stored in `crd`.

use super::{runs, Level, Markers, NonUnique, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::Error;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::ops::Range;

/// Bookkeeping of an append assembly in progress (Chou et al. 2018, table 3),
/// so that `append_finalize` can tell segments that were never recorded
/// (elided: empty) from recorded ones, and report misuse instead of repairing it.
#[derive(Clone, Debug, Default)]
struct AppendState {
    /// `append_init` was called and `append_finalize` not yet.
    active: bool,
    /// The last `(parent_pos, end)` passed to `append_edges`.
    last: Option<(usize, usize)>,
    /// The first misuse seen; `append_finalize` reports it.
    error: Option<String>,
}

/// A compressed level (CSR's columns): the children of parent position `p`
/// are the positions `pos[p]..pos[p + 1]`, whose coordinates are stored in `crd`.
///
/// Iterated by position; assembled by append. Properties: compact; neither
/// full nor branchless; unique unless `P` is [`NonUnique`]
/// ([`CompressedNonUnique`] spells that, COO's first level); ordered unless
/// `P` is [`Unordered`](super::Unordered) (each segment in any order, its
/// coordinates still unique; built from entries, each segment is stored in
/// decreasing order).
///
/// # Invariants
///
/// Checked by [`Compressed::from_raw`] (all but the first) and by
/// [`Tensor::from_levels`](crate::Tensor::from_levels) (all), under a
/// parent level with `n` positions:
///
/// - `pos.len() == n + 1`;
/// - `pos[0] == 0`;
/// - `pos` is non-decreasing;
/// - the last entry of `pos` is `crd.len()` (so `crd.len()` fits `I`);
/// - `size` fits `I`;
/// - every `crd[q] < size`;
/// - *ordered*: the coordinates of each segment `pos[p]..pos[p + 1]` are
///   non-decreasing, and *unique* (unless `P` is `NonUnique`): strictly
///   increasing; for an `Unordered` level, only unique.
///
/// *Compact* holds by construction (every position holds a coordinate).
/// A unique compressed level may sit anywhere in a format. A non-unique one's
/// child level must be branchless (a [`Singleton`](crate::Singleton)), checked
/// as a format rule for every tensor, so it is never the last level: a run of
/// equal coordinates together with the coordinates of its branchless child
/// chain is one coordinate tuple, and positions below the chain's last level
/// are ordered within each run of the whole tuple.
#[derive(Clone)]
pub struct Compressed<I = u32, P = ()> {
    size: usize,
    pos: Vec<I>,
    crd: Vec<I>,
    /// Assembly bookkeeping only: not part of the level's value.
    append: AppendState,
    markers: PhantomData<P>,
}

impl<I: Index, P: Markers> Compressed<I, P> {
    /// Validates and wraps raw arrays: `pos[0] == 0`, `pos` non-decreasing,
    /// its last entry `== crd.len()`, every `crd < size`, `size` and
    /// `crd.len()` fit `I`, and siblings ordered as the level type requires.
    /// The parent position count `pos.len() - 1` is checked when the
    /// tensor is assembled. Errors report level 0.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // The columns of [0 1 0; 2 0 3]: row 0 owns position 0, row 1 positions 1 and 2.
    /// let cols = Compressed::<u32>::from_raw(3, vec![0, 1, 3], vec![1, 0, 2])?;
    /// assert_eq!((cols.pos_bounds(1), cols.pos_access(2)), ((1, 3), 2));
    /// let a = Csr::from_levels(&[2, 3], (Dense::new(2), cols), vec![1.0, 2.0, 3.0])?;
    /// assert_eq!(a.nnz(), 3);
    /// // A column outside the level's size: refused.
    /// assert!(Compressed::<u32>::from_raw(3, vec![0, 1, 3], vec![1, 0, 3]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    #[inline]
    pub fn from_raw(size: usize, pos: Vec<I>, crd: Vec<I>) -> Result<Self, Error> {
        validate_raw::<I, P>(size, &pos, &crd)?;
        Ok(Self::from_parts_unchecked(size, pos, crd))
    }

    /// Wraps arrays without checking them. The result is validated
    /// before it becomes part of a tensor.
    pub(crate) fn from_parts_unchecked(size: usize, pos: Vec<I>, crd: Vec<I>) -> Self {
        Self {
            size,
            pos,
            crd,
            append: AppendState::default(),
            markers: PhantomData,
        }
    }

    /// The `pos` and `crd` arrays, giving up the level (moved, not copied).
    pub(crate) fn into_arrays(self) -> (Vec<I>, Vec<I>) {
        (self.pos, self.crd)
    }

    /// An empty level (no coordinates) under `parent_count` parent positions.
    fn empty(size: usize, parent_count: usize) -> Result<Self, Error> {
        fits::<I>(size)?;
        let pos = alloc::filled(parent_count.saturating_add(1), I::default(), "pos")?;
        Ok(Self::from_parts_unchecked(size, pos, Vec::new()))
    }

    /// Size of the dimension.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The segment bounds array (one entry per parent position, plus one).
    #[inline]
    pub fn pos(&self) -> &[I] {
        &self.pos
    }

    /// The coordinate of each position.
    #[inline]
    pub fn crd(&self) -> &[I] {
        &self.crd
    }

    /// Number of positions (`crd.len()`).
    #[inline]
    pub fn len(&self) -> usize {
        self.crd.len()
    }

    /// Whether the level holds no positions.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.crd.is_empty()
    }

    /// Children positions `(begin, end)` of `parent_pos`; panics if
    /// `parent_pos + 1 >= pos.len()`.
    #[inline]
    pub fn pos_bounds(&self, parent_pos: usize) -> (usize, usize) {
        super::segment(&self.pos, parent_pos)
    }

    /// [`Self::pos_bounds`] without bounds checks.
    ///
    /// # Safety
    /// `parent_pos + 1 < self.pos().len()`.
    #[inline]
    pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize) -> (usize, usize) {
        // SAFETY: the caller guarantees parent_pos + 1 < pos.len().
        unsafe { super::segment_unchecked(&self.pos, parent_pos) }
    }

    /// Coordinate at position `p`; panics if `p >= len()`.
    #[inline]
    pub fn pos_access(&self, p: usize) -> usize {
        self.crd[p].to_usize()
    }

    /// [`Self::pos_access`] without bounds checks.
    ///
    /// # Safety
    /// `p < self.len()`.
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, p: usize) -> usize {
        debug_assert!(p < self.crd.len());
        // SAFETY: the caller guarantees p < crd.len().
        unsafe { self.crd.get_unchecked(p).to_usize() }
    }

    /// Starts append assembly: drops all coordinates (keeping capacity)
    /// and sets `pos` to `parent_size_hint + 1` zeros.
    ///
    /// Assembly is the interface generated kernels use; its result is
    /// a valid level only if `append_finalize` returns `Ok` and every
    /// appended coordinate was below `size` and in sibling order, which
    /// [`Tensor::from_levels`](crate::Tensor::from_levels) checks.
    #[doc(hidden)]
    #[inline]
    pub fn append_init(&mut self, parent_size_hint: usize) {
        self.crd.clear();
        self.pos.clear();
        self.pos
            .resize(parent_size_hint.saturating_add(1), I::default());
        self.append = AppendState {
            active: true,
            last: None,
            error: None,
        };
    }

    /// Makes room for `entries` more appended coordinates: a bound the kernel computed
    /// from its inputs, allocated at once (with huge pages where large) instead of by
    /// doubling. Only a hint: if the memory cannot be had, appending grows the level.
    #[doc(hidden)]
    #[inline]
    pub fn append_reserve(&mut self, entries: usize) {
        let _ = crate::alloc::reserve(&mut self.crd, entries, "appended coordinates");
    }

    /// The number of positions below the parent positions `lo..hi` (`pos[hi] - pos[lo]`):
    /// a bound of the entries those parents' rows hold, for sizing a parallel task's part of
    /// an output. `usize::MAX` where `lo..hi` is not a range of parents.
    #[doc(hidden)]
    #[inline]
    pub fn positions_below(&self, lo: usize, hi: usize) -> usize {
        match (self.pos.get(lo), self.pos.get(hi)) {
            (Some(a), Some(b)) if lo <= hi => b.to_usize() - a.to_usize(),
            _ => usize::MAX,
        }
    }

    /// Appends coordinate `i` (which must be below `size`; debug builds
    /// assert it) at position `len()`.
    #[doc(hidden)]
    #[inline]
    pub fn append_coord(&mut self, i: usize) {
        debug_assert!(i < self.size, "coordinate {i} >= size {}", self.size);
        self.crd.push(I::from_usize_unchecked(i));
    }

    /// Appends every coordinate of `coords` (each below `size`; debug builds
    /// assert it) at positions `len()..`: a workspace's row in one
    /// reservation and one tight loop rather than a push per coordinate.
    #[doc(hidden)]
    #[inline]
    pub fn append_coords(&mut self, coords: impl ExactSizeIterator<Item = usize>) {
        let size = self.size;
        self.crd.extend(coords.map(|i| {
            debug_assert!(i < size, "coordinate {i} >= size {size}");
            I::from_usize_unchecked(i)
        }));
    }

    /// Records that `parent_pos` owns positions `begin..end`.
    ///
    /// Parents must be recorded in strictly increasing order (debug
    /// builds assert it), each segment starting where the previous
    /// recorded one ended, with `end <= len()`; parents never recorded
    /// own nothing. Misuse is reported by `append_finalize`.
    #[doc(hidden)]
    #[inline]
    pub fn append_edges(&mut self, parent_pos: usize, begin: usize, end: usize) {
        self.record_edges(parent_pos, begin, end, self.crd.len());
    }

    /// Starts appending into room for `entries` more coordinates, reserved now: a bound
    /// the kernel computed from its operands (see the runtime's `room` module). The level's
    /// coordinates are out of it until the returned writer finalizes (or is dropped). `Err`
    /// if the room cannot be allocated.
    #[doc(hidden)]
    #[inline]
    pub fn append_bounded(
        &mut self,
        entries: usize,
    ) -> Result<crate::room::BoundedAppend<'_, I, P>, Error> {
        let room = crate::room::Room::take(&mut self.crd, entries, "appended coordinates")?;
        Ok(crate::room::BoundedAppend::new(self, room))
    }

    /// [`Self::append_bounded`] for the level of an output whose every appended coordinate
    /// comes with its value: the writer also takes the output's values `vals` out into room
    /// for as many, and appends both with `append_entry` under one count (see the runtime's
    /// `room` module). `Err` if either room cannot be allocated.
    #[doc(hidden)]
    #[inline]
    pub fn append_bounded_entries<'a, V>(
        &'a mut self,
        vals: &'a mut Vec<V>,
        entries: usize,
    ) -> Result<crate::room::BoundedEntries<'a, I, P, V>, Error> {
        // The level's writer first: should the values' room fail, it gives back what it took.
        let level = self.append_bounded(entries)?;
        let values = crate::room::Room::take(vals, entries, "appended values")?;
        Ok(crate::room::BoundedEntries::new(level, vals, values))
    }

    /// The coordinates, for a `BoundedAppend` to give back the ones it took.
    pub(crate) fn crd_mut(&mut self) -> &mut Vec<I> {
        &mut self.crd
    }

    /// The segment ends and the last recorded segment, taken out for a `BoundedAppend` to
    /// record segments in its own fields until it gives them back
    /// ([`Self::restore_edges`]); and whether append assembly was started.
    pub(crate) fn take_edges(&mut self) -> (Vec<I>, Option<(usize, usize)>, bool) {
        (
            std::mem::take(&mut self.pos),
            self.append.last,
            self.append.active,
        )
    }

    /// Gives back what [`Self::take_edges`] took, as the writer recorded it.
    pub(crate) fn restore_edges(&mut self, pos: Vec<I>, last: Option<(usize, usize)>) {
        self.pos = pos;
        self.append.last = last;
    }

    /// [`Self::append_edges`] with the level holding `len` positions.
    #[inline]
    pub(crate) fn record_edges(&mut self, parent_pos: usize, begin: usize, end: usize, len: usize) {
        let last = self.append.last;
        debug_assert!(
            last.is_none_or(|(p, _)| parent_pos > p),
            "append_edges: parent position {parent_pos} recorded after parent position {}",
            last.map_or(0, |(p, _)| p)
        );
        let prev_end = last.map_or(0, |(_, e)| e);
        let misuse = if !self.append.active {
            Some("append_edges was called without append_init".to_string())
        } else if let Some((p, _)) = last.filter(|&(p, _)| parent_pos <= p) {
            Some(format!(
                "append_edges recorded parent position {parent_pos} after parent position {p}; parents must be recorded in increasing order"
            ))
        } else if begin != prev_end || end < begin || end > len {
            Some(format!(
                "append_edges recorded positions {begin}..{end} for parent position {parent_pos}, but segments must be contiguous (the previous one ended at {prev_end}) and end by len() = {len}"
            ))
        } else {
            None
        };
        if let Some(detail) = misuse {
            self.append.error.get_or_insert(detail);
            return;
        }
        if parent_pos + 2 > self.pos.len() {
            self.pos.resize(parent_pos + 2, I::default());
        }
        // An `end` that does not fit `I` is caught by `append_finalize`,
        // which checks `len() >= end`; the placeholder never escapes.
        self.pos[parent_pos + 1] = I::try_from_usize(end).unwrap_or_default();
        self.append.last = Some((parent_pos, end));
    }

    /// Ends append assembly under `parent_size` parent positions: sizes
    /// `pos` and fills the segments of parents that were never
    /// recorded (empty) with the previous segment's end.
    ///
    /// `Err(IndexOverflow)` if `len()` does not fit `I`;
    /// `Err(InvalidLevel)` if assembly was not started, if
    /// `append_edges` was misused (parents out of order, segments not
    /// contiguous or past `len()`), if a recorded parent is not below
    /// `parent_size`, or if the recorded edges do not cover every
    /// appended coordinate. After an `Err` the level must be
    /// re-assembled before it is used.
    #[doc(hidden)]
    #[inline]
    pub fn append_finalize(&mut self, parent_size: usize) -> Result<(), Error> {
        let state = std::mem::take(&mut self.append);
        let bad = |detail: String| Err(Error::invalid_level(0, detail));
        if let Some(detail) = state.error {
            return bad(detail);
        }
        if !state.active {
            return bad("append_finalize was called without append_init".into());
        }
        if let Some((p, _)) = state.last.filter(|&(p, _)| p >= parent_size) {
            return bad(format!(
                "append_edges recorded parent position {p} but the parent level has {parent_size} positions"
            ));
        }
        let len = fits::<I>(self.crd.len())?;
        self.pos.resize(parent_size.saturating_add(1), I::default());
        // Recorded ends are non-decreasing in parent order (checked by
        // append_edges) and elided parents hold 0, so the running
        // maximum fills each elided parent with the previous end.
        let mut end = I::default();
        for p in self.pos.iter_mut() {
            end = end.max(*p);
            *p = end;
        }
        if end != len {
            return bad(format!(
                "append_edges recorded {} positions but {} coordinates were appended",
                end.to_usize(),
                self.crd.len()
            ));
        }
        Ok(())
    }
}

impl<I: Index, P: Markers> crate::parallel::AppendRows for Compressed<I, P> {
    fn task_level(&self) -> Self {
        Self::from_parts_unchecked(self.size, vec![I::default()], Vec::new())
    }

    fn concat(&mut self, parts: Vec<Self>, parents: usize) -> Result<(), Error> {
        let total = parts.iter().map(|l| l.crd.len()).sum::<usize>();
        fits::<I>(total)?;
        let recorded = parts
            .iter()
            .map(|l| l.pos.len().saturating_sub(1))
            .sum::<usize>();
        if recorded != parents
            || parts
                .iter()
                .any(|l| l.pos.last().map(|e| e.to_usize()) != Some(l.crd.len()))
        {
            return Err(Error::invalid_level(
                0,
                format!("parallel assembly recorded {recorded} parent positions of {parents} (internal error: please report it)"),
            ));
        }
        let mut pos = std::mem::take(&mut self.pos);
        pos.clear();
        alloc::reserve(&mut pos, parents + 1, "pos")?;
        pos.push(I::default());
        let mut offset = 0;
        for part in &parts {
            // Every end is at most `total`, which fits `I`.
            pos.extend(
                part.pos[1..]
                    .iter()
                    .map(|e| I::from_usize_unchecked(e.to_usize() + offset)),
            );
            offset += part.crd.len();
        }
        let crds: Vec<Vec<I>> = parts.into_iter().map(|l| l.crd).collect();
        let mut crd = std::mem::take(&mut self.crd);
        crate::parallel::gather(&crds, &mut crd, "appended coordinates")?;
        *self = Self::from_parts_unchecked(self.size, pos, crd);
        Ok(())
    }

    type Coord = I;

    fn take_arrays(&mut self) -> (Vec<I>, Vec<I>) {
        (std::mem::take(&mut self.pos), std::mem::take(&mut self.crd))
    }

    fn set_arrays(&mut self, pos: Vec<I>, crd: Vec<I>) -> Result<(), Error> {
        let steps = pos.windows(2).all(|w| w[0] <= w[1]);
        let ends = pos.first() == Some(&I::default())
            && pos.last().map(|e| e.to_usize()) == Some(crd.len());
        if !(steps && ends) {
            return Err(Error::invalid_level(
                0,
                "parallel assembly: pos does not match (internal error: please report it)"
                    .to_string(),
            ));
        }
        *self = Self::from_parts_unchecked(self.size, pos, crd);
        Ok(())
    }
}

impl<I: Index, P: Markers> PartialEq for Compressed<I, P> {
    fn eq(&self, other: &Self) -> bool {
        (self.size, &self.pos, &self.crd) == (other.size, &other.pos, &other.crd)
    }
}

impl<I: Index, P: Markers> Eq for Compressed<I, P> {}

impl<I: Index + Hash, P: Markers> Hash for Compressed<I, P> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (self.size, &self.pos, &self.crd).hash(state);
    }
}

impl<I: Index, P: Markers> fmt::Debug for Compressed<I, P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Compressed")
            .field("markers", &P::default())
            .field("size", &self.size)
            .field("pos", &self.pos)
            .field("crd", &self.crd)
            .finish()
    }
}

impl<I, P> Sealed for Compressed<I, P> {}

impl<I: Index, P: Markers> Level for Compressed<I, P> {
    fn properties() -> Properties {
        Properties {
            name: "Compressed",
            markers: P::LABEL,
            full: false,
            ordered: P::ORDERED,
            unique: P::UNIQUE,
            branchless: false,
            compact: true,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        if self.pos.len() != parent_count.saturating_add(1) {
            return Err(Error::invalid_level(0, format!(
                "pos has {} entries but the parent level has {parent_count} positions, so it needs {}",
                self.pos.len(),
                parent_count.saturating_add(1)
            )));
        }
        validate_raw::<I, P>(self.size, &self.pos, &self.crd)?;
        Ok(self.crd.len())
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Range<usize> {
        let (begin, end) = self.pos_bounds(parent_pos);
        begin..end
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        self.pos_access(pos)
    }

    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        // `empty` allocates `pos` fallibly; `append_init` then only
        // zeroes it within its capacity.
        let mut level = Self::empty(size, parent_count)?;
        level.crd = alloc::with_capacity(crds.len(), "crd")?;
        level.append_init(parent_count);
        let mut segment: Option<(usize, usize)> = None; // (parent, begin)
        for (e, p) in positions.iter_mut().enumerate() {
            match segment {
                Some((parent, _)) if parent == *p => {
                    // Same parent: a new position only for a new key.
                    if !same_key[e] {
                        level.append_coord(crds[e]);
                    }
                }
                _ => {
                    if let Some((parent, begin)) = segment {
                        level.append_edges(parent, begin, level.len());
                    }
                    segment = Some((*p, level.len()));
                    level.append_coord(crds[e]);
                }
            }
            *p = level.len() - 1;
        }
        if let Some((parent, begin)) = segment {
            level.append_edges(parent, begin, level.len());
        }
        level.append_finalize(parent_count)?;
        if !P::ORDERED {
            level.reverse_segments(positions)?;
        }
        let count = level.len();
        Ok((level, count))
    }

    /// Unsequenced edge insertion: `select [parent] -> count(i)` sizes each
    /// segment, then entries go to their segment's next position. A
    /// non-unique level is never last, so it has none.
    fn assemble_counted<V: crate::Value, S: crate::convert::Scatter<V>>(
        size: usize,
        parent_count: usize,
        entries: &S,
    ) -> Option<Result<(Self, Vec<V>), Error>> {
        if !P::UNIQUE {
            return None;
        }
        let built =
            crate::convert::insert_segments::<I, V, S>(size, parent_count, P::ORDERED, entries);
        Some(built.map(|(pos, mut crd, mut vals)| {
            if !P::ORDERED {
                // As `build` does: visibly out of order (see `reverse_segments`).
                for w in pos.windows(2) {
                    let segment = w[0].to_usize()..w[1].to_usize();
                    crd[segment.clone()].reverse();
                    vals[segment].reverse();
                }
            }
            (Self::from_parts_unchecked(size, pos, crd), vals)
        }))
    }
}

impl<I: Index, P: Markers> Compressed<I, P> {
    /// Reverses every segment of a level [`Level::build`] just built in order,
    /// moving each entry's position (`positions`) with its coordinate. An
    /// unordered level may hold its segments in any order; building them in
    /// decreasing order makes a kernel that wrongly assumed order fail
    /// visibly in tests rather than pass by luck.
    fn reverse_segments(&mut self, positions: &mut [usize]) -> Result<(), Error> {
        let mut mirror = alloc::filled(self.crd.len(), 0usize, "the segment mirror")?;
        for w in self.pos.windows(2) {
            let (begin, end) = (w[0].to_usize(), w[1].to_usize());
            self.crd[begin..end].reverse();
            for (q, m) in mirror[begin..end].iter_mut().enumerate() {
                *m = end - 1 - q;
            }
        }
        for p in positions.iter_mut() {
            *p = mirror[*p];
        }
        Ok(())
    }
}

/// A non-unique [`Compressed`] level (COO's first level): siblings are
/// non-decreasing and may repeat.
pub type CompressedNonUnique<I = u32> = Compressed<I, NonUnique>;

impl<I: Index, P: Markers> Compressed<I, P> {
    /// End of the run of equal coordinates starting at `p`: the smallest `q` in
    /// `(p, end]` with `q == end` or `crd[q] != crd[p]`. Panics unless
    /// `p < end <= len()`.
    #[inline]
    pub fn run_end(&self, p: usize, end: usize) -> usize {
        runs::run_end(&self.crd, p, end)
    }

    /// [`Self::run_end`] without bounds checks.
    ///
    /// # Safety
    /// `p < end <= self.len()`.
    #[inline]
    pub unsafe fn run_end_unchecked(&self, p: usize, end: usize) -> usize {
        // SAFETY: the caller guarantees p < end <= crd.len(), which is
        // runs::run_end_unchecked's contract.
        unsafe { runs::run_end_unchecked(&self.crd, p, end) }
    }
}

/// Checks every invariant of raw compressed arrays except the parent count.
fn validate_raw<I: Index, P: Markers>(size: usize, pos: &[I], crd: &[I]) -> Result<(), Error> {
    let size_i = fits::<I>(size)?;
    let len_i = fits::<I>(crd.len())?;
    check_pos(pos, len_i)?;
    check_crd_bounds(crd, size_i)?;
    match P::ORDERED {
        true => check_segments(pos, crd, P::UNIQUE),
        false => check_unique_unordered(pos, crd),
    }
}

/// Siblings of an unordered level are unique: each segment, sorted in a
/// scratch copy, has no two equal neighbours. (An unordered level is always
/// unique: the `Unordered` marker sets no `NonUnique`.) Requires `pos` to have
/// passed [`check_pos`].
fn check_unique_unordered<I: Index>(pos: &[I], crd: &[I]) -> Result<(), Error> {
    let mut sorted: Vec<I> = Vec::new();
    for (p, w) in pos.windows(2).enumerate() {
        let seg = &crd[w[0].to_usize()..w[1].to_usize()];
        sorted.clear();
        sorted
            .try_reserve(seg.len())
            .map_err(|_| Error::NotRepresentable {
                detail: format!(
                    "cannot allocate {} coordinates to check a segment",
                    seg.len()
                ),
            })?;
        sorted.extend_from_slice(seg);
        sorted.sort_unstable();
        if let Some(k) = sorted.windows(2).position(|c| c[0] == c[1]) {
            return Err(Error::invalid_level(
                0,
                format!(
                    "the coordinates of parent position {p} are not unique: {} appears twice",
                    sorted[k].to_usize()
                ),
            ));
        }
    }
    Ok(())
}

/// `pos[0] == 0`, non-decreasing, last entry `== crd.len()`.
fn check_pos<I: Index>(pos: &[I], crd_len: I) -> Result<(), Error> {
    let bad = |detail: String| Err(Error::invalid_level(0, detail));
    match (pos.first(), pos.last()) {
        (None, _) | (_, None) => {
            return bad("pos is empty; it needs one entry per parent position plus one".into())
        }
        (Some(&first), _) if first != I::default() => {
            return bad(format!("pos[0] is {} but must be 0", first.to_usize()))
        }
        (_, Some(&last)) if last != crd_len => {
            return bad(format!(
                "the last pos entry is {} but crd has {} entries",
                last.to_usize(),
                crd_len.to_usize()
            ))
        }
        _ => {}
    }
    match pos.windows(2).position(|w| w[0] > w[1]) {
        None => Ok(()),
        Some(k) => bad(format!(
            "pos is not monotone: pos[{k}] = {} > pos[{}] = {}",
            pos[k].to_usize(),
            k + 1,
            pos[k + 1].to_usize()
        )),
    }
}

/// Every coordinate is below the level size.
fn check_crd_bounds<I: Index>(crd: &[I], size: I) -> Result<(), Error> {
    match crd.iter().position(|&c| c >= size) {
        None => Ok(()),
        Some(q) => Err(Error::invalid_level(
            0,
            format!(
                "crd[{q}] = {} is not below the level size {}",
                crd[q].to_usize(),
                size.to_usize()
            ),
        )),
    }
}

/// Siblings are strictly increasing (`strict`) or non-decreasing.
/// Requires `pos` to have passed [`check_pos`].
fn check_segments<I: Index>(pos: &[I], crd: &[I], strict: bool) -> Result<(), Error> {
    for (p, w) in pos.windows(2).enumerate() {
        let (begin, end) = (w[0].to_usize(), w[1].to_usize());
        let seg = &crd[begin..end];
        let broken = seg
            .windows(2)
            .position(|c| if strict { c[0] >= c[1] } else { c[0] > c[1] });
        if let Some(k) = broken {
            let want = if strict {
                "strictly increasing"
            } else {
                "non-decreasing"
            };
            return Err(Error::invalid_level(0, format!(
                "the coordinates of parent position {p} are not {want}: crd[{}] = {} then crd[{}] = {}",
                begin + k,
                seg[k].to_usize(),
                begin + k + 1,
                seg[k + 1].to_usize()
            )));
        }
    }
    Ok(())
}
