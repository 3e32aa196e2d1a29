//! Crate-level tests: construction round trips against an oracle, validation
//! error paths, and append assembly.

mod oracle;
mod prng;
mod round_trip;
