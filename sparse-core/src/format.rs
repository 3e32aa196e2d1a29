//! Level formats and tensor formats (Chou et al. 2018, section 3): each storage level is
//! described by its capabilities and properties, and the code generator reasons only about
//! those, never about named formats.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// The level kinds the runtime provides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelKind {
    /// Every coordinate of the dimension is stored (coordinate value iteration, locate).
    Dense,
    /// Coordinates of each parent position are a segment of `crd` delimited by `pos`.
    Compressed,
    /// Exactly one coordinate per parent position.
    Singleton,
}

/// How a level enumerates its coordinates (Chou 2018, section 3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Iteration {
    /// Iterate coordinates `0..size` and compute positions from them.
    CoordinateValue,
    /// Iterate positions and read coordinates from them.
    CoordinatePosition,
}

/// How an output level is assembled (Chou 2018, section 3.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assembly {
    /// Positions are computed from coordinates; values are written in place.
    Insert,
    /// Coordinates are appended in order and segments closed by edges.
    Append,
}

/// One storage level: a kind plus its properties.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelFormat {
    /// The level kind.
    pub kind: LevelKind,
    /// Whether a coordinate appears at most once under each parent position.
    pub unique: bool,
    /// Runtime type name (`Compressed`, `CompressedNonUnique`, ...), for messages.
    pub type_name: &'static str,
    /// The index type of its `pos`/`crd` arrays as written (`u64`), if not the default.
    pub index: Option<syn::Type>,
}

impl LevelFormat {
    /// Every coordinate of the dimension is present under every parent position.
    pub fn is_full(&self) -> bool {
        self.kind == LevelKind::Dense
    }

    /// Supports `locate(parent_pos, i)` in constant time.
    pub fn has_locate(&self) -> bool {
        self.kind == LevelKind::Dense
    }

    /// The iteration capability.
    pub fn iteration(&self) -> Iteration {
        match self.kind {
            LevelKind::Dense => Iteration::CoordinateValue,
            LevelKind::Compressed | LevelKind::Singleton => Iteration::CoordinatePosition,
        }
    }

    /// The assembly capability.
    pub fn assembly(&self) -> Assembly {
        match self.kind {
            LevelKind::Dense => Assembly::Insert,
            LevelKind::Compressed | LevelKind::Singleton => Assembly::Append,
        }
    }

    /// Each parent position has exactly one child position (no `pos` array).
    pub fn is_branchless(&self) -> bool {
        self.kind == LevelKind::Singleton
    }

    /// Appends and owns segments of child positions per parent (a `pos` array), so a
    /// segment is opened before its loop and closed with edges after it.
    pub fn appends_segments(&self) -> bool {
        self.assembly() == Assembly::Append && !self.is_branchless()
    }

    /// Looks up a level type name of the runtime.
    pub fn from_type_name(name: &str) -> Option<LevelFormat> {
        let (kind, unique, type_name) = match name {
            "Dense" => (LevelKind::Dense, true, "Dense"),
            "Compressed" => (LevelKind::Compressed, true, "Compressed"),
            "CompressedNonUnique" => (LevelKind::Compressed, false, "CompressedNonUnique"),
            "Singleton" => (LevelKind::Singleton, true, "Singleton"),
            "SingletonNonUnique" => (LevelKind::Singleton, false, "SingletonNonUnique"),
            _ => return None,
        };
        Some(LevelFormat {
            kind,
            unique,
            type_name,
            index: None,
        })
    }

    /// Whether the level stores coordinates in an index-typed array (takes `<I>`).
    pub fn has_index_type(&self) -> bool {
        self.kind != LevelKind::Dense
    }

