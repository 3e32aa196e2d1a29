//! The compile-time cost of `sparse_kernel!` over a representative set of 100 kernels.
//!
//! ```text
//! compile_cost expand [REPEAT]        expansion time and generated lines of each kernel
//! compile_cost crate DIR [N] [edit]   writes a crate at DIR with N kernels (default all) that
//!                                     depends on sparse-runtime by path; `edit` changes the
//!                                     body of the first kernel (for the incremental rebuild)
//! ```
//!
//! Built only with the feature `compile-cost` (it needs sparse-core, syn and prettyplease);
//! `benches/compile_cost.sh` runs it and the builds, and `benches/README.md` has the figures.

use std::time::Instant;

/// The kernels, by family: each a `fn NAME(...) { ... }` item as written inside
/// `sparse_kernel!`, `NAME` replaced by a unique name.
#[rustfmt::skip]
const KERNELS: &[(&str, &str)] = &[
    // SpMV over every matrix format, and with other index and value types.
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Bcsr<f64, 2, 2>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &CooAos<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &HashMat<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f32>, a: &Csr<f32>, x: &Dense1<f32>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>, x: &SparseVec<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>, x: &HashVec<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Compressed<u32, Unordered>)>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>, beta: f64, z: &Dense1<f64>) { y(i) = alpha * a(i, j) * x(j) + beta * z(i) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, alpha: f64, a: &Coo<f64>, x: &Dense1<f64>, beta: f64, z: &SparseVec<f64>) { y(i) = alpha * a(i, j) * x(j) + beta * z(i) }"),
    ("spmv", "fn NAME(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { r(i) = b(i) - a(i, j) * x(j) }"),
    ("spmv", "fn NAME(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { r(i) = b(i) - a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut Dense1<f64>, d: &Dia<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = (d(i, j) + a(i, j)) * x(j) }"),
    ("spmv", "fn NAME(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &SparseVec<f64>) { y(i) = a(i, j) * x(j) }"),
    ("spmv", "fn NAME(y: &mut SparseVec<f64>, a: &Csc<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }"),
    // Transposed operands: Aᵀ x, from each storage order.
    ("spmv_t", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(j) = a(i, j) * x(i) }"),
    ("spmv_t", "fn NAME(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { y(j) = a(i, j) * x(i) }"),
    ("spmv_t", "fn NAME(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) { y(j) = a(i, j) * x(i) }"),
    ("spmv_t", "fn NAME(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) { y(j) = a(i, j) * x(i) }"),
    ("spmv_t", "fn NAME(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) { y(j) = a(i, j) * x(i) }"),
    ("spmv_t", "fn NAME(s: &mut f64, x: &Dense1<f64>, a: &Csr<f64>, y: &Dense1<f64>) { s = x(i) * a(i, j) * y(j) }"),
    // SpMM and SpGEMM.
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Csc<f64>, b: &Dense2<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Coo<f64>, b: &Dense2<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Dcsr<f64>, b: &Dense2<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, b: &Dense2<f64>, a: &Csr<f64>) { c(i, j) = b(i, k) * a(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csc<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spmm", "fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, j) = a(k, i) * b(k, j) }"),
    ("spgemm", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spgemm", "#[schedule(workspace(k, hash))] fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"),
    ("spgemm", "#[schedule(compute(NAME_values))] fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }"),
    ("spgemm", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) += a(i, j) * b(j, k) }"),
    ("spgemm", "fn NAME(c: &mut Dcsr<f64>, a: &Dcsr<f64>, b: &Dcsr<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spgemm", "fn NAME(c: &mut HashMat<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spgemm", "fn NAME(c: &mut Csc<f64>, a: &Csc<f64>, b: &Csc<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    ("spgemm", "#[schedule(order(i, k, j))] fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, k) * b(k, j) }"),
    // Sparse adds, subtractions and scalings (unions), sparse outputs.
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Dcsr<f64>, a: &Dcsr<f64>, b: &Dcsr<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Coo<f64>, a: &Coo<f64>, b: &Coo<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) { c(i) = a(i) + b(i) }"),
    ("add", "fn NAME(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &HashVec<f64>) { c(i) = a(i) + b(i) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Ell<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>, d: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) + d(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>, d: &Csr<f64>, e: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) + d(i, j) + e(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, alpha: f64, a: &Csr<f64>, beta: f64, b: &Csr<f64>) { c(i, j) = alpha * a(i, j) - beta * b(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, alpha: f64, a: &Csr<f64>) { c(i, j) = alpha * a(i, j) }"),
    ("add", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) += a(i, j) + b(i, j) }"),
    ("add", "fn NAME(c: &mut Csf3<f64>, a: &Csf3<f64>, b: &Csf3<f64>) { c(i, j, k) = a(i, j, k) + b(i, j, k) }"),
    ("add", "fn NAME(c: &mut Csf3<f64>, a: &Csf3<f64>, b: &Coo3<f64>) { c(i, j, k) = a(i, j, k) + b(i, j, k) }"),
    ("add", "fn NAME(c: &mut Coo3<f64>, a: &Coo3<f64>, b: &Coo3<f64>) { c(i, j, k) = a(i, j, k) + b(i, j, k) }"),
    ("add", "fn NAME(c: &mut Csf4<f64>, a: &Csf4<f64>, b: &Csf4<f64>) { c(i, j, k, l) = a(i, j, k, l) + b(i, j, k, l) }"),
    ("add", "fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    // Transposed operands and conversions on entry.
    ("transpose", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(j, i) }"),
    ("transpose", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csc<f64>) { c(i, j) = a(i, j) + b(i, j) }"),
    ("transpose", "fn NAME(c: &mut Csr<f64>, b: &Csr<f64>) { c(i, j) = b(j, i) }"),
    ("transpose", "fn NAME(c: &mut Csf3<f64>, a: &Csf3<f64>, b: &Csf3<f64>) { c(i, j, k) = a(i, j, k) + b(k, i, j) }"),
    ("transpose", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>, b: &Csr<f64>) { y(i) = a(i, j) * b(j, i) }"),
    ("transpose", "fn NAME(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(j, i) }"),
    // Element-wise products (intersections).
    ("mul", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) * b(i, j) }"),
    ("mul", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &Dense2<f64>) { c(i, j) = a(i, j) * b(i, j) }"),
    ("mul", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, b: &HashMat<f64>) { c(i, j) = a(i, j) * b(i, j) }"),
    ("mul", "fn NAME(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &Dense1<f64>) { c(i) = a(i) * b(i) }"),
    ("mul", "fn NAME(c: &mut Csr<f64>, a: &Csr<f64>, d: &Dense1<f64>) { c(i, j) = a(i, j) / d(j) }"),
    ("mul", "fn NAME(c: &mut Coo<f64>, a: &Coo<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) * b(i, j) }"),
    // Dot products and reductions (scalar outputs).
    ("reduce", "fn NAME(s: &mut f64, a: &SparseVec<f64>, b: &SparseVec<f64>) { s = a(i) * b(i) }"),
    ("reduce", "fn NAME(s: &mut f64, a: &SparseVec<f64>, b: &Dense1<f64>) { s = a(i) * b(i) }"),
    ("reduce", "fn NAME(s: &mut f64, a: &Dense1<f64>, b: &Dense1<f64>) { s = a(i) * b(i) }"),
    ("reduce", "fn NAME(s: &mut f64, a: &HashVec<f64>, b: &SparseVec<f64>) { s = a(i) * b(i) }"),
    ("reduce", "fn NAME(s: &mut f64, a: &Csr<f64>) { s = a(i, j) * a(i, j) }"),
    ("reduce", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>) { y(i) = a(i, j) }"),
    ("reduce", "fn NAME(y: &mut Dense1<f64>, a: &Csr<f64>) { y(j) = a(i, j) }"),
    ("reduce", "fn NAME(s: &mut f64, a: &Csf3<f64>) { s = a(i, j, k) }"),
    // Tensor times vector and matrix.
    ("ttv", "fn NAME(a: &mut Csr<f64>, b: &Csf3<f64>, c: &Dense1<f64>) { a(i, j) = b(i, j, k) * c(k) }"),
    ("ttv", "fn NAME(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense1<f64>) { a(i, j) = b(i, j, k) * c(k) }"),
    ("ttv", "fn NAME(a: &mut Dense2<f64>, b: &Coo3<f64>, c: &Dense1<f64>) { a(i, j) = b(i, j, k) * c(k) }"),
    ("ttv", "fn NAME(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense1<f64>) { a(j, k) = b(i, j, k) * c(i) }"),
    ("ttv", "fn NAME(a: &mut Dcsr<f64>, b: &Csf3<f64>, c: &SparseVec<f64>) { a(i, j) = b(i, j, k) * c(k) }"),
    ("ttm", "fn NAME(a: &mut Csf3<f64>, b: &Csf3<f64>, c: &Dense2<f64>) { a(i, j, l) = b(i, j, k) * c(k, l) }"),
    ("ttm", "fn NAME(a: &mut Dense3<f64>, b: &Csf3<f64>, c: &Dense2<f64>) { a(i, j, l) = b(i, j, k) * c(k, l) }"),
    // MTTKRP, each mode, over CSF in identity and mode-first orders, and COO.
    ("mttkrp", "fn NAME(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, k, l) * c(k, j) * d(l, j) }"),
    ("mttkrp", "fn NAME(m: &mut Dense2<f64>, x: &Csf3<f64>, a: &Dense2<f64>, c: &Dense2<f64>) { m(j, r) = x(i, j, k) * a(i, r) * c(k, r) }"),
    ("mttkrp", "fn NAME(m: &mut Dense2<f64>, x: &Csf3<f64>, a: &Dense2<f64>, b: &Dense2<f64>) { m(k, r) = x(i, j, k) * a(i, r) * b(j, r) }"),
    ("mttkrp", "fn NAME(m: &mut Dense2<f64>, x: &Tensor<f64, (Compressed, Compressed, Compressed), Modes<1, 0, 2>>, a: &Dense2<f64>, c: &Dense2<f64>) { m(j, r) = x(i, j, k) * a(i, r) * c(k, r) }"),
    ("mttkrp", "fn NAME(m: &mut Dense2<f64>, x: &Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 0, 1>>, a: &Dense2<f64>, b: &Dense2<f64>) { m(k, r) = x(i, j, k) * a(i, r) * b(j, r) }"),
    ("mttkrp", "fn NAME(m: &mut Dense2<f64>, x: &Coo3<f64>, b: &Dense2<f64>, c: &Dense2<f64>) { m(i, r) = x(i, j, k) * b(j, r) * c(k, r) }"),
    ("mttkrp", "fn NAME(s: &mut f64, x: &Csf3<f64>, a: &Dense2<f64>, b: &Dense2<f64>, c: &Dense2<f64>) { s = x(i, j, k) * a(i, r) * b(j, r) * c(k, r) }"),
    // SDDMM.
    ("sddmm", "fn NAME(a: &mut Csr<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(k, j) }"),
    ("sddmm", "fn NAME(a: &mut Coo<f64>, b: &Coo<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(k, j) }"),
    ("sddmm", "fn NAME(a: &mut Dcsr<f64>, b: &Dcsr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(j, k) }"),
    ("sddmm", "fn NAME(a: &mut Dense2<f64>, b: &Csr<f64>, c: &Dense2<f64>, d: &Dense2<f64>) { a(i, j) = b(i, j) * c(i, k) * d(k, j) }"),
    // Other sparse outputs.
    ("outer", "fn NAME(c: &mut Csr<f64>, x: &SparseVec<f64>, y: &SparseVec<f64>) { c(i, j) = x(i) * y(j) }"),
    ("outer", "fn NAME(c: &mut Tensor<f64, (Dense, Compressed, Dense, Dense)>, a: &Csr<f64>, x: &Dense1<f64>, y: &SparseVec<f64>) { c(i, j, k, l) = a(i, j) * x(k) * y(l) }"),
];

