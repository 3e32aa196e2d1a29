// from tests/ui/output_not_mut.rs
pub fn scale(y: Dense1<f64>, x: &Dense1<f64>) {
    y(i) = x(i)
}
