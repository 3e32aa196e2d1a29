// from tests/tests/coo_output.rs
pub fn add_into_coo(c: &mut Coo<f64>, a: &Csr<f64>, b: &Coo<f64>) {
    c(i, j) = a(i, j) + b(i, j)
}
pub fn scale_into_coo3(c: &mut Coo3<f64>, a: &Csf3<f64>, s: f64) {
    c(i, j, k) = s * a(i, j, k)
}
pub fn rows_into_dense_coo(c: &mut Tensor<f64, (Dense, CompressedNonUnique, Singleton)>, a: &Coo3<f64>) {
    c(i, j, k) = a(i, j, k)
}
