//! Snapshot tests of generated code: a change to code generation shows up as a readable diff.

fn generated(src: &str) -> String {
    let tokens: proc_macro2::TokenStream = src.parse().expect("test source tokenizes");
    let out = sparse_core::expand(tokens);
    let file: syn::File = syn::parse2(out.clone())
        .unwrap_or_else(|e| panic!("generated code does not parse: {e}\n{out}"));
    prettyplease::unparse(&file)
}

#[test]
fn csr_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn csr_plus_coo_into_csr() {
    insta::assert_snapshot!(generated(
        "pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) { c(i, j) = a(i, j) + b(i, j) }"
    ));
}

#[test]
fn sparse_vector_three_point_lattice() {
    insta::assert_snapshot!(generated(
        "pub fn axpy(a: &mut SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>) { a(i) = b(i) + c(i) }"
    ));
}

#[test]
fn ttv_on_csf() {
    insta::assert_snapshot!(generated(
        "pub fn ttv(a: &mut Csr<f64>, b: &Csf3<f64>, c: &Dense1<f64>) { a(i, j) = b(i, j, k) * c(k) }"
    ));
}

/// Over the runs of a root that is not unique: chunks of whole runs, each filling a window
/// of one entry per position (a `Coo3`'s singletons), where the runtime splits; the serial
/// assembly otherwise.
#[test]
fn ttv_on_coo3() {
    insta::assert_snapshot!(generated(
        "pub fn ttv(a: &mut Csr<f64>, b: &Coo3<f64>, c: &Dense1<f64>) { a(i, j) = b(i, j, k) * c(k) }"
    ));
}

#[test]
fn csr_plus_coo_into_coo() {
    insta::assert_snapshot!(generated(
        "pub fn add(c: &mut Coo<f64>, a: &Csr<f64>, b: &Coo<f64>) { c(i, j) = a(i, j) + b(i, j) }"
    ));
}

#[test]
fn residual_with_csc_is_split() {
    insta::assert_snapshot!(generated(
        "pub fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { r(i) = b(i) - a(i, j) * x(j) }"
    ));
}

#[test]
fn four_way_union_merges_compactly() {
    insta::assert_snapshot!(generated(
        "pub fn add4(y: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>, d: &SparseVec<f64>) { y(i) = a(i) + b(i) * c(i) + d(i) }"
    ));
}

#[test]
fn coo_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

/// Which COO loops scatter (visit positions, no run deduplication) and which keep runs.
#[test]
fn coo_loops_scatter_only_when_linear_and_not_co_iterated() {
    // A loop over runs scans for a run's end, or (fused) visits the run until the coordinate
    // changes, inside `while p < end` over the root; scattering is `for p in ..`.
    let runs = |body: &str, params: &str| {
        let code = generated(&format!("pub fn k({params}) {{ {body} }}"));
        code.contains("run_end") || code.contains("while p_a0 < end_a0")
    };
    let coo_mv = "y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>";
    // A run of row `i` sums into `y(i)` once: runs.
    assert!(runs("y(i) = a(i, j) * x(j)", coo_mv));
    assert!(runs("y(i) = 2.0 * a(i, j) * x(j) / x(i)", coo_mv));
    assert!(runs(
        "y(i, j) = a(i, k, l) * x(k, j) * x(l, j)",
        "y: &mut Dense2<f64>, a: &Coo3<f64>, x: &Dense2<f64>"
    ));
    // The output is not indexed by the run's variable, or it is also by a variable of the
    // run's branchless chain: each position writes its own component anyway.
    assert!(!runs("y(j) = a(i, j) * x(i)", coo_mv));
    assert!(!runs(
        "y(j) = a(i, j, k) * x(k)",
        "y: &mut Dense1<f64>, a: &Coo3<f64>, x: &Dense1<f64>"
    ));
    assert!(!runs(
        "s = a(i, j) * x(j)",
        "s: &mut f64, a: &Coo<f64>, x: &Dense1<f64>"
    ));
    assert!(!runs(
        "y(i, j) = a(i, j, k) * x(k)",
        "y: &mut Dense2<f64>, a: &Coo3<f64>, x: &Dense1<f64>"
    ));
    // A sparse x is co-iterated with the singleton level: per run, not per nonzero.
    assert!(runs(
        "y(i) = a(i, j) * x(j)",
        "y: &mut Dense1<f64>, a: &Coo<f64>, x: &SparseVec<f64>"
    ));
    // A sparse output is appended once per coordinate.
    assert!(runs(
        "y(i) = a(i, j) * x(j)",
        "y: &mut SparseVec<f64>, a: &Coo<f64>, x: &Dense1<f64>"
    ));
    // Two accesses of `a` are co-iterated at `i`.
    assert!(runs(
        "y(i) = a(i, j) * x(j) * (a(i, k) * x(k))",
        "y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>"
    ));
}

