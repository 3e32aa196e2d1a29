//! Level formats: one struct per way of storing one level of a coordinate
//! hierarchy (Chou et al. 2018, section 3).
//!
//! Each struct has two faces. Its inherent `#[inline]` *level functions*
//! (`locate`, `pos_bounds`, `pos_access`, `append_*`, ...) are what generated
//! kernels call in hot loops. The [`Level`] trait is the generic face the
//! runtime itself uses to build, validate and enumerate a tensor whatever its
//! level tuple; it is dyn-compatible so that code walking a hierarchy of mixed
//! level types can hold `&dyn Level`.

mod compressed;
mod dense;
mod runs;
mod singleton;

pub use compressed::{Compressed, CompressedNonUnique};
pub use dense::Dense;
pub use singleton::{Singleton, SingletonNonUnique};

use crate::Error;
use std::fmt::Debug;
use std::ops::Range;

/// The properties of a level type (Chou et al. 2018, section 3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Properties {
    /// The level type's name, for error messages.
    pub name: &'static str,
    /// Every parent position has a child for every coordinate in `0..size`.
    pub full: bool,
    /// Siblings (children of equal ancestor coordinates) are in increasing order.
    pub ordered: bool,
    /// Siblings have no duplicate coordinates.
    pub unique: bool,
    /// Every parent position has exactly one child, at the parent's own position.
    pub branchless: bool,
}

mod sealed {
    /// Only this crate's level types are levels: generated kernels know them by name.
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// What the runtime needs from a level to build, validate and enumerate a tensor
/// generically. Sealed: implemented by the five level structs of this crate.
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

    /// Checks this level against its parent's number of positions and returns
    /// its own number of positions (the root "parent" has one position).
    fn position_count(&self, parent_count: usize) -> Result<usize, Error>;

    /// Children positions of `parent_pos`. Requires a level that passed
    /// [`Level::position_count`] and `parent_pos < parent_count`.
    fn child_range(&self, parent_pos: usize) -> Range<usize>;

    /// Coordinate stored at position `pos` (a position of a child range).
    fn coord_at(&self, pos: usize) -> usize;

    /// Builds the level from entries sorted lexicographically by storage
    /// coordinate, without duplicates (Chou et al. 2020, level by level).
    ///
    /// `crds[e]` is entry `e`'s coordinate at this level, each below `size`.
    /// On input `positions[e]` is the entry's position in the parent level
    /// (`< parent_count`); on output it is its position in this level.
    /// Returns the level and its number of positions.
    fn build(
        size: usize,
        parent_count: usize,
        crds: &[usize],
        positions: &mut [usize],
    ) -> Result<(Self, usize), Error>
    where
        Self: Sized;
}
