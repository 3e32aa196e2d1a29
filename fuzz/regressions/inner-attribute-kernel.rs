// Same defect as inner-attribute-failing-kernel.rs on the success path (emit.rs
// `kernel_fn`): the output starts with `#![allow(unused)]` before `pub fn f`.
pub fn f(y: &mut Dense1<f64>, x: &Dense1<f64>) {
    #![allow(unused)]
    y(i) = x(i)
}
