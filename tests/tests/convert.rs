//! Format conversion: every ordered pair of formats (vectors, matrices, order-3 tensors), on random, empty,
//! single-entry, full and edge-shaped inputs, and round trips through each.
//!
//! A conversion copies the stored components. A target that pads (DIA's
//! diagonals, BCSR's blocks, a dense matrix) stores zeros its layout needs
//! besides; everything else stores exactly the source's components.

use sparse_runtime::prelude::*;
use sparse_tests::{random_entries, Entries, Rng};

/// What the tests need of a format.
trait Format: Source<f64> + Target<f64> {
    const NAME: &'static str;
    /// Whether it stores exactly the components it is given (no padding).
    const EXACT: bool;
    fn make(shape: &[usize], entries: &Entries<f64>) -> Result<Self, Error>;
    fn listed(&self) -> Entries<f64>;
    fn dense(&self) -> Vec<f64>;
}

macro_rules! format_spec {
    ($t:ty, $exact:expr) => {
        impl Format for $t {
            const NAME: &'static str = stringify!($t);
            const EXACT: bool = $exact;
            fn make(shape: &[usize], entries: &Entries<f64>) -> Result<Self, Error> {
                <$t>::from_entries(shape, entries.iter().map(|(c, v)| (c.as_slice(), *v)))
            }
            fn listed(&self) -> Entries<f64> {
                self.entries()
            }
            fn dense(&self) -> Vec<f64> {
                self.to_dense()
            }
        }
    };
}

type Bcsr32 = Bcsr<f64, 3, 2>;
type Csf3Swapped = Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 0, 1>>;
type CsrDcsc = Tensor<f64, (Compressed, Dense), Modes<1, 0>>;
type UnorderedVec = Tensor<f64, (Compressed<u32, Unordered>,)>;
/// Compressed fibers below two dense levels: a segment's parent is a number of two
/// coordinates.
type DenseDenseFibers = Tensor<f64, (Dense, Dense, Compressed), Modes<1, 2, 0>>;

format_spec!(Coo<f64>, true);
format_spec!(CooAos<f64>, true);
format_spec!(Csr<f64>, true);
format_spec!(Csc<f64>, true);
format_spec!(Dcsr<f64>, true);
format_spec!(Dcsc<f64>, true);
format_spec!(Dia<f64>, false);
format_spec!(Ell<f64>, true);
format_spec!(Bcsr32, false);
format_spec!(Csb<f64>, true);
format_spec!(HashMat<f64>, true);
format_spec!(Dense2<f64>, false);
format_spec!(CsrDcsc, false);
format_spec!(SparseVec<f64>, true);
format_spec!(HashVec<f64>, true);
format_spec!(Dense1<f64>, false);
format_spec!(UnorderedVec, true);
format_spec!(Coo3<f64>, true);
format_spec!(Csf3<f64>, true);
format_spec!(Csf3Swapped, true);
format_spec!(Dense3<f64>, false);
format_spec!(DenseDenseFibers, true);

/// The stored components that are not zero.
fn nonzeros(entries: Entries<f64>) -> Entries<f64> {
    entries.into_iter().filter(|(_, v)| *v != 0.0).collect()
}

/// Matrices: shapes with empty, single and edge-cut dimensions (7 x 5 cuts
/// BCSR's 3 x 2 blocks), each at densities from empty to full.
fn matrix_cases() -> Vec<(Vec<usize>, Entries<f64>)> {
    let mut cases = Vec::new();
    for shape in [
        [0, 0],
        [0, 4],
        [3, 0],
        [1, 1],
        [1, 6],
        [6, 1],
        [7, 5],
        [12, 9],
    ] {
        for (k, density) in [0.0, 0.1, 0.4, 1.0].into_iter().enumerate() {
            cases.push((
                shape.to_vec(),
                random_entries(&shape, density, 7 + k as u64),
            ));
        }
    }
    cases.push((vec![5, 8], vec![(vec![4, 0], 2.5)]));
    cases.push((vec![5, 8], vec![(vec![0, 7], -1.0), (vec![3, 3], 0.0)]));
    cases
}

