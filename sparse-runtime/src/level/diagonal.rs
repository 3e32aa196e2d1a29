//! Range and Offset levels (Chou et al. 2018, section 3, Figure 3c): DIA's rows
//! and columns, both computed from one array of diagonal offsets.
//!
//! A DIA matrix with `K` stored diagonals is the coordinate hierarchy
//! `(d, i, j)`: a dense level over the diagonal numbers `d`, a [`Range`] level
//! over the rows each diagonal crosses, and an [`Offset`] level giving the
//! column `j = i + offset[d]`. Both levels read the same offsets, so they only
//! exist inside [`Dia`](crate::Dia), whose constructors give them one array;
//! neither has a public constructor.

use super::{Level, Properties, Sealed};
use crate::Error;
use std::ops::Range as Span;

/// The rows a diagonal with offset `off` crosses in an `n x m` matrix:
/// `max(0, -off) .. min(n, m - off)`. Requires `-n < off < m`, so the range is
/// not empty and every `i + off` in it is a column below `m`.
#[inline]
pub(crate) fn rows_of(n: usize, m: usize, off: isize) -> Span<usize> {
    let a = off.unsigned_abs();
    // Rows with 0 <= i + off < m: i >= -off, and i < m - off.
    let (lo, end) = if off < 0 {
        (a, m.saturating_add(a))
    } else {
        (0, m - a)
    };
    lo..n.min(end)
}

/// DIA's row level: below the diagonal `d` (its parent, at position `d`), the
/// rows the diagonal crosses, at positions `d * rows + i`.
///
/// Iterated by position; no locate, no assembly. Properties: ordered and
/// unique; not full, not branchless, and not compact: the slots of a
/// diagonal outside the matrix are positions no parent reaches (every
/// position of a parent's range holds a coordinate, so iteration tests none).
///
/// # Invariants
///
/// Kept by [`Dia`](crate::Dia)'s constructors, which build it, and checked
/// again by [`Tensor::from_levels`](crate::Tensor::from_levels) under a
/// parent with `K` positions: `offsets.len() == K`; offsets strictly
/// increasing; every offset `-rows < off < cols`; `K * rows` fits `usize`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Range {
    rows: usize,
    cols: usize,
    offsets: Vec<isize>,
}

impl Range {
    pub(crate) fn new(rows: usize, cols: usize, offsets: Vec<isize>) -> Range {
        Range {
            rows,
            cols,
            offsets,
        }
    }

    /// The number of rows (the level's size).
    #[inline]
    pub fn size(&self) -> usize {
        self.rows
    }

    /// The offset of each stored diagonal, increasing.
    #[inline]
    pub fn offsets(&self) -> &[isize] {
        &self.offsets
    }

    /// The positions below parent position `parent_pos`, the diagonal `d`.
    ///
    /// # Safety
    /// `d` is a diagonal number below `offsets().len()` and `parent_pos` its
    /// position in a validated hierarchy.
    #[inline]
    pub unsafe fn pos_bounds_unchecked(&self, parent_pos: usize, d: usize) -> (usize, usize) {
        debug_assert!(d < self.offsets.len());
        // SAFETY: the caller guarantees d < offsets.len().
        let off = unsafe { *self.offsets.get_unchecked(d) };
        let rows = rows_of(self.rows, self.cols, off);
        let base = parent_pos * self.rows;
        (base + rows.start, base + rows.end)
    }

    /// The row at position `p` below parent position `parent_pos`.
    ///
    /// # Safety
    /// None for memory; `p` is a position of `pos_bounds_unchecked(parent_pos, _)`.
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, p: usize, parent_pos: usize) -> usize {
        p - parent_pos * self.rows
    }
}

impl Sealed for Range {}

impl Level for Range {
    fn properties() -> Properties {
        Properties {
            name: "Range",
            markers: "",
            full: false,
            ordered: true,
            unique: true,
            branchless: false,
            compact: false,
        }
    }

