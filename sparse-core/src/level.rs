//! Level kinds as declarations (Chou et al. 2018, section 3, Tables 1–3).
//!
//! Each level kind of the runtime is declared here once: how it iterates, whether it can
//! locate, how it is assembled, its properties (and which of them a type spelling configures),
//! and the level functions it provides under their runtime names. Every later pass asks these
//! declarations questions through [`LevelFormat`](crate::format::LevelFormat) ("can this level
//! locate?", "what is this level's `pos_bounds`?") and never matches on a kind's name, so a new
//! level kind is a runtime struct plus one declaration below.

/// How a level enumerates its coordinates (section 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iteration {
    /// Iterate coordinates in `coord_bounds` and compute positions from them.
    CoordinateValue,
    /// Iterate positions in `pos_bounds` and read coordinates from them.
    CoordinatePosition,
}

/// How an output level is assembled (section 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assembly {
    /// Positions are computed from coordinates; values are written in place.
    Insert,
    /// Coordinates are appended in order and segments closed by edges.
    Append,
}

/// A property of a level kind (section 3.3): fixed, or configured by the type spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// Every level of the kind has it.
    Always,
    /// No level of the kind has it.
    Never,
    /// Levels have `default` unless their type carries `marker`, which flips it.
    Configurable {
        /// The property of a level whose type carries no marker for it.
        default: bool,
        /// The runtime's marker type that flips it (`NonUnique`).
        marker: &'static str,
    },
}

impl Property {
    /// The property's value for a level whose type carries `markers`.
    pub fn resolve(self, markers: &[&str]) -> bool {
        match self {
            Property::Always => true,
            Property::Never => false,
            Property::Configurable { default, marker } => default != markers.contains(&marker),
        }
    }

    /// The marker that configures it, if it is configurable.
    pub fn marker(self) -> Option<&'static str> {
        match self {
            Property::Configurable { marker, .. } => Some(marker),
            _ => None,
        }
    }
}

/// A level function (Tables 2–3), by what it computes. The arguments are the paper's:
/// the lowering passes them in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelFn {
    /// `pos_bounds(parent_pos) -> (begin, end)`: the child positions of a parent position.
    /// Only called with a parent position of a validated hierarchy.
    PosBounds,
    /// `pos_access(pos) -> coord`: the coordinate at a position in `pos_bounds`.
    PosAccess,
    /// `run_end(pos, end) -> pos`: the end of the run of equal coordinates starting at `pos`
    /// within `pos..end` (iterator chaining over a non-unique level, section 4.3).
    RunEnd,
    /// `locate(parent_pos, coord)`: the position of a coordinate below a parent. A full level
    /// stores every coordinate and returns the position; any other returns `(pos, found)`,
    /// the position meaningful only where `found` (Table 2's `locate` result pair).
    Locate,
    /// `is_stored(pos) -> bool`: whether a position in `pos_bounds` holds a coordinate (a
    /// level that is not compact, such as a hash table's empty buckets, has some that do not).
    Stored,
    /// `insert_init(parent_count, keep, vals) -> Result`: starts insert assembly of a level that
    /// is not full (a full one needs none): empties it unless `keep` (`+=`), one zero value
    /// per position.
    InsertInit,
    /// `insert(parent_pos, coord, vals) -> Result<pos>`: the position of a coordinate below a
    /// parent, inserted (value zero) if absent; may move every position and its value.
    InsertCoord,
    /// `append_init(parent_size_hint)`: starts append assembly.
    AppendInit,
    /// `append_reserve(entries)`: makes room for that many appended positions, a bound the
    /// kernel computed from its inputs (a hint: appending past it grows the level).
    AppendReserve,
    /// `append_bounded(entries) -> Result<writer>`: after `append_reserve(entries)`, takes
    /// the level's coordinates out into room for that many more, written with a check per
    /// coordinate instead of a growing push (`crate::bounded`); the writer has the level's
    /// `len`, `append_coord(s)`, `append_edges` and `append_finalize`.
    AppendBounded,
    /// `append_bounded_entries(vals, entries) -> Result<writer>`: `append_bounded` for the
    /// level every appended coordinate of which comes with the output's value; the writer
    /// also takes the values and appends both under one count with `append_entry(coord,
    /// value)`, and gives both back in its `append_finalize`.
    AppendBoundedEntries,
    /// `positions_below(lo, hi) -> usize`: the number of positions below the parent
    /// positions `lo..hi` (`pos[hi] - pos[lo]`), for a bound of the entries a range of rows
    /// appends to a sparse output (`crate::parallel`). Safe at any arguments (a range past
    /// the parents gives `usize::MAX`).
    PositionsBelow,
    /// `append_coord(coord)`: appends a coordinate at position `len()`.
    AppendCoord,
    /// `append_coords(coords)`: appends a run of coordinates (an exact-size iterator, such
    /// as a workspace's keys) at positions `len()..`, in one reservation.
    AppendCoords,
    /// `append_edges(parent_pos, begin, end)`: attaches positions `begin..end` to a parent.
    AppendEdges,
    /// `append_finalize(parent_size) -> Result`: ends append assembly.
    AppendFinalize,
    /// `len() -> size`: the number of positions appended so far (the paper's `size` of an
    /// appending level).
    Len,
    /// `width() -> usize`: the length of every segment the end of the dimension does not cut,
    /// a constant of the level's type. A loop over such a segment is versioned: a full segment
    /// runs a loop of that constant length, which the compiler backend unrolls.
    Width,
    /// `is_uncut() -> bool`: whether every segment of the level has `width()` positions (no
    /// block is cut by the end of the dimension). Checked once per call: when it holds for
    /// every such level, the kernel runs a version of its loop nest without per-segment tests.
    Uncut,
    /// The runtime's `parallel::AppendRows`: append assembly split by parents, in two phases
    /// (each range of parents counted, then filled into its window of the level's arrays) or
    /// each range assembled into a level of its own and the levels concatenated in order. Not
    /// a method: the capability to assemble a sparse output's rows in parallel.
    AppendRows,
}

