//! Property markers: the type parameter that configures a level's configurable
//! properties (Chou et al. 2018, Table 1, the "(✓)" entries). The macro reads
//! them from a type's spelling, and the level's validation enforces them.

use super::Sealed;
use std::fmt::Debug;
use std::hash::Hash;

/// The properties a marker type configures. Sealed: implemented by `()` (no
/// marker: the kind's defaults) and by the marker types of this crate.
pub trait Markers:
    Sealed + Clone + Copy + Debug + Default + PartialEq + Eq + Hash + Send + Sync + 'static
{
    /// Siblings have no duplicate coordinates.
    const UNIQUE: bool;
    /// Positions may hold no coordinate (a singleton level's padding, as in ELL).
    const PADDED: bool = false;
    /// Siblings are in increasing coordinate order.
    const ORDERED: bool = true;
    /// The markers as written in a type (`""` for none), for messages.
    const LABEL: &'static str;
}

impl Sealed for () {}

impl Markers for () {
    const UNIQUE: bool = true;
    const LABEL: &'static str = "";
}

/// Marks a level as *not unique*: siblings may repeat a coordinate (COO's
/// levels above the last). `Compressed<u32, NonUnique>` is COO's first level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct NonUnique;

impl Sealed for NonUnique {}

impl Markers for NonUnique {
    const UNIQUE: bool = false;
    const LABEL: &'static str = "NonUnique";
}

/// Marks a [`Singleton`](super::Singleton) level as *padded* (not compact): a
/// position may hold no coordinate, its `crd` entry then being `I::MAX`, never
/// a coordinate. ELL's column level is `Singleton<u32, Padded>`: rows with
/// fewer entries than slots leave slots empty, and iteration skips them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Padded;

impl Sealed for Padded {}

impl Markers for Padded {
    const UNIQUE: bool = true;
    const PADDED: bool = true;
    const LABEL: &'static str = "Padded";
}

/// Marks a [`Compressed`](super::Compressed) level as *unordered*: the
/// coordinates of a segment may come in any order (still unique). Data
/// arriving unsorted per row (a scatter into CSR rows, a hash-ordered
/// export) is stored as it is, without a sort; a kernel visits such a segment
/// in storage order where order does not matter (a dense or accumulating
/// result), and through a sorted copy where it merges it with other operands
/// or appends a sparse output along it (Chou et al. 2018, 4.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Unordered;

impl Sealed for Unordered {}

impl Markers for Unordered {
    const UNIQUE: bool = true;
    const ORDERED: bool = false;
    const LABEL: &'static str = "Unordered";
}
