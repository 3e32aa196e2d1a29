use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn long(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i) + x(i)
    }
}

sparse_kernel! {
    pub fn deep(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = ((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x(i)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
    }
}

fn main() {}
