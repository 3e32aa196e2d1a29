//! Inputs past the size limits are refused with a diagnostic before any recursive pass sees
//! them, and wide inputs within the limits expand to code linear in their operands.

fn expand(src: &str) -> String {
    let tokens: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    sparse_core::expand(tokens).to_string()
}

#[test]
fn a_huge_body_is_one_error_and_a_stub() {
    let terms = vec!["x(i)"; 5000].join(" + ");
    let out = expand(&format!(
        "pub fn f(y: &mut Dense1<f64>, x: &Dense1<f64>) {{ y(i) = {terms} }}"
    ));
    assert!(out.contains("a kernel holds at most 1024"), "{out}");
    assert!(out.contains("fn f"), "the stub keeps the signature: {out}");
    assert_eq!(out.matches("compile_error").count(), 1, "{out}");
}

#[test]
fn deep_nesting_and_prefix_runs_are_refused() {
    let deep = format!("{}x(i){}", "(".repeat(100), ")".repeat(100));
    let out = expand(&format!(
        "fn f(y: &mut Dense1<f64>, x: &Dense1<f64>) {{ y(i) = {deep} }}"
    ));
    assert!(out.contains("nested more than 64 deep"), "{out}");
    let negs = "-".repeat(10_000);
    let out = expand(&format!(
        "fn f(y: &mut Dense1<f64>, x: &Dense1<f64>) {{ y(i) = {negs}x(i) }}"
    ));
    assert!(out.contains("prefix operators in a row"), "{out}");
    let generic = format!("{}f64{}", "Vec<".repeat(100), ">".repeat(100));
    let out = expand(&format!("fn f(y: &mut {generic}) {{ y = 1.0 }}"));
    assert!(out.contains("nested more than 64 deep"), "{out}");
}

#[test]
fn many_parameters_are_refused() {
    let params: Vec<String> = (0..300).map(|k| format!("a{k}: &SparseVec<f64>")).collect();
    let out = expand(&format!(
        "fn f(y: &mut SparseVec<f64>, {}) {{ y(i) = a0(i) }}",
        params.join(", ")
    ));
    assert!(out.contains("at most 256 parameters"), "{out}");
}

#[test]
fn wide_sums_expand_linearly() {
    let size = |n: usize| {
        let params: Vec<String> = (0..n).map(|k| format!("a{k}: &Dcsr<f64>")).collect();
        let terms: Vec<String> = (0..n).map(|k| format!("a{k}(i, j)")).collect();
        let out = expand(&format!(
            "fn f(y: &mut Dcsr<f64>, {}) {{ y(i, j) = {} }}",
            params.join(", "),
            terms.join(" + ")
        ));
        assert!(!out.contains("compile_error"), "{out}");
        out.len()
    };
    let (s8, s16, s32) = (size(8), size(16), size(32));
    // Doubling the operands at most a little more than doubles the code.
    assert!(s16 < 3 * s8 && s32 < 3 * s16, "{s8} {s16} {s32}");
}

#[test]
fn many_kernels_in_one_invocation_are_refused() {
    let kernels: String = (0..70)
        .map(|k| format!("fn f{k}(y: &mut Dense1<f64>, x: &Dense1<f64>) {{ y(i) = x(i) }}\n"))
        .collect();
    let out = expand(&kernels);
    assert!(out.contains("at most 64 functions"), "{out}");
    assert_eq!(out.matches("compile_error").count(), 1);
}
