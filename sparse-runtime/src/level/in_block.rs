//! The in-block level: BCSR's rows and columns inside one block (Chou et al.
//! 2018, figure 4; Chou et al. 2020, section 4, `(i, j) -> (i/R, j/C, i, j)`).
//!
//! A BCSR matrix of `R x C` blocks is the coordinate hierarchy `(I, J, i, j)`:
//! block rows `I` (dense), the block columns `J` of each (compressed), then
//! the rows `i` of block row `I` and the columns `j` of block column `J`. The
//! last two are [`InBlock`] levels: below a parent position they hold the
//! coordinates `a * B .. min((a + 1) * B, size)` of the dimension, `a` the
//! block coordinate two levels up, at the `B` positions the parent owns.
//! They only exist inside [`Bcsr`](crate::Bcsr), whose constructors place
//! them under the right ancestors; they have no public constructor.

use super::{Level, Properties, Sealed};
use crate::Error;
use std::ops::Range;

/// The rows (or columns) of one block of `B` coordinates: below parent
/// position `p` whose ancestor two levels up has coordinate `a`, the
/// coordinates `a * B + r` for the `r < B` that stay below `size`, at
/// positions `p * B + r`.
///
/// Iterated by position; no locate, no assembly. Properties: ordered, unique
/// and compact (a block cut by the matrix edge has a shorter segment; the
/// positions past it belong to no coordinate and are never in a segment);
/// not full, not branchless.
///
/// # Invariants
///
/// Checked by [`Tensor::from_levels`](crate::Tensor::from_levels) under a
/// parent with `n` positions: `n * B` fits `usize`. Every segment is computed
/// with saturating arithmetic and lies inside the parent's `B` positions, so
/// whatever the ancestors hold no position reaches past the level and no
/// coordinate reaches `size`; that the ancestor is the block coordinate of
/// the same dimension (so the coordinates are the block's) holds because only
/// `Bcsr` builds the hierarchy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InBlock<const B: usize> {
    size: usize,
}

impl<const B: usize> InBlock<B> {
    pub(crate) fn new(size: usize) -> InBlock<B> {
        InBlock { size }
    }

    /// The size of the dimension (the matrix's rows or columns).
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// `B`, the length of every segment the end of the dimension does not cut.
    #[inline]
    pub const fn width(&self) -> usize {
        B
    }

    /// Whether every segment has [`width`](Self::width) positions: `B` divides the size. (A
    /// segment's block coordinate is below `size / B` in every hierarchy `Bcsr` builds, whose
    /// dense and compressed levels above have `size / B` coordinates when `B` divides `size`,
    /// so no segment is then cut; generated kernels rely on it to run constant-length loops.)
    #[inline]
    pub fn is_uncut(&self) -> bool {
        self.size.checked_rem(B) == Some(0)
    }

    /// The positions below `parent_pos`, whose block coordinate (the ancestor
    /// two levels up) is `a`: `p * B ..` up to `B` of them, fewer where the
    /// block is cut by the end of the dimension.
    #[inline]
    pub fn pos_bounds(&self, parent_pos: usize, a: usize) -> (usize, usize) {
        let base = parent_pos * B;
        let len = B.min(self.size.saturating_sub(a.saturating_mul(B)));
        (base, base + len)
    }

    /// The coordinate at position `p` of the segment of `parent_pos` with
    /// block coordinate `a`.
    #[inline]
    pub fn pos_access(&self, p: usize, parent_pos: usize, a: usize) -> usize {
        a * B + (p - parent_pos * B)
    }
}

impl<const B: usize> Sealed for InBlock<B> {}

impl<const B: usize> Level for InBlock<B> {
    fn properties() -> Properties {
        Properties {
            name: "InBlock",
            markers: "",
            full: false,
            ordered: true,
            unique: true,
            branchless: false,
            compact: true,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        parent_count
            .checked_mul(B)
            .ok_or_else(|| Error::NotRepresentable {
                detail: format!(
                    "{parent_count} blocks of {B} rows or columns have more than usize::MAX positions"
                ),
            })
    }

    /// The segment as if the block coordinate were 0: the level's segments
    /// depend on an ancestor, so walks that know the path call
    /// [`Level::child_range_under`].
    #[inline]
    fn child_range(&self, parent_pos: usize) -> Range<usize> {
        self.child_range_under(parent_pos, &[])
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        pos % B.max(1)
    }

    #[inline]
    fn child_range_under(&self, parent_pos: usize, path: &[usize]) -> Range<usize> {
        let (begin, end) = self.pos_bounds(parent_pos, block_of(path));
        begin..end
    }

    #[inline]
    fn coord_under(&self, pos: usize, parent_pos: usize, path: &[usize]) -> usize {
        self.pos_access(pos, parent_pos, block_of(path))
    }

    fn build(
        _size: usize,
        _parent_count: usize,
        _crds: &[usize],
        _same_key: &[bool],
        _positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        Err(Error::NotRepresentable {
            detail: "an InBlock level is built by Bcsr's constructors, not from entries".into(),
        })
    }
}

/// The coordinate two levels up, from the coordinates of the ancestors (root
/// first); 0 if there is none.
fn block_of(path: &[usize]) -> usize {
    path.len().checked_sub(2).map_or(0, |k| path[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_clipped_at_the_edge() {
        // 7 rows in blocks of 3: blocks 0 and 1 are whole, block 2 holds row 6 only.
        let l = InBlock::<3>::new(7);
        assert_eq!(l.pos_bounds(4, 1), (12, 15));
        assert_eq!(l.pos_access(13, 4, 1), 4);
        assert_eq!(l.pos_bounds(5, 2), (15, 16));
        assert_eq!(l.pos_access(15, 5, 2), 6);
        // A block coordinate past the dimension has an empty segment, never a coordinate >= size.
        assert_eq!(l.pos_bounds(5, 3), (15, 15));
        assert_eq!(l.pos_bounds(5, usize::MAX), (15, 15));
        assert_eq!(l.child_range_under(5, &[2, 9]), 15..16);
        assert_eq!(l.coord_under(15, 5, &[2, 9]), 6);
    }
}
