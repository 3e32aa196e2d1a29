use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn unsigned_subtract(y: &mut Dense1<u32>, x: &Dense1<u32>) {
        y(i) -= x(i)
    }
    pub fn scale(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) *= x(i)
    }
}

fn main() {}

sparse_kernel! {
    pub fn attribute_on_the_statement(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        #[schedule(order(i))]
        y(i) = x(i)
    }
}

sparse_kernel! {
    pub fn negate_unsigned(y: &mut Dense1<u32>, x: &Dense1<u32>) {
        y(i) = -x(i) + 2
    }
}