fn vector_cases() -> Vec<(Vec<usize>, Entries<f64>)> {
    let mut cases = Vec::new();
    for n in [0, 1, 2, 9, 40] {
        for (k, density) in [0.0, 0.2, 1.0].into_iter().enumerate() {
            cases.push((vec![n], random_entries(&[n], density, 70 + k as u64)));
        }
    }
    cases
}

fn tensor3_cases() -> Vec<(Vec<usize>, Entries<f64>)> {
    let mut cases = Vec::new();
    for shape in [[0, 2, 3], [1, 1, 1], [2, 3, 4], [5, 1, 6], [4, 4, 4]] {
        for (k, density) in [0.0, 0.2, 1.0].into_iter().enumerate() {
            cases.push((
                shape.to_vec(),
                random_entries(&shape, density, 40 + k as u64),
            ));
        }
    }
    cases.push((vec![3, 4, 5], vec![(vec![2, 0, 4], 3.0)]));
    cases
}

/// Converts `a` to `B` and back: the values are the same everywhere; the
/// stored components are the same (explicit zeros included) unless `B` pads.
fn check_pair<A: Format, B: Format>(shape: &[usize], entries: &Entries<f64>) {
    let Ok(a) = A::make(shape, entries) else {
        return; // not representable in A (a shape DIA cannot hold, say)
    };
    let case = format!(
        "{} -> {} on {shape:?} with {} entries",
        A::NAME,
        B::NAME,
        entries.len()
    );
    let b: B = match a.convert() {
        Ok(b) => b,
        Err(e) => panic!("{case}: {e}"),
    };
    assert_eq!(b.dense(), a.dense(), "{case}: values");
    assert_eq!(
        nonzeros(b.listed()),
        nonzeros(a.listed()),
        "{case}: nonzeros"
    );
    if B::EXACT {
        assert_eq!(b.listed(), a.listed(), "{case}: stored components");
    }
    let back: A = b
        .convert()
        .unwrap_or_else(|e| panic!("{case} and back: {e}"));
    assert_eq!(back.dense(), a.dense(), "{case} and back: values");
    if B::EXACT {
        assert_eq!(
            back.listed(),
            a.listed(),
            "{case} and back: stored components"
        );
    }
}

macro_rules! all_pairs {
    ($cases:ident; $($a:ty),+ $(,)?) => {
        all_pairs!(@each $cases; [$($a),+]; $($a),+);
    };
    (@each $cases:ident; $all:tt; $($a:ty),+) => {
        $(all_pairs!(@from $cases; $a; $all);)+
    };
    (@from $cases:ident; $a:ty; [$($b:ty),+]) => {
        for (shape, entries) in $cases() {
            $(check_pair::<$a, $b>(&shape, &entries);)+
        }
    };
}

#[test]
fn every_pair_of_matrix_formats() {
    all_pairs!(matrix_cases; Coo<f64>, CooAos<f64>, Csr<f64>, Csc<f64>, Dcsr<f64>, Dcsc<f64>,
        Dia<f64>, Ell<f64>, Bcsr32, Csb<f64>, HashMat<f64>, Dense2<f64>, CsrDcsc);
}

#[test]
fn every_pair_of_vector_formats() {
    all_pairs!(vector_cases; SparseVec<f64>, HashVec<f64>, Dense1<f64>, UnorderedVec);
}

#[test]
fn every_pair_of_order_3_formats() {
    all_pairs!(tensor3_cases; Coo3<f64>, Csf3<f64>, Csf3Swapped, Dense3<f64>);
}

#[test]
fn transposition_is_a_conversion() {
    let mut rng = Rng::new(3);
    for shape in [[0, 3], [1, 1], [4, 7], [9, 2]] {
        let entries = random_entries::<f64>(&shape, 0.3 + 0.1 * rng.unit(), rng.next_u64());
        let a = Csr::<f64>::make(&shape, &entries).unwrap();
        let t: Csr<f64> = a.transpose().unwrap();
        let mut expected: Entries<f64> = a
            .entries()
            .into_iter()
            .map(|(c, v)| (vec![c[1], c[0]], v))
            .collect();
        expected.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(t.shape(), &[shape[1], shape[0]]);
        assert_eq!(t.entries(), expected);
        let back: Csc<f64> = t.transpose().unwrap();
        assert_eq!(back.entries(), a.entries());
    }
    let v = SparseVec::<f64>::from_entries(&[3], [([1], 1.0)]).unwrap();
    assert_eq!(
        v.transpose::<Csr<f64>>().unwrap_err(),
        Error::OrderMismatch {
            expected: 2,
            found: 1
        }
    );
}