    fn size(&self) -> usize {
        self.rows
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        check_offsets(self.rows, self.cols, &self.offsets)?;
        if self.offsets.len() != parent_count {
            return Err(Error::invalid_level(
                0,
                format!(
                    "{} offsets but the parent level has {parent_count} positions",
                    self.offsets.len()
                ),
            ));
        }
        parent_count
            .checked_mul(self.rows)
            .ok_or_else(|| Error::NotRepresentable {
                detail: format!(
                    "{parent_count} diagonals of {} rows have more than usize::MAX positions",
                    self.rows
                ),
            })
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Span<usize> {
        // The parent is the dense level of diagonals: position = diagonal number.
        let rows = rows_of(self.rows, self.cols, self.offsets[parent_pos]);
        let base = parent_pos * self.rows;
        base + rows.start..base + rows.end
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        pos % self.rows
    }

    fn build(
        _size: usize,
        _parent_count: usize,
        _crds: &[usize],
        _same_key: &[bool],
        _positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        Err(Error::NotRepresentable {
            detail: "a Range level is built by Dia's constructors, not from entries".into(),
        })
    }
}

/// Checks DIA's offsets for an `rows x cols` matrix: strictly increasing, each
/// diagonal crossing the matrix (`-rows < off < cols`).
pub(crate) fn check_offsets(rows: usize, cols: usize, offsets: &[isize]) -> Result<(), Error> {
    for (d, &off) in offsets.iter().enumerate() {
        let crosses = match off < 0 {
            true => off.unsigned_abs() < rows,
            false => off.unsigned_abs() < cols,
        };
        if !crosses || rows_of(rows, cols, off).is_empty() {
            return Err(Error::invalid_level(
                0,
                format!("offsets[{d}] = {off} is not the offset of a diagonal of a {rows} x {cols} matrix"),
            ));
        }
        if d > 0 && offsets[d - 1] >= off {
            return Err(Error::invalid_level(
                0,
                format!(
                    "offsets[{d}] = {off} after {}: offsets must be strictly increasing",
                    offsets[d - 1]
                ),
            ));
        }
    }
    Ok(())
}

/// DIA's column level: one coordinate per parent position, the row `i` of the
/// parent shifted by the offset of the diagonal `d` above it, `i + offset[d]`.
///
/// Iterated by position; no locate, no assembly. Properties: ordered, unique
/// and branchless; not full; not compact, as its parent [`Range`] is not.
///
/// # Invariants
///
/// Kept by [`Dia`](crate::Dia)'s constructors and checked again by
/// [`Tensor::from_levels`](crate::Tensor::from_levels) under a parent with
/// `n` positions: `n == offsets.len() * rows`, offsets valid as for
/// [`Range`]. That its offsets are its parent `Range`'s (so every column is
/// below `cols`) holds because only `Dia` builds both, from one array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Offset {
    rows: usize,
    cols: usize,
    offsets: Vec<isize>,
}

impl Offset {
    pub(crate) fn new(rows: usize, cols: usize, offsets: Vec<isize>) -> Offset {
        Offset {
            rows,
            cols,
            offsets,
        }
    }

    /// The number of columns (the level's size).
    #[inline]
    pub fn size(&self) -> usize {
        self.cols
    }

    /// The column at position `p`, below row `i` of diagonal `d`.
    ///
    /// # Safety
    /// `d < offsets.len()` and `i` a row in the diagonal's range (then the
    /// column is below `size()`).
    #[inline]
    pub unsafe fn pos_access_unchecked(&self, _p: usize, i: usize, d: usize) -> usize {
        debug_assert!(d < self.offsets.len());
        // SAFETY: the caller guarantees d < offsets.len().
        let off = unsafe { *self.offsets.get_unchecked(d) };
        i.wrapping_add_signed(off)
    }
}

impl Sealed for Offset {}

impl Level for Offset {
    fn properties() -> Properties {
        Properties {
            name: "Offset",
            markers: "",
            full: false,
            ordered: true,
            unique: true,
            branchless: true,
            compact: false,
        }
    }

    fn size(&self) -> usize {
        self.cols
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        check_offsets(self.rows, self.cols, &self.offsets)?;
        if Some(parent_count) != self.offsets.len().checked_mul(self.rows) {
            return Err(Error::invalid_level(
                0,
                format!(
                    "{} diagonals of {} rows but the parent level has {parent_count} positions",
                    self.offsets.len(),
                    self.rows
                ),
            ));
        }
        Ok(parent_count)
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Span<usize> {
        parent_pos..parent_pos + 1
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        // Positions are `d * rows + i` (rows > 0 wherever a position exists).
        let (d, i) = (pos / self.rows, pos % self.rows);
        i.wrapping_add_signed(self.offsets[d])
    }

    fn build(
        _size: usize,
        _parent_count: usize,
        _crds: &[usize],
        _same_key: &[bool],
        _positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        Err(Error::NotRepresentable {
            detail: "an Offset level is built by Dia's constructors, not from entries".into(),
        })
    }
}
