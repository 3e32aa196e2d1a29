//! Crate-level tests: construction round trips against an oracle, validation
//! error paths, and append assembly.

mod append;
mod edge_cases;
mod oracle;
mod prng;
mod raw_validation;
mod round_trip;
