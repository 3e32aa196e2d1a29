// from tests/tests/kernels_tensor.rs
pub fn bcsr_spmv(y: &mut Dense2<f64>, a: &Tensor<f64, (Dense, Compressed, Dense, Dense)>, x: &Dense2<f64>) {
    y(i, k) = a(i, j, k, l) * x(j, l)
}

pub fn bcsr_spmv_acc(y: &mut Dense2<f64>, a: &Tensor<f64, (Dense, Compressed, Dense, Dense)>, x: &Dense2<f64>) {
    y(i, k) += a(i, j, k, l) * x(j, l)
}
