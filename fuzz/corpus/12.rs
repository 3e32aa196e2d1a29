// from tests/ui/sparse_output_add_assign.rs
pub fn accumulate(c: &mut Csr<f64>, a: &Csr<f64>) {
    c(i, j) += a(i, j)
}
