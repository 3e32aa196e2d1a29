// hand-written: concrete instances of the macro_rules! kernels in tests/tests
pub fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &SparseVec<f64>) {
    y(i) = a(i, j) * x(j)
}
pub fn spmv_acc(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) {
    y(i) += a(i, j) * x(j)
}
pub fn transposed(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
    y(j) = a(i, j) * x(i)
}
pub fn squared(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * a(i, j) * x(j)
}
pub fn summed_sum(y: &mut Dense1<f64>, a: &Coo<f64>, x: &SparseVec<f64>) {
    y(i) = a(i, j) + x(j)
}
pub fn affine(y: &mut Dense1<f64>, a: &Csr<f64>, x: &SparseVec<f64>) {
    y(i) = 2.0 * a(i, j) * x(j) + 1.0
}
pub fn shifted(y: &mut SparseVec<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * (x(j) + 1.0)
}
