//! Tensor formats as the tester sees them: a level kind and index type per storage level, a
//! mode order, and how the type is spelled in the kernel signature.

use crate::rng::Rng;

/// A level kind of `sparse_runtime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `Dense`: full, supports locate.
    Dense,
    /// `Compressed<I>`.
    Compressed,
    /// `CompressedNonUnique<I>`.
    CompressedNu,
    /// `Compressed<I, Unordered>`: segments in any order (built in decreasing order).
    CompressedUnordered,
    /// `Singleton<I>`.
    Singleton,
    /// `SingletonNonUnique<I>`.
    SingletonNu,
    /// `Hashed<I>`: unordered, unique, supports locate; assembled by insert as the last level.
    Hashed,
    /// `Singleton<I, Padded>` (`SingletonPadded<I>`): a position may hold no coordinate.
    SingletonPadded,
    /// `Slotted<I>`: ELL's columns, a fixed number of slots per parent position, padded.
    Slotted,
    /// `Range`: DIA's rows (only inside `Dia`).
    Range,
    /// `Offset`: DIA's columns (only inside `Dia`).
    Offset,
    /// `InBlock`: BCSR's rows and columns inside a block (only inside `Bcsr`): iterated by
    /// position, no locate, ordered, unique, not full.
    InBlock,
}

impl Kind {
    /// The runtime's type name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Dense => "Dense",
            Kind::Compressed => "Compressed",
            Kind::CompressedNu => "CompressedNonUnique",
            Kind::CompressedUnordered => "Compressed<_, Unordered>",
            Kind::Singleton => "Singleton",
            Kind::SingletonNu => "SingletonNonUnique",
            Kind::Hashed => "Hashed",
            Kind::SingletonPadded => "SingletonPadded",
            Kind::Slotted => "Slotted",
            Kind::Range => "Range",
            Kind::Offset => "Offset",
            Kind::InBlock => "InBlock",
        }
    }

    /// Siblings never repeat a coordinate.
    pub fn unique(self) -> bool {
        !matches!(self, Kind::CompressedNu | Kind::SingletonNu)
    }

    /// One child per parent position.
    pub fn singleton(self) -> bool {
        matches!(
            self,
            Kind::Singleton | Kind::SingletonNu | Kind::SingletonPadded | Kind::Offset
        )
    }

    /// Supports random access by coordinate.
    pub fn locate(self) -> bool {
        matches!(self, Kind::Dense | Kind::Hashed)
    }
}

/// The index type of a non-dense level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexTy {
    /// `u32` (the default).
    U32,
    /// `u64`.
    U64,
    /// `usize`.
    Usize,
}

impl IndexTy {
    /// The Rust type name.
    pub fn name(self) -> &'static str {
        match self {
            IndexTy::U32 => "u32",
            IndexTy::U64 => "u64",
            IndexTy::Usize => "usize",
        }
    }

    fn random(rng: &mut Rng) -> IndexTy {
        [IndexTy::U32, IndexTy::U64, IndexTy::Usize][rng.weighted(&[6, 2, 2])]
    }
}

/// How the mode order of an explicit `Tensor<..>` type is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModesSpelling {
    /// Not written (identity).
    Omitted,
    /// `Identity`.
    Identity,
    /// `Modes<..>`.
    Modes,
}

/// How a format's type is written in the signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// A format alias (`Csr<V>`, `Csr<V, u64>`, `Dense2<V>`).
    Alias {
        /// The alias name.
        name: &'static str,
        /// The explicit index type argument, if written.
        index: Option<IndexTy>,
        /// The const generic arguments between the value and the index type (`Bcsr`'s block
        /// size `R`, `C`), one per [`Remapped::consts`].
        consts: Vec<usize>,
    },
    /// `Tensor<V, (levels..), order>`.
    Explicit {
        /// Per level: whether the index type argument is written (`Compressed<u32>`).
        index_written: Vec<bool>,
        /// How the mode order is written.
        modes: ModesSpelling,
        /// Non-unique levels are spelled with the `NonUnique` property marker
        /// (`Compressed<u32, NonUnique>`) rather than by their alias (`CompressedNonUnique`).
        markers: bool,
    },
}

