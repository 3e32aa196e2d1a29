//! Level formats and tensor formats (Chou et al. 2018, section 3): each storage level is
//! described by its capabilities and properties, and the code generator reasons only about
//! those, never about named formats.

use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

pub use crate::level::{Assembly, Iteration, LevelFn};
use crate::level::{LevelDecl, LEVEL_SPELLINGS};

/// One storage level: a declared level kind, its property markers, and its index type. Every
/// question a pass asks about a level is answered from the declaration and the markers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelFormat {
    /// The level kind's declaration.
    pub decl: &'static LevelDecl,
    /// The property markers its type carries (`NonUnique`), each one of `decl.markers()`.
    pub markers: Vec<&'static str>,
    /// The index type of its `pos`/`crd` arrays as written (`u64`), if not the default.
    pub index: Option<syn::Type>,
}

impl LevelFormat {
    /// A level of kind `decl` configured by `markers` (each one the kind declares).
    pub fn new(decl: &'static LevelDecl, markers: &[&'static str]) -> LevelFormat {
        LevelFormat {
            decl,
            markers: markers.to_vec(),
            index: None,
        }
    }

    /// Looks up a level type name of the runtime (a kind, or an alias with markers).
    pub fn from_type_name(name: &str) -> Option<LevelFormat> {
        let spelling = LEVEL_SPELLINGS.iter().find(|s| s.name == name)?;
        Some(LevelFormat::new(spelling.kind, spelling.markers))
    }

    /// The shortest runtime name of this kind with these markers (`CompressedNonUnique`), or
    /// the kind with its markers (`Compressed<u32, M>`), for messages and suggestions.
    pub fn type_name(&self) -> String {
        LEVEL_SPELLINGS
            .iter()
            .find(|s| s.kind == self.decl && s.markers == self.markers.as_slice())
            .map(|s| s.name.to_string())
            .unwrap_or_else(|| format!("{}<u32, {}>", self.decl.name, self.markers.join(", ")))
    }

    /// Every coordinate of the dimension is present under every parent position.
    pub fn is_full(&self) -> bool {
        self.decl.full.resolve(&self.markers)
    }

    /// A coordinate appears at most once under each parent position.
    pub fn is_unique(&self) -> bool {
        self.decl.unique.resolve(&self.markers)
    }

    /// Siblings are enumerated in increasing coordinate order by position iteration.
    pub fn is_ordered(&self) -> bool {
        self.decl.ordered.resolve(&self.markers)
    }

    /// Every position holds a coordinate (else iteration tests `is_stored`).
    pub fn is_compact(&self) -> bool {
        self.decl.compact.resolve(&self.markers)
    }

    /// Supports `locate(parent_pos, i)` in constant time.
    pub fn has_locate(&self) -> bool {
        self.decl.locate
    }

    /// The iteration capability.
    pub fn iteration(&self) -> Iteration {
        self.decl.iteration
    }

    /// The assembly capability, if the level can be part of an output.
    pub fn assembly(&self) -> Option<Assembly> {
        self.decl.assembly
    }

    /// Each parent position has exactly one child position (no `pos` array).
    pub fn is_branchless(&self) -> bool {
        self.decl.branchless
    }

    /// Consecutive coordinates below one parent sit at consecutive positions.
    pub fn is_contiguous(&self) -> bool {
        self.decl.contiguous
    }

    /// Appends and owns segments of child positions per parent (a `pos` array), so a
    /// segment is opened before its loop and closed with edges after it.
    pub fn appends_segments(&self) -> bool {
        self.assembly() == Some(Assembly::Append) && !self.is_branchless()
    }

    /// Level function `f` (its runtime method and extra arguments), if the level provides it.
    pub fn function(&self, f: LevelFn) -> Option<&'static crate::level::Function> {
        self.decl.function(f)
    }

    /// Whether `other` has the same kind and markers (index types aside).
    pub fn same_kind(&self, other: &LevelFormat) -> bool {
        self.decl == other.decl && self.markers == other.markers
    }

    /// Whether the level stores coordinates in an index-typed array (takes `<I>`).
    pub fn has_index_type(&self) -> bool {
        self.decl.index_typed
    }

    /// The runtime type by absolute path: the kind's struct, its index type as written (the
    /// default spelled out when markers follow it) and its markers. One spelling per
    /// (kind, markers, index), whatever alias the user wrote.
    pub fn canonical_type(&self) -> TokenStream {
        let name = Ident::new(self.decl.name, Span::call_site());
        let markers = self.markers.iter().map(|m| {
            let m = Ident::new(m, Span::call_site());
            quote!(::sparse_runtime::#m)
        });
        match (&self.index, self.markers.as_slice()) {
            (None, []) => quote!(::sparse_runtime::#name),
            (Some(i), []) => quote!(::sparse_runtime::#name<#i>),
            (None, _) => quote!(::sparse_runtime::#name<::core::primitive::u32, #(#markers),*>),
            (Some(i), _) => quote!(::sparse_runtime::#name<#i, #(#markers),*>),
        }
    }
}

/// The runtime struct a level type exists only inside (`Range` in `Dia`), if `name` is one.
pub fn held_inside(name: &str) -> Option<&'static str> {
    LEVEL_SPELLINGS
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.inside)
}

/// Names of the level types a user may compose, for messages.
pub fn level_type_names() -> Vec<&'static str> {
    LEVEL_SPELLINGS
        .iter()
        .filter(|s| s.inside.is_none())
        .map(|s| s.name)
        .collect()
}

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
    /// A format held by a runtime struct (`Dia`, `CooAos`): the levels store its view, for
    /// `Dia` a higher-order one with modes the user does not index.
    pub remap: Option<&'static Remap>,
    /// The const generic arguments of a remapped format's struct as written (`Bcsr`'s block
    /// size `3, 3`), one per [`Remap::consts`]; spelled back into the canonical type, so
    /// rustc checks the argument against them. The generated code never reads them: the
    /// levels carry what they imply.
    pub const_args: Vec<syn::GenericArgument>,
    /// Whether the tensor owns its values or borrows the caller's.
    pub borrow: Borrow,
}