#[test]
fn permuted_views_reorder_modes() {
    let a = Csf3::<f64>::make(&[2, 3, 4], &random_entries(&[2, 3, 4], 0.5, 9)).unwrap();
    let p: Coo3<f64> = a.permuted(&[1, 2, 0]).unwrap().convert().unwrap();
    assert_eq!(p.shape(), &[3, 4, 2]);
    let mut expected: Entries<f64> = a
        .entries()
        .into_iter()
        .map(|(c, v)| (vec![c[1], c[2], c[0]], v))
        .collect();
    expected.sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(p.entries(), expected);
    for bad in [&[0, 1][..], &[0, 1, 1], &[0, 1, 3]] {
        assert!(matches!(
            a.permuted(bad),
            Err(Error::InvalidModeOrder { order: 3, .. })
        ));
    }
}

#[test]
fn a_shape_the_target_cannot_hold_is_an_error() {
    let a = Csf3::<f64>::make(&[2, 2, 2], &vec![(vec![1, 1, 1], 1.0)]).unwrap();
    assert_eq!(
        a.convert::<Csr<f64>>().unwrap_err(),
        Error::OrderMismatch {
            expected: 2,
            found: 3
        }
    );
    let wide =
        Csr::<f64, u64>::from_entries(&[2, 5_000_000_000], [([1, 4_999_999_999], 1.0)]).unwrap();
    assert!(matches!(
        wide.convert::<Csr<f64, u32>>(),
        Err(Error::IndexOverflow {
            value: 5_000_000_000,
            ..
        })
    ));
}

/// Unsorted coordinate lists long enough to span many of the batches the
/// assembly hands entries on in (256 each), with empty rows, repeated
/// coordinates (summed) and explicit zeros (kept): `(shape, list)`.
fn long_lists() -> Vec<(Vec<usize>, Entries<f64>)> {
    let mut rng = Rng::new(11);
    let mut cases = Vec::new();
    for (shape, count) in [
        ([300, 200], 3000),
        ([1, 2000], 1500),
        ([2000, 1], 900),
        ([40, 40], 1600),
    ] {
        let mut list: Entries<f64> = Vec::new();
        while list.len() < count {
            let i = rng.below(shape[0]);
            if shape[0] > 1 && i % 7 == 3 {
                continue; // an empty row
            }
            let c = vec![i, rng.below(shape[1])];
            // Small integers, so that sums are exact in any order.
            let v = rng.below(5) as f64 - 2.0;
            if rng.chance(0.1) && !list.is_empty() {
                let k = rng.below(list.len());
                list.push((list[k].0.clone(), v)); // a repeat, summed
            } else {
                list.push((c, v));
            }
        }
        rng.shuffle(&mut list);
        cases.push((shape.to_vec(), list));
    }
    cases.push((vec![4, 4], vec![(vec![2, 1], 0.0)]));
    cases.push((vec![4, 4], vec![]));
    cases
}

/// The components a list stores once summed (explicit zeros kept), sorted.
fn summed(list: &Entries<f64>) -> Entries<f64> {
    let mut sums = std::collections::BTreeMap::new();
    for (c, v) in list {
        *sums.entry(c.clone()).or_insert(0.0) += v;
    }
    sums.into_iter().collect()
}

fn sorted(mut entries: Entries<f64>) -> Entries<f64> {
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    entries
}

