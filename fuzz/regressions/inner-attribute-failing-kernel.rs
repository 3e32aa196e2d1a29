// Found by the fuzzer (seed 2024, input 5335), minimized by hand.
// Bad output: the error stub re-emits the body's inner attribute `#![allow(unused)]` in item
// position, after the `compile_error!`s (lib.rs `stub`), which rustc rejects.
pub fn f(y: &mut Dense1<f64>) {
    #![allow(unused)]
    y(i) = q(i)
}
