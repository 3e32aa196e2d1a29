//! Matrix generators shared by the benchmarks.
