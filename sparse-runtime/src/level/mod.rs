//! Level formats: one struct per way of storing one level of a coordinate
//! hierarchy (Chou et al. 2018, section 3).
//!
//! Each struct has two faces. Its inherent `#[inline]` *level functions*
//! (`locate`, `pos_bounds`, `pos_access`, `append_*`, ...) are what generated
//! kernels call in hot loops. The [`Level`] trait is the generic face the
//! runtime itself uses to build, validate and enumerate a tensor whatever its
//! level tuple; it is dyn-compatible so that code walking a hierarchy of mixed
//! level types can hold `&dyn Level`.
//!
//! Each level struct's documentation lists the invariants it keeps. Every one
//! of them is checked by [`Tensor::from_levels`](crate::Tensor::from_levels)
//! (and by everything else that produces a [`Tensor`](crate::Tensor)),
//! whatever produced the level: `from_raw`, the append assembly functions,
//! or [`Level::build`]. Kernels rely on them to read without bounds checks.

mod aos;
mod compressed;
mod dense;
mod diagonal;
mod hashed;
mod in_block;
mod markers;
mod runs;
mod singleton;
mod slotted;

pub use aos::{CompressedAos, SingletonAos};
pub use compressed::{Compressed, CompressedNonUnique};
pub use dense::Dense;
pub(crate) use diagonal::{check_offsets, rows_of as diagonal_rows};
pub use diagonal::{Offset, Range};
pub use hashed::Hashed;
pub use in_block::InBlock;
pub use markers::{Markers, NonUnique, Padded, Unordered};
pub use singleton::{Singleton, SingletonNonUnique, SingletonPadded};
pub use slotted::Slotted;

use crate::Error;
use std::fmt::Debug;
use std::ops::Range as Span;

/// The segment `pos[p]..pos[p + 1]` of a level with a `pos` array, as
/// `(begin, end)`; panics if `p + 1 >= pos.len()`.
#[inline]
fn segment<I: crate::Index>(pos: &[I], p: usize) -> (usize, usize) {
    (pos[p].to_usize(), pos[p + 1].to_usize())
}

/// [`segment`] without bounds checks.
///
/// # Safety
/// `p + 1 < pos.len()`.
#[inline]
unsafe fn segment_unchecked<I: crate::Index>(pos: &[I], p: usize) -> (usize, usize) {
    debug_assert!(p + 1 < pos.len());
    // SAFETY: the caller guarantees p + 1 < pos.len(), so both reads are in bounds.
    unsafe {
        (
            pos.get_unchecked(p).to_usize(),
            pos.get_unchecked(p + 1).to_usize(),
        )
    }
}

/// The properties of a level type (Chou et al. 2018, section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Properties {
    /// The level kind's name, for error messages.
    pub name: &'static str,
    /// Its property markers as written in its type (`"NonUnique"`), or `""`.
    pub markers: &'static str,
    /// Every parent position has a child for every coordinate in `0..size`.
    pub full: bool,
    /// Siblings (children of equal ancestor coordinates) are in increasing order.
    pub ordered: bool,
    /// Siblings have no duplicate coordinates.
    pub unique: bool,
    /// Every parent position has exactly one child, at the parent's own position.
    pub branchless: bool,
    /// No two coordinates are separated by a position that encodes no
    /// coordinate (unlike a hash level's empty buckets).
    pub compact: bool,
}

/// The level type as a user writes it: `Compressed` or `Compressed<_, NonUnique>`.
impl std::fmt::Display for Properties {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.markers {
            "" => f.write_str(self.name),
            markers => write!(f, "{}<_, {markers}>", self.name),
        }
    }
}

mod sealed {
    /// Only this crate's level types are levels: generated kernels know them by name.
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// What the runtime needs from a level to build, validate and enumerate a tensor
/// generically. Sealed: implemented by the level structs of this crate.
///
/// Positions and coordinates are `usize`. A level's positions are numbered
/// `0..position_count(parent_count)`; the children of parent position `p` are
/// the contiguous range `child_range(p)`, and children ranges of increasing
/// parents are increasing, so a level's positions are in hierarchy order.
pub trait Level: Debug + Send + Sync + 'static + Sealed {
    /// The level type's properties.
    fn properties() -> Properties
    where
        Self: Sized;

