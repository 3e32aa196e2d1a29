// from tests/ui/unknown_tensor.rs
pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = b(i, j) * x(j)
}
