use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn accumulate(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }
}

fn main() {}