    /// The runtime type by absolute path, with its index type as written.
    pub fn canonical_type(&self) -> TokenStream {
        let name = Ident::new(self.type_name, Span::call_site());
        match &self.index {
            Some(i) => quote!(::sparse_runtime::#name<#i>),
            None => quote!(::sparse_runtime::#name),
        }
    }
}

/// Names of the level types, for messages.
pub const LEVEL_TYPE_NAMES: &[&str] = &[
    "Dense",
    "Compressed",
    "CompressedNonUnique",
    "Singleton",
    "SingletonNonUnique",
];

/// A tensor format: levels in storage order and the logical mode each level stores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// Levels from the root of the coordinate hierarchy down.
    pub levels: Vec<LevelFormat>,
    /// `mode_order[k]` is the logical mode stored by level `k`.
    pub mode_order: Vec<usize>,
    /// Whether the mode order is spelled `Modes<..>` (else it is `Identity`, written or not).
    pub modes_spelled: bool,
    /// The type as written, for messages (`Csr<f64>`).
    pub written: String,
}

impl Format {
    /// Number of modes.
    pub fn order(&self) -> usize {
        self.levels.len()
    }

    /// Whether every level is dense (the tensor is a dense array).
    pub fn is_all_dense(&self) -> bool {
        self.levels.iter().all(LevelFormat::is_full)
    }

    /// The runtime type this format names, by absolute path: what the generated code assumes,
    /// and what the expanded signature makes rustc check every argument against.
    pub fn canonical_type(&self, value_type: &syn::Type) -> TokenStream {
        let levels = self.levels.iter().map(LevelFormat::canonical_type);
        let order = if self.modes_spelled {
            let modes = self
                .mode_order
                .iter()
                .map(|&m| Literal::usize_unsuffixed(m));
            quote!(::sparse_runtime::Modes<#(#modes),*>)
        } else {
            quote!(::sparse_runtime::Identity)
        };
        quote!(::sparse_runtime::Tensor<#value_type, (#(#levels,)*), #order>)
    }
}

/// A named format alias of the runtime prelude.
pub struct Alias {
    /// The alias name.
    pub name: &'static str,
    /// Level type names in storage order.
    pub levels: &'static [&'static str],
    /// Mode order (storage level k holds mode `modes[k]`).
    pub modes: &'static [usize],
}

/// The aliases the runtime defines, in the order messages list them.
pub const ALIASES: &[Alias] = &[
    alias("Dense1", &["Dense"], &[0]),
    alias("Dense2", &["Dense", "Dense"], &[0, 1]),
    alias("Dense3", &["Dense", "Dense", "Dense"], &[0, 1, 2]),
    alias("SparseVec", &["Compressed"], &[0]),
    alias("Csr", &["Dense", "Compressed"], &[0, 1]),
    alias("Csc", &["Dense", "Compressed"], &[1, 0]),
    alias("Dcsr", &["Compressed", "Compressed"], &[0, 1]),
    alias("Coo", &["CompressedNonUnique", "Singleton"], &[0, 1]),
    alias(
        "Csf3",
        &["Compressed", "Compressed", "Compressed"],
        &[0, 1, 2],
    ),
    alias(
        "Coo3",
        &["CompressedNonUnique", "SingletonNonUnique", "Singleton"],
        &[0, 1, 2],
    ),
];

const fn alias(
    name: &'static str,
    levels: &'static [&'static str],
    modes: &'static [usize],
) -> Alias {
    Alias {
        name,
        levels,
        modes,
    }
}

impl Alias {
    /// The format this alias names, with `index` as the index type of its sparse levels.
    pub fn format(&self, index: Option<&syn::Type>, written: String) -> Format {
        let levels = self
            .levels
            .iter()
            .filter_map(|l| LevelFormat::from_type_name(l))
            .map(|mut level| {
                if level.has_index_type() {
                    level.index = index.cloned();
                }
                level
            })
            .collect();
        Format {
            levels,
            mode_order: self.modes.to_vec(),
            modes_spelled: self.modes.iter().enumerate().any(|(k, &m)| k != m),
            written,
        }
    }

    /// Whether the alias takes an index type parameter (`Csr<V, I>`; `Dense2<V>` does not).
    pub fn takes_index(&self) -> bool {
        self.levels.iter().any(|l| *l != "Dense")
    }

    /// The alias naming these levels and mode order, if there is one.
    pub fn find(levels: &[LevelFormat], modes: &[usize]) -> Option<&'static Alias> {
        ALIASES.iter().find(|a| {
            a.modes == modes
                && a.levels.len() == levels.len()
                && a.levels.iter().zip(levels).all(|(n, l)| *n == l.type_name)
        })
    }
}