/// A tensor format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    /// Level kinds, outermost first.
    pub kinds: Vec<Kind>,
    /// Index type per level (ignored for dense levels).
    pub index: Vec<IndexTy>,
    /// `modes[k]`: the logical mode stored at storage level `k`.
    pub modes: Vec<usize>,
    /// The written form.
    pub spelling: Spelling,
    /// The number of hidden modes of a remapped alias (`Dia` 1, `Bcsr` and `Csb` 2; 0 for
    /// every other format): the levels store a view of `order() + hidden` modes, the hidden
    /// ones numbered after the logical ones.
    pub hidden: usize,
}

/// The format aliases of `sparse_runtime`: name, levels, mode order.
pub const ALIASES: &[(&str, &[Kind], &[usize])] = &[
    ("Dense1", &[Kind::Dense], &[0]),
    ("Dense2", &[Kind::Dense, Kind::Dense], &[0, 1]),
    (
        "Dense3",
        &[Kind::Dense, Kind::Dense, Kind::Dense],
        &[0, 1, 2],
    ),
    ("SparseVec", &[Kind::Compressed], &[0]),
    ("Csr", &[Kind::Dense, Kind::Compressed], &[0, 1]),
    ("Csc", &[Kind::Dense, Kind::Compressed], &[1, 0]),
    ("Dcsr", &[Kind::Compressed, Kind::Compressed], &[0, 1]),
    ("Dcsc", &[Kind::Compressed, Kind::Compressed], &[1, 0]),
    ("Coo", &[Kind::CompressedNu, Kind::Singleton], &[0, 1]),
    (
        "Csf3",
        &[Kind::Compressed, Kind::Compressed, Kind::Compressed],
        &[0, 1, 2],
    ),
    (
        "Csf4",
        &[
            Kind::Compressed,
            Kind::Compressed,
            Kind::Compressed,
            Kind::Compressed,
        ],
        &[0, 1, 2, 3],
    ),
    (
        "Coo3",
        &[Kind::CompressedNu, Kind::SingletonNu, Kind::Singleton],
        &[0, 1, 2],
    ),
    ("HashVec", &[Kind::Hashed], &[0]),
    ("HashMat", &[Kind::Dense, Kind::Hashed], &[0, 1]),
    // Remapped formats (see `REMAPPED`): storage levels over the logical modes and hidden ones.
    ("Dia", &[Kind::Dense, Kind::Range, Kind::Offset], &[2, 0, 1]),
    ("Ell", &[Kind::Dense, Kind::Slotted], &[0, 1]),
    // BCSR: (block row, block column, row, column); `R`, `C` in the type.
    (
        "Bcsr",
        &[Kind::Dense, Kind::Compressed, Kind::InBlock, Kind::InBlock],
        &[2, 3, 0, 1],
    ),
    // CSB: (block row, block column, row, column) over plain levels; block size at run time.
    (
        "Csb",
        &[
            Kind::Dense,
            Kind::Dense,
            Kind::CompressedNu,
            Kind::Singleton,
        ],
        &[2, 3, 0, 1],
    ),
    // COO in array-of-structs layout: COO's levels reading one pair array; input only.
    ("CooAos", &[Kind::CompressedNu, Kind::Singleton], &[0, 1]),
];

/// A remapped alias: it stores a view with `hidden` hidden modes (numbered after the logical
/// ones), which a kernel sums over (`A(i, j)` of a `Bcsr` is `Σ_{I,J} A'(I, J, i, j)`).
pub struct Remapped {
    /// The alias.
    pub name: &'static str,
    /// The number of hidden modes.
    pub hidden: usize,
    /// Whether the alias takes an index type (`Bcsr<V, R, C, I>`; `Dia<V>` does not).
    pub takes_index: bool,
    /// Its const generic parameters after the value type (`Bcsr`'s `R`, `C`), by name.
    pub consts: &'static [&'static str],
}

