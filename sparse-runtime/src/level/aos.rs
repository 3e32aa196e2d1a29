//! Array-of-structs coordinate levels: the two levels of a COO matrix reading
//! one shared array of `(row, column)` pairs (Chou et al. 2018, section 5.1:
//! variants of the compressed and singleton levels with another `pos_access`,
//! the same abstract interface).

use super::{Level, Properties, Sealed};
use crate::index::{fits, Index};
use crate::Error;
use std::ops::Range;
use std::sync::Arc;

/// COO's row level in array-of-structs layout: the segment below the root is
/// `pos[0]..pos[1]`, and the row of position `q` is `pairs[2 q]` of the pair
/// array it shares with its [`SingletonAos`] child.
///
/// Iterated by position (by runs of equal rows where a kernel deduplicates);
/// no locate, no assembly. Properties: ordered, compact, not unique, neither
/// full nor branchless.
///
/// # Invariants
///
/// Kept by [`CooAos`](crate::CooAos)'s constructors, the only way to build
/// one, and checked again by [`Tensor::from_levels`](crate::Tensor::from_levels)
/// under a parent with `n` positions: `pos` has `n + 1` entries, starts at 0,
/// is non-decreasing and ends at the number of pairs; `size` and the pair
/// count fit `I`; every row is below `size`; rows are non-decreasing within
/// each segment.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompressedAos<I = u32> {
    size: usize,
    pos: Vec<I>,
    pairs: Arc<[I]>,
}

/// COO's column level in array-of-structs layout: one coordinate per parent
/// position `q`, `pairs[2 q + 1]` of the array it shares with its
/// [`CompressedAos`] parent.
///
/// Iterated by position; no locate, no assembly. Properties: ordered, unique,
/// branchless, compact; not full.
///
/// # Invariants
///
/// Kept by [`CooAos`](crate::CooAos)'s constructors and checked again by
/// [`Tensor::from_levels`](crate::Tensor::from_levels) under a parent with
/// `n` positions: `2 n` entries in `pairs`; `size` fits `I`; every column is
/// below `size`; columns strictly increasing within each run of equal rows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SingletonAos<I = u32> {
    size: usize,
    pairs: Arc<[I]>,
}

impl<I: Index> CompressedAos<I> {
    /// The row level over `pairs`, below a root of one position.
    pub(crate) fn new(size: usize, pos: Vec<I>, pairs: Arc<[I]>) -> Self {
        CompressedAos { size, pos, pairs }
    }

    /// The shared `(row, column)` pairs, flattened.
    #[inline]
    pub fn pairs(&self) -> &[I] {
        &self.pairs
    }

    /// Positions `(begin, end)` of `parent_pos`; panics if
    /// `parent_pos + 1 >= pos.len()`.
    #[inline]
    pub fn pos_bounds(&self, parent_pos: usize) -> (usize, usize) {
        super::segment(&self.pos, parent_pos)
    }

    /// [`Self::pos_bounds`] without bounds checks.
    ///
    /// # Safety
    /// `parent_pos + 1 < pos.len()`.
    #[inline]
    pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize) -> (usize, usize) {
        // SAFETY: the caller guarantees parent_pos + 1 < pos.len().
        unsafe { super::segment_unchecked(&self.pos, parent_pos) }
    }

    /// The row at position `q`; panics if `q` is not a position.
    #[inline]
    pub fn pos_access(&self, q: usize) -> usize {
        self.pairs[2 * q].to_usize()
    }

    /// [`Self::pos_access`] without bounds checks.
    ///
    /// # Safety
    /// `q` is a position of the level (`2 q < pairs.len()`).
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, q: usize) -> usize {
        debug_assert!(2 * q < self.pairs.len());
        // SAFETY: the caller guarantees 2 q < pairs.len().
        unsafe { self.pairs.get_unchecked(2 * q).to_usize() }
    }

    /// End of the run of equal rows starting at `q`: the smallest `r` in
    /// `(q, end]` with `r == end` or a different row at `r`.
    ///
    /// # Safety
    /// `q < end` and `end` is at most the number of positions.
    #[inline]
    pub unsafe fn run_end_unchecked(&self, q: usize, end: usize) -> usize {
        debug_assert!(q < end && 2 * end <= self.pairs.len());
        // SAFETY: the caller guarantees q < end <= positions; every read is at
        // 2 r for r in q..end, below pairs.len().
        unsafe {
            let row = *self.pairs.get_unchecked(2 * q);
            let mut r = q + 1;
            while r < end && *self.pairs.get_unchecked(2 * r) == row {
                r += 1;
            }
            r
        }
    }
}

