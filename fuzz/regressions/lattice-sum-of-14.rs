// Exponential merge lattice, n = 14: stack overflow in lower.rs `Lowerer::cases`, which
// recurses once per sub-point of a lattice point (about 15,000 frames here).
fn f(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
    y(i) = x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i)
}
