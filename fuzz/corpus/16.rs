// from tests/ui/unknown_type.rs
pub fn spmv(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}