impl<I: Index> SingletonAos<I> {
    /// The column level over `pairs`.
    pub(crate) fn new(size: usize, pairs: Arc<[I]>) -> Self {
        SingletonAos { size, pairs }
    }

    /// The column at position `q`; panics if `q` is not a position.
    #[inline]
    pub fn pos_access(&self, q: usize) -> usize {
        self.pairs[2 * q + 1].to_usize()
    }

    /// [`Self::pos_access`] without bounds checks.
    ///
    /// # Safety
    /// `q` is a position of the level (`2 q + 1 < pairs.len()`).
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, q: usize) -> usize {
        debug_assert!(2 * q + 1 < self.pairs.len());
        // SAFETY: the caller guarantees 2 q + 1 < pairs.len().
        unsafe { self.pairs.get_unchecked(2 * q + 1).to_usize() }
    }
}

/// Every `pairs[2 q + half]` is below `size`, which fits `I`.
fn check_half<I: Index>(pairs: &[I], half: usize, size: usize) -> Result<(), Error> {
    let size_i = fits::<I>(size)?;
    match pairs
        .iter()
        .skip(half)
        .step_by(2)
        .position(|&c| c >= size_i)
    {
        None => Ok(()),
        Some(q) => Err(Error::invalid_level(
            0,
            format!(
                "pairs[{}] = {} is not below the level size {size}",
                2 * q + half,
                pairs[2 * q + half].to_usize()
            ),
        )),
    }
}

fn not_from_entries(name: &str) -> Error {
    Error::NotRepresentable {
        detail: format!("a {name} level is built by CooAos's constructors, not from entries"),
    }
}

impl<I> Sealed for CompressedAos<I> {}
impl<I> Sealed for SingletonAos<I> {}

impl<I: Index> Level for CompressedAos<I> {
    fn properties() -> Properties {
        Properties {
            name: "CompressedAos",
            markers: "",
            full: false,
            ordered: true,
            unique: false,
            branchless: false,
            compact: true,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        let bad = |detail: String| Err(Error::invalid_level(0, detail));
        if self.pairs.len() & 1 != 0 {
            return bad(format!("pairs has an odd length {}", self.pairs.len()));
        }
        let count = self.pairs.len() / 2;
        fits::<I>(count)?;
        if self.pos.len() != parent_count.saturating_add(1) {
            return bad(format!(
                "pos has {} entries but the parent level has {parent_count} positions",
                self.pos.len()
            ));
        }
        let ends_right = self.pos.first().map(|p| p.to_usize()) == Some(0)
            && self.pos.last().map(|p| p.to_usize()) == Some(count);
        if !ends_right || self.pos.windows(2).any(|w| w[0] > w[1]) {
            return bad(format!(
                "pos must start at 0, be non-decreasing and end at the {count} pairs"
            ));
        }
        check_half(&self.pairs, 0, self.size)?;
        for w in self.pos.windows(2) {
            let (begin, end) = (w[0].to_usize(), w[1].to_usize());
            if let Some(q) = (begin + 1..end).find(|&q| self.pos_access(q - 1) > self.pos_access(q))
            {
                return bad(format!(
                    "rows are not non-decreasing: pair {} has row {} after row {}",
                    q,
                    self.pos_access(q),
                    self.pos_access(q - 1)
                ));
            }
        }
        Ok(count)
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
        _size: usize,
        _parent_count: usize,
        _crds: &[usize],
        _same_key: &[bool],
        _positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        Err(not_from_entries("CompressedAos"))
    }
}

impl<I: Index> Level for SingletonAos<I> {
    fn properties() -> Properties {
        Properties {
            name: "SingletonAos",
            markers: "",
            full: false,
            ordered: true,
            unique: true,
            branchless: true,
            compact: true,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        if Some(self.pairs.len()) != parent_count.checked_mul(2) {
            return Err(Error::invalid_level(
                0,
                format!(
                    "pairs has {} entries but the parent level has {parent_count} positions",
                    self.pairs.len()
                ),
            ));
        }
        check_half(&self.pairs, 1, self.size)?;
        Ok(parent_count)
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Range<usize> {
        parent_pos..parent_pos + 1
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        self.pos_access(pos)
    }

    fn build(
        _size: usize,
        _parent_count: usize,
        _crds: &[usize],
        _same_key: &[bool],
        _positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        Err(not_from_entries("SingletonAos"))
    }
}
