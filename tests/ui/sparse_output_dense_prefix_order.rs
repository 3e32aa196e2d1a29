use sparse_runtime::prelude::*;

// A sparse output below dense levels is appended in its storage order: `a` stored by columns
// cannot be walked that way.
sparse_kernel! {
    pub fn outer(y: &mut Tensor<f64, (Dense, Dense, Compressed)>, a: &Csc<f64>, x: &SparseVec<f64>) {
        y(i, j, k) = a(i, j) * x(k)
    }
}

fn main() {}
