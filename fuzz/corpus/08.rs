// from tests/ui/output_read.rs
pub fn accumulate(y: &mut Dense1<f64>, x: &Dense1<f64>) {
    y(i) = y(i) + x(i)
}
