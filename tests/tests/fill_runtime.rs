//! Fill values in the runtime (Henry et al. 2021, section 4.1): every tensor's unstored
//! components have its fill value, zero unless set. Zero from every constructor, reader
//! and conversion; kept by sparse conversions and written into dense ones; seen by `==`,
//! `same_values`, `pruned`, `to_dense`; refused by the writers and the interop exports
//! that only know zero; kept by the struct formats through their conversions. Random
//! matrices of every shape and density, against a dense oracle built here.
#![deny(warnings)]

use nalgebra_sparse::{CooMatrix, CsrMatrix};
use sparse_runtime::interop::nalgebra_sparse::{from_coo_matrix, to_coo_matrix};
use sparse_runtime::io;
use sparse_runtime::prelude::*;
use sparse_tests::{random_entries, Entries};

const INF: f64 = f64::INFINITY;
const SHAPES: [[usize; 2]; 6] = [[0, 3], [1, 1], [3, 5], [5, 3], [7, 7], [9, 4]];
const DENSITIES: [f64; 4] = [0.0, 0.2, 0.6, 1.0];

/// Every (shape, entries) case, entries with values that are never the fill values used.
fn cases() -> Vec<([usize; 2], Entries<f64>)> {
    let mut out = Vec::new();
    for (k, &shape) in SHAPES.iter().enumerate() {
        for (d, &density) in DENSITIES.iter().enumerate() {
            out.push((shape, random_entries(&shape, density, (k * 10 + d) as u64)));
        }
    }
    out
}

fn csr(shape: [usize; 2], e: &Entries<f64>) -> Csr<f64> {
    Csr::from_entries(&shape, e.iter().map(|(c, v)| (c.as_slice(), *v))).unwrap()
}

/// The dense row-major oracle: the entries' values, `fill` elsewhere.
fn oracle(shape: [usize; 2], e: &Entries<f64>, fill: f64) -> Vec<f64> {
    let mut d = vec![fill; shape[0] * shape[1]];
    for (c, v) in e {
        d[c[0] * shape[1] + c[1]] = *v;
    }
    d
}

/// Equal as floats, `NaN` equal to `NaN` (bit-for-bit for the values used here).
fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn fill_is_zero_everywhere_unless_set() {
    for (shape, e) in cases() {
        let a = csr(shape, &e);
        assert_eq!(a.fill(), 0.0);
        assert_eq!(a.convert::<Coo<f64>>().unwrap().fill(), 0.0);
        assert_eq!(a.convert::<Dense2<f64>>().unwrap().fill(), 0.0);
        assert_eq!(a.convert::<Dia<f64>>().unwrap().fill(), 0.0);
        assert_eq!(a.convert::<Bcsr<f64, 2, 2>>().unwrap().fill(), 0.0);
        assert_eq!(a.convert::<Csb<f64>>().unwrap().fill(), 0.0);
        assert_eq!(a.convert::<CooAos<f64>>().unwrap().fill(), 0.0);
        assert_eq!(a.retain(|_, _| true).unwrap().fill(), 0.0);
        assert_eq!(a.to_dense(), oracle(shape, &e, 0.0));
        // Files read into any format have fill value zero.
        let mut file = Vec::new();
        io::write_matrix_market_to(&mut file, &a).unwrap();
        let back: Csr<f64> = io::read_matrix_market_from(&file[..], "a.mtx").unwrap();
        assert_eq!(back, a);
        let back: Dia<f64> = io::read_matrix_market_from(&file[..], "a.mtx").unwrap();
        assert_eq!(back.fill(), 0.0);
        let mut tns = Vec::new();
        io::write_tns_to(&mut tns, &a).unwrap();
        let back: Coo<f64> = io::read_tns_with_shape_from(&tns[..], "a.tns", &shape).unwrap();
        assert_eq!((back.fill(), back.entries()), (0.0, a.entries()));
    }
    assert_eq!(Dense1::<f64>::zeros(2).fill(), 0.0);
    assert_eq!(Dense2::<i32>::from_vec(1, 2, vec![1, 2]).unwrap().fill(), 0);
    assert_eq!(SparseVec::<u8>::new(&[4]).unwrap().fill(), 0);
    assert_eq!(Csf3::<f32>::new(&[1, 2, 3]).unwrap().fill(), 0.0);
    assert_eq!(HashMat::<f64>::new(&[2, 2]).unwrap().fill(), 0.0);
}

