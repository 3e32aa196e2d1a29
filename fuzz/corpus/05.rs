// from tests/ui/loop_order_cycle.rs
pub fn add_transpose(a: &mut Dense2<f64>, b: &Csr<f64>, c: &Csr<f64>) {
    a(i, j) = b(i, j) + c(j, i)
}
