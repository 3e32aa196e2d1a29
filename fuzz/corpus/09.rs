// from tests/ui/output_var_absent.rs
pub fn broadcast(y: &mut Dense2<f64>, x: &Dense1<f64>) {
    y(i, j) = x(i)
}