/// Dense formats over values the caller owns, read and written in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Borrow {
    /// A runtime tensor type that owns its storage.
    Owned,
    /// A plain Rust slice `[V]`: a `Dense1`, bound on entry as a one-level dense tensor over
    /// the slice (`sparse_runtime::Dense1View`).
    Slice,
    /// A runtime view struct over a row-major slice (`Dense2View`), which answers the calls a
    /// kernel makes on the dense tensor of its order.
    View(&'static DenseView),
}

/// A dense view struct of the runtime.
#[derive(Debug, PartialEq, Eq)]
pub struct DenseView {
    /// The struct's name.
    pub name: &'static str,
    /// Its order.
    pub order: usize,
    /// Whether it borrows its values mutably (and can be an output).
    pub mutable: bool,
}

/// The runtime's dense views.
pub static DENSE_VIEWS: &[DenseView] = &[
    DenseView {
        name: "Dense2View",
        order: 2,
        mutable: false,
    },
    DenseView {
        name: "Dense2ViewMut",
        order: 2,
        mutable: true,
    },
    DenseView {
        name: "Dense3View",
        order: 3,
        mutable: false,
    },
    DenseView {
        name: "Dense3ViewMut",
        order: 3,
        mutable: true,
    },
];

/// A format held by a runtime struct around the view kernels read (its levels share data the
/// struct keeps consistent), possibly through a coordinate remapping (Chou et al. 2018,
/// section 2; Chou et al. 2020, section 4): the format stores a view of a tensor with
/// `logical` modes as a coordinate hierarchy over as many or more modes. The user's indices name the logical modes `0..logical`; each further mode is a
/// *hidden* storage coordinate (a diagonal's number in DIA, a slot's in ELL) that a kernel sums
/// over, which is exact because the view stores each logical coordinate under at most one
/// hidden coordinate. An access `A(i, j)` becomes `Σ_k A'(i, j, k)` over the view, with `k` a
/// fresh index variable no user identifier can name.
#[derive(Debug, PartialEq, Eq)]
pub struct Remap {
    /// The runtime struct holding the view (`Dia`), named by the canonical type.
    pub name: &'static str,
    /// The number of logical modes, the ones the user indexes.
    pub logical: usize,
    /// A readable name for each hidden mode (`logical..`), used for its index variable.
    pub hidden: &'static [&'static str],
    /// What an iteration over the view visits first, for the message when a statement needs
    /// another order (`"diagonal by diagonal"`).
    pub visits: &'static str,
    /// The struct's const generic parameters after the value type (`Bcsr<V, R, C, I>`'s
    /// `R`, `C`), by name.
    pub consts: &'static [&'static str],
}

