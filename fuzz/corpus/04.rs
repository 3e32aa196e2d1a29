// from tests/ui/input_written.rs
pub fn copy(y: &Dense1<f64>, x: &Dense1<f64>) {
    y(i) = x(i)
}