/// An argument a level function takes beyond the paper's position and coordinate arguments
/// listed on [`LevelFn`]: Range and Offset compute from their ancestors (Table 2), so the
/// lowering passes what the declaration asks for, after the usual arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// The position of the parent level (Range's coordinate is its position less the
    /// parent's first child position).
    ParentPos,
    /// The coordinate of the ancestor `n` levels up (1 = the parent).
    Ancestor(usize),
}

/// A level function a kind provides: what it computes, its runtime method, and the extra
/// arguments it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Function {
    /// What it computes.
    pub f: LevelFn,
    /// The runtime method implementing it.
    pub name: &'static str,
    /// Its arguments after the usual ones, in order.
    pub extra: &'static [Arg],
}

/// A level function taking the usual arguments only.
const fn func(f: LevelFn, name: &'static str) -> Function {
    Function {
        f,
        name,
        extra: &[],
    }
}

/// A level function taking `extra` arguments after the usual ones.
const fn func_with(f: LevelFn, name: &'static str, extra: &'static [Arg]) -> Function {
    Function { f, name, extra }
}

/// One level kind: capabilities (Table 1), properties, and level functions (Tables 2–3).
#[derive(Debug, PartialEq, Eq)]
pub struct LevelDecl {
    /// The runtime struct's name.
    pub name: &'static str,
    /// The iteration capability.
    pub iteration: Iteration,
    /// Whether it supports `locate` in constant time.
    pub locate: bool,
    /// The assembly capability, if it can be an output level.
    pub assembly: Option<Assembly>,
    /// Every coordinate of the dimension is present below every parent position.
    pub full: Property,
    /// Siblings are in increasing order.
    pub ordered: Property,
    /// Siblings have no duplicate coordinates.
    pub unique: Property,
    /// Each parent position has exactly one child, at the parent's own position.
    pub branchless: bool,
    /// Consecutive coordinates below one parent sit at consecutive positions:
    /// `locate(p, i + d) == locate(p, i) + d` (a `Dense` level's positions are
    /// `p * size + i`).
    pub contiguous: bool,
    /// Every position holds a coordinate (no empty buckets or padding).
    pub compact: Property,
    /// Whether the struct takes an index type parameter (`Compressed<u64>`).
    pub index_typed: bool,
    /// The level functions it provides.
    pub functions: &'static [Function],
}