/// DIA (Chou 2018, figures 2j and 4): the view `(d, i, j)` stored as `(Dense, Range, Offset)`,
/// `d` the number of a stored diagonal, `j = i + offset[d]`.
pub static DIA_REMAP: Remap = Remap {
    name: "Dia",
    logical: 2,
    hidden: &["diag"],
    visits: "diagonal by diagonal",
    consts: &[],
};

/// BCSR (Chou 2018, figure 4; Chou 2020, section 4, `(i, j) -> (i/R, j/C, i, j)`): the view
/// `(I, J, i, j)` stored as `(Dense, Compressed, InBlock, InBlock)`, `I` and `J` the block
/// row and column, the `InBlock` levels the rows and columns of one block.
pub static BCSR_REMAP: Remap = Remap {
    name: "Bcsr",
    logical: 2,
    hidden: &["block_row", "block_col"],
    visits: "block by block",
    consts: &["R", "C"],
};

/// CSB (Buluç et al. 2009): the view `(I, J, i, j)` stored as `(Dense, Dense,
/// CompressedNonUnique, Singleton)`, `I` and `J` the block row and column of square blocks
/// whose size is chosen at construction, then each block's entries as COO pairs of the
/// matrix's own coordinates. Plain levels: only the struct's constructors keep every entry in
/// its one block, which makes the sum over the hidden modes exact.
pub static CSB_REMAP: Remap = Remap {
    name: "Csb",
    logical: 2,
    hidden: &["block_row", "block_col"],
    visits: "block by block",
    consts: &[],
};

/// COO in array-of-structs layout: `(i, j)` stored as `(CompressedAos, SingletonAos)`, two
/// levels reading one pair array, held by the runtime's `CooAos` (no hidden mode).
pub static COO_AOS_VIEW: Remap = Remap {
    name: "CooAos",
    logical: 2,
    hidden: &[],
    visits: "row by row",
    consts: &[],
};

impl Format {
    /// Number of storage levels, which is the number of modes an access of the stored view
    /// has (the logical ones, then any hidden ones of a remapping).
    pub fn order(&self) -> usize {
        self.levels.len()
    }

    /// Number of modes the user indexes.
    pub fn logical_order(&self) -> usize {
        self.remap.map_or(self.levels.len(), |r| r.logical)
    }

    /// Where access mode `mode` is in the shape of the tensor the generated code reads: the
    /// logical shape, or a remapped format's view, whose modes are in storage order.
    pub fn shape_index(&self, mode: usize) -> usize {
        match self.remap {
            None => mode,
            Some(_) => self
                .mode_order
                .iter()
                .position(|&m| m == mode)
                .unwrap_or(mode),
        }
    }

    /// Whether every level is dense (the tensor is a dense array).
    pub fn is_all_dense(&self) -> bool {
        self.levels.iter().all(LevelFormat::is_full)
    }

    /// Whether every level inserts (`Dense`, `Hashed`): as an output it is written in place,
    /// in any order and as often as needed (accumulating), rather than appended in storage
    /// order.
    pub fn inserts_everywhere(&self) -> bool {
        self.levels
            .iter()
            .all(|l| l.assembly() == Some(Assembly::Insert))
    }

