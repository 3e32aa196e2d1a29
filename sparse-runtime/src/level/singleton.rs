//! Singleton levels: exactly one child per parent position, at the parent's
//! own position, with its coordinate stored in `crd` (COO's trailing levels).

use super::{runs, Level, Markers, NonUnique, Properties, Sealed};
use crate::alloc;
use crate::index::{fits, Index};
use crate::Error;
use std::marker::PhantomData;
use std::ops::Range;

/// A singleton level: one child per parent position, at the parent's own
/// position, its coordinate in `crd` (COO's last level).
///
/// Iterated by position; assembled by append (unless padded). Properties:
/// ordered and branchless; not full; unique unless `P` is [`NonUnique`]
/// ([`SingletonNonUnique`] spells that: the middle levels of a COO tensor of
/// order 3 or more); compact unless `P` is [`Padded`](super::Padded), whose
/// positions may hold the padding `I::MAX` instead of a coordinate (ELL's
/// empty slots; [`Singleton::is_stored`] tells them apart).
///
/// # Invariants
///
/// Checked by [`Tensor::from_levels`](crate::Tensor::from_levels) (the
/// first two also by [`Singleton::from_raw`]), under a parent level with
/// `n` positions:
///
/// - `size` fits `I`;
/// - every `crd[q] < size`, or for a padded level `crd[q] == I::MAX`
///   (padding, never a coordinate since `size` fits `I`);
/// - *branchless*: `crd.len() == n` (one child per parent position);
/// - *ordered*: within each run of a non-unique parent (consecutive parent
///   positions whose ancestors hold equal coordinates) the coordinates are
///   non-decreasing, and *unique* (unless `P` is `NonUnique`): strictly
///   increasing; under a unique parent every run is one position;
/// - as format rules: it is not the first level (it needs a parent), and
///   when non-unique its child level must be branchless, so it is never the
///   last level.
///
/// *Compact* holds by construction for an unpadded level.
///
/// # Size 0
///
/// A singleton level of size 0 under a parent level with at least one
/// position is not representable: it must store a coordinate below 0 for
/// every parent position. So `Tensor::<f64, (Dense, Singleton)>::new(&[3, 0])`
/// is an `Err`, while `(Dense, Compressed)` (which stores an empty segment
/// per row) represents the empty 3x0 matrix. A size-0 singleton under a
/// parent without positions (e.g. in `Coo`, or below a size-0 dense
/// level) is fine.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Singleton<I = u32, P = ()> {
    size: usize,
    crd: Vec<I>,
    markers: PhantomData<P>,
}

impl<I: Index, P: Markers> Singleton<I, P> {
    /// Validates and wraps raw arrays: `size` fits `I` and every
    /// `crd < size`. Ordering relative to the parent's runs and
    /// `crd.len()` against the parent's position count are checked when
    /// the tensor is assembled. Errors report level 0.
    ///
    /// ```
    /// use sparse_runtime::prelude::*;
    ///
    /// // COO's columns, one per entry, below a non-unique level of rows: [0 1 0; 2 0 3].
    /// let rows = CompressedNonUnique::<u32>::from_raw(2, vec![0, 3], vec![0, 1, 1])?;
    /// let cols = Singleton::<u32>::from_raw(3, vec![1, 0, 2])?;
    /// let a = Coo::from_levels(&[2, 3], (rows, cols), vec![1.0, 2.0, 3.0])?;
    /// assert_eq!(a.to_dense(), vec![0.0, 1.0, 0.0, 2.0, 0.0, 3.0]);
    /// assert!(Singleton::<u32>::from_raw(3, vec![1, 0, 5]).is_err()); // 5 is not below 3
    /// # Ok::<(), sparse_runtime::Error>(())
    /// ```
    #[inline]
    pub fn from_raw(size: usize, crd: Vec<I>) -> Result<Self, Error> {
        let size_i = fits::<I>(size)?;
        if let Some(q) = crd
            .iter()
            .position(|&c| c >= size_i && !is_padding::<I, P>(c))
        {
            return Err(Error::invalid_level(
                0,
                format!(
                    "crd[{q}] = {} is not below the level size {size}",
                    crd[q].to_usize()
                ),
            ));
        }
        Ok(Self {
            size,
            crd,
            markers: PhantomData,
        })
    }

