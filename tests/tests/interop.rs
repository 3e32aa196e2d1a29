//! `sparse_runtime::interop`: sprs, nalgebra-sparse and ndarray conversions, both ways, on
//! random, empty and edge-shaped matrices, every index type; moves that reuse the other
//! crate's allocation; inputs the target cannot hold; a kernel on a matrix from sprs.

use nalgebra_sparse::{CooMatrix, CscMatrix, CsrMatrix};
use ndarray::{s, Array1, Array2, Array3, ArrayView2};
use sparse_runtime::interop::nalgebra_sparse::{from_coo_matrix, to_coo_matrix};
use sparse_runtime::prelude::*;
use sparse_tests::{random_entries, Entries};
use sprs::{CsMat, CsMatI, SpIndex};

const SHAPES: [[usize; 2]; 7] = [[0, 0], [0, 5], [5, 0], [1, 1], [7, 13], [13, 7], [30, 30]];
const DENSITIES: [f64; 4] = [0.0, 0.1, 0.5, 1.0];

/// Every (shape, density, entries) case.
fn cases() -> Vec<([usize; 2], Entries<f64>)> {
    let mut out = Vec::new();
    for (k, shape) in SHAPES.iter().enumerate() {
        for (d, &density) in DENSITIES.iter().enumerate() {
            out.push((*shape, random_entries(shape, density, (k * 10 + d) as u64)));
        }
    }
    out
}

fn csr<I: Index>(shape: [usize; 2], e: &Entries<f64>) -> Csr<f64, I> {
    Csr::from_entries(&shape, e.iter().map(|(c, v)| (c.as_slice(), *v))).unwrap()
}

fn csc<I: Index>(shape: [usize; 2], e: &Entries<f64>) -> Csc<f64, I> {
    Csc::from_entries(&shape, e.iter().map(|(c, v)| (c.as_slice(), *v))).unwrap()
}

/// The dense row-major matrix of a sprs matrix, by its own element access.
fn sprs_dense<I: SpIndex, Ip: SpIndex>(m: &CsMatI<f64, I, Ip>) -> Vec<f64> {
    let mut d = vec![0.0; m.rows() * m.cols()];
    for (&v, (i, j)) in m.iter() {
        d[i.index() * m.cols() + j.index()] += v;
    }
    d
}

// ---------------------------------------------------------------- sprs

/// Csr -> sprs -> Csr (and Csc) for one index type: values checked, arrays moved both ways.
fn sprs_round_trip<I: Index + SpIndex>() {
    for (shape, e) in cases() {
        let a: Csr<f64, I> = csr(shape, &e);
        let m = CsMatI::<f64, I>::try_from(a.clone()).unwrap();
        assert!(m.is_csr());
        assert_eq!(m.shape(), (shape[0], shape[1]));
        assert_eq!(sprs_dense(&m), a.to_dense(), "{shape:?}");
        if !e.is_empty() {
            // Moved out: sprs holds the tensor's own arrays.
            let b = a.clone();
            let (bv, bc) = (b.vals().as_ptr(), b.levels().1.crd().as_ptr());
            let mb = CsMatI::<f64, I>::try_from(b).unwrap();
            assert_eq!((mb.data().as_ptr(), mb.indices().as_ptr()), (bv, bc));
        }
        let (mv, mi) = (m.data().as_ptr(), m.indices().as_ptr());
        let back = Csr::<f64, I>::try_from(m).unwrap();
        assert_eq!(back, a);
        if !e.is_empty() {
            assert_eq!(back.vals().as_ptr(), mv, "values moved from sprs");
            assert_eq!(
                back.levels().1.crd().as_ptr(),
                mi,
                "indices moved from sprs"
            );
        }

        let c: Csc<f64, I> = csc(shape, &e);
        let m = CsMatI::<f64, I>::try_from(&c).unwrap();
        assert!(m.is_csc());
        assert_eq!(sprs_dense(&m), c.to_dense());
        assert_eq!(Csc::<f64, I>::try_from(m).unwrap(), c);
    }
}

#[test]
fn sprs_round_trips_u32() {
    sprs_round_trip::<u32>();
}

#[test]
fn sprs_round_trips_u64() {
    sprs_round_trip::<u64>();
}

#[test]
fn sprs_round_trips_usize() {
    sprs_round_trip::<usize>();
}

