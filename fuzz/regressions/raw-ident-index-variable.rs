// Found by the fuzzer (seed 2024, input 88039), minimized by hand.
// panic: "dim_r#i" is not a valid Ident (at sparse-core/src/emit.rs:49): names built by
// formatting an index variable's name break on raw identifiers.
pub fn f(y: &mut Dense1<f64>, x: &Dense1<f64>) {
    y(r#i) = x(r#i)
}