    /// Wraps an array without checking it. The result is validated
    /// before it becomes part of a tensor.
    #[cfg(test)]
    pub(crate) fn from_parts_unchecked(size: usize, crd: Vec<I>) -> Self {
        Self {
            size,
            crd,
            markers: PhantomData,
        }
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

    /// Whether position `p` holds a coordinate (always, unless padded);
    /// panics if `p >= len()`.
    #[inline]
    pub fn is_stored(&self, p: usize) -> bool {
        !is_padding::<I, P>(self.crd[p])
    }

    /// [`Self::is_stored`] without bounds checks.
    ///
    /// # Safety
    /// `p < self.len()`.
    #[inline]
    pub unsafe fn is_stored_unchecked(&self, p: usize) -> bool {
        debug_assert!(p < self.crd.len());
        // SAFETY: the caller guarantees p < crd.len().
        !is_padding::<I, P>(unsafe { *self.crd.get_unchecked(p) })
    }

    /// Starts append assembly: drops all coordinates, keeping capacity.
    /// (Positions are the parent's, so there is nothing to size.)
    ///
    /// Assembly is the interface generated kernels use; the result is
    /// checked by [`Tensor::from_levels`](crate::Tensor::from_levels)
    /// like any other level.
    #[doc(hidden)]
    #[inline]
    pub fn append_init(&mut self, parent_size_hint: usize) {
        self.crd.clear();
        self.crd.reserve(parent_size_hint);
    }

    /// Makes room for `entries` more appended coordinates: a bound the kernel computed
    /// from its inputs, allocated at once (with huge pages where large) instead of by
    /// doubling. Only a hint: if the memory cannot be had, appending grows the level.
    #[doc(hidden)]
    #[inline]
    pub fn append_reserve(&mut self, entries: usize) {
        let _ = crate::alloc::reserve(&mut self.crd, entries, "appended coordinates");
    }

    /// Appends coordinate `i` (which must be below `size`; debug builds
    /// assert it) at position `len()`.
    #[doc(hidden)]
    #[inline]
    pub fn append_coord(&mut self, i: usize) {
        debug_assert!(i < self.size, "coordinate {i} >= size {}", self.size);
        self.crd.push(I::from_usize_unchecked(i));
    }
}

impl<I, P> Sealed for Singleton<I, P> {}

impl<I: Index, P: Markers> Level for Singleton<I, P> {
    fn properties() -> Properties {
        Properties {
            name: "Singleton",
            markers: P::LABEL,
            full: false,
            ordered: true,
            unique: P::UNIQUE,
            branchless: true,
            compact: !P::PADDED,
        }
    }

    fn size(&self) -> usize {
        self.size
    }

    fn position_count(&self, parent_count: usize) -> Result<usize, Error> {
        let size_i = fits::<I>(self.size)?;
        if self.size == 0 && parent_count > 0 && !P::PADDED {
            return Err(Error::invalid_level(
                0,
                size_zero_detail("Singleton", parent_count),
            ));
        }
        if self.crd.len() != parent_count {
            return Err(Error::invalid_level(
                0,
                format!(
                    "crd has {} entries but the parent level has {parent_count} positions",
                    self.crd.len()
                ),
            ));
        }
        if let Some(q) = self
            .crd
            .iter()
            .position(|&c| c >= size_i && !is_padding::<I, P>(c))
        {
            return Err(Error::invalid_level(
                0,
                format!(
                    "crd[{q}] = {} is not below the level size {}",
                    self.crd[q].to_usize(),
                    self.size
                ),
            ));
        }
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

    #[inline]
    fn is_stored(&self, pos: usize) -> bool {
        Singleton::is_stored(self, pos)
    }

    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        _same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error> {
        let crd = build_crd::<I>("Singleton", size, parent_count, crds, positions, P::PADDED)?;
        Ok((
            Self {
                size,
                crd,
                markers: PhantomData,
            },
            parent_count,
        ))
    }
}

/// A non-unique [`Singleton`] level: within one parent run, coordinates may repeat.
pub type SingletonNonUnique<I = u32> = Singleton<I, NonUnique>;

/// A padded [`Singleton`] level: a position may hold no coordinate (ELL's columns).
pub type SingletonPadded<I = u32> = Singleton<I, super::Padded>;

impl<I: Index, P: Markers> Singleton<I, P> {
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

/// Why a singleton level of size 0 under `parent_count > 0` parent positions
/// is not representable, and what to use instead.
fn size_zero_detail(name: &str, parent_count: usize) -> String {
    format!(
        "a {name} level of size 0 cannot be stored under {parent_count} parent positions: it holds one coordinate below its size for every parent position, and no coordinate is below 0; store an empty dimension in a Compressed level instead (e.g. (Dense, Compressed) for an n x 0 matrix)"
    )
}

/// The `crd` array of a singleton level built from sorted entries (see
/// [`Level::build`]); entry positions stay their parents' positions.
///
/// Entries under one parent position share it, so they must agree on this
/// level's coordinate; two that do not cannot be held apart. A parent position
/// without an entry (possible only under a dense level) gets the padding `I::MAX`
/// if the level is padded, else coordinate 0, whose value the tensor then stores
/// as an explicit zero.
fn build_crd<I: Index>(
    name: &str,
    size: usize,
    parent_count: usize,
    crds: &[usize],
    positions: &[usize],
    padded: bool,
) -> Result<Vec<I>, Error> {
    fits::<I>(size)?;
    if size == 0 && parent_count > 0 && !padded {
        return Err(Error::NotRepresentable {
            detail: size_zero_detail(name, parent_count),
        });
    }
    let fill = if padded {
        I::from_usize_unchecked(I::max_usize())
    } else {
        I::default()
    };
    let mut crd = alloc::filled(parent_count, fill, "crd")?;
    for e in 0..positions.len() {
        let p = positions[e];
        if e > 0 && positions[e - 1] == p && crds[e - 1] != crds[e] {
            return Err(Error::NotRepresentable {
                detail: format!(
                    "coordinates {} and {} share parent position {p} of a {name} level, which holds one coordinate per parent position",
                    crds[e - 1],
                    crds[e]
                ),
            });
        }
        let slot = crd.get_mut(p).ok_or_else(|| {
            Error::invalid_level(
                0,
                format!("entry position {p} is not below the parent's {parent_count} positions"),
            )
        })?;
        *slot = I::from_usize_unchecked(crds[e]);
    }
    Ok(crd)
}

/// Whether `c` is the padding of a padded level (`I::MAX`; never a coordinate,
/// since a level's size fits `I`).
#[inline]
fn is_padding<I: Index, P: Markers>(c: I) -> bool {
    P::PADDED && c.to_usize() == I::max_usize()
}
