// from tests/ui/two_statements.rs
pub fn two(y: &mut Dense1<f64>, x: &Dense1<f64>) {
    y(i) = x(i);
    y(i) = x(i)
}
