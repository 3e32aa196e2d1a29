//! Every compile error of `sparse_kernel!`, with its exact message and span.

#[test]
fn compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
}
