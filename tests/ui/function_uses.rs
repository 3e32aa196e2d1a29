use sparse_runtime::prelude::*;

sparse_kernel! {
    /// No properties: fine in an element-wise call (a union), not as a reduction.
    #[function]
    fn plain(a: f64, b: f64) -> f64 { a + 2.0 * b }

    pub fn reduce_by_plain(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = plain[j](a(i, j))
    }

    pub fn wrong_arity(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = max(a(i, j))
    }

    pub fn unknown_reduction(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = median[j](a(i, j))
    }

    pub fn reduced_output_variable(y: &mut Dense1<f64>, a: &Csr<f64>) {
        y(i) = min[i](a(i, j))
    }

    pub fn reduced_variable_reused(y: &mut Dense1<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        y(i) = min[j](a(i, j)) + b(i, j)
    }

    pub fn unknown_function(c: &mut Csr<f64>, a: &Csr<f64>) {
        c(i, j) = hypot(a(i, j), a(i, j))
    }

    /// A structural mask over a dense operand: every coordinate is masked.
    #[function(iterate(x & !m))]
    fn unless(x: f64, m: f64) -> f64 { if m != 0.0 { 0.0 } else { x } }

    pub fn dense_mask(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &Dense1<f64>, m: &Dense1<f64>) {
        y(i) = unless(a(i, j) * x(j), m(i))
    }
}

fn main() {}