/// The remapped aliases.
pub const REMAPPED: &[Remapped] = &[
    Remapped {
        name: "Dia",
        hidden: 1,
        takes_index: false,
        consts: &[],
    },
    Remapped {
        name: "Bcsr",
        hidden: 2,
        takes_index: true,
        consts: &["R", "C"],
    },
    Remapped {
        name: "Csb",
        hidden: 2,
        takes_index: true,
        consts: &[],
    },
];

/// The largest block size `R`, `C` drawn for a `Bcsr` (each from `1..=MAX_BCSR_BLOCK`).
pub const MAX_BCSR_BLOCK: usize = 3;

/// The structured matrix aliases, drawn with a share of their own among the many matrix
/// formats.
pub const STRUCTURED: &[&str] = &["Dia", "Ell", "CooAos", "Bcsr", "Csb"];

/// Aliases that are never outputs: their levels have no assembly (though `CooAos` has COO's
/// properties and `Csb`'s levels are plain ones, their data is built only by their
/// constructors).
pub const INPUT_ONLY: &[&str] = &["Dia", "Ell", "CooAos", "Bcsr", "Csb"];

impl Format {
    /// The alias `name` (one of [`ALIASES`]) with index type `index` (`None`: not written),
    /// its const parameters (if any) all 1.
    pub fn alias(name: &str, index: Option<IndexTy>) -> Format {
        let n = REMAPPED
            .iter()
            .find(|r| r.name == name)
            .map_or(0, |r| r.consts.len());
        Format::alias_with(name, index, vec![1; n])
    }

    /// The alias `name` with index type `index` and the const arguments `consts` (one per
    /// [`Remapped::consts`]: `Bcsr`'s block size).
    pub fn alias_with(name: &str, index: Option<IndexTy>, consts: Vec<usize>) -> Format {
        let &(name, kinds, modes) = ALIASES
            .iter()
            .find(|a| a.0 == name)
            .unwrap_or_else(|| panic!("unknown alias {name}"));
        let dense_alias = kinds.iter().all(|&k| k == Kind::Dense);
        let remap = REMAPPED.iter().find(|r| r.name == name);
        let takes_index = !dense_alias && remap.is_none_or(|r| r.takes_index);
        let index = if takes_index { index } else { None };
        assert_eq!(
            consts.len(),
            remap.map_or(0, |r| r.consts.len()),
            "const arguments of {name}"
        );
        Format {
            kinds: kinds.to_vec(),
            index: vec![index.unwrap_or(IndexTy::U32); kinds.len()],
            modes: modes.to_vec(),
            spelling: Spelling::Alias {
                name,
                index,
                consts,
            },
            hidden: remap.map_or(0, |r| r.hidden),
        }
    }

