use sparse_runtime::prelude::*;

sparse_kernel! {
    pub const fn constant(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = x(i)
    }
    pub fn by_ref(y: &mut Dense1<f64>, ref x: &Dense1<f64>) {
        y(i) = x(i)
    }
    pub fn inner_attribute(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        #![allow(unused)]
        y(i) = x(i)
    }
    pub fn keyword_index(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(self) = x(self)
    }
    pub fn scalar_type(y: &mut Dense1<f64>, alpha: f32, x: &Dense1<f64>) {
        y(i) = alpha * x(i)
    }
}

fn main() {}