    /// Size of the dimension this level stores (coordinates are below it).
    fn size(&self) -> usize;

    /// Checks every invariant of this level that involves no other level,
    /// given its parent's number of positions (the root "parent" has one
    /// position), and returns its own number of positions.
    ///
    /// What is left for the hierarchy (and checked by
    /// [`Tensor::from_levels`](crate::Tensor::from_levels)): the size against
    /// the shape, and sibling order across the runs of a non-unique parent.
    fn position_count(&self, parent_count: usize) -> Result<usize, Error>;

    /// Children positions of `parent_pos`. Requires a level that passed
    /// [`Level::position_count`] and `parent_pos < parent_count`.
    fn child_range(&self, parent_pos: usize) -> Span<usize>;

    /// Coordinate stored at position `pos` (a position of a child range).
    /// Meaningful only where [`Level::is_stored`].
    fn coord_at(&self, pos: usize) -> usize;

    /// [`Level::child_range`] for a walk that knows `path`, the coordinates of
    /// this level's ancestors (root first). A level whose segments depend on
    /// an ancestor's coordinate ([`InBlock`]) overrides it; such a level is
    /// unique and ordered and never below a non-unique one, so the walks that
    /// know no path (sibling checks across runs, reordering) never meet it.
    fn child_range_under(&self, parent_pos: usize, path: &[usize]) -> Span<usize> {
        let _ = path;
        self.child_range(parent_pos)
    }

    /// [`Level::coord_at`] for a walk that knows the parent position and the
    /// ancestors' coordinates `path` (root first); see
    /// [`Level::child_range_under`].
    fn coord_under(&self, pos: usize, parent_pos: usize, path: &[usize]) -> usize {
        let _ = (parent_pos, path);
        self.coord_at(pos)
    }

    /// Whether position `pos` (of a child range) holds a coordinate. Every
    /// position of a compact level does; a hashed level's empty buckets do
    /// not, and neither they nor anything below them is a stored component.
    fn is_stored(&self, pos: usize) -> bool {
        let _ = pos;
        true
    }

    /// Builds the level from entries sorted lexicographically by storage
    /// coordinate, without duplicates (Chou et al. 2020, level by level).
    ///
    /// `crds[e]` is entry `e`'s coordinate at this level, each below `size`.
    /// `same_key[e]` (for `e > 0`) says that entry `e` agrees with entry
    /// `e - 1` on this level's *key*: its own coordinate, and for a non-unique
    /// level also the coordinates of the branchless levels right below it
    /// down to the first unique one (together they store one coordinate
    /// tuple). A level that creates positions gives entries one position per
    /// distinct (parent position, key).
    /// On input `positions[e]` is the entry's position in the parent level
    /// (`< parent_count`, non-decreasing); on output it is its position in
    /// this level. Returns the level and its number of positions.
    ///
    /// Not a validating constructor: its inputs are trusted to meet the
    /// requirements above, and its result reaches a tensor only through the
    /// same checks as [`Tensor::from_levels`](crate::Tensor::from_levels).
    #[doc(hidden)]
    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        same_key: &[bool],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error>
    where
        Self: Sized;

    /// Counted assembly as the last level of a format, below `parent_count`
    /// positions of full levels (Chou et al. 2020, section 6): the level's
    /// attribute queries are answered by passes over `entries`, it is
    /// allocated once, and each entry is inserted where the level's
    /// `yield_pos` puts it, in whatever order the entries come. Returns the
    /// level and one value per position, or `None` if the level has no
    /// counted assembly (it is then built from sorted entries by
    /// [`Level::build`]). Not a validating constructor either.
    #[doc(hidden)]
    fn assemble_counted<V: crate::Value, S: crate::convert::Scatter<V>>(
        size: usize,
        parent_count: usize,
        entries: &S,
    ) -> Option<Result<(Self, Vec<V>), Error>>
    where
        Self: Sized,
    {
        let _ = (size, parent_count, entries);
        None
    }
}
