use sparse_runtime::prelude::*;

sparse_kernel! {
    pub unsafe fn not_safe(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = x(i)
    }
    pub extern "C" fn with_abi(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i) = x(i)
    }
    pub fn with_where(y: &mut Dense1<f64>, x: &Dense1<f64>) where f64: Copy {
        y(i) = x(i)
    }
    pub fn attributed(y: &mut Dense1<f64>, #[allow(unused)] x: &Dense1<f64>) {
        y(i) = x(i)
    }
}

fn main() {}
