// hand-written: elementwise kernels over spelled-out formats
pub fn neg_sub(c: &mut Dcsr<f64>, a: &Csr<f64>, b: &Coo<f64>) {
    c(i, j) = -a(i, j) - b(i, j)
}
pub fn neg_mul(c: &mut Csr<f64>, a: &Tensor<f64, (Dense, Compressed)>, b: &Tensor<f64, (Compressed, Compressed), Modes<0, 1>>) {
    c(i, j) = -(a(i, j) * b(i, j))
}
pub fn shift(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Coo<f64>) {
    c(i, j) = a(i, j) + 1.0 - b(i, j)
}
pub fn scaled(c: &mut Csr<f64>, a: &Coo<f64>, b: &Dcsr<f64>) {
    c(i, j) = (a(i, j) + 1.0) * b(i, j)
}
pub fn mixed(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
    c(i, j) = a(i, j) * a(i, j) - 0.5 * (a(i, j) - b(i, j) * 3.0)
}
pub fn div(c: &mut Csr<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
    c(i, j) = a(i, j) / b(i, j)
}
