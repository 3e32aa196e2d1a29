//! Kernels generated from `macro_rules!` fragments: `$t:ty` arrives wrapped in invisible
//! groups, which the compiler looks through.
#![deny(warnings)]

use sparse_runtime::prelude::*;

macro_rules! spmv_over {
    ($name:ident, $A:ty, $X:ty) => {
        sparse_kernel! {
            pub fn $name(y: &mut Dense1<f64>, a: &$A, x: &$X) {
                y(i) = a(i, j) * x(j)
            }
        }
    };
}

spmv_over!(spmv_csr, Csr<f64>, Dense1<f64>);
spmv_over!(spmv_csc, Tensor<f64, (Dense, Compressed), Modes<1, 0>>, SparseVec<f64>);

#[test]
fn type_fragments_resolve_to_formats() -> Result<(), Error> {
    let entries = [([0, 1], 2.0), ([1, 0], -1.0), ([1, 1], 4.0)];
    let a = Csr::<f64>::from_entries(&[2, 2], entries)?;
    let mut y = Dense1::zeros(2);
    spmv_csr(&mut y, &a, &Dense1::from_vec(vec![1.0, 3.0]))?;
    assert_eq!(y.as_slice(), &[6.0, 11.0]);

    let c = Tensor::<f64, (Dense, Compressed), Modes<1, 0>>::from_entries(&[2, 2], entries)?;
    let x = SparseVec::<f64>::from_entries(&[2], [([1], 3.0)])?;
    spmv_csc(&mut y, &c, &x)?;
    assert_eq!(y.as_slice(), &[6.0, 12.0]);
    Ok(())
}