/// `B` from a long list, from CSR and CSC sources, and transposed, against
/// the summed list.
fn check_long<B: Format>() {
    for (shape, list) in long_lists() {
        let want = summed(&list);
        let case = format!("{} from {} entries on {shape:?}", B::NAME, list.len());
        let b = B::make(&shape, &list).unwrap_or_else(|e| panic!("{case}: {e}"));
        assert_eq!(sorted(b.listed()), want, "{case}: from the list");
        let csr = Csr::<f64>::make(&shape, &list).unwrap();
        let csc = Csc::<f64>::make(&shape, &list).unwrap();
        assert_eq!(sorted(csr.listed()), want, "{case}: CSR");
        for b in [csr.convert::<B>().unwrap(), csc.convert::<B>().unwrap()] {
            assert_eq!(sorted(b.listed()), want, "{case}: converted");
        }
        let t: B = csr.transpose().unwrap();
        let flipped = sorted(want.iter().map(|(c, v)| (vec![c[1], c[0]], *v)).collect());
        assert_eq!(sorted(t.listed()), flipped, "{case}: transposed");
    }
}

#[test]
fn long_unsorted_lists_with_repeats_convert_exactly() {
    check_long::<Csr<f64>>();
    check_long::<Csc<f64>>();
    check_long::<Coo<f64>>();
    check_long::<Dcsr<f64>>();
    check_long::<Ell<f64>>();
    check_long::<Csb<f64>>();
    check_long::<HashMat<f64>>();
    check_long::<CooAos<f64>>();
}

/// Order-3 lists spanning many batches: the counted assembly by first level
/// numbers the two lower coordinates together and splits them back.
#[test]
fn long_order_3_lists_with_repeats_convert_exactly() {
    let mut rng = Rng::new(12);
    let shape = [6, 30, 20];
    let mut list: Entries<f64> = Vec::new();
    while list.len() < 2500 {
        let c = vec![rng.below(6), rng.below(30), rng.below(20)];
        if c[0] == 4 {
            continue; // an empty slice
        }
        let v = rng.below(5) as f64 - 2.0;
        list.push((c.clone(), v));
        if rng.chance(0.1) {
            list.push((c, 1.0)); // a repeat, summed
        }
    }
    rng.shuffle(&mut list);
    let want = summed(&list);
    fn check<B: Format>(shape: &[usize], list: &Entries<f64>, want: &Entries<f64>) {
        let b = B::make(shape, list).unwrap();
        assert_eq!(sorted(b.listed()), *want, "{} from the list", B::NAME);
        let csf = Csf3::<f64>::make(shape, list).unwrap();
        let c: B = csf.convert().unwrap();
        assert_eq!(sorted(c.listed()), *want, "{} from CSF", B::NAME);
    }
    check::<Coo3<f64>>(&shape, &list, &want);
    check::<Csf3<f64>>(&shape, &list, &want);
    check::<Csf3Swapped>(&shape, &list, &want);
    check::<DenseDenseFibers>(&shape, &list, &want);
    // A permuted view hands its source's batches on with the columns reordered.
    let csf = Csf3::<f64>::make(&shape, &list).unwrap();
    let view: DenseDenseFibers = csf.permuted(&[2, 0, 1]).unwrap().convert().unwrap();
    let moved = want.iter().map(|(c, v)| (vec![c[2], c[0], c[1]], *v));
    assert_eq!(
        sorted(view.listed()),
        sorted(moved.collect()),
        "a permuted view"
    );
}

/// Shapes the counted assembly by first level leaves to the radix sort: a
/// first level far larger than the entries, and lower levels whose
/// coordinates together overflow `usize`.
#[test]
fn hypersparse_and_huge_shapes_convert_exactly() {
    let list = [
        (vec![9_999_999_999, 2], 1.0),
        (vec![3, 1], 2.0),
        (vec![9_999_999_999, 0], 0.0),
        (vec![3, 1], 0.5),
    ];
    let a = Dcsr::<f64, u64>::from_entries(
        &[10_000_000_000, 3],
        list.iter().map(|(c, v)| (c.as_slice(), *v)),
    )
    .unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![3, 1], 2.5),
            (vec![9_999_999_999, 0], 0.0),
            (vec![9_999_999_999, 2], 1.0)
        ]
    );
    let huge = 1usize << 40;
    let list3 = [
        (vec![1, huge - 1, 5], 1.0),
        (vec![1, 2, huge - 1], 2.0),
        (vec![0, 7, 7], 3.0),
        (vec![1, 2, huge - 1], 4.0),
    ];
    let b = Coo3::<f64, u64>::from_entries(
        &[2, huge, huge],
        list3.iter().map(|(c, v)| (c.as_slice(), *v)),
    )
    .unwrap();
    assert_eq!(
        b.entries(),
        vec![
            (vec![0, 7, 7], 3.0),
            (vec![1, 2, huge - 1], 6.0),
            (vec![1, huge - 1, 5], 1.0)
        ]
    );
    let c: Coo<f64, u64> = Csr::<f64, u64>::from_entries(&[3, huge], [([2, huge - 1], 1.0)])
        .unwrap()
        .convert()
        .unwrap();
    assert_eq!(c.entries(), vec![(vec![2, huge - 1], 1.0)]);
}