#[test]
fn conversion_into_a_dense_format_writes_the_fill_value() {
    for fill in [INF, -2.5, f64::NAN, 0.0] {
        for (shape, e) in cases() {
            let a = csr(shape, &e).with_fill(fill);
            let expected = oracle(shape, &e, fill);
            let d: Dense2<f64> = a.convert().unwrap();
            assert!(same(d.as_slice(), &expected), "{shape:?} fill {fill}");
            assert!(same(&a.to_dense(), &expected));
            assert!(d.fill().to_bits() == fill.to_bits());
            // Through a column-major dense format and back.
            let t: Tensor<f64, (Dense, Dense), Modes<1, 0>> = a.convert().unwrap();
            let back: Dense2<f64> = t.convert().unwrap();
            assert!(same(back.as_slice(), &expected));
            // Every struct format spells out the same matrix.
            assert!(same(
                &a.convert::<Dia<f64>>().unwrap().to_dense(),
                &expected
            ));
            assert!(same(
                &a.convert::<Bcsr<f64, 2, 3>>().unwrap().to_dense(),
                &expected
            ));
            assert!(same(
                &a.convert::<Csb<f64>>().unwrap().to_dense(),
                &expected
            ));
            assert!(same(
                &a.convert::<CooAos<f64>>().unwrap().to_dense(),
                &expected
            ));
        }
    }
}

#[test]
fn sparse_conversions_keep_the_fill_value_and_the_entries() {
    for (shape, e) in cases() {
        let a = csr(shape, &e).with_fill(INF);
        let coo: Coo<f64> = a.convert().unwrap();
        let csc: Csc<f64> = a.convert().unwrap();
        let dcsr: Dcsr<f64> = csc.convert().unwrap();
        let ell: Ell<f64> = a.convert().unwrap();
        let hash: HashMat<f64> = a.convert().unwrap();
        let transposed: Csr<f64> = a.transpose().unwrap();
        for (fill, entries) in [
            (coo.fill(), coo.entries()),
            (csc.fill(), csc.entries()),
            (dcsr.fill(), dcsr.entries()),
            (ell.fill(), ell.entries()),
            (hash.fill(), hash.entries()),
        ] {
            assert_eq!((fill, entries), (INF, a.entries()), "{shape:?}");
        }
        assert_eq!(transposed.fill(), INF);
        assert_eq!(transposed.nnz(), a.nnz());
        let round: Csr<f64> = coo.convert().unwrap();
        assert_eq!(round, a);
    }
}

#[test]
fn equality_sees_the_fill_value_and_same_values_compares_logical_values() {
    for (shape, e) in cases() {
        let a = csr(shape, &e);
        let b = a.clone().with_fill(INF);
        assert_ne!(a, b);
        assert_eq!(a, b.clone().with_fill(0.0));
        let all_stored = e.len() == shape[0] * shape[1];
        // Different fill values show wherever a component is not stored.
        assert_eq!(
            a.same_values(&b),
            all_stored,
            "{shape:?}, {} entries",
            e.len()
        );
        // The dense conversion stores the fill value explicitly: the same values.
        let d: Dense2<f64> = b.convert().unwrap();
        let dense_as_csr: Csr<f64> = d.convert().unwrap();
        assert!(b.same_values(&dense_as_csr.with_fill(INF)));
        let filled: Csr<f64> = Csr::from_entries(&shape, oracle_entries(shape, &e, INF)).unwrap();
        assert!(filled.same_values(&filled.clone().with_fill(-1.0))); // every component stored
        assert!(b.same_values(&filled.clone().with_fill(INF)));
        assert!(b.same_values(&filled.clone().with_fill(7.0)));
    }
}

/// Every component of the oracle as an entry (the fill value stored explicitly).
fn oracle_entries(shape: [usize; 2], e: &Entries<f64>, fill: f64) -> Vec<([usize; 2], f64)> {
    let d = oracle(shape, e, fill);
    (0..shape[0])
        .flat_map(|i| (0..shape[1]).map(move |j| [i, j]))
        .map(|c| (c, d[c[0] * shape[1] + c[1]]))
        .collect()
}

#[test]
fn pruned_drops_the_entries_equal_to_the_fill_value() {
    for (shape, e) in cases() {
        // Every component stored, the fill value explicitly where `e` has nothing.
        let explicit = Csr::from_entries(&shape, oracle_entries(shape, &e, INF))
            .unwrap()
            .with_fill(INF);
        let p = explicit.pruned().unwrap();
        assert_eq!(p.fill(), INF);
        assert_eq!(p.nnz(), e.len(), "{shape:?}");
        assert_eq!(p, csr(shape, &e).with_fill(INF));
        assert!(p.same_values(&explicit));
        // With fill value zero, the explicit infinities are kept.
        assert_eq!(
            explicit.clone().with_fill(0.0).pruned().unwrap().nnz(),
            shape[0] * shape[1]
        );
    }
}

