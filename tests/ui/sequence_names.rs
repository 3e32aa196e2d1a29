use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn names(y: &mut Dense1<f64>, out: &mut f64, x: &Dense1<f64>) {
        y(i) = s * x(i);
        let s = x(i) * x(i);
        let x = s * 2.0;
        let s = 1.0;
        s = out;
        let t = t + 1.0;
        out = t;
    }
}

fn main() {}
