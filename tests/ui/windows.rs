use sparse_runtime::prelude::*;

sparse_kernel! {
    /// A hash level's coordinates are not in order: no window reaches it.
    pub fn hashed(y: &mut Dense1<f64>, a: &HashVec<f64>) {
        y(i) = a(i[1..3])
    }

    /// ELL's slots are positions without coordinates.
    pub fn padded(y: &mut Dense1<f64>, a: &Ell<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j[0..2]) * x(j)
    }

    /// A stride cannot step over COO's runs of equal rows.
    pub fn strided_runs(c: &mut Dense2<f64>, a: &Coo<f64>) {
        c(i, j) = a(i[(0..4).step_by(2)], j)
    }

    /// A struct-held format stores its modes through a remapping.
    pub fn remapped(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) {
        y(i) = a(i[0..2], j) * x(j)
    }

    pub fn output_window(y: &mut Dense1<f64>, x: &Dense1<f64>) {
        y(i[0..2]) = x(i)
    }

    pub fn backwards(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
        y(i) = x(i[4..2])
    }

    pub fn inclusive(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
        y(i) = x(i[0..=2])
    }

    pub fn float_bound(y: &mut Dense1<f64>, x: &SparseVec<f64>, lo: f64) {
        y(i) = x(i[lo..])
    }

    pub fn zero_step(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
        y(i) = x(i[(0..4).step_by(0)])
    }
}

fn main() {}