#[test]
fn writers_and_exports_that_imply_zero_refuse_another_fill_value() {
    let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 1.0)])
        .unwrap()
        .with_fill(INF);
    let refused = |r: Result<(), Error>| match r {
        Err(Error::NotRepresentable { detail }) => {
            assert!(detail.contains("fill value is inf"), "{detail}");
        }
        other => panic!("expected NotRepresentable, got {other:?}"),
    };
    refused(io::write_matrix_market_to(Vec::new(), &a));
    refused(io::write_matrix_market_with(
        Vec::new(),
        &a,
        io::Layout::Array,
    ));
    refused(io::write_tns_to(Vec::new(), &a));
    let dense: Dense2<f64> = a.convert().unwrap();
    refused(io::write_matrix_market_to(Vec::new(), &dense));
    let dia: Dia<f64> = a.convert().unwrap();
    refused(io::write_tns_to(Vec::new(), &dia));
    let path = std::env::temp_dir().join(format!("fill_runtime_{}.mtx", std::process::id()));
    refused(io::write_matrix_market(&path, &a));
    assert!(!path.exists(), "nothing is written");
    // With the fill value set to zero (a dense matrix: no component changes), it writes.
    let mut file = Vec::new();
    io::write_matrix_market_to(&mut file, &dense.clone().with_fill(0.0)).unwrap();
    let back: Dense2<f64> = io::read_matrix_market_from(&file[..], "d.mtx").unwrap();
    assert_eq!(back.as_slice(), dense.as_slice());

    // sprs and nalgebra-sparse know only zero.
    refused(sprs::CsMatI::<f64, u32>::try_from(&a).map(drop));
    refused(sprs::CsMatI::<f64, u32>::try_from(a.clone()).map(drop));
    let csc: Csc<f64> = a.convert().unwrap();
    refused(sprs::CsMatI::<f64, u32>::try_from(csc.clone()).map(drop));
    refused(a.sprs_view().map(drop));
    refused(csc.sprs_view().map(drop));
    refused(to_coo_matrix(&a).map(drop));
    refused(CooMatrix::try_from(&a).map(drop));
    refused(to_coo_matrix(&dia).map(drop));
    // The infallible From drops the fill value (documented).
    let m = CsrMatrix::from(&a);
    assert_eq!(m.nnz(), 1);
    // Zero fill: accepted, and what comes back has fill value zero.
    let z = a.clone().with_fill(0.0);
    let s: sprs::CsMatI<f64, u32> = (&z).try_into().unwrap();
    assert_eq!(Csr::<f64>::try_from(&s).unwrap(), z);
    let coo = to_coo_matrix(&z).unwrap();
    assert_eq!(from_coo_matrix::<f64, Csr<f64>>(&coo).unwrap(), z);
    // ndarray: a dense tensor stores every component, whatever its fill value.
    let arr = ndarray::Array2::try_from(&dense).unwrap();
    assert_eq!(arr.as_slice().unwrap(), &[INF, 1.0, INF, INF]);
    assert_eq!(Dense2::from(arr).fill(), 0.0);
}

#[test]
fn struct_formats_keep_the_fill_value_through_conversions() {
    for (shape, e) in cases() {
        let a = csr(shape, &e).with_fill(-1.0);
        let dia: Dia<f64> = a.convert().unwrap();
        let bcsr: Bcsr<f64, 3, 2> = dia.convert().unwrap();
        let csb: Csb<f64> = bcsr.convert().unwrap();
        let aos: CooAos<f64> = csb.convert().unwrap();
        let back: Csr<f64> = aos.convert().unwrap();
        for fill in [dia.fill(), bcsr.fill(), csb.fill(), aos.fill(), back.fill()] {
            assert_eq!(fill, -1.0);
        }
        for view_fill in [
            dia.view().fill(),
            bcsr.view().fill(),
            csb.view().fill(),
            aos.view().fill(),
        ] {
            assert_eq!(view_fill, -1.0);
        }
        // DIA and BCSR store whole diagonals and blocks: explicit fill values, the same values.
        assert!(back.same_values(&a), "{shape:?}");
        assert_eq!(back.pruned().unwrap(), a.pruned().unwrap());
        // Struct formats compare their fill value too.
        assert_ne!(dia.clone().with_fill(0.0), dia);
        let mut b2 = bcsr.clone();
        b2.set_fill(2.0);
        assert_eq!((b2.fill(), b2.vals()), (2.0, bcsr.vals()));
    }
}

#[test]
fn display_and_debug_name_a_fill_value_that_is_not_zero() {
    let a = Csr::<f64>::from_entries(&[2, 2], [([1, 1], 4.0)]).unwrap();
    assert_eq!(
        a.to_string(),
        "tensor of shape 2 x 2, 1 stored entry\n  (1, 1): 4.0\n"
    );
    assert!(!format!("{a:?}").contains("fill"));
    let b = a.with_fill(INF);
    assert_eq!(
        b.to_string(),
        "tensor of shape 2 x 2, fill value inf, 1 stored entry\n  (1, 1): 4.0\n"
    );
    assert!(format!("{b:?}").contains("fill: inf"));
}
