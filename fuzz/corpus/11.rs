// from tests/ui/sparse_divisor.rs
pub fn divide(y: &mut Dense1<f64>, a: &Dense1<f64>, c: &SparseVec<f64>) {
    y(i) = a(i) / c(i)
}
