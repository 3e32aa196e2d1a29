use sparse_runtime::prelude::*;

// Each statement is checked as a kernel of its own; the signature's errors appear once.
sparse_kernel! {
    pub fn signature<T>(y: &mut Dense1<f64>, x: Dense1<f64>) -> u8 {
        y(i) = x(i);
        y(i) += x(i);
        let s = y(i) * x(i);
    }
}

fn main() {}
