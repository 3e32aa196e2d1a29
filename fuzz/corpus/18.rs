// from tests/ui/unsupported_output_format.rs
pub fn rows(c: &mut Tensor<f64, (Compressed, Dense)>, a: &Csr<f64>) {
    c(i, j) = a(i, j)
}
