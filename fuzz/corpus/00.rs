// from README.md
/// y = A x
pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}

pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) {
    c(i, j) = a(i, j) + b(i, j)
}

pub fn dot(out: &mut f64, a: &SparseVec<f64>, b: &SparseVec<f64>) {
    out = a(i) * b(i)
}