impl LevelDecl {
    /// The runtime method implementing `f`, if the kind provides it.
    pub fn function(&self, f: LevelFn) -> Option<&'static Function> {
        self.functions.iter().find(|g| g.f == f)
    }

    /// The markers a type spelling of this kind may carry.
    pub fn markers(&self) -> impl Iterator<Item = &'static str> {
        [self.full, self.ordered, self.unique, self.compact]
            .into_iter()
            .filter_map(Property::marker)
    }
}

/// `Dense`: all coordinates `0..N` under every parent; positions `parent * N + i`.
pub static DENSE: LevelDecl = LevelDecl {
    name: "Dense",
    iteration: Iteration::CoordinateValue,
    locate: true,
    assembly: Some(Assembly::Insert),
    full: Property::Always,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: false,
    contiguous: true,
    compact: Property::Always,
    index_typed: false,
    functions: &[func(LevelFn::Locate, "locate")],
};

/// `Compressed`: the children of parent `p` are the positions `pos[p]..pos[p+1]` of `crd`.
pub static COMPRESSED: LevelDecl = LevelDecl {
    name: "Compressed",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: Some(Assembly::Append),
    full: Property::Never,
    ordered: Property::Configurable {
        default: true,
        marker: "Unordered",
    },
    unique: Property::Configurable {
        default: true,
        marker: "NonUnique",
    },
    branchless: false,
    contiguous: false,
    compact: Property::Always,
    index_typed: true,
    functions: &[
        func(LevelFn::PosBounds, "pos_bounds_unchecked"),
        func(LevelFn::PosAccess, "pos_access_unchecked"),
        func(LevelFn::RunEnd, "run_end_unchecked"),
        func(LevelFn::PositionsBelow, "positions_below"),
        func(LevelFn::AppendInit, "append_init"),
        func(LevelFn::AppendReserve, "append_reserve"),
        func(LevelFn::AppendBounded, "append_bounded"),
        func(LevelFn::AppendBoundedEntries, "append_bounded_entries"),
        func(LevelFn::AppendCoord, "append_coord"),
        func(LevelFn::AppendCoords, "append_coords"),
        func(LevelFn::AppendEdges, "append_edges"),
        func(LevelFn::AppendFinalize, "append_finalize"),
        func(LevelFn::Len, "len"),
        func(LevelFn::AppendRows, "parallel_append_counted"),
    ],
};

/// `Singleton`: one coordinate per parent position, at the parent's own position; a padded
/// one (ELL's columns) may leave a position without a coordinate.
pub static SINGLETON: LevelDecl = LevelDecl {
    name: "Singleton",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: Some(Assembly::Append),
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Configurable {
        default: true,
        marker: "NonUnique",
    },
    branchless: true,
    contiguous: false,
    compact: Property::Configurable {
        default: true,
        marker: "Padded",
    },
    index_typed: true,
    functions: &[
        func(LevelFn::PosAccess, "pos_access_unchecked"),
        func(LevelFn::RunEnd, "run_end_unchecked"),
        func(LevelFn::Stored, "is_stored_unchecked"),
        func(LevelFn::AppendInit, "append_init"),
        func(LevelFn::AppendReserve, "append_reserve"),
        func(LevelFn::AppendCoord, "append_coord"),
        func(LevelFn::Len, "len"),
    ],
};

/// `Hashed`: parent `p` owns `W` buckets `p * W .. (p + 1) * W` of an open-addressing table;
/// `locate` probes, iteration visits buckets and skips the empty ones.
pub static HASHED: LevelDecl = LevelDecl {
    name: "Hashed",
    iteration: Iteration::CoordinatePosition,
    locate: true,
    assembly: Some(Assembly::Insert),
    full: Property::Never,
    ordered: Property::Never,
    unique: Property::Always,
    branchless: false,
    contiguous: false,
    compact: Property::Never,
    index_typed: true,
    functions: &[
        func(LevelFn::PosBounds, "pos_bounds_unchecked"),
        func(LevelFn::PosAccess, "pos_access_unchecked"),
        func(LevelFn::Stored, "is_stored_unchecked"),
        func(LevelFn::Locate, "locate_unchecked"),
        func(LevelFn::InsertInit, "insert_init"),
        func(LevelFn::InsertCoord, "insert"),
    ],
};