    /// The alias's name, if the format is spelled by one.
    pub fn alias_name(&self) -> Option<&'static str> {
        match &self.spelling {
            Spelling::Alias { name, .. } => Some(name),
            Spelling::Explicit { .. } => None,
        }
    }

    /// A remapped format: its levels store a view with hidden modes.
    pub fn remapped(&self) -> bool {
        self.hidden > 0
    }

    /// An explicit `Tensor<..>` format of the given levels and mode order, spelled randomly.
    pub fn explicit(rng: &mut Rng, kinds: Vec<Kind>, modes: Vec<usize>) -> Format {
        let n = kinds.len();
        let uniform = rng.chance(0.7);
        let first = IndexTy::random(rng);
        let index: Vec<IndexTy> = (0..n)
            .map(|_| if uniform { first } else { IndexTy::random(rng) })
            .collect();
        let index_written = index
            .iter()
            .map(|&i| i != IndexTy::U32 || rng.chance(0.2))
            .collect();
        let identity = modes.iter().enumerate().all(|(k, &m)| k == m);
        let modes_spelling = if !identity {
            ModesSpelling::Modes
        } else {
            [
                ModesSpelling::Omitted,
                ModesSpelling::Identity,
                ModesSpelling::Modes,
            ][rng.weighted(&[6, 2, 2])]
        };
        Format {
            kinds,
            index,
            modes,
            spelling: Spelling::Explicit {
                index_written,
                modes: modes_spelling,
                markers: rng.chance(0.5),
            },
            hidden: 0,
        }
    }

    /// Number of modes the user indexes (a remapped format's hidden modes aside).
    pub fn order(&self) -> usize {
        self.kinds.len() - self.hidden
    }

    /// Whether its levels store exactly any set of components they are given: no singleton
    /// level below a unique one (COO's singletons sit below non-unique levels; `Dia`'s
    /// `Offset` is one) and no `Dense` level below another kind (no padding).
    pub fn stores_any_entries_exactly(&self) -> bool {
        let holds_anything = self
            .kinds
            .windows(2)
            .all(|w| !w[1].singleton() || !w[0].unique());
        let pads = self
            .kinds
            .windows(2)
            .any(|w| w[1] == Kind::Dense && w[0] != Kind::Dense);
        holds_anything && !pads
    }

    /// Whether it stores exactly the components it is given, whatever they are, and no zeros
    /// of its own: [`Format::stores_any_entries_exactly`], not all `Dense`, and not a padded
    /// struct format (`Dia`'s whole diagonals, `Bcsr`'s whole blocks).
    pub fn stores_exactly(&self) -> bool {
        let padded_struct = matches!(self.alias_name(), Some("Dia" | "Bcsr"));
        self.stores_any_entries_exactly() && !self.all_dense() && !padded_struct
    }

    /// Every level is `Dense`.
    pub fn all_dense(&self) -> bool {
        self.kinds.iter().all(|&k| k == Kind::Dense)
    }

    /// Every level inserts (`Dense`, `Hashed`): as an output it is written in place, in any
    /// order, and may be accumulated into (`+=`).
    pub fn inserts_everywhere(&self) -> bool {
        !self.remapped()
            && self
                .kinds
                .iter()
                .all(|&k| matches!(k, Kind::Dense | Kind::Hashed))
    }

    /// A valid format: the first level is not a singleton, a non-unique level is followed by a
    /// singleton level, the last level is unique.
    pub fn is_valid(&self) -> bool {
        let k = &self.kinds;
        !k.is_empty()
            && !k[0].singleton()
            && k.windows(2).all(|w| w[0].unique() || w[1].singleton())
            && k[k.len() - 1].unique()
    }

    /// An output of this format can be assembled (never one of [`INPUT_ONLY`]): a prefix of
    /// `Dense` levels, then one last
    /// `Hashed` level, or one or more groups `Compressed` or
    /// `CompressedNonUnique, SingletonNonUnique*, Singleton` and then a block of `Dense` levels.
    pub fn assemblable(&self) -> bool {
        if self.remapped() || self.alias_name().is_some_and(|n| INPUT_ONLY.contains(&n)) {
            return false;
        }
        let k = &self.kinds;
        let mut at = k.iter().take_while(|&&x| x == Kind::Dense).count();
        if at == k.len() {
            return false; // all dense: not a sparse output at all
        }
        if at + 1 == k.len() && k[at] == Kind::Hashed {
            return true;
        }
        while at < k.len() {
            match k[at] {
                Kind::Compressed | Kind::CompressedUnordered => at += 1,
                Kind::CompressedNu => {
                    at += 1;
                    while at < k.len() && k[at] == Kind::SingletonNu {
                        at += 1;
                    }
                    if at == k.len() || k[at] != Kind::Singleton {
                        return false;
                    }
                    at += 1;
                }
                // A dense block at the bottom, below the groups.
                Kind::Dense => return k[at..].iter().all(|&x| x == Kind::Dense),
                _ => return false,
            }
        }
        true
    }

    /// For an appended output with a dense block below its appending levels: how many storage
    /// levels lie above the block (a block is stored whole once any component is present).
    pub fn dense_block_start(&self) -> Option<usize> {
        if self.all_dense() || self.inserts_everywhere() {
            return None;
        }
        let start = self.kinds.iter().rposition(|&k| k != Kind::Dense)? + 1;
        (start < self.kinds.len()).then_some(start)
    }

    /// The Rust type for value type `v`.
    pub fn rust_type(&self, v: &str) -> String {
        match &self.spelling {
            Spelling::Alias {
                name,
                index,
                consts,
            } => {
                let mut args = vec![v.to_string()];
                args.extend(consts.iter().map(usize::to_string));
                args.extend(index.map(|i| i.name().to_string()));
                format!("{name}<{}>", args.join(", "))
            }
            Spelling::Explicit {
                index_written,
                modes,
                markers,
            } => {
                let levels: Vec<String> = self
                    .kinds
                    .iter()
                    .zip(&self.index)
                    .zip(index_written)
                    .map(|((&kind, &i), &written)| {
                        if *markers && !kind.unique() {
                            let base = if kind.singleton() {
                                "Singleton"
                            } else {
                                "Compressed"
                            };
                            format!("{base}<{}, NonUnique>", i.name())
                        } else if kind == Kind::CompressedUnordered {
                            format!("Compressed<{}, Unordered>", i.name())
                        } else if kind == Kind::SingletonPadded && (*markers || written) {
                            format!("Singleton<{}, Padded>", i.name())
                        } else if kind == Kind::Dense || !written {
                            kind.name().to_string()
                        } else {
                            format!("{}<{}>", kind.name(), i.name())
                        }
                    })
                    .collect();
                let tuple = if levels.len() == 1 {
                    format!("({},)", levels[0])
                } else {
                    format!("({})", levels.join(", "))
                };
                match modes {
                    ModesSpelling::Omitted => format!("Tensor<{v}, {tuple}>"),
                    ModesSpelling::Identity => format!("Tensor<{v}, {tuple}, Identity>"),
                    ModesSpelling::Modes => {
                        let m: Vec<String> = self.modes.iter().map(|m| m.to_string()).collect();
                        format!("Tensor<{v}, {tuple}, Modes<{}>>", m.join(", "))
                    }
                }
            }
        }
    }

    /// A canonical description (levels with index types, then the mode order).
    pub fn describe(&self) -> String {
        let levels: Vec<String> = self
            .kinds
            .iter()
            .zip(&self.index)
            .map(|(&k, &i)| {
                if matches!(k, Kind::Dense | Kind::InBlock) {
                    k.name().to_string()
                } else {
                    format!("{}<{}>", k.name(), i.name())
                }
            })
            .collect();
        let levels = format!("({}) modes {:?}", levels.join(", "), self.modes);
        if self.remapped() {
            // The struct (with `Bcsr`'s block size), then its view.
            format!("{} viewed as {levels}", self.rust_type("_"))
        } else {
            levels
        }
    }
}

