use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn diagonal(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = a(i, i)
    }
}

fn main() {}
