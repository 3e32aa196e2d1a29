//! Crate-level tests: construction round trips against an oracle, validation
//! error paths, and append assembly.

mod append;
mod compositions;
mod csb;
mod edge_cases;
mod fill;
mod functions;
mod invariants;
mod oracle;
pub(crate) mod prng;
mod raw_validation;
mod round_trip;
mod soundness;
mod structured;

use crate::Error;

/// The `InvalidLevel` level number and detail of `r`, or a panic (shared by the
/// validation tests).
fn invalid<T: std::fmt::Debug>(r: Result<T, Error>) -> (usize, String) {
    match r {
        Err(Error::InvalidLevel { level, detail }) => (level, detail),
        other => panic!("expected InvalidLevel, got {other:?}"),
    }
}
