//! The dense level: every coordinate in `0..size` under every parent.

use super::{Level, Properties, Sealed};
use crate::Error;
use std::ops::Range;

/// A dense level stores only its size: parent position `p` has children
/// `p * size .. (p + 1) * size`, the child at `p * size + i` holding coordinate `i`.
///
/// Iterated by coordinate value; supports locate and insert. Properties:
/// full, ordered, unique and compact; not branchless.
///
/// # Invariants
///
/// Checked by [`Tensor::from_levels`](crate::Tensor::from_levels), under a
/// parent level with `n` positions:
///
/// - its position count `n * size` fits `usize` (so `locate` never
///   overflows for a parent position below `n` and a coordinate below `size`).
///
/// *Full*, *ordered*, *unique* and *compact* hold by construction: the level
/// stores no coordinates, every coordinate `0..size` is implied under every
/// parent in increasing order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dense {
    size: usize,
}

impl Dense {
    /// A dense level over coordinates `0..size`.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// let rows = Dense::new(3);
    /// // Coordinate 2 under parent position 1 is position 1 * 3 + 2.
    /// assert_eq!((rows.size(), rows.locate(1, 2)), (3, 5));
    /// ```
    #[inline]
    pub fn new(size: usize) -> Dense {
        Dense { size }
    }

    /// Size of the dimension.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Position of coordinate `i` under parent position `parent_pos`.
    #[inline]
    pub fn locate(&self, parent_pos: usize, i: usize) -> usize {
        parent_pos * self.size + i
    }

    /// `parent_count * size`, or `Err` when the product overflows `usize`.
    fn checked_count(&self, parent_count: usize) -> Result<usize, Error> {
        parent_count
            .checked_mul(self.size)
            .ok_or_else(|| Error::NotRepresentable {
                detail: format!(
                    "a dense level of size {} under {parent_count} parent positions has more than usize::MAX positions",
                    self.size
                ),
            })
    }
}

impl Sealed for Dense {}

impl Level for Dense {
    fn properties() -> Properties {
        Properties {
            name: "Dense",
            markers: "",
            full: true,
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
        self.checked_count(parent_count)
    }

    #[inline]
    fn child_range(&self, parent_pos: usize) -> Range<usize> {
        let begin = parent_pos * self.size;
        begin..begin + self.size
    }

    #[inline]
    fn coord_at(&self, pos: usize) -> usize {
        pos % self.size
    }

    /// A walk knows the parent: no division.
    #[inline]
    fn coord_under(&self, pos: usize, parent_pos: usize, _path: &[usize]) -> usize {
        pos - parent_pos * self.size
    }

    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        _same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        let level = Dense::new(size);
        let count = level.checked_count(parent_count)?;
        for (p, &i) in positions.iter_mut().zip(crds) {
            *p = level.locate(*p, i);
        }
        Ok((level, count))
    }

    /// Insertion needs no query: every position exists, and each entry is
    /// added at `parent * size + i` (repeated coordinates summed).
    fn assemble_counted<V: crate::Value, S: crate::convert::Scatter<V>>(
        size: usize,
        parent_count: usize,
        entries: &S,
    ) -> Option<Result<(Self, Vec<V>), Error>> {
        let level = Dense::new(size);
        let built = level.checked_count(parent_count).and_then(|count| {
            let mut vals = crate::alloc::filled(count, V::zero(), "vals")?;
            let mut stray = false;
            entries.each(
                |p, i, v| match vals.get_mut(p.wrapping_mul(size).wrapping_add(i)) {
                    Some(val) => *val = *val + v,
                    None => stray = true,
                },
            );
            match stray {
                false => Ok((level, vals)),
                true => Err(Error::NotRepresentable {
                    detail: "an entry lies outside the dense level".into(),
                }),
            }
        });
        Some(built)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locate_and_children() {
        let d = Dense::new(4);
        assert_eq!(d.size(), 4);
        assert_eq!(d.locate(2, 3), 11);
        assert_eq!(d.child_range(2), 8..12);
        assert_eq!(d.coord_at(11), 3);
        assert_eq!(d.position_count(3), Ok(12));
    }

    #[test]
    fn build_places_entries_at_parent_times_size_plus_i() {
        let mut positions = vec![0, 1, 1];
        let (d, count) = Dense::build(5, 2, &[4, 0, 2], &[false; 3], &mut positions).unwrap();
        assert_eq!(d, Dense::new(5));
        assert_eq!(count, 10);
        assert_eq!(positions, [4, 5, 7]);
    }

    #[test]
    fn position_count_overflow_is_an_error() {
        let e = Dense::new(usize::MAX).position_count(2).unwrap_err();
        assert!(matches!(e, Error::NotRepresentable { .. }));
        assert!(Dense::build(usize::MAX, 3, &[], &[], &mut []).is_err());
    }
}
