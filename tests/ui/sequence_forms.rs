use sparse_runtime::prelude::*;

sparse_kernel! {
    #[schedule(order(i))]
    pub fn forms(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        let t(i) = x(i);
        let mut u = x(i) * x(i);
        let v: f32 = 1.0;
        let w;
        #[inline]
        y(i) = x(i);
        #[schedule(compute(values))]
        y(i) = u * x(i);
    }
}

fn main() {}
