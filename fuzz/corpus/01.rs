// from README.md
pub fn gemv(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>, beta: f64, z: &SparseVec<f64>) {
    y(i) = alpha * a(i, j) * x(j) + beta * z(i)
}
pub fn spmm(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
    c(i, j) = a(i, k) * b(k, j)
}
pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
    a(i, j) = b(i, j) * c(i, k) * d(k, j)
}
pub fn ttv(a: &mut Csr<f64>, b: &Csf3<f64>, c: &Dense1<f64>) {
    a(i, j) = b(i, j, k) * c(k)
}
pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
    a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
}
