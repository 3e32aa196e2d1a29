//! The contract example, verbatim.
#![deny(warnings)]
use sparse_runtime::prelude::*;

sparse_kernel! {
    /// y = A x
    pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }

    pub fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }

    pub fn dot(out: &mut f64, a: &SparseVec<f64>, b: &SparseVec<f64>) {
        out = a(i) * b(i)
    }
}

#[test]
fn contract_example() -> Result<(), sparse_runtime::Error> {
    let a = Csr::<f64>::from_entries(&[3, 4], [([0, 1], 2.0), ([2, 3], -1.0)])?;
    let x = Dense1::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
    let mut y = Dense1::zeros(3);
    spmv(&mut y, &a, &x)?;
    assert_eq!(y.as_slice(), &[4.0, 0.0, -4.0]);

    let b = Coo::<f64>::from_entries(&[3, 4], [([0, 1], 1.0), ([1, 0], 5.0), ([0, 1], 1.0)])?;
    let mut c = Csr::<f64>::new(&[3, 4])?;
    add(&mut c, &a, &b)?;
    assert_eq!(
        c.entries(),
        vec![(vec![0, 1], 4.0), (vec![1, 0], 5.0), (vec![2, 3], -1.0)]
    );

    let u = SparseVec::<f64>::from_entries(&[5], [([1], 2.0), ([3], 3.0)])?;
    let v = SparseVec::<f64>::from_entries(&[5], [([3], 4.0), ([4], 1.0)])?;
    let mut out = 0.0;
    dot(&mut out, &u, &v)?;
    assert_eq!(out, 12.0);

    let short = Dense1::from_vec(vec![1.0]);
    let err = spmv(&mut y, &a, &short).unwrap_err();
    assert!(err.to_string().contains("index variable `j`"), "{err}");
    Ok(())
}