#[test]
fn sprs_move_reuses_the_allocations() {
    let m = CsMat::new((3, 4), vec![0, 2, 2, 3], vec![1, 3, 0], vec![1.0, 2.0, 3.0]);
    let (p, i, d) = (
        m.indptr().raw_storage().as_ptr(),
        m.indices().as_ptr(),
        m.data().as_ptr(),
    );
    let a: Csr<f64, usize> = m.try_into().unwrap();
    assert_eq!(a.levels().1.pos().as_ptr(), p);
    assert_eq!(a.levels().1.crd().as_ptr(), i);
    assert_eq!(a.vals().as_ptr(), d);
    assert_eq!(
        a.entries(),
        vec![(vec![0, 1], 1.0), (vec![0, 3], 2.0), (vec![2, 0], 3.0)]
    );

    // Another index type: the indices are converted, the values still moved.
    let m = CsMat::new((3, 4), vec![0, 2, 2, 3], vec![1, 3, 0], vec![1.0, 2.0, 3.0]);
    let d = m.data().as_ptr();
    let b: Csr<f64> = m.try_into().unwrap();
    assert_eq!(b.vals().as_ptr(), d);
    assert_eq!(b.entries(), a.entries());

    // And back out.
    let (p, i, d) = (
        b.levels().1.pos().as_ptr(),
        b.levels().1.crd().as_ptr(),
        b.vals().as_ptr(),
    );
    let m: CsMatI<f64, u32> = b.try_into().unwrap();
    assert_eq!(
        (
            m.indptr().raw_storage().as_ptr(),
            m.indices().as_ptr(),
            m.data().as_ptr()
        ),
        (p, i, d)
    );
}

#[test]
fn sprs_other_storage_order_and_index_types() {
    for (shape, e) in cases() {
        let a: Csr<f64> = csr(shape, &e);
        // CSC storage into Csr and CSR storage into Csc: converted.
        let m_csc = CsMatI::<f64, u32>::try_from(a.convert::<Csc<f64>>().unwrap()).unwrap();
        assert_eq!(Csr::<f64>::try_from(m_csc).unwrap(), a);
        let m_csr = CsMatI::<f64, u32>::try_from(&a).unwrap();
        assert_eq!(Csc::<f64>::try_from(m_csr).unwrap().entries(), a.entries());
        // Signed sprs indices and a different indptr type.
        let m: CsMatI<f64, i32, i64> = (&a).try_into().unwrap();
        assert_eq!(sprs_dense(&m), a.to_dense());
        assert_eq!(
            Csr::<f64, u64>::try_from(&m).unwrap().entries(),
            a.entries()
        );
    }
}

#[test]
fn sprs_views_and_slices() {
    let e = random_entries::<f64>(&[20, 9], 0.4, 7);
    let a: Csr<f64> = csr([20, 9], &e);
    let m = CsMatI::<f64, u32>::try_from(&a).unwrap();
    let rows = m.slice_outer(5..13);
    let expect: Vec<(Vec<usize>, f64)> = a
        .entries()
        .into_iter()
        .filter(|(c, _)| (5..13).contains(&c[0]))
        .map(|(c, v)| (vec![c[0] - 5, c[1]], v))
        .collect();
    let from_view = Csr::<f64>::try_from(rows).unwrap();
    assert_eq!(from_view.entries(), expect);
    // An owned copy of a slice keeps the slice's indptr offset.
    let owned = rows.to_owned();
    assert_ne!(owned.indptr().raw_storage()[0], 0);
    assert_eq!(Csr::<f64>::try_from(owned).unwrap().entries(), expect);

    // Borrowed views of ours: no copy.
    let v = a.sprs_view().unwrap();
    assert_eq!(v.data().as_ptr(), a.vals().as_ptr());
    assert_eq!(v.indices().as_ptr(), a.levels().1.crd().as_ptr());
    assert_eq!(sprs_dense(&v.to_owned()), a.to_dense());
    let c: Csc<f64> = a.convert().unwrap();
    let v = c.sprs_view().unwrap();
    assert!(v.is_csc());
    assert_eq!(sprs_dense(&v.to_owned()), a.to_dense());
}

#[test]
fn sprs_unsorted_input_is_sorted_by_sprs_or_refused() {
    // sprs's checked constructors refuse unsorted indices; its unsorted constructor sorts.
    assert!(CsMat::try_new((1, 3), vec![0, 2], vec![2, 0], vec![1.0, 2.0]).is_err());
    let m = CsMat::new_from_unsorted((1, 3), vec![0, 2], vec![2, 0], vec![1.0, 2.0]).unwrap();
    let a: Csr<f64> = m.try_into().unwrap();
    assert_eq!(a.entries(), vec![(vec![0, 0], 2.0), (vec![0, 2], 1.0)]);
}