/// `Range` (DIA's rows): below the parent with coordinate `d`, the coordinates
/// `max(0, -offset[d]) .. min(N, M - offset[d])` at positions `parent * N + i`. Its bounds
/// come from its parent's coordinate and its coordinates from the parent's position. The
/// paper counts it not compact, as slots outside the matrix are positions no parent reaches;
/// declared compact here because that is what iteration asks: every position of a parent's
/// bounds holds a coordinate, so none is tested.
pub static RANGE: LevelDecl = LevelDecl {
    name: "Range",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: false,
    contiguous: false,
    compact: Property::Always,
    index_typed: false,
    functions: &[
        func_with(
            LevelFn::PosBounds,
            "pos_bounds_unchecked",
            &[Arg::Ancestor(1)],
        ),
        func_with(
            LevelFn::PosAccess,
            "pos_access_unchecked",
            &[Arg::ParentPos],
        ),
    ],
};

/// `Offset` (DIA's columns): one coordinate per parent position, the parent's coordinate
/// shifted by `offset[d]`, `d` the grandparent's coordinate.
pub static OFFSET: LevelDecl = LevelDecl {
    name: "Offset",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: true,
    contiguous: false,
    compact: Property::Always,
    index_typed: false,
    functions: &[func_with(
        LevelFn::PosAccess,
        "pos_access_unchecked",
        &[Arg::Ancestor(1), Arg::Ancestor(2)],
    )],
};

/// `InBlock` (BCSR's rows and columns inside a block): below a parent position `p` whose
/// ancestor two levels up is the block coordinate `a`, the coordinates `a * B ..` (up to `B`,
/// fewer where the block is cut by the end of the dimension) at positions `p * B ..`. Its
/// bounds and coordinates come from that ancestor, as Range's come from its parent.
pub static IN_BLOCK: LevelDecl = LevelDecl {
    name: "InBlock",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: false,
    contiguous: false,
    compact: Property::Always,
    index_typed: false,
    functions: &[
        func_with(LevelFn::PosBounds, "pos_bounds", &[Arg::Ancestor(2)]),
        func_with(
            LevelFn::PosAccess,
            "pos_access",
            &[Arg::ParentPos, Arg::Ancestor(2)],
        ),
        func(LevelFn::Width, "width"),
        func(LevelFn::Uncut, "is_uncut"),
    ],
};

/// `Slotted` (ELL's columns): parent `p` owns the `width` positions `p * width ..
/// (p + 1) * width`, each holding a coordinate or padding. The format paper's dense slot
/// level above a padded Singleton, as one level: a parent's slots are one ordered segment.
pub static SLOTTED: LevelDecl = LevelDecl {
    name: "Slotted",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: false,
    contiguous: false,
    compact: Property::Never,
    index_typed: true,
    functions: &[
        func(LevelFn::PosBounds, "pos_bounds_unchecked"),
        func(LevelFn::PosAccess, "pos_access_unchecked"),
        func(LevelFn::Stored, "is_stored_unchecked"),
    ],
};

/// `CompressedAos` (COO's rows, array-of-structs): a non-unique compressed level whose
/// coordinate at position `q` is entry `2 q` of the pair array it shares with its child.
pub static COMPRESSED_AOS: LevelDecl = LevelDecl {
    name: "CompressedAos",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Never,
    branchless: false,
    contiguous: false,
    compact: Property::Always,
    index_typed: true,
    functions: &[
        func(LevelFn::PosBounds, "pos_bounds_unchecked"),
        func(LevelFn::PosAccess, "pos_access_unchecked"),
        func(LevelFn::RunEnd, "run_end_unchecked"),
    ],
};

/// `SingletonAos` (COO's columns, array-of-structs): one coordinate per parent position `q`,
/// entry `2 q + 1` of the pair array it shares with its parent.
pub static SINGLETON_AOS: LevelDecl = LevelDecl {
    name: "SingletonAos",
    iteration: Iteration::CoordinatePosition,
    locate: false,
    assembly: None,
    full: Property::Never,
    ordered: Property::Always,
    unique: Property::Always,
    branchless: true,
    contiguous: false,
    compact: Property::Always,
    index_typed: true,
    functions: &[func(LevelFn::PosAccess, "pos_access_unchecked")],
};

