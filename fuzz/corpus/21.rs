// from tests/tests/kernels_split.rs
pub fn axpby_csc(y: &mut Dense1<f64>, alpha: f64, a: &Csc<f64>, x: &Dense1<f64>, beta: f64, z: &SparseVec<f64>) {
    y(i) = alpha * a(i, j) * x(j) + beta * z(i)
}

pub fn residual_csc(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
    r(i) = b(i) - a(i, j) * x(j)
}
