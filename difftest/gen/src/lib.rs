//! The differential tester's compiler-independent half: a random kernel generator, the
//! language's sum placement and acceptance rules, data cases, and a dense reference evaluator
//! with presence (sparsity pattern) semantics. See `TESTING.md` at the workspace root.
//!
//! Nothing here shares code with the compiler's reasoning; `classify` only asks
//! `sparse_core::compile`/`expand` whether a kernel is accepted.

pub mod classify;
pub mod data;
pub mod features;
pub mod format;
pub mod functions;
pub mod generate;
pub mod kernel;
pub mod reference;
pub mod rng;
pub mod semantics;
pub mod testcode;
pub mod windows;

pub use generate::generate;

/// The kernels (seeds) of the CI subset.
pub const CI_KERNELS: std::ops::Range<u64> = 0..300;

/// Defect classes of `known_failures.txt` whose kernels are left out of the CI build (their
/// expansion does not compile, or they abort the process); kernels of other classes are built,
/// run, and must still fail.
pub const NOT_BUILT: &[&str] = &[
    "raw-ident-panic",
    "compiler-panic",
    "name-collision",
    "compile-error",
    "unassemblable-output",
    "abort",
];

/// Parses `known_failures.txt`: one `id defect-class` per line; `#` starts a comment.
pub fn known_failures(text: &str) -> Vec<(u64, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            let id = words.next()?.parse().ok()?;
            let class = words.next().unwrap_or("unclassified").to_string();
            Some((id, class))
        })
        .collect()
}
