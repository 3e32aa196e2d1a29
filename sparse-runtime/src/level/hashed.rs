//! Hashed levels: the children of parent position `p` are the `W` buckets
//! `p * W .. (p + 1) * W` of an open-addressing hash table (Chou et al. 2018,
//! section 3 and Table 2), each empty or holding one coordinate.

use super::{Level, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::{Error, Value};
use std::ops::Range;

/// A hashed level (a hash map per parent position): parent position `p` owns
/// the `width()` buckets `p * W .. (p + 1) * W` of `crd`; a bucket is empty
/// (it holds `I::MAX`, never a coordinate) or holds one coordinate. A
/// coordinate `i` lives in the first bucket at or after its home bucket
/// `i % W` (cyclically within the segment) that was free when it was
/// inserted: linear probing.
///
/// Iterated by position (empty buckets are skipped); supports `locate` in
/// expected constant time, so an intersection with it costs the other
/// operand's nonzeros only. Properties: unique; neither full, ordered,
/// branchless nor compact (empty buckets are positions without a
/// coordinate). A kernel that must visit its coordinates in order (a union
/// with another sparse operand, or a sparse output appended along it) sorts
/// each segment into a scratch array first (iterator reordering, section 4.3).
///
/// Values are stored per bucket: a tensor whose last level is hashed has
/// `vals.len() == parent_count * W`, empty buckets holding zero.
///
/// # Invariants
///
/// Checked by [`Hashed::from_raw`] (all but the first) and by
/// [`Tensor::from_levels`](crate::Tensor::from_levels) (all), under a
/// parent level with `n` positions:
///
/// - `crd.len() == n * W` (so bucket positions never overflow);
/// - `W` is a power of two (at least 1);
/// - `size` fits `I` and is below `I::MAX`'s value as a coordinate, so the
///   empty marker is never a coordinate;
/// - every bucket is empty or holds a coordinate below `size`;
/// - *unique*: no coordinate occupies two buckets of one segment;
/// - every stored coordinate is reachable by probing: no empty bucket lies
///   between its home bucket and its own bucket (cyclically), so `locate`
///   finds it.
///
/// As a format rule it cannot sit below a non-unique level.
#[derive(Clone, Debug)]
pub struct Hashed<I = u32> {
    size: usize,
    width: usize,
    crd: Vec<I>,
    /// Insert assembly bookkeeping only: not part of the level's value.
    occupancy: Vec<usize>,
}

impl<I: Index> PartialEq for Hashed<I> {
    fn eq(&self, other: &Self) -> bool {
        (self.size, self.width, &self.crd) == (other.size, other.width, &other.crd)
    }
}

impl<I: Index> Eq for Hashed<I> {}

impl<I: Index + std::hash::Hash> std::hash::Hash for Hashed<I> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self.size, self.width, &self.crd).hash(state);
    }
}

impl<I: Index> Hashed<I> {
    /// The content of an empty bucket.
    #[inline]
    fn empty_bucket() -> I {
        I::from_usize_unchecked(I::max_usize())
    }

    /// Validates and wraps raw arrays: `width` is a power of two dividing
    /// `crd.len()`, `size` fits `I`, each bucket is empty (`I::MAX`) or holds
    /// a coordinate below `size`, no segment holds a coordinate twice, and
    /// every coordinate is reachable from its home bucket by linear probing.
    /// The parent position count `crd.len() / width` is checked when the
    /// tensor is assembled. Errors report level 0.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // Four buckets; 5 sits in its home bucket 5 % 4 = 1, 2 in bucket 2.
    /// let table = Hashed::<u32>::from_raw(8, 4, vec![u32::MAX, 5, 2, u32::MAX])?;
    /// let h = HashVec::from_levels(&[8], (table,), vec![0.0, 1.5, 2.5, 0.0])?;
    /// assert_eq!(h.entries(), vec![(vec![2], 2.5), (vec![5], 1.5)]);
    /// // 6's home bucket is 2, empty: probing from it would never reach bucket 0.
    /// assert!(Hashed::<u32>::from_raw(8, 4, vec![6, u32::MAX, u32::MAX, u32::MAX]).is_err());
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    pub fn from_raw(size: usize, width: usize, crd: Vec<I>) -> Result<Self, Error> {
        let level = Self::from_parts(size, width, crd);
        level.check_table()?;
        Ok(level)
    }

