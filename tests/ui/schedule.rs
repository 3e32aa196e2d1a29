use sparse_runtime::prelude::*;

sparse_kernel! {
    // Not an index variable of the output.
    #[schedule(workspace(j))]
    pub fn not_output_var(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // Not a directive.
    #[schedule(vectorize(i))]
    pub fn unknown_directive(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // `parallel` takes only `never`: which loops run in parallel is the compiler's choice.
    #[schedule(parallel(i))]
    pub fn parallel_loop(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // Twice.
    #[schedule(parallel(never), parallel(never))]
    pub fn parallel_twice(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // `precompute` takes only `never`: which factors move is the compiler's choice.
    #[schedule(precompute(c))]
    pub fn precompute_factor(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    // Twice.
    #[schedule(precompute(never), precompute(never))]
    pub fn precompute_twice(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
        a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
    }
    // Not a workspace kind.
    #[schedule(workspace(k, sparse))]
    pub fn unknown_kind(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // A dense output is written in place.
    #[schedule(workspace(k))]
    pub fn dense_output(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // `b` is stored by rows: `j` must come before `k`.
    #[schedule(order(i, k, j))]
    pub fn inner_products(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(order(i, q, i))]
    pub fn bad_order(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // Rows of `c` cannot be the outer loop: `a` is stored by columns.
    #[schedule(workspace(k))]
    pub fn impossible(c: &mut Csr<f64>, a: &Csc<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // One workspace per kernel.
    #[schedule(workspace(k), workspace(i))]
    pub fn two(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    #[schedule(workspace)]
    pub fn no_variable(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // A dense output is computed in place already.
    #[schedule(compute(dense_values))]
    pub fn dense_compute(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, k) = a(i, j) * b(j, k)
    }
    // `+=` grows the pattern with every call.
    #[schedule(compute(update_values))]
    pub fn update_compute(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) += a(i, j)
    }
    #[schedule(order(i), order(j))]
    pub fn two_orders(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
    #[schedule(compute(x), compute(y))]
    pub fn two_computes(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
    #[schedule(compute("values"))]
    pub fn not_a_name(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = a(i, j)
    }
}

fn main() {
    // A kernel that failed to compile still declares its compute-only variant: no cascade.
    let _ = update_compute;
    let _ = update_values;
    let _ = dense_values;
}
