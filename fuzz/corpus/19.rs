// from tests/ui/value_type_mismatch.rs
pub fn spmv(y: &mut Dense1<f32>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}
