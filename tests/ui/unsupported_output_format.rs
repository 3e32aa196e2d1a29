use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn rows(c: &mut Tensor<f64, (Compressed, Dense)>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
}

fn main() {}
