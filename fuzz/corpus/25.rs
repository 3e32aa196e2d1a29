// from sparse-runtime/examples/quickstart.rs
/// y = A x, with A in compressed sparse row format.
fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}

/// The same product with A as a coordinate list.
fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) {
    y(i) = a(i, j) * x(j)
}

/// C = A + B: a union of two sparsity patterns, assembled into a new CSR matrix.
fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) {
    c(i, j) = a(i, j) + b(i, j)
}