/// Every level kind the runtime provides.
pub static LEVEL_KINDS: &[&LevelDecl] = &[
    &DENSE,
    &COMPRESSED,
    &SINGLETON,
    &HASHED,
    &RANGE,
    &OFFSET,
    &SLOTTED,
    &IN_BLOCK,
    &COMPRESSED_AOS,
    &SINGLETON_AOS,
];

/// A runtime type name that spells a level kind with fixed markers (a type alias).
pub struct LevelSpelling {
    /// The name as written.
    pub name: &'static str,
    /// The kind it names.
    pub kind: &'static LevelDecl,
    /// The markers it carries.
    pub markers: &'static [&'static str],
    /// The runtime struct it exists only inside, if any: a level that shares data with
    /// another (Range and Offset one offset array, the Aos levels one pair array) or reads
    /// its ancestors' coordinates (InBlock) is consistent only as that struct's constructors
    /// build it, so a user cannot compose it into a `Tensor` type.
    pub inside: Option<&'static str>,
}

/// The level type names of the runtime: each kind's struct, and the aliases with markers.
pub static LEVEL_SPELLINGS: &[LevelSpelling] = &[
    spelling("Dense", &DENSE, &[]),
    spelling("Compressed", &COMPRESSED, &[]),
    spelling("CompressedNonUnique", &COMPRESSED, &["NonUnique"]),
    spelling("Singleton", &SINGLETON, &[]),
    spelling("SingletonNonUnique", &SINGLETON, &["NonUnique"]),
    spelling("Hashed", &HASHED, &[]),
    spelling("SingletonPadded", &SINGLETON, &["Padded"]),
    spelling("Slotted", &SLOTTED, &[]),
    held("Range", &RANGE, "Dia"),
    held("Offset", &OFFSET, "Dia"),
    held("InBlock", &IN_BLOCK, "Bcsr"),
    held("CompressedAos", &COMPRESSED_AOS, "CooAos"),
    held("SingletonAos", &SINGLETON_AOS, "CooAos"),
];

const fn spelling(
    name: &'static str,
    kind: &'static LevelDecl,
    markers: &'static [&'static str],
) -> LevelSpelling {
    LevelSpelling {
        name,
        kind,
        markers,
        inside: None,
    }
}

/// A level kind that exists only inside the runtime struct `inside`.
const fn held(name: &'static str, kind: &'static LevelDecl, inside: &'static str) -> LevelSpelling {
    LevelSpelling {
        name,
        kind,
        markers: &[],
        inside: Some(inside),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_are_consistent() {
        for kind in LEVEL_KINDS {
            let has = |f| kind.function(f).is_some();
            match kind.iteration {
                Iteration::CoordinatePosition => assert!(has(LevelFn::PosAccess), "{}", kind.name),
                Iteration::CoordinateValue => assert!(kind.locate, "{}", kind.name),
            }
            assert_eq!(kind.locate, has(LevelFn::Locate), "{}", kind.name);
            if kind.contiguous {
                assert!(
                    kind.locate && kind.full == Property::Always,
                    "{}",
                    kind.name
                );
            }
            if kind.iteration == Iteration::CoordinatePosition && !kind.branchless {
                assert!(has(LevelFn::PosBounds), "{}", kind.name);
            }
            if kind.compact != Property::Always {
                assert!(has(LevelFn::Stored), "{}", kind.name);
            }
            if kind.unique != Property::Always {
                assert!(has(LevelFn::RunEnd), "{}", kind.name);
            }
            if kind.assembly == Some(Assembly::Insert) && kind.full != Property::Always {
                assert!(
                    has(LevelFn::InsertInit) && has(LevelFn::InsertCoord),
                    "{}",
                    kind.name
                );
            }
            if kind.assembly == Some(Assembly::Append) {
                for f in [
                    LevelFn::AppendInit,
                    LevelFn::AppendReserve,
                    LevelFn::AppendCoord,
                    LevelFn::Len,
                ] {
                    assert!(has(f), "{} lacks {f:?}", kind.name);
                }
                if !kind.branchless {
                    assert!(has(LevelFn::AppendEdges) && has(LevelFn::AppendFinalize));
                }
            }
        }
        for s in LEVEL_SPELLINGS {
            assert!(LEVEL_KINDS.contains(&s.kind));
            assert!(s.markers.iter().all(|m| s.kind.markers().any(|k| k == *m)));
        }
    }
}
