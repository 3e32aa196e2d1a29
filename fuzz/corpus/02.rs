// from tests/ui/arity_mismatch.rs
pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j, k) * x(j)
}