#[cfg(target_pointer_width = "64")]
#[test]
fn sprs_values_the_index_type_cannot_hold_are_refused() {
    let wide = 1usize << 33;
    let m = CsMatI::<f64, u64>::new((2, wide), vec![0, 1, 1], vec![(1u64 << 32) + 5], vec![1.0]);
    let err = Csr::<f64, u32>::try_from(&m).unwrap_err();
    assert!(
        matches!(
            err,
            Error::IndexOverflow {
                index_type: "u32",
                ..
            }
        ),
        "{err}"
    );
    // Into u64 it fits, and back to a narrower sprs type it does not.
    let a = Csr::<f64, u64>::try_from(m).unwrap();
    assert_eq!(a.entries(), vec![(vec![0, (1 << 32) + 5], 1.0)]);
    assert!(CsMatI::<f64, u32>::try_from(&a).is_err());
    assert!(CsMatI::<f64, i32, i32>::try_from(a).is_err());
    // A width alone too large for u32, no entry.
    let m = CsMat::<f64>::new((1, wide), vec![0, 0], vec![], vec![]);
    assert!(matches!(
        Csr::<f64, u32>::try_from(m),
        Err(Error::IndexOverflow { .. })
    ));
}

sparse_kernel! {
    fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
        y(i) = a(i, j) * x(j)
    }
}

#[test]
fn a_kernel_on_a_matrix_from_sprs() {
    for (shape, e) in cases() {
        let [rows, cols] = shape;
        // Built on the sprs side (triplets, usize indices), moved and converted to u32.
        let mut tri = sprs::TriMat::new((rows, cols));
        for (c, v) in &e {
            tri.add_triplet(c[0], c[1], *v);
        }
        let m: CsMat<f64> = tri.to_csr();
        let dense = sprs_dense(&m);
        let a: Csr<f64> = m.try_into().unwrap();
        let x = Dense1::from_vec((0..cols).map(|j| 1.0 + j as f64 * 0.5).collect());
        let mut y = Dense1::zeros(rows);
        spmv(&mut y, &a, &x).unwrap();
        for i in 0..rows {
            let expect: f64 = (0..cols)
                .map(|j| dense[i * cols + j] * x.as_slice()[j])
                .sum();
            assert!(
                (y.as_slice()[i] - expect).abs() <= 1e-12 * (1.0 + expect.abs()),
                "{shape:?} row {i}"
            );
        }
    }
}

// ---------------------------------------------------------------- nalgebra-sparse

fn nalgebra_round_trip<I: Index>() {
    for (shape, e) in cases() {
        let a: Csr<f64, I> = csr(shape, &e);
        let m = CsrMatrix::from(&a);
        assert_eq!((m.nrows(), m.ncols()), (shape[0], shape[1]));
        let dense: Vec<f64> = {
            let mut d = vec![0.0; shape[0] * shape[1]];
            for (i, j, v) in m.triplet_iter() {
                d[i * shape[1] + j] += v;
            }
            d
        };
        assert_eq!(dense, a.to_dense());
        assert_eq!(Csr::<f64, I>::try_from(&m).unwrap(), a);
        let v = m.values().as_ptr();
        let back = Csr::<f64, I>::try_from(m).unwrap();
        assert_eq!(back, a);
        if !e.is_empty() {
            assert_eq!(back.vals().as_ptr(), v, "values moved from nalgebra-sparse");
        }
        let vals = back.vals().as_ptr();
        let m = CsrMatrix::from(back);
        if !e.is_empty() {
            assert_eq!(m.values().as_ptr(), vals, "values moved to nalgebra-sparse");
        }

        let c: Csc<f64, I> = csc(shape, &e);
        let m = CscMatrix::from(&c);
        assert_eq!(Csc::<f64, I>::try_from(&m).unwrap(), c);
        assert_eq!(Csc::<f64, I>::try_from(m).unwrap(), c);
        assert_eq!(
            Csr::<f64, I>::try_from(CsrMatrix::from(&CscMatrix::from(c))).unwrap(),
            a
        );
    }
}

#[test]
fn nalgebra_round_trips_u32() {
    nalgebra_round_trip::<u32>();
}

#[test]
fn nalgebra_round_trips_u64() {
    nalgebra_round_trip::<u64>();
}

#[test]
fn nalgebra_round_trips_usize() {
    nalgebra_round_trip::<usize>();
}