/// A list large enough (more than 4 MB of coordinates and values) for the counted assembly
/// to insert through partitions: from the list, from coordinate arrays, to CSC and
/// transposed, against the summed list. Rows of every length up to 40 reach each way of
/// sorting a segment (networks up to 16, insertion, a scratch array).
#[test]
fn large_lists_insert_through_partitions() {
    type Pairs = Vec<((usize, usize), f64)>;
    /// A compressed matrix's components as (outer, inner) pairs, in storage order.
    fn stored(levels: &(Dense, Compressed), vals: &[f64]) -> Pairs {
        let (pos, crd) = (levels.1.pos(), levels.1.crd());
        (0..pos.len() - 1)
            .flat_map(|i| (pos[i] as usize..pos[i + 1] as usize).map(move |q| (i, q)))
            .map(|(i, q)| ((i, crd[q] as usize), vals[q]))
            .collect()
    }
    let mut rng = Rng::new(13);
    let shape = [30_000, 20_000];
    let mut rows: Vec<u32> = Vec::new();
    let mut cols: Vec<u32> = Vec::new();
    let mut vals: Vec<f64> = Vec::new();
    for i in 0..shape[0] {
        for k in 0..(i * 7 % 41) {
            // Every ninth entry repeats the one before it (summed).
            let j = if k % 9 == 8 {
                *cols.last().unwrap()
            } else {
                rng.below(shape[1]) as u32
            };
            rows.push(i as u32);
            cols.push(j);
            vals.push(rng.below(5) as f64 - 2.0);
        }
    }
    let mut order: Vec<usize> = (0..vals.len()).collect();
    rng.shuffle(&mut order);
    let (rows, cols, vals): (Vec<u32>, Vec<u32>, Vec<f64>) = (
        order.iter().map(|&k| rows[k]).collect(),
        order.iter().map(|&k| cols[k]).collect(),
        order.iter().map(|&k| vals[k]).collect(),
    );
    assert!(vals.len() * 12 > 4 << 20, "{} entries", vals.len());
    // The oracle: sorted stably by coordinate, repeats summed in list order.
    let mut listed: Pairs = (0..vals.len())
        .map(|k| ((rows[k] as usize, cols[k] as usize), vals[k]))
        .collect();
    listed.sort_by_key(|e| e.0);
    let mut want: Pairs = Vec::new();
    for (c, v) in listed {
        match want.last_mut() {
            Some((last, sum)) if *last == c => *sum += v,
            _ => want.push((c, v)),
        }
    }
    let list = (0..vals.len()).map(|k| ([rows[k] as usize, cols[k] as usize], vals[k]));
    let csr = Csr::<f64>::from_entries(&shape, list).unwrap();
    assert_eq!(stored(csr.levels(), csr.vals()), want, "from the list");
    let arrays = Csr::<f64>::from_coordinate_arrays(&shape, &[&rows, &cols], &vals).unwrap();
    assert_eq!(
        stored(arrays.levels(), arrays.vals()),
        want,
        "from coordinate arrays"
    );
    let mut flipped: Pairs = want.iter().map(|&((i, j), v)| ((j, i), v)).collect();
    flipped.sort_by_key(|e| e.0);
    let csc: Csc<f64> = csr.convert().unwrap();
    assert_eq!(stored(csc.levels(), csc.vals()), flipped, "to CSC");
    let t: Csr<f64> = csr.transpose().unwrap();
    assert_eq!(stored(t.levels(), t.vals()), flipped, "transposed");
}
