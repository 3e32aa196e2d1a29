use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn scale(y: &mut Dense1<i64>, x: &Dense1<i64>) {
        y(i) = 2.5 * x(i)
    }
}

fn main() {}
