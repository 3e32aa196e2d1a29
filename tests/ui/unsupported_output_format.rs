use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn to_coo(c: &mut Coo<f64>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
}

fn main() {}