#[test]
fn hashvec_times_sparsevec() {
    // The sparse vector drives; the hash vector is located (found or not) per nonzero.
    insta::assert_snapshot!(generated(
        "pub fn mul(y: &mut SparseVec<f64>, a: &HashVec<f64>, b: &SparseVec<f64>) { y(i) = a(i) * b(i) }"
    ));
}

#[test]
fn hashvec_plus_sparsevec_reorders() {
    // A union merges the hash vector through a sorted copy of its buckets.
    insta::assert_snapshot!(generated(
        "pub fn add(y: &mut SparseVec<f64>, a: &HashVec<f64>, b: &SparseVec<f64>) { y(i) = a(i) + b(i) }"
    ));
}

#[test]
fn hashmat_spmv() {
    // Alone, the hash level is iterated by bucket, skipping empty ones, in storage order.
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &HashMat<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn spgemm_into_hashmat() {
    // An output whose levels all insert is written in any order: Gustavson's row-wise
    // product, each row of C a hash table that `+=` inserts into.
    insta::assert_snapshot!(generated(
        "pub fn spgemm(c: &mut HashMat<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, k) * b(k, j) }"
    ));
}

#[test]
fn bcsr_like_output_appends_dense_blocks() {
    // A dense level below a compressed one: a zero block is appended with the first value
    // computed in it.
    insta::assert_snapshot!(generated(
        "pub fn blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense)>, a: &Csf3<f64>, b: &Tensor<f64, (Dense, Compressed, Dense)>) { c(i, j, k) = a(i, j, k) + b(i, j, k) }"
    ));
}

#[test]
fn dia_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn bcsr_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Bcsr<f64, 3, 3>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn csb_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn ell_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

/// ELL's slots are one ordered segment per row: merged with a CSR row in column order,
/// skipping the padding, no reordering.
#[test]
fn ell_plus_csr_into_csr() {
    insta::assert_snapshot!(generated(
        "pub fn add(c: &mut Csr<f64>, a: &Ell<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }"
    ));
}

/// COO in array-of-structs layout: the same fused loop as `coo_spmv`, reading one pair array.
#[test]
fn coo_aos_spmv() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &CooAos<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

/// Gustavson's row-wise SpGEMM: each row of `c` is accumulated in a dense workspace (an array
/// with a list of touched columns), sorted, and appended.
#[test]
fn spgemm_gustavson_dense_workspace() {
    insta::assert_snapshot!(generated(
        "pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"
    ));
}

/// The same with the hash workspace the schedule asks for.
#[test]
fn spgemm_gustavson_hash_workspace() {
    insta::assert_snapshot!(generated(
        "#[schedule(workspace(k, hash))] pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"
    ));
}

/// A workspace over a whole `Dcsr` output (the outer products of a `Csc` and a `Csr` come
/// column by column): the copy walks runs of keys sharing a row.
#[test]
fn outer_products_into_dcsr_workspace() {
    insta::assert_snapshot!(generated(
        "pub fn outer(c: &mut Dcsr<f64>, a: &Csc<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"
    ));
}

/// The assemble/compute split: the kernel records that it assembled `c`, and `spgemm_values`
/// checks that record and stores each value at the next position of the pattern.
#[test]
fn spgemm_with_compute_only_variant() {
    insta::assert_snapshot!(generated(
        "#[schedule(compute(spgemm_values))] pub fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"
    ));
}

#[test]
fn plus_transpose_converts_an_operand() {
    insta::assert_snapshot!(generated(
        "pub fn add_t(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) + c(j, i) }"
    ));
}

#[test]
fn sequence_with_a_temporary() {
    insta::assert_snapshot!(generated(
        "pub fn scaled_residual(r: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>, b: &Dense1<f64>) {
            r(i) = b(i);
            r(i) -= a(i, j) * x(j);
            let norm = r(i) * r(i);
            r(i) = r(i) / norm;
        }"
    ));
}

#[test]
fn spmv_over_slices() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut [f64], a: &Csr<f64>, x: &[f64]) { y(i) = a(i, j) * x(j) }"
    ));
}

