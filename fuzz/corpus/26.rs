// from benches/benches/spmv.rs
/// Generated SpMV with the default `u32` indices.
fn spmv_u32(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}

/// Generated SpMV with `usize` indices.
fn spmv_usize(y: &mut Dense1<f64>, a: &Csr<f64, usize>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}