    /// An empty table of `width` buckets (a power of two) per parent.
    fn empty(size: usize, width: usize, parent_count: usize) -> Result<Self, Error> {
        let buckets = parent_count
            .checked_mul(width)
            .ok_or_else(|| Error::NotRepresentable {
                detail: format!(
                    "a hashed level of width {width} under {parent_count} parent positions has more than usize::MAX buckets"
                ),
            })?;
        let crd = alloc::filled(buckets, Self::empty_bucket(), "crd")?;
        Ok(Self::from_parts(size, width, crd))
    }

    fn from_parts(size: usize, width: usize, crd: Vec<I>) -> Self {
        Self {
            size,
            width,
            crd,
            occupancy: Vec::new(),
        }
    }

    /// Size of the dimension.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Buckets per parent position (a power of two).
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// The buckets: a coordinate, or `I::MAX` for an empty bucket.
    #[inline]
    pub fn crd(&self) -> &[I] {
        &self.crd
    }

    /// Number of positions (buckets, empty ones included).
    #[inline]
    pub fn len(&self) -> usize {
        self.crd.len()
    }

    /// Whether the level has no buckets.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.crd.is_empty()
    }

    /// Bucket positions `(begin, end)` of `parent_pos`; panics if they are
    /// not within `len()`.
    #[inline]
    pub fn pos_bounds(&self, parent_pos: usize) -> (usize, usize) {
        let begin = parent_pos * self.width;
        assert!(begin + self.width <= self.crd.len());
        (begin, begin + self.width)
    }

    /// [`Self::pos_bounds`] without checks.
    ///
    /// # Safety
    /// `parent_pos` is below the parent level's position count, so that
    /// `(parent_pos + 1) * width() <= len()` (validated: `len()` is the
    /// parent count times the width).
    #[inline]
    pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize) -> (usize, usize) {
        debug_assert!((parent_pos + 1) * self.width <= self.crd.len());
        let begin = parent_pos * self.width;
        (begin, begin + self.width)
    }

    /// Whether bucket `q` holds a coordinate; panics if `q >= len()`.
    #[inline]
    pub fn is_stored(&self, q: usize) -> bool {
        self.crd[q] != Self::empty_bucket()
    }

    /// [`Self::is_stored`] without bounds checks.
    ///
    /// # Safety
    /// `q < self.len()`.
    #[inline]
    pub unsafe fn is_stored_unchecked(&self, q: usize) -> bool {
        debug_assert!(q < self.crd.len());
        // SAFETY: the caller guarantees q < crd.len().
        unsafe { *self.crd.get_unchecked(q) != Self::empty_bucket() }
    }

    /// Coordinate in bucket `q` (meaningful only where [`Self::is_stored`]);
    /// panics if `q >= len()`.
    #[inline]
    pub fn pos_access(&self, q: usize) -> usize {
        self.crd[q].to_usize()
    }

    /// [`Self::pos_access`] without bounds checks.
    ///
    /// # Safety
    /// `q < self.len()`.
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, q: usize) -> usize {
        debug_assert!(q < self.crd.len());
        // SAFETY: the caller guarantees q < crd.len().
        unsafe { self.crd.get_unchecked(q).to_usize() }
    }

    /// The bucket of coordinate `i` below `parent_pos` and whether `i` is
    /// stored there (else the bucket is where the probe ended: an empty one,
    /// or any bucket of a full segment). Panics if the segment is not within
    /// `len()`.
    #[inline]
    pub fn locate(&self, parent_pos: usize, i: usize) -> (usize, bool) {
        let (begin, end) = self.pos_bounds(parent_pos);
        match I::try_from_usize(i) {
            Some(target) => self.probe(&self.crd[begin..end], begin, target),
            None => (begin, false),
        }
    }

    /// [`Self::locate`] without bounds checks.
    ///
    /// # Safety
    /// `parent_pos` is below the parent level's position count (as for
    /// [`Self::pos_bounds_unchecked`]). (`i` below `size()` is expected but
    /// not needed for soundness: a larger `i` is converted lossily and then
    /// only compared.)
    #[inline]
    pub unsafe fn locate_unchecked(&self, parent_pos: usize, i: usize) -> (usize, bool) {
        // SAFETY: the caller's contract is pos_bounds_unchecked's.
        let (begin, end) = unsafe { self.pos_bounds_unchecked(parent_pos) };
        // SAFETY: begin <= end <= crd.len() by that contract.
        let segment = unsafe { self.crd.get_unchecked(begin..end) };
        self.probe(segment, begin, I::from_usize_unchecked(i))
    }

    /// Linear probing for `target` in `segment` (the buckets from `begin`):
    /// at most one pass over the segment. `segment.len()` is the width, a
    /// power of two, so masking keeps every probe inside it.
    #[inline]
    fn probe(&self, segment: &[I], begin: usize, target: I) -> (usize, bool) {
        let mask = segment.len().wrapping_sub(1);
        let empty = Self::empty_bucket();
        let mut h = target.to_usize() & mask;
        for _ in 0..segment.len() {
            debug_assert!(h < segment.len());
            // SAFETY: inside the loop the segment is non-empty and its length a
            // power of two, so `h` (masked by length - 1) is below it.
            let c = unsafe { *segment.get_unchecked(h) };
            if c == target {
                return (begin + h, true);
            }
            if c == empty {
                return (begin + h, false);
            }
            h = (h + 1) & mask;
        }
        (begin, false)
    }

    /// Checks every invariant that involves no other level.
    fn check_table(&self) -> Result<(), Error> {
        let bad = |detail: String| Err(Error::invalid_level(0, detail));
        // Coordinates are below a size that fits `I`, so never `I::MAX`.
        fits::<I>(self.size)?;
        if !self.width.is_power_of_two() {
            return bad(format!("the width {} is not a power of two", self.width));
        }
        // The width is a power of two: a multiple of it has no bits below it.
        if self.crd.len() & (self.width - 1) != 0 {
            return bad(format!(
                "crd has {} buckets, not a multiple of the width {}",
                self.crd.len(),
                self.width
            ));
        }
        for (s, segment) in self.crd.chunks_exact(self.width).enumerate() {
            self.check_segment(segment, s * self.width)?;
        }
        Ok(())
    }

    /// Coordinates in bounds, unique, and each reachable from its home
    /// bucket: the run of occupied buckets ending at its bucket (cyclically)
    /// is longer than its distance from home. O(width) plus a sort for
    /// uniqueness.
    fn check_segment(&self, segment: &[I], begin: usize) -> Result<(), Error> {
        let bad = |detail: String| Err(Error::invalid_level(0, detail));
        let empty = Self::empty_bucket();
        let w = segment.len();
        let stored = |h: usize| segment[h] != empty;
        // Occupied buckets ending at each bucket, counted from an empty one
        // (a full segment has no empty bucket: every probe succeeds).
        let start = (0..w).find(|&h| !stored(h));
        let mut run = vec![0usize; w];
        if let Some(start) = start {
            for step in 1..=w {
                let h = (start + step) & (w - 1);
                run[h] = if stored(h) {
                    run[(h + w - 1) & (w - 1)] + 1
                } else {
                    0
                };
            }
        }
        let mut coords = Vec::new();
        for (h, &c) in segment.iter().enumerate() {
            if c == empty {
                continue;
            }
            if c.to_usize() >= self.size {
                return bad(format!(
                    "bucket {} holds coordinate {}, not below the level size {}",
                    begin + h,
                    c.to_usize(),
                    self.size
                ));
            }
            let home = c.to_usize() & (w - 1);
            let distance = (h + w - home) & (w - 1);
            if start.is_some() && distance >= run[h] {
                return bad(format!(
                    "bucket {} holds coordinate {} but an empty bucket lies between it and its home bucket {}, so probing cannot find it",
                    begin + h,
                    c.to_usize(),
                    begin + home
                ));
            }
            coords.push(c);
        }
        coords.sort_unstable();
        if let Some(pair) = coords.windows(2).find(|p| p[0] == p[1]) {
            return bad(format!(
                "the buckets {}..{} hold coordinate {} twice, but a hashed level is unique",
                begin,
                begin + w,
                pair[0].to_usize()
            ));
        }
        Ok(())
    }

    /// Starts insert assembly (Chou et al. 2018, Table 3) under `parent_count`
    /// parent positions: every segment emptied (unless `keep`, as for `+=`),
    /// the width kept (a reused output keeps its capacity), and `vals` made one
    /// zero per bucket (kept values stay where they are).
    ///
    /// Assembly is the interface generated kernels use, through a tensor's
    /// assembly guard, for a hashed level that is the tensor's last level (so
    /// `vals` holds one value per bucket); the result reaches users only after
    /// the same checks as [`Tensor::from_levels`](crate::Tensor::from_levels).
    #[doc(hidden)]
    pub fn insert_init<V: Value>(
        &mut self,
        parent_count: usize,
        keep: bool,
        vals: &mut Vec<V>,
    ) -> Result<(), Error> {
        let buckets = parent_count.checked_mul(self.width).ok_or_else(|| {
            Error::NotRepresentable {
                detail: format!(
                    "a hashed level of width {} under {parent_count} parent positions has more than usize::MAX buckets",
                    self.width
                ),
            }
        })?;
        if keep && (self.crd.len() != buckets || vals.len() != buckets) {
            // Keeping entries that are not this shape's would lose or misplace them.
            return Err(Error::invalid_level(
                0,
                format!(
                    "insert_init keeping {} buckets and {} values under {parent_count} parents of width {}",
                    self.crd.len(),
                    vals.len(),
                    self.width
                ),
            ));
        }
        if !keep {
            self.crd.clear();
            vals.clear();
        }
        let grow = buckets.saturating_sub(self.crd.len());
        self.crd
            .try_reserve(grow)
            .and_then(|()| vals.try_reserve(grow))
            .map_err(|_| Error::NotRepresentable {
                detail: format!("cannot allocate {buckets} buckets for a hashed level"),
            })?;
        self.crd.resize(buckets, Self::empty_bucket());
        vals.resize(buckets, V::zero());
        self.occupancy.clear();
        self.occupancy.resize(parent_count, 0);
        if keep {
            let w = self.width;
            for (q, &c) in self.crd.iter().enumerate() {
                if c != Self::empty_bucket() {
                    self.occupancy[q / w] += 1;
                }
            }
        }
        Ok(())
    }

    /// The bucket of coordinate `i` (below `size`) under `parent_pos` (below
    /// the count given to [`Self::insert_init`]), inserting it with value zero
    /// if it is absent. A segment is kept at most half full: before it would
    /// pass that, every segment is rehashed into twice the width (moving
    /// `vals` with its buckets), unless the width already covers the
    /// dimension. `Err` if the larger table cannot be allocated; a misuse
    /// (no `insert_init`, a coordinate or parent out of range) is `Err` too.
    #[doc(hidden)]
    #[inline]
    pub fn insert<V: Value>(
        &mut self,
        parent_pos: usize,
        i: usize,
        vals: &mut Vec<V>,
    ) -> Result<usize, Error> {
        if parent_pos >= self.occupancy.len() || i >= self.size || vals.len() != self.crd.len() {
            return Err(Error::invalid_level(
                0,
                format!(
                    "insert of coordinate {i} below parent position {parent_pos} outside an insert assembly of {} parents, size {}",
                    self.occupancy.len(),
                    self.size
                ),
            ));
        }
        let (bucket, found) = self.locate(parent_pos, i);
        if found {
            return Ok(bucket);
        }
        // A width of at least the dimension holds every coordinate, so a coordinate that was
        // not found always has a free bucket there; below it, the segment stays half empty.
        let covers = self
            .size
            .checked_next_power_of_two()
            .is_some_and(|cap| self.width >= cap);
        let full = 2 * (self.occupancy[parent_pos] + 1) > self.width;
        let bucket = if full && !covers {
            self.grow(vals)?;
            self.locate(parent_pos, i).0
        } else {
            bucket
        };
        self.crd[bucket] = I::from_usize_unchecked(i);
        self.occupancy[parent_pos] += 1;
        Ok(bucket)
    }

    /// Rehashes every segment into twice the width, moving each value with
    /// its coordinate.
    #[cold]
    fn grow<V: Value>(&mut self, vals: &mut Vec<V>) -> Result<(), Error> {
        let width = self.width * 2;
        let mut bigger = Self::empty(self.size, width, self.occupancy.len())?;
        let mut moved = alloc::filled(bigger.crd.len(), V::zero(), "vals")?;
        for (q, &c) in self.crd.iter().enumerate() {
            if c != Self::empty_bucket() {
                let to = bigger.insert_new(q / self.width, c.to_usize());
                moved[to] = vals[q];
            }
        }
        self.width = width;
        self.crd = bigger.crd;
        *vals = moved;
        Ok(())
    }

    /// Inserts `i` (below `size`, not yet stored under `parent_pos`) by
    /// linear probing and returns its bucket. Requires a free bucket.
    fn insert_new(&mut self, parent_pos: usize, i: usize) -> usize {
        let (bucket, found) = self.locate(parent_pos, i);
        debug_assert!(!found && !self.is_stored(bucket));
        self.crd[bucket] = I::from_usize_unchecked(i);
        bucket
    }
}

