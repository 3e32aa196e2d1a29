//! Unsigned value types: `u32` and `u64` kernels, including a subtraction whose right-only
//! lattice point is emitted as `0 - b` (unsigned types have no negation).
#![deny(warnings)]

use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn spmv_u32(y: &mut Dense1<u32>, a: &Csr<u32>, x: &Dense1<u32>) {
        y(i) = a(i, j) * x(j)
    }
    pub fn sub_u64(c: &mut Csr<u64>, a: &Csr<u64>, b: &Coo<u64>) {
        c(i, j) = a(i, j) - b(i, j)
    }
}

#[test]
fn unsigned_kernels_compute_exactly() -> Result<(), Error> {
    let a = Csr::<u32>::from_entries(&[2, 3], [([0, 0], 2), ([0, 2], 3), ([1, 1], 4)])?;
    let x = Dense1::from_vec(vec![1, 2, 3]);
    let mut y = Dense1::zeros(2);
    spmv_u32(&mut y, &a, &x)?;
    assert_eq!(y.as_slice(), &[11, 8]);

    // b's pattern lies inside a's and b <= a, so no difference underflows.
    let a = Csr::<u64>::from_entries(&[2, 3], [([0, 0], 5), ([0, 2], 3), ([1, 1], 4)])?;
    let b = Coo::<u64>::from_entries(&[2, 3], [([0, 2], 3), ([1, 1], 1)])?;
    let mut c = Csr::<u64>::new(&[2, 3])?;
    sub_u64(&mut c, &a, &b)?;
    assert_eq!(
        c.entries(),
        vec![(vec![0, 0], 5), (vec![0, 2], 0), (vec![1, 1], 3)]
    );
    Ok(())
}
