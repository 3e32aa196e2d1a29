use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn accumulate(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = y(i) + x(i)
    }
}

fn main() {}
