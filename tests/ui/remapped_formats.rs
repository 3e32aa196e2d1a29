use sparse_runtime::prelude::*;

sparse_kernel! {
    // A remapped format is not assembled by kernels.
    pub fn into_dia(a: &mut Dia<f64>, b: &Csr<f64>) {
        a(i, j) = b(i, j)
    }
}

sparse_kernel! {
    // Range and Offset levels exist only inside Dia.
    pub fn range_level(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Range, Offset)>) {
        y(i) = a(d, i, j)
    }
}

sparse_kernel! {
    // The logical order of a remapped format is the matrix's.
    pub fn three_indices(y: &mut Dense1<f64>, a: &Ell<f64>) {
        y(i) = a(i, s, j)
    }
}

sparse_kernel! {
    // A quotient is not distributed, so the diagonals' sum would have to be complete inside
    // the `i, j` loops; the output already accumulates, so the help names only the format.
    pub fn quotient(c: &mut Dense2<f64>, a: &Dia<f64>, b: &Dense2<f64>) {
        c(i, j) = (a(i, j) + b(i, j)) / b(i, j)
    }
}

sparse_kernel! {
    // BCSR's levels exist only inside it.
    pub fn into_bcsr(a: &mut Bcsr<f64, 2, 2>, b: &Csr<f64>) {
        a(i, j) = b(i, j)
    }
    pub fn into_csb(a: &mut Csb<f64>, b: &Csr<f64>) {
        a(i, j) = b(i, j)
    }
    pub fn in_block_level(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Compressed, InBlock<2>, InBlock<2>)>) {
        y(i) = a(p, q, i, j)
    }
}

sparse_kernel! {
    // Bcsr's block size is two constants after the value type.
    pub fn one_size(y: &mut Dense1<f64>, a: &Bcsr<f64, 3>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn not_a_size(y: &mut Dense1<f64>, a: &Bcsr<f64, [u8; 2], 3>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

fn main() {}
