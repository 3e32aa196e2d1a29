use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn seven_levels(y: &mut f64, a: &Tensor<f64, (Dense, Dense, Dense, Dense, Dense, Dense, Dense)>) {
        y = a(i, j, k, l, m, n, o)
    }
    pub fn not_a_tuple(y: &mut f64, a: &Tensor<f64, Dense>) {
        y = a(i)
    }
    pub fn bad_index_type(y: &mut f64, a: &Csr<f64, i32>) {
        y = a(i, j)
    }
    pub fn dense_has_no_index_type(y: &mut f64, a: &Dense2<f64, u64>) {
        y = a(i, j)
    }
}

fn main() {}
