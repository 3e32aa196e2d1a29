use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn transpose(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = a(j, i)
    }
}

fn main() {}
