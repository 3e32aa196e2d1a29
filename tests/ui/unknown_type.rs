use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn spmv(y: &mut Dense1<f64>, a: &Jagged<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

fn main() {}
