use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn mul_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
        a(i, j) = b(i, j) * c(j, i)
    }
}

fn main() {}