#[test]
fn nalgebra_move_reuses_the_allocations_with_usize_indices() {
    let m = CsrMatrix::try_from_csr_data(2, 3, vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0])
        .unwrap();
    let (o, i, v) = (
        m.row_offsets().as_ptr(),
        m.col_indices().as_ptr(),
        m.values().as_ptr(),
    );
    let a: Csr<f64, usize> = m.try_into().unwrap();
    assert_eq!(
        (
            a.levels().1.pos().as_ptr(),
            a.levels().1.crd().as_ptr(),
            a.vals().as_ptr()
        ),
        (o, i, v)
    );
    let m = CsrMatrix::from(a);
    assert_eq!(
        (
            m.row_offsets().as_ptr(),
            m.col_indices().as_ptr(),
            m.values().as_ptr()
        ),
        (o, i, v)
    );

    let m =
        CscMatrix::try_from_csc_data(2, 3, vec![0, 1, 1, 2], vec![1, 0], vec![5.0, 6.0]).unwrap();
    let (o, i, v) = (
        m.col_offsets().as_ptr(),
        m.row_indices().as_ptr(),
        m.values().as_ptr(),
    );
    let c: Csc<f64, usize> = m.try_into().unwrap();
    assert_eq!(c.entries(), vec![(vec![0, 2], 6.0), (vec![1, 0], 5.0)]);
    assert_eq!(
        (
            c.levels().1.pos().as_ptr(),
            c.levels().1.crd().as_ptr(),
            c.vals().as_ptr()
        ),
        (o, i, v)
    );
}

#[test]
fn nalgebra_input_is_validated() {
    // nalgebra-sparse refuses unsorted and out-of-range data itself; what it accepts but
    // our index type cannot hold is refused here.
    assert!(CsrMatrix::try_from_csr_data(1, 3, vec![0, 2], vec![2, 0], vec![1.0, 2.0]).is_err());
    let m = CsrMatrix::try_from_unsorted_csr_data(1, 3, vec![0, 2], vec![2, 0], vec![1.0, 2.0])
        .unwrap();
    let a: Csr<f64> = m.try_into().unwrap();
    assert_eq!(a.entries(), vec![(vec![0, 0], 2.0), (vec![0, 2], 1.0)]);
    #[cfg(target_pointer_width = "64")]
    {
        let m = CsrMatrix::<f64>::zeros(1, 1 << 33);
        assert!(matches!(
            Csr::<f64, u32>::try_from(&m),
            Err(Error::IndexOverflow { .. })
        ));
        assert_eq!(Csr::<f64, u64>::try_from(m).unwrap().shape(), &[1, 1 << 33]);
        let m = CscMatrix::<f64>::zeros(1 << 33, 1);
        assert!(matches!(
            Csc::<f64, u32>::try_from(m),
            Err(Error::IndexOverflow { .. })
        ));
    }
}

#[test]
fn nalgebra_coo_to_and_from_any_format() {
    for (shape, e) in cases() {
        // Every entry pushed twice, split in halves, in reverse order: summed back.
        let mut coo = CooMatrix::new(shape[0], shape[1]);
        for (c, v) in e.iter().rev() {
            coo.push(c[0], c[1], v * 0.25);
            coo.push(c[0], c[1], v * 0.75);
        }
        let a: Csr<f64> = csr(shape, &e);
        let from_csr: Csr<f64> = from_coo_matrix(&coo).unwrap();
        assert_eq!(from_csr.to_dense(), a.to_dense());
        let from_coo: Coo<f64, u64> = from_coo_matrix(&coo).unwrap();
        assert_eq!(from_coo.to_dense(), a.to_dense());
        let dia: Dia<f64> = from_coo_matrix(&coo).unwrap();
        assert_eq!(
            dia.entries().iter().filter(|(_, v)| *v != 0.0).count(),
            e.iter().filter(|(_, v)| *v != 0.0).count()
        );
        let list = sparse_runtime::io::Entries::try_from(&coo).unwrap();
        assert_eq!(list.len(), 2 * e.len());

        let back = to_coo_matrix(&a).unwrap();
        let mut got: Vec<(Vec<usize>, f64)> = back
            .triplet_iter()
            .map(|(i, j, &v)| (vec![i, j], v))
            .collect();
        got.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(got, a.entries());
        assert_eq!(
            CooMatrix::try_from(&a.convert::<Csc<f64>>().unwrap())
                .unwrap()
                .nnz(),
            e.len()
        );
    }
    let v = Dense1::from_vec(vec![1.0, 2.0]);
    assert!(matches!(
        to_coo_matrix(&v),
        Err(Error::OrderMismatch {
            expected: 2,
            found: 1
        })
    ));
}

// ---------------------------------------------------------------- ndarray