/// A random permutation of `0..n`, the identity with probability `p_identity`.
pub fn random_modes(rng: &mut Rng, n: usize, p_identity: f64) -> Vec<usize> {
    let mut m: Vec<usize> = (0..n).collect();
    if !rng.chance(p_identity) {
        rng.shuffle(&mut m);
    }
    m
}

/// Random valid level kinds for `n` levels.
pub fn random_valid_kinds(rng: &mut Rng, n: usize) -> Vec<Kind> {
    let mut kinds: Vec<Kind> = Vec::with_capacity(n);
    for k in 0..n {
        let last = k + 1 == n;
        let kind = match kinds.last() {
            None if last => [
                Kind::Dense,
                Kind::Compressed,
                Kind::Hashed,
                Kind::CompressedUnordered,
            ][rng.weighted(&[4, 4, 2, 2])],
            None => [
                Kind::Dense,
                Kind::Compressed,
                Kind::CompressedNu,
                Kind::Hashed,
                Kind::Slotted,
                Kind::CompressedUnordered,
            ][rng.weighted(&[4, 4, 2, 1, 1, 1])],
            Some(prev) if !prev.unique() => {
                if last || rng.chance(0.6) {
                    Kind::Singleton
                } else {
                    Kind::SingletonNu
                }
            }
            Some(_) if last => [
                Kind::Dense,
                Kind::Compressed,
                Kind::Singleton,
                Kind::Hashed,
                Kind::SingletonPadded,
                Kind::Slotted,
                Kind::CompressedUnordered,
            ][rng.weighted(&[4, 4, 1, 2, 1, 1, 2])],
            Some(_) => [
                Kind::Dense,
                Kind::Compressed,
                Kind::CompressedNu,
                Kind::Singleton,
                Kind::SingletonNu,
                Kind::Hashed,
                Kind::SingletonPadded,
                Kind::Slotted,
                Kind::CompressedUnordered,
            ][rng.weighted(&[6, 6, 2, 1, 1, 1, 1, 1, 2])],
        };
        kinds.push(kind);
    }
    kinds
}

