// from tests/ui/repeated_index.rs
pub fn diagonal(y: &mut Dense1<f64>, a: &Csr<f64>) {
    y(i) = a(i, i)
}
