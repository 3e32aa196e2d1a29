// sparse array programming: windows and strides, reductions by the prelude's monoids
pub fn window_add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Dense2<f64>, lo: usize, hi: usize) {
    c(i, j) = a(i[lo..hi], j) + b(i, j[(1..7).step_by(2)])
}

pub fn tail(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
    y(i) = a(i[2..], j) * x(j)
}

pub fn row_max(#[fill(-inf)] y: &mut SparseVec<f64>, #[fill(-inf)] a: &Dcsr<f64>) {
    y(i) = max[j](a(i, j))
}

pub fn counts(out: &mut f64, a: &Csr<f64>, b: &Csr<f64>) {
    out = sum[i](sum[j](ne(a(i, j), b(i, j))))
}

pub fn ufunc(y: &mut Dense1<f64>, a: &SparseVec<f64>, e: f64) {
    y(i) = sqrt(abs(pow(a(i), 2.0))) + exp(ldexp(a(i), e)) * not(gt(a(i), 0.5))
}
