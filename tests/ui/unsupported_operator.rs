use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn rem(y: &mut Dense1<f64>, x: &Dense1<f64>, z: &Dense1<f64>) {
        y(i) = x(i) % z(i)
    }
}

fn main() {}