#[test]
fn ndarray_standard_layout_moves() {
    let x = Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);
    let at = x.as_ptr();
    let d = Dense2::from(x.clone());
    assert_eq!(d.shape(), &[3, 4]);
    assert_eq!(d.as_slice(), x.as_slice().unwrap());
    let d2 = Dense2::from(x);
    assert_eq!(
        d2.as_slice().as_ptr(),
        at,
        "a standard-layout array's vector is reused"
    );
    let view = d2.as_array_view().unwrap();
    assert_eq!(view.as_ptr(), at);
    let back = Array2::try_from(d2).unwrap();
    assert_eq!(back.as_ptr(), at);
    assert_eq!(Dense2::from(&back), d);

    let v = Array1::from_vec(vec![1.0, 2.0, 3.0]);
    let at = v.as_ptr();
    let d1 = Dense1::from(v);
    assert_eq!(d1.as_slice().as_ptr(), at);
    assert_eq!(Array1::try_from(d1).unwrap().as_ptr(), at);

    let t = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as i64);
    let at = t.as_ptr();
    let d3 = Dense3::from(t.clone());
    assert_eq!(d3.to_dense(), t.iter().copied().collect::<Vec<_>>());
    assert_eq!(Array3::try_from(&d3).unwrap(), t);
    let moved = Dense3::from(t);
    assert_eq!(moved.as_slice().as_ptr(), at);
}

#[test]
fn ndarray_other_layouts_copy_in_row_major_order() {
    let x = Array2::from_shape_fn((3, 4), |(i, j)| (i * 4 + j) as f64);
    // Transposed (column-major) owned array.
    let t = x.clone().reversed_axes();
    assert!(!t.is_standard_layout());
    let d = Dense2::from(t.clone());
    assert_eq!(d.shape(), &[4, 3]);
    for i in 0..4 {
        for j in 0..3 {
            assert_eq!(d.as_slice()[i * 3 + j], t[[i, j]]);
        }
    }
    assert_eq!(Dense2::from(t.view()), d);
    assert_eq!(Dense2::from(&t), d);
    // Sliced in place: standard layout at an offset in its vector (moved, shifted down).
    let mut rows = x.clone();
    let at = rows.as_ptr();
    rows.slice_collapse(s![1.., ..]);
    assert!(rows.is_standard_layout());
    let d = Dense2::from(rows);
    assert_eq!(d.as_slice(), &x.as_slice().unwrap()[4..]);
    assert_eq!(d.as_slice().as_ptr(), at, "the allocation is reused");
    // Strided columns: not standard layout.
    let mut cols = x.clone();
    cols.slice_collapse(s![.., ..;2]);
    let d = Dense2::from(cols);
    assert_eq!(d.as_slice(), &[0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
    let v: ArrayView2<f64> = x.slice(s![..2, 1..3]);
    assert_eq!(Dense2::from(v).as_slice(), &[1.0, 2.0, 5.0, 6.0]);
}

#[test]
fn ndarray_empty_shapes() {
    for (r, c) in [(0, 0), (0, 5), (5, 0)] {
        let x = Array2::<f64>::zeros((r, c));
        let d = Dense2::from(x.clone());
        assert_eq!(d.shape(), &[r, c]);
        assert_eq!(Array2::try_from(&d).unwrap(), x);
        assert_eq!(d.as_array_view().unwrap().dim(), (r, c));
        let mut sliced = Array2::<f64>::zeros((4, c));
        sliced.slice_collapse(s![4.., ..]);
        assert_eq!(Dense2::from(sliced).shape(), &[0, c]);
    }
    assert_eq!(Dense1::from(Array1::<f64>::zeros(0)).shape(), &[0]);
    // A shape this crate holds but ndarray cannot.
    let huge = Dense2::<f64>::from_vec(0, usize::MAX, vec![]).unwrap();
    assert!(matches!(
        huge.as_array_view(),
        Err(Error::NotRepresentable { .. })
    ));
    assert!(matches!(
        Array2::try_from(huge),
        Err(Error::NotRepresentable { .. })
    ));
}

/// The example of README.md's "Interoperability" subsection.
#[test]
fn interop_as_in_readme() -> Result<(), Error> {
    let m = sprs::CsMat::new((2, 3), vec![0, 1, 3], vec![2, 0, 1], vec![1.0, 2.0, 3.0]);
    let a: Csr<f64, usize> = m.try_into()?; // moved: sprs's CsMat has usize indices
    let b: Csr<f64> = Csr::try_from(&sprs::CsMat::<f64>::eye(3))?; // copied into u32 indices
    let back: sprs::CsMatI<f64, u32> = b.try_into()?; // moved back out
    let d = Dense2::from(ndarray::Array2::<f64>::zeros((3, 3))); // moved
    assert_eq!(a.nnz(), 3);
    assert_eq!(back.nnz(), 3);
    assert_eq!(d.shape(), &[3, 3]);
    Ok(())
}
