use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn ell_like(y: &mut Tensor<f64, (Dense, Singleton)>, a: &Csr<f64>) {
        y(i, j) = a(i, j)
    }
    pub fn dense_then_coo_run(y: &mut Tensor<f64, (Dense, SingletonNonUnique, Singleton)>, a: &Csf3<f64>) {
        y(i, j, k) = a(i, j, k)
    }
    pub fn compressed_then_singleton(y: &mut Tensor<f64, (Compressed, Singleton)>, a: &Csr<f64>) {
        y(i, j) = a(i, j)
    }
    pub fn hash_rows_of_columns(y: &mut Tensor<f64, (Hashed, Compressed)>, a: &Csr<f64>) {
        y(i, j) = a(i, j)
    }
    pub fn compressed_then_hashed(y: &mut Tensor<f64, (Compressed, Hashed)>, a: &Csr<f64>) {
        y(i, j) = a(i, j)
    }
}

fn main() {}
