use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn scale(y: Dense1<f64>, x: &Dense1<f64>) {
        y(i) = x(i)
    }
}

fn main() {}