    /// The runtime type this format names, by absolute path: what the generated code assumes,
    /// and what the expanded signature makes rustc check every argument against.
    pub fn canonical_type(&self, value_type: &syn::Type) -> TokenStream {
        match self.borrow {
            Borrow::Owned => {}
            Borrow::Slice => return quote!([#value_type]),
            Borrow::View(view) => {
                let name = Ident::new(view.name, Span::call_site());
                return quote!(::sparse_runtime::#name<'_, #value_type>);
            }
        }
        if let Some(remap) = self.remap {
            return remap_type(remap, &self.levels, &self.const_args, value_type);
        }
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

/// The format of a slice parameter (`&[V]`, `&mut [V]`) or a dense view: `order` dense
/// levels over storage the caller owns.
pub fn borrowed_format(order: usize, borrow: Borrow, written: String) -> Format {
    Format {
        levels: (0..order)
            .filter_map(|_| LevelFormat::from_type_name("Dense"))
            .collect(),
        mode_order: (0..order).collect(),
        modes_spelled: false,
        written,
        remap: None,
        const_args: Vec::new(),
        borrow,
    }
}

/// A remapped format's runtime struct: `Dia<V>`, or `Name<V, consts.., I>` with its const
/// arguments as written and the index type of an index-typed level, spelled out.
fn remap_type(
    remap: &Remap,
    levels: &[LevelFormat],
    const_args: &[syn::GenericArgument],
    value_type: &syn::Type,
) -> TokenStream {
    let name = Ident::new(remap.name, Span::call_site());
    let index = levels
        .iter()
        .find(|l| l.has_index_type())
        .map(|level| match &level.index {
            Some(i) => quote!(#i),
            None => quote!(::core::primitive::u32),
        });
    let index = index.iter();
    quote!(::sparse_runtime::#name<#value_type, #(#const_args,)* #(#index),*>)
}

/// A named format alias of the runtime prelude.
pub struct Alias {
    /// The alias name.
    pub name: &'static str,
    /// Level type names in storage order.
    pub levels: &'static [&'static str],
    /// Mode order (storage level k holds mode `modes[k]`; modes past the logical ones are a
    /// remapping's hidden modes).
    pub modes: &'static [usize],
    /// The coordinate remapping of a remapped format.
    pub remap: Option<&'static Remap>,
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
    alias("Dcsc", &["Compressed", "Compressed"], &[1, 0]),
    alias("Coo", &["CompressedNonUnique", "Singleton"], &[0, 1]),
    alias(
        "Csf3",
        &["Compressed", "Compressed", "Compressed"],
        &[0, 1, 2],
    ),
    alias(
        "Csf4",
        &["Compressed", "Compressed", "Compressed", "Compressed"],
        &[0, 1, 2, 3],
    ),
    alias(
        "Coo3",
        &["CompressedNonUnique", "SingletonNonUnique", "Singleton"],
        &[0, 1, 2],
    ),
    alias("HashVec", &["Hashed"], &[0]),
    alias("HashMat", &["Dense", "Hashed"], &[0, 1]),
    Alias {
        name: "Dia",
        levels: &["Dense", "Range", "Offset"],
        modes: &[2, 0, 1],
        remap: Some(&DIA_REMAP),
    },
    alias("Ell", &["Dense", "Slotted"], &[0, 1]),
    Alias {
        name: "Bcsr",
        levels: &["Dense", "Compressed", "InBlock", "InBlock"],
        modes: &[2, 3, 0, 1],
        remap: Some(&BCSR_REMAP),
    },
    Alias {
        name: "Csb",
        levels: &["Dense", "Dense", "CompressedNonUnique", "Singleton"],
        modes: &[2, 3, 0, 1],
        remap: Some(&CSB_REMAP),
    },
    Alias {
        name: "CooAos",
        levels: &["CompressedAos", "SingletonAos"],
        modes: &[0, 1],
        remap: Some(&COO_AOS_VIEW),
    },
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
        remap: None,
    }
}

impl Alias {
    /// The format this alias names, with `index` as the index type of its sparse levels and
    /// `const_args` for its struct's const parameters ([`Remap::consts`]).
    pub fn format(
        &self,
        index: Option<&syn::Type>,
        const_args: Vec<syn::GenericArgument>,
        written: String,
    ) -> Format {
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
            remap: self.remap,
            const_args,
            borrow: Borrow::Owned,
        }
    }

    /// The struct's const parameters after the value type (`Bcsr`'s `R`, `C`).
    pub fn consts(&self) -> &'static [&'static str] {
        self.remap.map_or(&[], |r| r.consts)
    }

    /// Whether the alias takes an index type parameter (`Csr<V, I>`; `Dense2<V>` does not).
    pub fn takes_index(&self) -> bool {
        self.levels
            .iter()
            .filter_map(|l| LevelFormat::from_type_name(l))
            .any(|l| l.has_index_type())
    }

    /// The alias naming these levels and mode order, if there is one.
    pub fn find(levels: &[LevelFormat], modes: &[usize]) -> Option<&'static Alias> {
        ALIASES.iter().find(|a| {
            a.remap.is_none()
                && a.modes == modes
                && a.levels.len() == levels.len()
                && a.levels
                    .iter()
                    .zip(levels)
                    .all(|(n, l)| LevelFormat::from_type_name(n).is_some_and(|m| m.same_kind(l)))
        })
    }
}