/// The one kernel `edit` changes, and its body after the change.
const EDITED: (&str, &str) = ("y(i) = a(i, j) * x(j)", "y(i) = 2.0 * a(i, j) * x(j)");

/// Kernel `n` as an item, named `k{n}_{family}`; with `edit`, kernel 0 is the edited one.
fn kernel(n: usize, edit: bool) -> String {
    let (family, src) = KERNELS[n];
    let src = src.replace("NAME", &format!("k{n:03}_{family}"));
    let src = src.replacen("fn ", "pub fn ", 1);
    match (n, edit) {
        (0, true) => src.replace(EDITED.0, EDITED.1),
        _ => src,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn expand(repeat: usize) {
    let profile = if cfg!(debug_assertions) {
        "debug (opt-level 0, as cargo builds a proc macro)"
    } else {
        "release"
    };
    println!("sparse_core::expand, {profile} build, median of {repeat} runs per kernel");
    println!();
    println!(
        "| family | kernels | ms per kernel (mean) | slowest | lines per kernel (mean) | most |"
    );
    println!("|---|---|---|---|---|---|");
    let mut families: Vec<&str> = KERNELS.iter().map(|k| k.0).collect();
    families.dedup();
    let (mut all_ms, mut all_lines) = (0.0, 0);
    let mut each = Vec::new();
    for family in families {
        let (mut ms, mut lines) = (Vec::new(), Vec::new());
        for n in (0..KERNELS.len()).filter(|&n| KERNELS[n].0 == family) {
            let src = kernel(n, false);
            let tokens: proc_macro2::TokenStream = src.parse().expect("kernel tokenizes");
            let mut times = Vec::with_capacity(repeat);
            let mut out = None;
            for _ in 0..repeat {
                let tokens = tokens.clone();
                let start = Instant::now();
                let expanded = sparse_core::expand(tokens);
                times.push(start.elapsed().as_secs_f64() * 1e3);
                out = Some(expanded);
            }
            let out = out.expect("at least one run");
            let text = out.to_string();
            assert!(
                !text.contains("compile_error"),
                "kernel {n} does not compile:\n{src}\n{text}"
            );
            let file: syn::File = syn::parse2(out).expect("expansion parses");
            ms.push(median(times));
            lines.push(prettyplease::unparse(&file).lines().count());
            each.push((n, ms[ms.len() - 1], lines[lines.len() - 1]));
        }
        let count = ms.len();
        let total_ms: f64 = ms.iter().sum();
        let total_lines: usize = lines.iter().sum();
        println!(
            "| {family} | {count} | {:.2} | {:.2} | {} | {} |",
            total_ms / count as f64,
            ms.iter().copied().fold(0.0, f64::max),
            total_lines / count,
            lines.iter().max().expect("a kernel")
        );
        all_ms += total_ms;
        all_lines += total_lines;
    }
    let n = KERNELS.len();
    println!(
        "| **all** | {n} | {:.2} | | {} | |",
        all_ms / n as f64,
        all_lines / n
    );
    println!();
    println!(
        "{n} kernels: {all_ms:.0} ms of expansion, {all_lines} generated lines (prettyplease)"
    );
    each.sort_by_key(|e| std::cmp::Reverse(e.2));
    println!();
    println!("largest expansions (lines, ms):");
    for &(n, ms, lines) in &each[..5] {
        println!("  {lines:4} {ms:6.2}  {}", kernel(n, false));
    }
}

/// Writes the crate: `Cargo.toml` with sparse-runtime by path, `src/lib.rs` with one
/// `sparse_kernel!` block per kernel (the first `count` kernels).
fn write_crate(dir: &std::path::Path, count: usize, edit: bool) -> std::io::Result<()> {
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../sparse-runtime");
    let runtime = runtime.canonicalize()?;
    std::fs::create_dir_all(dir.join("src"))?;
    let manifest = format!(
        "[package]\nname = \"kernels100\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\nsparse-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    let mut lib = String::from(
        "//! Generated by `compile_cost crate`: kernels for measuring build times.\n\
         #![allow(clippy::all)]\n\nuse sparse_runtime::prelude::*;\n",
    );
    for n in 0..count.min(KERNELS.len()) {
        lib += &format!("\nsparse_kernel! {{\n    {}\n}}\n", kernel(n, edit));
    }
    std::fs::write(dir.join("src/lib.rs"), lib)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("expand") => expand(args.get(1).map_or(21, |s| s.parse().expect("REPEAT"))),
        Some("crate") => {
            let dir = std::path::Path::new(args.get(1).expect("compile_cost crate DIR"));
            let count = args.get(2).map_or(KERNELS.len(), |s| s.parse().expect("N"));
            let edit = args.get(3).is_some_and(|s| s == "edit");
            write_crate(dir, count, edit).expect("crate written");
        }
        Some("count") => println!("{}", KERNELS.len()),
        _ => {
            eprintln!("usage: compile_cost expand [REPEAT] | crate DIR [N] [edit] | count");
            std::process::exit(2);
        }
    }
}
