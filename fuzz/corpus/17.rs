// from tests/ui/unsupported_operator.rs
pub fn rem(y: &mut Dense1<f64>, x: &Dense1<f64>, z: &Dense1<f64>) {
    y(i) = x(i) % z(i)
}