/// Random level kinds for `n` levels that an output can be assembled into.
pub fn random_assemblable_kinds(rng: &mut Rng, n: usize) -> Vec<Kind> {
    let dense = rng.below(n);
    let mut kinds = vec![Kind::Dense; dense];
    if rng.chance(0.2) {
        kinds.resize(n - 1, Kind::Dense);
        kinds.push(Kind::Hashed);
        return kinds;
    }
    // Sometimes a dense block below the groups (BCSR-style).
    let block = if n - dense >= 2 && rng.chance(0.25) {
        rng.range(1, n - dense - 1)
    } else {
        0
    };
    while kinds.len() < n - block {
        let room = n - block - kinds.len();
        if room >= 2 && rng.chance(0.3) {
            let len = rng.range(2, room);
            kinds.push(Kind::CompressedNu);
            kinds.extend(std::iter::repeat_n(Kind::SingletonNu, len - 2));
            kinds.push(Kind::Singleton);
        } else if rng.chance(0.15) {
            kinds.push(Kind::CompressedUnordered);
        } else {
            kinds.push(Kind::Compressed);
        }
    }
    kinds.extend(std::iter::repeat_n(Kind::Dense, block));
    kinds
}

/// Random valid level kinds for `n` levels that an output cannot be assembled into.
pub fn random_unassemblable_kinds(rng: &mut Rng, n: usize) -> Option<Vec<Kind>> {
    (0..50).map(|_| random_valid_kinds(rng, n)).find(|k| {
        let f = Format {
            kinds: k.clone(),
            index: vec![IndexTy::U32; n],
            modes: (0..n).collect(),
            spelling: Spelling::Alias {
                name: "",
                index: None,
                consts: Vec::new(),
            },
            hidden: 0,
        };
        !f.all_dense() && !f.assemblable()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(f: &str) -> Vec<Kind> {
        f.split(',')
            .map(|s| match s.trim() {
                "D" => Kind::Dense,
                "C" => Kind::Compressed,
                "CN" => Kind::CompressedNu,
                "S" => Kind::Singleton,
                "SN" => Kind::SingletonNu,
                "H" => Kind::Hashed,
                "SP" => Kind::SingletonPadded,
                "SL" => Kind::Slotted,
                "CU" => Kind::CompressedUnordered,
                other => panic!("{other}"),
            })
            .collect()
    }

    fn fmt(f: &str) -> Format {
        let k = kinds(f);
        let n = k.len();
        Format::explicit(&mut Rng::new(0), k, (0..n).collect())
    }

    #[test]
    fn assemblable_outputs_follow_the_rule() {
        for ok in [
            "C", "D,C", "C,C", "C,C,C", "CN,S", "CN,SN,S", "D,CN,S", "CN,S,C", "H", "D,H", "D,D,H",
            "C,D", "D,C,D,D", "CN,S,D",
        ] {
            assert!(fmt(ok).assemblable(), "{ok}");
        }
        for bad in [
            "D", "D,D", "D,S", "C,S", "D,SN,S", "C,D,C", "C,H", "H,H", "H,D", "H,C", "C,D,H",
        ] {
            assert!(!fmt(bad).assemblable(), "{bad}");
        }
    }

    #[test]
    fn random_kinds_are_valid() {
        let mut rng = Rng::new(3);
        for n in 1..=4 {
            for _ in 0..500 {
                let kinds = random_valid_kinds(&mut rng, n);
                let f = Format::explicit(&mut rng, kinds, (0..n).collect());
                assert!(f.is_valid(), "{f:?}");
                let kinds = random_assemblable_kinds(&mut rng, n);
                let a = Format::explicit(&mut rng, kinds, (0..n).collect());
                assert!(a.is_valid() && a.assemblable(), "{a:?}");
            }
        }
        assert!(!fmt("D,S").is_valid() || fmt("D,S").kinds[1].singleton());
        assert!(!fmt("S,C").is_valid());
        assert!(!fmt("CN,C").is_valid());
        assert!(!fmt("C,CN").is_valid());
    }

    #[test]
    fn types_are_spelled() {
        assert_eq!(Format::alias("Csr", None).rust_type("f64"), "Csr<f64>");
        assert_eq!(
            Format::alias("Coo3", Some(IndexTy::U64)).rust_type("f32"),
            "Coo3<f32, u64>"
        );
        assert_eq!(
            Format::alias("Dense2", Some(IndexTy::U64)).rust_type("i64"),
            "Dense2<i64>"
        );
        // Remapped aliases: const arguments before the index type, which `Dia` does not take.
        let b = Format::alias_with("Bcsr", Some(IndexTy::U64), vec![2, 3]);
        assert_eq!(b.rust_type("f64"), "Bcsr<f64, 2, 3, u64>");
        assert_eq!((b.order(), b.hidden), (2, 2));
        assert_eq!(
            Format::alias_with("Bcsr", None, vec![3, 1]).rust_type("f32"),
            "Bcsr<f32, 3, 1>"
        );
        let c = Format::alias("Csb", Some(IndexTy::U32));
        assert_eq!(c.rust_type("i64"), "Csb<i64, u32>");
        assert_eq!((c.order(), c.hidden), (2, 2));
        assert!(c.is_valid() && !c.assemblable() && !c.inserts_everywhere());
        let d = Format::alias("Dia", Some(IndexTy::U64));
        assert_eq!(d.rust_type("f64"), "Dia<f64>");
        assert_eq!((d.order(), d.hidden), (2, 1));
        assert_eq!(Format::alias("Ell", None).hidden, 0);
        let f = Format {
            kinds: kinds("D,C"),
            index: vec![IndexTy::U32, IndexTy::U64],
            modes: vec![1, 0],
            spelling: Spelling::Explicit {
                index_written: vec![false, true],
                modes: ModesSpelling::Modes,
                markers: false,
            },
            hidden: 0,
        };
        assert_eq!(
            f.rust_type("f64"),
            "Tensor<f64, (Dense, Compressed<u64>), Modes<1, 0>>"
        );
        let coo3 = Format {
            kinds: kinds("CN,SN,S"),
            index: vec![IndexTy::U32, IndexTy::U64, IndexTy::U32],
            modes: vec![0, 1, 2],
            spelling: Spelling::Explicit {
                index_written: vec![false, true, false],
                modes: ModesSpelling::Omitted,
                markers: true,
            },
            hidden: 0,
        };
        assert_eq!(
            coo3.rust_type("f64"),
            "Tensor<f64, (Compressed<u32, NonUnique>, Singleton<u64, NonUnique>, Singleton)>"
        );
    }
}
