// Exponential merge lattice (found by the fuzzer in many forms, e.g. seed 1, input 11).
// A sum of n sparse operands builds 2^n - 1 lattice points (lattice.rs `disjunction`,
// deduplicated pairwise) and lowers every point with an if-chain over its sub-points
// (lower.rs `cases`): about 1-2 s here in release, 10 s and 380 MB for n = 10, the 4 GB
// memory cap for n = 13, see lattice-sum-of-14.rs for n = 14.
fn f(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
    y(i) = x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i)
}
