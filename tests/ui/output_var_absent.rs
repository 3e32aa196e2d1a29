use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn broadcast(y: &mut Dense2<f64>, x: &Dense1<f64>) {
        y(i, j) = x(i)
    }
}

fn main() {}
