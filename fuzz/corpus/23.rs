// from tests/tests/kernels_unsigned.rs
pub fn spmv_u32(y: &mut Dense1<u32>, a: &Csr<u32>, x: &Dense1<u32>) {
    y(i) = a(i, j) * x(j)
}
pub fn sub_u64(c: &mut Csr<u64>, a: &Csr<u64>, b: &Coo<u64>) {
    c(i, j) = a(i, j) - b(i, j)
}
