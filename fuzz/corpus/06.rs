// from tests/ui/many_errors.rs
pub fn broken(y: &mut Dense1<f64>, a: &Csr<f64>) {
    y(i) = a(i) * q(i) % 2.0
}
