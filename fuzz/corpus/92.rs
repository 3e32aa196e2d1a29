// hand-written: tensor kernels, value types, index types, mode orders
pub fn ttv(a: &mut Csr<f32>, b: &Coo3<f32>, c: &SparseVec<f32>) {
    a(i, j) = b(i, j, k) * c(k)
}
pub fn ttm(a: &mut Dense3<i64>, b: &Csf3<i64>, c: &Dense2<i64>) {
    a(i, j, l) = b(i, j, k) * c(l, k)
}
pub fn add3(a: &mut Csf3<u64>, b: &Csf3<u64>, c: &Coo3<u64>, d: &Tensor<u64, (Dense, Dense, Compressed)>) {
    a(i, j, k) = b(i, j, k) + c(i, j, k) + d(i, j, k)
}
pub fn bcsr(y: &mut Dense2<i32>, a: &Tensor<i32, (Dense, Compressed, Dense, Dense), Modes<0, 1, 2, 3>>, x: &Dense2<i32>) {
    y(i, k) = a(i, j, k, l) * x(j, l)
}
pub fn csc_u64(y: &mut Dense1<f64>, alpha: f64, a: &Csc<f64, u64>, x: &SparseVec<f64, usize>) {
    y(j) = alpha * a(i, j) * x(i)
}
pub fn coo_rows(c: &mut Tensor<f64, (Dense, CompressedNonUnique, Singleton)>, a: &Coo3<f64>) {
    c(i, j, k) = a(i, j, k)
}
pub fn perm(c: &mut Dense3<f64>, a: &Tensor<f64, (Compressed, Dense, Compressed), Modes<2, 0, 1>>) {
    c(i, j, k) = a(i, j, k) * 2
}