/// Henry et al. 2021, Figure 6: where one side is not stored, the per-case body runs instead
/// of the function.
#[test]
fn gcd_with_per_case_bodies() {
    insta::assert_snapshot!(generated(
        "#[function(commutative, associative, identity = 0)]
        #[case(gcd(x, 0) => x.abs())]
        #[case(gcd(0, y) => y.abs())]
        fn gcd(a: i64, b: i64) -> i64 {
            let (mut a, mut b) = (a.abs(), b.abs());
            while b != 0 {
                let t = a % b;
                a = b;
                b = t;
            }
            a
        }
        pub fn gcd_vec(c: &mut SparseVec<i64>, a: &SparseVec<i64>, b: &SparseVec<i64>) {
            c(i) = gcd(a(i), b(i))
        }"
    ));
}

/// GraphBLAS `mxv` with a complemented mask: where `m` is stored the row is skipped (an
/// omitter point), never computed and discarded.
#[test]
fn complemented_mask_mxv() {
    insta::assert_snapshot!(generated(
        "#[function(iterate(x & !m))]
        fn unless(x: f64, m: f64) -> f64 { if m != 0.0 { 0.0 } else { x } }
        pub fn masked_mxv(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &Dense1<f64>, m: &SparseVec<f64>) {
            y(i) = unless(a(i, j) * x(j), m(i))
        }"
    ));
}

/// Tropical min-plus `mxv`: infinity annihilates `plus`, so only stored entries are
/// visited, folded by `min` from its identity.
#[test]
fn min_plus_mxv() {
    insta::assert_snapshot!(generated(
        "#[function(commutative, associative, identity = 0, annihilator = inf)]
        fn plus(a: f64, b: f64) -> f64 { a + b }
        pub fn relax(y: &mut Dense1<f64>, #[fill(inf)] a: &Csr<f64>, x: &Dense1<f64>) {
            y(i) = min[j](plus(a(i, j), x(j)))
        }"
    ));
}

/// A fold by `or` stops at its annihilator: `any` leaves a row at its first true term.
#[test]
fn any_exits_at_its_annihilator() {
    insta::assert_snapshot!(generated(
        "pub fn reached(next: &mut SparseVec<u8>, g: &Csr<u8>, f: &Dense1<u8>) {
            next(i) = any[j](and(g(i, j), f(j)))
        }"
    ));
}

#[test]
fn spmm_updates_register_blocks_of_the_output_row() {
    insta::assert_snapshot!(generated(
        "pub fn spmm(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, k) = a(i, j) * b(j, k) }"
    ));
}

#[test]
fn mttkrp_holds_a_register_block_across_two_sparse_loops() {
    insta::assert_snapshot!(generated(
        "pub fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, k, l) * c(k, j) * d(l, j) }"
    ));
}

#[test]
fn sddmm_multiplies_each_dot_product_by_b_once() {
    insta::assert_snapshot!(generated(
        "#[schedule(compute(sddmm_values))] pub fn sddmm(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(j, k) }"
    ));
}

#[test]
fn csr_sum_assembles_its_rows_in_bounded_windows() {
    // In parallel, each task appends its rows into a window as long as its operands'
    // entries in those rows, and the runtime moves the tasks' entries together.
    insta::assert_snapshot!(generated(
        "pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }"
    ));
}

#[test]
fn dcsr_spmv_runs_its_stored_rows_in_parallel() {
    insta::assert_snapshot!(generated(
        "pub fn spmv(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"
    ));
}

#[test]
fn only_float_kernels_are_precomputed() {
    let mttkrp = |v: &str| {
        generated(&format!(
            "pub fn mttkrp(a: &mut Dense2<{v}>, b: &Csf3<{v}>, c: &Dense2<{v}>, d: &Dense2<{v}>) {{ a(i, j) = b(i, k, l) * c(k, j) * d(l, j) }}"
        ))
    };
    assert!(mttkrp("f32").contains("let mut pre"));
    assert!(!mttkrp("i64").contains("let mut pre"));
    assert!(!mttkrp("u8").contains("let mut pre"));
}

/// A scalar output folds its outermost loop in parallel chunks (`crate::reduction`): each
/// chunk merges its rows of the two operands into a sum of its own, combined in order.
#[test]
fn inner_product_folds_in_chunks() {
    insta::assert_snapshot!(generated(
        "pub fn frobenius(d: &mut f64, a: &Csr<f64>, b: &Csr<f64>) { d = a(i, j) * b(i, j) }"
    ));
}

/// A fold by `or` with its early exit: each chunk leaves its own loop once its value is 1.
#[test]
fn any_folds_in_chunks_with_an_early_exit() {
    insta::assert_snapshot!(generated(
        "pub fn overlap(d: &mut u8, a: &Csr<u8>, b: &Csr<u8>) {
            d = any[i](any[j](and(a(i, j), b(i, j))))
        }"
    ));
}
