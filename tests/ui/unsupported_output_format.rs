use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn rows(c: &mut Tensor<f64, (Compressed, Dense, Compressed)>, a: &Csf3<f64>) {
        c(i, j, k) = a(i, j, k)
    }
}

fn main() {}
