//! Singleton levels: exactly one child per parent position, at the parent's
//! own position, with its coordinate stored in `crd` (COO's trailing levels).

use super::{runs, Level, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::Error;
use std::ops::Range;

/// Defines a singleton level struct; the two variants differ only in whether
/// the children of one parent run must be strictly increasing or non-decreasing.
macro_rules! singleton_level {
    ($(#[$doc:meta])* $name:ident, unique = $unique:expr) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub struct $name<I = u32> {
            size: usize,
            crd: Vec<I>,
        }

        impl<I: Index> $name<I> {
            /// Validates and wraps raw arrays: `size` fits `I` and every
            /// `crd < size`. Ordering relative to the parent's runs and
            /// `crd.len()` against the parent's position count are checked when
            /// the tensor is assembled. Errors report level 0.
            #[inline]
            pub fn from_raw(size: usize, crd: Vec<I>) -> Result<Self, Error> {
                let size_i = fits::<I>(size)?;
                if let Some(q) = crd.iter().position(|&c| c >= size_i) {
                    return Err(Error::invalid_level(0, format!(
                        "crd[{q}] = {} is not below the level size {size}",
                        crd[q].to_usize()
                    )));
                }
                Ok(Self { size, crd })
            }

            /// Size of the dimension.
            #[inline]
            pub fn size(&self) -> usize {
                self.size
            }

            /// The coordinate of each position.
            #[inline]
            pub fn crd(&self) -> &[I] {
                &self.crd
            }

            /// Number of positions (`crd.len()`, equal to the parent's).
            #[inline]
            pub fn len(&self) -> usize {
                self.crd.len()
            }

            /// Whether the level holds no positions.
            #[inline]
            pub fn is_empty(&self) -> bool {
                self.crd.is_empty()
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

            /// Starts assembly: drops all coordinates, keeping capacity.
            /// (Positions are the parent's, so there is nothing to size.)
            #[inline]
            pub fn append_init(&mut self, parent_size_hint: usize) {
                self.crd.clear();
                self.crd.reserve(parent_size_hint);
            }

            /// Appends coordinate `i` (which must be below `size`) at position `len()`.
            #[inline]
            pub fn append_coord(&mut self, i: usize) {
                debug_assert!(i < self.size, "coordinate {i} >= size {}", self.size);
                self.crd.push(I::from_usize_unchecked(i));
            }
        }

        impl<I> Sealed for $name<I> {}

        impl<I: Index> Level for $name<I> {
            fn properties() -> Properties {
                Properties {
                    name: stringify!($name),
                    full: false,
                    ordered: true,
                    unique: $unique,
                    branchless: true,
                }
            }

            fn size(&self) -> usize {
                self.size
            }

            fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
                if self.crd.len() != parent_count {
                    return Err(Error::invalid_level(0, format!(
                        "crd has {} entries but the parent level has {parent_count} positions",
                        self.crd.len()
                    )));
                }
                Ok(parent_count)
            }

            fn child_range(&self, parent_pos: usize) -> Range<usize> {
                parent_pos..parent_pos + 1
            }

            fn coord_at(&self, pos: usize) -> usize {
                self.pos_access(pos)
            }

            fn build(
                size: usize,
                parent_count: usize,
                crds: &[usize],
                positions: &mut [usize],
            ) -> Result<(Self, usize), Error> {
                let crd = build_crd::<I>(size, parent_count, crds, positions)?;
                Ok((Self { size, crd }, parent_count))
            }
        }
    };
}

singleton_level!(
    /// A singleton level whose children within one parent run are strictly
    /// increasing (COO's last level).
    ///
    /// Ordered, unique, branchless; iterated by position; assembled by append.
    Singleton,
    unique = true
);

singleton_level!(
    /// A singleton level whose children within one parent run may repeat (the
    /// middle levels of a COO tensor of order 3 or more). Its child level must be
    /// a singleton level.
    ///
    /// Ordered, not unique, branchless; iterated by position; assembled by append.
    SingletonNonUnique,
    unique = false
);

impl<I: Index> SingletonNonUnique<I> {
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
        // SAFETY: the caller upholds run_end_unchecked's contract, which is ours.
        unsafe { runs::run_end_unchecked(&self.crd, p, end) }
    }
}

/// The `crd` array of a singleton level built from sorted entries (see
/// [`Level::build`]); entry positions stay their parents' positions.
///
/// A parent position without an entry (possible only under a dense level) gets
/// the padding coordinate 0, whose value the tensor stores as an explicit zero,
/// as ELL does. Two entries under one parent position cannot be held apart.
fn build_crd<I: Index>(
    size: usize,
    parent_count: usize,
    crds: &[usize],
    positions: &[usize],
) -> Result<Vec<I>, Error> {
    fits::<I>(size)?;
    if size == 0 && parent_count > 0 {
        return Err(Error::NotRepresentable {
            detail: format!(
                "a singleton level of size 0 cannot pad its {parent_count} parent positions"
            ),
        });
    }
    let mut crd = alloc::filled(parent_count, I::default(), "crd")?;
    for e in 0..positions.len() {
        let p = positions[e];
        if e > 0 && positions[e - 1] == p {
            return Err(Error::NotRepresentable {
                detail: format!(
                    "coordinates {} and {} share parent position {p} of a singleton level, which holds one coordinate per parent position",
                    crds[e - 1],
                    crds[e]
                ),
            });
        }
        crd[p] = I::from_usize_unchecked(crds[e]);
    }
    Ok(crd)
}
