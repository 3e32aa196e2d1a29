use sparse_runtime::prelude::*;
use sparse_runtime::Bcsr;

sparse_kernel! {
    pub fn spmv(y: &mut Dense1<f64>, a: &Jagged<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn spmv_blocks(y: &mut Dense1<f64>, a: &Bcsr<f64, 3, 3>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

fn main() {}
