//! COO-family outputs: a branchless `Singleton` level appends in lockstep with its
//! non-unique parent.
#![deny(warnings)]

use sparse_runtime::prelude::*;

sparse_kernel! {
    pub fn add_into_coo(c: &mut Coo<f64>, a: &Csr<f64>, b: &Coo<f64>) {
        c(i, j) = a(i, j) + b(i, j)
    }
    pub fn scale_into_coo3(c: &mut Coo3<f64>, a: &Csf3<f64>, s: f64) {
        c(i, j, k) = s * a(i, j, k)
    }
    pub fn rows_into_dense_coo(c: &mut Tensor<f64, (Dense, CompressedNonUnique, Singleton)>, a: &Coo3<f64>) {
        c(i, j, k) = a(i, j, k)
    }
}

#[test]
fn coo_outputs_hold_the_result() -> Result<(), Error> {
    let a = Csr::<f64>::from_entries(&[3, 3], [([0, 0], 1.0), ([2, 1], 2.0)])?;
    let b = Coo::<f64>::from_entries(&[3, 3], [([0, 0], 1.0), ([1, 2], 5.0)])?;
    let mut c = Coo::<f64>::from_entries(&[3, 3], [([1, 1], 9.0)])?;
    add_into_coo(&mut c, &a, &b)?;
    assert_eq!(
        c.entries(),
        vec![(vec![0, 0], 2.0), (vec![1, 2], 5.0), (vec![2, 1], 2.0)]
    );
    let again = Coo::<f64>::from_levels(c.shape(), c.levels().clone(), c.vals().to_vec());
    assert!(again.is_ok(), "assembled COO is valid: {again:?}");

    let t = Csf3::<f64>::from_entries(
        &[2, 2, 3],
        [([0, 1, 2], 1.0), ([1, 0, 0], 2.0), ([1, 0, 2], 3.0)],
    )?;
    let mut u = Coo3::<f64>::new(&[2, 2, 3])?;
    scale_into_coo3(&mut u, &t, 2.0)?;
    assert_eq!(
        u.entries(),
        vec![
            (vec![0, 1, 2], 2.0),
            (vec![1, 0, 0], 4.0),
            (vec![1, 0, 2], 6.0)
        ]
    );
    let t3 = Coo3::<f64>::from_entries(&[2, 2, 3], t.entries())?;
    let mut w = Tensor::<f64, (Dense, CompressedNonUnique, Singleton)>::new(&[2, 2, 3])?;
    rows_into_dense_coo(&mut w, &t3)?;
    assert_eq!(w.entries(), t.entries());
    Ok(())
}

sparse_kernel! {
    /// Property markers spell the same level types as the `...NonUnique` aliases.
    pub fn add_marker_spelling(
        c: &mut Tensor<f64, (Compressed<u32, NonUnique>, Singleton)>,
        a: &Tensor<f64, (Compressed<u64, NonUnique>, Singleton<u64>)>,
        b: &Tensor<f64, (Dense, Compressed<u32, ()>)>,
    ) {
        c(i, j) = a(i, j) + b(i, j)
    }
}

#[test]
fn marker_spellings_name_the_alias_types() -> Result<(), Error> {
    let entries = [([0, 2], 1.0), ([2, 1], 2.0)];
    let a =
        Tensor::<f64, (CompressedNonUnique<u64>, Singleton<u64>)>::from_entries(&[3, 3], entries)?;
    let b = Csr::<f64>::from_entries(&[3, 3], [([0, 2], 0.5), ([1, 1], 4.0)])?;
    let mut c = Coo::<f64>::new(&[3, 3])?;
    add_marker_spelling(&mut c, &a, &b)?;
    assert_eq!(
        c.entries(),
        vec![(vec![0, 2], 1.5), (vec![1, 1], 4.0), (vec![2, 1], 2.0)]
    );
    Ok(())
}
