//! Crate-level tests: construction round trips against an oracle, validation
//! error paths, and append assembly.

mod append;
mod compositions;
mod edge_cases;
mod invariants;
mod oracle;
mod prng;
mod raw_validation;
mod round_trip;
mod soundness;