/// The width for a table holding at most `max` coordinates per segment of a
/// dimension of `size`: load at most one half, and no wider than the
/// dimension needs (a power of two at least `size` never collides).
fn width_for(max: usize, size: usize) -> usize {
    let wanted = max.saturating_mul(2).max(1);
    let cap = size.max(1);
    wanted
        .min(cap)
        .checked_next_power_of_two()
        .unwrap_or(1 << (usize::BITS - 1))
}

impl<I> Sealed for Hashed<I> {}

impl<I: Index> Level for Hashed<I> {
    fn properties() -> Properties {
        Properties {
            name: "Hashed",
            markers: "",
            full: false,
            ordered: false,
            unique: true,
            branchless: false,
            compact: false,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        self.check_table()?;
        if parent_count.checked_mul(self.width) != Some(self.crd.len()) {
            return Err(Error::invalid_level(
                0,
                format!(
                    "crd has {} buckets but the parent level has {parent_count} positions of width {}, so it needs {}",
                    self.crd.len(),
                    self.width,
                    parent_count.saturating_mul(self.width)
                ),
            ));
        }
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

    #[inline]
    fn is_stored(&self, pos: usize) -> bool {
        Hashed::is_stored(self, pos)
    }

    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        // Entries arrive grouped by parent, equal coordinates adjacent: an entry starts a new
        // coordinate unless it has its predecessor's parent and key.
        let new_coord: Vec<bool> = (0..positions.len())
            .map(|e| e == 0 || positions[e] != positions[e - 1] || !same_key[e])
            .collect();
        // The parent with the most coordinates sets the width.
        let mut max = 0;
        let mut run = 0;
        for e in 0..positions.len() {
            if e == 0 || positions[e] != positions[e - 1] {
                run = 0;
            }
            run += usize::from(new_coord[e]);
            max = max.max(run);
        }
        fits::<I>(size)?;
        let mut level = Self::empty(size, width_for(max, size), parent_count)?;
        let mut bucket = 0;
        for (e, &i) in crds.iter().enumerate() {
            if new_coord[e] {
                bucket = level.insert_new(positions[e], i);
            }
            positions[e] = bucket;
        }
        let count = level.len();
        Ok((level, count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: u32 = u32::MAX;

    #[test]
    fn locate_probes_past_collisions() {
        // Width 4: 1 and 5 share home bucket 1; 7 wraps from bucket 3 to 0.
        // 5 in bucket 0 is cut off from its home bucket 1 by empty buckets.
        let h = Hashed::<u32>::from_raw(8, 4, vec![5, E, E, E]).unwrap_err();
        assert!(h.to_string().contains("probing"), "{h}");
        // A full segment: every probe succeeds.
        assert!(Hashed::<u32>::from_raw(8, 4, vec![7, 1, 5, 3]).is_ok());
        // 3 cannot sit in bucket 0 with its home bucket 3 empty.
        assert!(Hashed::<u32>::from_raw(8, 4, vec![3, 1, 5, E]).is_err());
        let h = Hashed::<u32>::from_raw(8, 4, vec![E, 1, 5, 3]).unwrap();
        assert_eq!(h.locate(0, 1), (1, true));
        assert_eq!(h.locate(0, 5), (2, true));
        assert_eq!(h.locate(0, 3), (3, true));
        assert_eq!(h.locate(0, 7), (0, false));
        let h = Hashed::<u32>::from_raw(8, 4, vec![7, 1, E, 3]).unwrap();
        assert_eq!(h.locate(0, 7), (0, true));
        assert_eq!(h.locate(0, 3), (3, true));
        assert_eq!(h.locate(0, 2), (2, false));
        assert_eq!(h.locate(0, 6), (2, false));
    }

    #[test]
    fn a_full_segment_locates_every_coordinate() {
        let h = Hashed::<u32>::from_raw(4, 4, vec![1, 0, 3, 2]).unwrap();
        for i in 0..4 {
            let (q, found) = h.locate(0, i);
            assert!(found && h.pos_access(q) == i);
        }
        let h = Hashed::<u32>::from_raw(9, 4, vec![1, 0, 3, 2]).unwrap();
        assert!(!h.locate(0, 8).1);
    }

    #[test]
    fn invalid_tables_are_rejected() {
        let err = |w, crd: Vec<u32>| Hashed::<u32>::from_raw(8, w, crd).unwrap_err().to_string();
        assert!(err(3, vec![E; 3]).contains("power of two"));
        assert!(err(4, vec![E; 6]).contains("multiple"));
        assert!(err(4, vec![9, E, E, E]).contains("not below"));
        assert!(err(4, vec![E, 1, 1, E]).contains("twice"));
        assert!(err(4, vec![E, E, 1, E]).contains("probing"));
        // The largest size whose coordinates leave the marker free.
        assert!(Hashed::<u32>::from_raw(u32::MAX as usize, 1, vec![E]).is_ok());
        assert!(Hashed::<u32>::from_raw(u32::MAX as usize + 1, 1, vec![E]).is_err());
    }

    #[test]
    fn build_spreads_each_parent_over_its_segment() {
        let mut positions = vec![0, 0, 0, 2];
        let (h, count) =
            Hashed::<u32>::build(100, 3, &[4, 8, 12, 5], &[false; 4], &mut positions).unwrap();
        assert_eq!(h.width(), 8);
        assert_eq!(count, 24);
        for (&q, &(p, c)) in positions.iter().zip(&[(0, 4), (0, 8), (0, 12), (2, 5)]) {
            assert_eq!(h.locate(p, c), (q, true));
        }
        assert_eq!(h.position_count(3), Ok(24));
        assert!(h.position_count(2).is_err());
        let stored: Vec<usize> = (8..16).filter(|&q| h.is_stored(q)).collect();
        assert!(stored.is_empty());
    }

    #[test]
    fn insert_grows_and_moves_values() {
        let mut h = Hashed::<u32>::from_raw(100, 1, vec![E, E]).unwrap();
        let mut vals = vec![0.0; 2];
        h.insert_init(2, false, &mut vals).unwrap();
        for i in [3, 67, 35, 99, 2] {
            let q = h.insert(1, i, &mut vals).unwrap();
            vals[q] += i as f64;
        }
        let q = h.insert(0, 5, &mut vals).unwrap();
        vals[q] = 0.5;
        // Six coordinates, at most half full: width 16 (grown from 1).
        assert_eq!(h.width(), 16);
        assert_eq!(h.position_count(2), Ok(32));
        for i in [3, 67, 35, 99, 2] {
            let (q, found) = h.locate(1, i);
            assert!(found && vals[q] == i as f64);
        }
        assert_eq!(vals[h.locate(0, 5).0], 0.5);
        // Again: the coordinate is found, not inserted twice.
        let q = h.insert(1, 67, &mut vals).unwrap();
        assert_eq!(vals[q], 67.0);
        // `+=` keeps the entries; `=` empties the table but keeps its width.
        h.insert_init(2, true, &mut vals).unwrap();
        assert_eq!(vals.iter().filter(|&&v| v != 0.0).count(), 6);
        h.insert_init(2, false, &mut vals).unwrap();
        assert!(vals.iter().all(|&v| v == 0.0) && (0..32).all(|q| !h.is_stored(q)));
        assert_eq!(h.width(), 16);
        assert!(h.insert(2, 1, &mut vals).is_err());
        // `+=` into a table of another shape is an error, not a silent `=`.
        assert!(h.insert_init(3, true, &mut vals).is_err());
        assert!(h.insert(0, 100, &mut vals).is_err());
    }

    #[test]
    fn a_table_as_wide_as_the_dimension_fills_up() {
        let mut h = Hashed::<u32>::from_raw(4, 1, vec![E]).unwrap();
        let mut vals = vec![0i64];
        h.insert_init(1, false, &mut vals).unwrap();
        for i in 0..4 {
            h.insert(0, i, &mut vals).unwrap();
        }
        assert_eq!(h.width(), 4);
        assert!((0..4).all(|q| h.is_stored(q)));
    }

    #[test]
    fn width_stays_within_the_dimension() {
        assert_eq!(width_for(0, 0), 1);
        assert_eq!(width_for(3, 100), 8);
        assert_eq!(width_for(3, 5), 8);
        assert_eq!(width_for(4, 4), 4);
        assert_eq!(width_for(1, 1), 1);
    }
}
