// from tests/ui/sparse_output_order.rs
pub fn transpose(c: &mut Csr<f64>, a: &Csr<f64>) {
    c(i, j) = a(j, i)
}
