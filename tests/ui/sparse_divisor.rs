use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn divide(y: &mut Dense1<f64>, a: &Dense1<f64>, c: &SparseVec<f64>) {
        y(i) = a(i) / c(i)
    }
}

fn main() {}
