use sparse_runtime::prelude::*;

sparse_kernel! {
    /// Dividing by a sparse operand's implicit zeros.
    pub fn divide(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
        c(i, j) = a(i, j) / b(i, j)
    }

    /// The output's fill is derived: min(inf, inf) = inf, not 0.
    pub fn wrong_output_fill(#[fill(0)] c: &mut Csr<f64>, #[fill(inf)] a: &Csr<f64>, #[fill(inf)] b: &Csr<f64>) {
        c(i, j) = min(a(i, j), b(i, j))
    }

    /// A dense operand stores every component.
    pub fn dense_fill(y: &mut Dense1<f64>, #[fill(1)] x: &Dense1<f64>, a: &Csr<f64>) {
        y(i) = a(i, j) * x(j)
    }

    pub fn not_a_constant(y: &mut Dense1<f64>, #[fill(pi)] a: &Csr<f64>) {
        y(i) = a(i, j)
    }

    /// A struct-held format reads its components through hidden coordinates.
    pub fn remapped_fill(y: &mut Dense1<f64>, #[fill(1)] a: &Dia<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    pub fn other_attribute(y: &mut Dense1<f64>, #[inline] a: &Csr<f64>) {
        y(i) = a(i, j)
    }
}

fn main() {}
