//! `sparse_runtime::io`: Matrix Market and FROSTT `.tns` reading and writing. Known files
//! (inline and in `tests/data/io/`) against their expected entries, every Matrix Market
//! flavour read and round-tripped, `.tns` round trips of orders 1 to 5, one file read
//! into every format, bit-exact values, and a corpus of malformed files
//! (`tests/data/io/malformed/`), each with its exact message.
#![deny(warnings)]

use sparse_runtime::io::{self, Entries, FromEntries, Layout, ToEntries};
use sparse_runtime::prelude::*;
use sparse_tests::Rng;
use std::path::PathBuf;

/// A list of `(coordinate, value)` entries, sorted.
type List<V> = Vec<(Vec<usize>, V)>;

/// The path of a data file.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("data/io")
        .join(name)
}

/// Reads Matrix Market text into `T`.
fn mm<T: FromEntries>(text: &str) -> Result<T, Error> {
    io::read_matrix_market_from(text.as_bytes(), "t.mtx")
}

/// The entries of an `Entries` list, sorted, as a `List`.
fn list<V: Value>(e: &Entries<V>) -> List<V> {
    let mut e = e.clone();
    e.sort();
    e.iter().map(|(c, v)| (c.to_vec(), v)).collect()
}

/// Sorted entries with explicit zeros dropped.
fn nonzeros<V: Value>(mut entries: List<V>) -> List<V> {
    entries.retain(|(_, v)| *v != V::zero());
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    entries
}

/// Writes `t` as Matrix Market text (automatic layout).
fn written<T: ToEntries>(t: &T) -> String {
    let mut out = Vec::new();
    io::write_matrix_market_to(&mut out, t).unwrap();
    String::from_utf8(out).unwrap()
}

// ---------------------------------------------------------------------------------------
// Known files.

#[test]
fn known_inline_files_give_their_entries() {
    let a: Csr<f64> = mm("%%MatrixMarket matrix coordinate real general\n\
         % comment\n\
         \n\
         3 4 3\n\
         1 2 1.5\n\
         3 4 -2\n\
         2 1 1e-3\n")
    .unwrap();
    assert_eq!(a.shape(), &[3, 4]);
    assert_eq!(
        a.entries(),
        vec![(vec![0, 1], 1.5), (vec![1, 0], 0.001), (vec![2, 3], -2.0)]
    );

    // Banner words in any case; comments and blank lines between the entries; tabs.
    let a: Coo<i64> = mm("%%matrixmarket MATRIX Coordinate INTEGER General\n\
         2 2 2\n\
         % between\n\
         \n\
         1\t1\t  7\n\
         2 2 -9\n")
    .unwrap();
    assert_eq!(a.entries(), vec![(vec![0, 0], 7), (vec![1, 1], -9)]);

    // Repeated coordinates are summed.
    let a: Csr<f64> =
        mm("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 1 2\n2 1 4\n").unwrap();
    assert_eq!(a.entries(), vec![(vec![0, 0], 3.0), (vec![1, 0], 4.0)]);

    // An empty matrix, and an empty file body.
    let a: Csr<f64> = mm("%%MatrixMarket matrix coordinate real general\n0 0 0\n").unwrap();
    assert_eq!((a.shape(), a.nnz()), (&[0, 0][..], 0));
    let a: Csr<f64> = mm("%%MatrixMarket matrix coordinate real general\n4 5 0").unwrap();
    assert_eq!((a.shape(), a.nnz()), (&[4, 5][..], 0));
    // No newline at the end of the last entry.
    let a: Csr<f64> = mm("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 3.5").unwrap();
    assert_eq!(a.entries(), vec![(vec![0, 0], 3.5)]);
}

#[test]
fn known_data_files_give_their_entries() {
    // The 1-D Laplacian, stored as its lower triangle: expanded.
    let a: Csr<f64> = io::read_matrix_market(data("lap5_symmetric.mtx")).unwrap();
    let mut want = Vec::new();
    for i in 0..5 {
        if i > 0 {
            want.push((vec![i, i - 1], -1.0));
        }
        want.push((vec![i, i], 2.0));
        if i < 4 {
            want.push((vec![i, i + 1], -1.0));
        }
    }
    assert_eq!(a.entries(), want);

    let g: Dcsr<u8> = io::read_matrix_market(data("graph_pattern.mtx")).unwrap();
    assert_eq!(
        g.entries(),
        vec![
            (vec![0, 1], 1),
            (vec![1, 2], 1),
            (vec![2, 2], 1),
            (vec![2, 3], 1),
            (vec![3, 0], 1)
        ]
    );

    let s: Csr<i32> = io::read_matrix_market(data("skew_integer.mtx")).unwrap();
    assert_eq!(
        s.to_dense(),
        vec![0, -4, 7, 4, 0, -1, -7, 1, 0],
        "the mirror of each entry is negated"
    );

    let d: Dense2<f64> = io::read_matrix_market(data("array_general.mtx")).unwrap();
    assert_eq!(d.shape(), &[2, 3]);
    assert_eq!(d.as_slice(), &[0.5, 1.5, 2.5, 1.0, 2.0, 3.0]);

    let c: Coo<f64> = io::read_matrix_market(data("crlf.mtx")).unwrap();
    assert_eq!(c.entries(), vec![(vec![0, 0], 1.5), (vec![1, 1], -2.5e-3)]);

    let t: Csf3<f64> = io::read_tns(data("tensor3.tns")).unwrap();
    assert_eq!(t.shape(), &[3, 4, 2]);
    assert_eq!(
        t.entries(),
        vec![
            (vec![0, 0, 0], 1.0),
            (vec![0, 3, 1], 2.5),
            (vec![1, 1, 0], -3.0),
            (vec![2, 0, 1], 0.04),
            (vec![2, 3, 1], 5.0)
        ]
    );
    let t: Csf3<f64> = io::read_tns_with_shape(data("tensor3.tns"), &[10, 10, 10]).unwrap();
    assert_eq!(t.shape(), &[10, 10, 10]);
    assert_eq!(t.nnz(), 5);
}

// ---------------------------------------------------------------------------------------
// Every Matrix Market flavour.

/// A random `n x n` lower triangle (diagonal included if `diagonal`), integer-valued
/// nonzeros in -9..=9, as 0-based `(i, j, v)` with `i >= j`.
fn lower_triangle(n: usize, diagonal: bool, seed: u64) -> Vec<(usize, usize, i64)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for j in 0..n {
        for i in j..n {
            if (i > j || diagonal) && rng.chance(0.4) {
                let v = rng.below(19) as i64 - 9;
                out.push((i, j, if v == 0 { 5 } else { v }));
            }
        }
    }
    rng.shuffle(&mut out);
    out
}

/// Matrix Market coordinate text for `entries` (1-based), values as `value(v)`.
fn coordinate_text(
    banner: &str,
    shape: [usize; 2],
    entries: &[(usize, usize, i64)],
    value: impl Fn(i64) -> String,
) -> String {
    let mut s = format!(
        "%%MatrixMarket matrix {banner}\n{} {} {}\n",
        shape[0],
        shape[1],
        entries.len()
    );
    for &(i, j, v) in entries {
        s += &format!("{} {} {}\n", i + 1, j + 1, value(v)).replace("  ", " ");
    }
    s
}

/// Reads `text` into every format whose value type is `f64` that can hold a matrix, and
/// checks that each gives `want` (explicit zeros aside), then writes each back and
/// reads it again, bit-identical.
fn check_everywhere(text: &str, want: &List<f64>) {
    let want = nonzeros(want.clone());
    macro_rules! each {
        ($($t:ty),+) => {$({
            let a: $t = mm(text).unwrap_or_else(|e| panic!("{}: {e}", stringify!($t)));
            assert_eq!(nonzeros(a.entries()), want, "{}", stringify!($t));
            let back: $t = mm(&written(&a)).unwrap();
            assert_eq!(back.entries(), a.entries(), "{} written and read back", stringify!($t));
        })+};
    }
    each!(
        Csr<f64>,
        Csc<f64>,
        Coo<f64>,
        Dcsr<f64>,
        Dcsc<f64>,
        Dense2<f64>,
        HashMat<f64>,
        Ell<f64>,
        Dia<f64>,
        Bcsr<f64, 2, 3>,
        Csb<f64>,
        CooAos<f64>,
        Tensor<f64, (Dense, Compressed<u64, Unordered>)>
    );
}

#[test]
fn coordinate_flavours_are_expanded_and_round_trip() {
    for seed in 0..4 {
        for n in [0, 1, 2, 7] {
            let sym = lower_triangle(n, true, seed);
            let skew = lower_triangle(n, false, seed + 100);
            // The expanded matrices.
            let mut symmetric: List<f64> = Vec::new();
            let mut pattern: List<f64> = Vec::new();
            for &(i, j, v) in &sym {
                symmetric.push((vec![i, j], v as f64));
                pattern.push((vec![i, j], 1.0));
                if i != j {
                    symmetric.push((vec![j, i], v as f64));
                    pattern.push((vec![j, i], 1.0));
                }
            }
            let mut skewed: List<f64> = Vec::new();
            for &(i, j, v) in &skew {
                skewed.push((vec![i, j], v as f64));
                skewed.push((vec![j, i], -v as f64));
            }
            let general: List<f64> = sym
                .iter()
                .map(|&(i, j, v)| (vec![j, i], v as f64 / 4.0))
                .collect();
            let general_entries: Vec<_> = sym.iter().map(|&(i, j, v)| (j, i, v)).collect();
            let real = |v: i64| format!("{}", v as f64 / 4.0);
            let int = |v: i64| v.to_string();
            let none = |_| String::new();
            let shape = [n, n];
            let cases: Vec<(String, List<f64>)> = vec![
                (
                    coordinate_text("coordinate real general", shape, &general_entries, real),
                    general.clone(),
                ),
                (
                    coordinate_text("coordinate double general", shape, &general_entries, real),
                    general,
                ),
                (
                    coordinate_text("coordinate real symmetric", shape, &sym, int),
                    symmetric.clone(),
                ),
                (
                    coordinate_text("coordinate real hermitian", shape, &sym, int),
                    symmetric.clone(),
                ),
                (
                    coordinate_text("coordinate integer symmetric", shape, &sym, int),
                    symmetric.clone(),
                ),
                (
                    coordinate_text("coordinate integer hermitian", shape, &sym, int),
                    symmetric.clone(),
                ),
                (
                    coordinate_text("coordinate real skew-symmetric", shape, &skew, int),
                    skewed.clone(),
                ),
                (
                    coordinate_text("coordinate integer skew-symmetric", shape, &skew, int),
                    skewed.clone(),
                ),
                (
                    coordinate_text("coordinate pattern general", shape, &sym, none),
                    sym.iter().map(|&(i, j, _)| (vec![i, j], 1.0)).collect(),
                ),
                (
                    coordinate_text("coordinate pattern symmetric", shape, &sym, none),
                    pattern.clone(),
                ),
                (
                    coordinate_text("coordinate pattern hermitian", shape, &sym, none),
                    pattern,
                ),
            ];
            for (text, want) in &cases {
                // The neutral list holds exactly the expanded entries.
                let e: Entries<f64> = mm(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                let mut want_sorted = want.clone();
                want_sorted.sort_by(|a, b| a.0.cmp(&b.0));
                assert_eq!(list(&e), want_sorted, "{text}");
                check_everywhere(text, want);
            }
            // Integer flavours into an integer type, and back out as `integer`.
            let text = coordinate_text("coordinate integer skew-symmetric", shape, &skew, int);
            let a: Csr<i64> = mm(&text).unwrap();
            let want: List<i64> = skewed.iter().map(|(c, v)| (c.clone(), *v as i64)).collect();
            assert_eq!(a.entries(), nonzeros(want));
            let out = written(&a);
            assert!(out.starts_with("%%MatrixMarket matrix coordinate integer general\n"));
            assert_eq!(mm::<Csr<i64>>(&out).unwrap(), a);
        }
    }
}

#[test]
fn array_flavours_are_column_major_and_round_trip() {
    // General: every component, column by column.
    let a: Dense2<i32> =
        mm("%%MatrixMarket matrix array integer general\n3 2\n1\n2\n3\n4\n5\n6\n").unwrap();
    assert_eq!(a.as_slice(), &[1, 4, 2, 5, 3, 6]);
    // Symmetric: the lower triangle column by column, diagonal included.
    let text = "%%MatrixMarket matrix array real symmetric\n3 3\n1\n2\n3\n4\n5\n6\n";
    let a: Dense2<f64> = mm(text).unwrap();
    assert_eq!(a.as_slice(), &[1., 2., 3., 2., 4., 5., 3., 5., 6.]);
    let h: Dense2<f64> = mm(&text.replace("symmetric", "hermitian")).unwrap();
    assert_eq!(h, a);
    // Skew-symmetric: the strictly lower triangle.
    let s: Dense2<f64> =
        mm("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n").unwrap();
    assert_eq!(s.as_slice(), &[0., -1., -2., 1., 0., -3., 2., 3., 0.]);
    // Into a sparse format, every component is stored, zeros included.
    let c: Csr<f64> = mm("%%MatrixMarket matrix array real general\n2 2\n0\n1\n0\n0\n").unwrap();
    assert_eq!(c.nnz(), 4);
    assert_eq!(c.to_dense(), vec![0.0, 0.0, 1.0, 0.0]);
    // An empty array.
    let e: Dense2<f64> = mm("%%MatrixMarket matrix array real general\n0 3\n").unwrap();
    assert_eq!(e.shape(), &[0, 3]);

    // A dense matrix is written as an array, and reads back equal.
    for (rows, cols) in [(0, 0), (1, 1), (3, 2), (2, 5)] {
        let mut rng = Rng::new(rows as u64 * 31 + cols as u64);
        let vals: Vec<f64> = (0..rows * cols).map(|_| rng.unit() - 0.5).collect();
        let entries = (0..rows * cols).map(|k| ([k / cols, k % cols], vals[k]));
        let a = Dense2::<f64>::from_entries(&[rows, cols], entries).unwrap();
        let text = written(&a);
        assert!(text.starts_with(&format!(
            "%%MatrixMarket matrix array real general\n{rows} {cols}\n"
        )));
        assert_eq!(text.lines().count(), 2 + rows * cols);
        let back: Dense2<f64> = mm(&text).unwrap();
        assert_eq!(back, a);
        // Written as coordinates on request, and the same matrix read back.
        let mut out = Vec::new();
        io::write_matrix_market_with(&mut out, &a, Layout::Coordinate).unwrap();
        let back: Dense2<f64> = io::read_matrix_market_from(&out[..], "c.mtx").unwrap();
        assert_eq!(back, a);
    }
    // A sparse matrix as an array on request.
    let a = Csc::<f64>::from_entries(&[2, 3], [([1, 2], 1.5), ([0, 0], -1.0)]).unwrap();
    let mut out = Vec::new();
    io::write_matrix_market_with(&mut out, &a, Layout::Array).unwrap();
    assert_eq!(
        String::from_utf8(out.clone()).unwrap(),
        "%%MatrixMarket matrix array real general\n2 3\n-1.0\n0.0\n0.0\n0.0\n0.0\n1.5\n"
    );
    let back: Csc<f64> = io::read_matrix_market_from(&out[..], "a.mtx").unwrap();
    assert_eq!(nonzeros(back.entries()), a.entries());
}

// ---------------------------------------------------------------------------------------
// Values.

#[test]
fn floats_read_back_bit_identical() {
    let mut rng = Rng::new(7);
    let mut values: Vec<f64> = vec![
        0.0,
        -0.0,
        0.1,
        1.0 / 3.0,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        f64::MIN_POSITIVE / 3.0, // subnormal
        5e-324,
        f64::EPSILON,
        1e300,
        -1e-300,
        123456789012345680.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    // Random bit patterns (finite ones), and random values of ordinary magnitude.
    while values.len() < 2000 {
        let x = f64::from_bits(rng.next_u64());
        if x.is_finite() {
            values.push(x);
        }
        values.push((rng.unit() - 0.5) * 10f64.powi(rng.below(40) as i32 - 20));
    }
    let n = values.len();
    let entries = values.iter().enumerate().map(|(k, &v)| ([k, k % 3], v));
    let a = Coo::<f64>::from_entries(&[n, 3], entries).unwrap();
    let back: Coo<f64> = mm(&written(&a)).unwrap();
    let bits = |t: &Coo<f64>| t.vals().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&a));
    // And through .tns.
    let mut out = Vec::new();
    io::write_tns_to(&mut out, &a).unwrap();
    let back: Coo<f64> = io::read_tns_from(&out[..], "a.tns").unwrap();
    assert_eq!(bits(&back), bits(&a));

    // f32: parsed directly as f32 (no double rounding through f64).
    let values: Vec<f32> = (0..2000)
        .map(|_| f32::from_bits(rng.next_u64() as u32))
        .filter(|x| x.is_finite())
        .chain([0.1f32, -0.0, f32::MAX, f32::MIN_POSITIVE / 7.0])
        .collect();
    let n = values.len();
    let a = Csr::<f32>::from_entries(
        &[n, 1],
        values.iter().enumerate().map(|(k, &v)| ([k, 0], v)),
    )
    .unwrap();
    let back: Csr<f32> = mm(&written(&a)).unwrap();
    let bits = |t: &Csr<f32>| t.vals().iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&a));

    // NaN is written and read as NaN.
    let a = Coo::<f64>::from_entries(&[1, 1], [([0, 0], f64::NAN)]).unwrap();
    let back: Coo<f64> = mm(&written(&a)).unwrap();
    assert!(back.vals()[0].is_nan());
}

#[test]
fn integers_are_exact_and_their_limits_checked() {
    let a = Csr::<i64>::from_entries(&[1, 3], [([0, 0], i64::MIN), ([0, 2], i64::MAX)]).unwrap();
    let text = written(&a);
    assert_eq!(
        text,
        "%%MatrixMarket matrix coordinate integer general\n1 3 2\n1 1 -9223372036854775808\n1 3 9223372036854775807\n"
    );
    assert_eq!(mm::<Csr<i64>>(&text).unwrap(), a);
    let a = Coo::<u8>::from_entries(&[2, 2], [([1, 1], 255u8)]).unwrap();
    assert_eq!(mm::<Coo<u8>>(&written(&a)).unwrap(), a);
    // An integer file reads into floats.
    let f: Csr<f64> =
        mm("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 -3\n").unwrap();
    assert_eq!(f.entries(), vec![(vec![0, 0], -3.0)]);
    // Values the type cannot hold, each naming its line.
    let general =
        |v: &str| format!("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 {v}\n");
    let err = |r: Result<Csr<i32>, Error>| r.unwrap_err().to_string();
    assert_eq!(
        err(mm(&general("1.5"))),
        "t.mtx:4: value `1.5` is not a valid i32"
    );
    assert_eq!(
        err(mm(&general("3.0"))),
        "t.mtx:4: value `3.0` is not a valid i32"
    );
    assert_eq!(
        err(mm(&general("2147483648"))),
        "t.mtx:4: value `2147483648` is not a valid i32"
    );
    assert_eq!(
        mm::<Csr<u32>>(&general("-1")).unwrap_err().to_string(),
        "t.mtx:4: value `-1` is not a valid u32"
    );
    assert_eq!(
        mm::<Csr<u8>>(&general("256")).unwrap_err().to_string(),
        "t.mtx:4: value `256` is not a valid u8"
    );
    // The mirror of a skew-symmetric entry must fit too.
    let skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n";
    assert_eq!(
        mm::<Csr<u32>>(skew).unwrap_err().to_string(),
        "t.mtx:3: the mirrored value -(3) of this skew-symmetric entry is not a valid u32"
    );
    let skew = "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 -128\n";
    assert!(mm::<Csr<i8>>(skew).is_err());
    assert_eq!(
        mm::<Csr<i16>>(skew).unwrap().entries(),
        vec![(vec![0, 1], 128), (vec![1, 0], -128)]
    );
}

// ---------------------------------------------------------------------------------------
// .tns

/// Random `.tns` round trips of one format: write, read back (inferred and given
/// shape), compare entries.
fn tns_round_trip<T>(shape: &[usize], seed: u64)
where
    T: FromEntries<Value = f64> + ToEntries<Value = f64> + std::fmt::Debug,
{
    let mut rng = Rng::new(seed);
    let mut e = Entries::new(shape);
    let mut seen = std::collections::BTreeSet::new();
    for _ in 0..40 {
        let c: Vec<usize> = shape.iter().map(|&n| rng.below(n)).collect();
        if seen.insert(c.clone()) {
            e.push(&c, (rng.unit() - 0.5) * 100.0).unwrap();
        }
    }
    let want = list(&e);
    let t: T = e.clone().into_tensor().unwrap();
    let mut out = Vec::new();
    io::write_tns_to(&mut out, &t).unwrap();
    let text = String::from_utf8(out).unwrap();
    // With the shape given, the tensor is the same.
    let back: T = io::read_tns_with_shape_from(text.as_bytes(), "t.tns", shape).unwrap();
    let got = list(&back.to_entry_list());
    assert_eq!(
        nonzeros(got),
        nonzeros(want.clone()),
        "{}",
        std::any::type_name::<T>()
    );
    // Inferred, the shape is the largest index per mode.
    let back: Entries<f64> = io::read_tns_from(text.as_bytes(), "t.tns").unwrap();
    let stored = list(&t.to_entry_list());
    let max: Vec<usize> = (0..shape.len())
        .map(|k| stored.iter().map(|(c, _)| c[k] + 1).max().unwrap_or(0))
        .collect();
    assert_eq!(back.shape(), &max[..]);
    assert_eq!(list(&back), stored);
}

#[test]
fn tns_round_trips_orders_one_to_five() {
    for seed in 0..3 {
        tns_round_trip::<SparseVec<f64>>(&[50], seed);
        tns_round_trip::<Dense1<f64>>(&[9], seed);
        tns_round_trip::<HashVec<f64>>(&[30], seed);
        tns_round_trip::<Coo<f64>>(&[7, 9], seed);
        tns_round_trip::<Csr<f64>>(&[7, 9], seed);
        tns_round_trip::<Dense2<f64>>(&[4, 3], seed);
        tns_round_trip::<Csf3<f64>>(&[5, 6, 7], seed);
        tns_round_trip::<Coo3<f64>>(&[5, 6, 7], seed);
        tns_round_trip::<Dense3<f64>>(&[2, 3, 4], seed);
        tns_round_trip::<Csf4<f64>>(&[3, 4, 5, 6], seed);
        tns_round_trip::<Tensor<f64, (Dense, Compressed, Compressed, Dense)>>(&[3, 4, 5, 2], seed);
        tns_round_trip::<Tensor<f64, (Compressed, Compressed, Compressed, Compressed, Compressed)>>(
            &[3, 4, 2, 5, 3],
            seed,
        );
        tns_round_trip::<
            Tensor<
                f64,
                (
                    CompressedNonUnique,
                    SingletonNonUnique,
                    SingletonNonUnique,
                    SingletonNonUnique,
                    Singleton,
                ),
            >,
        >(&[3, 4, 2, 5, 3], seed);
        tns_round_trip::<Tensor<f64, (Dense, Compressed, Compressed), Modes<2, 0, 1>>>(
            &[4, 5, 6],
            seed,
        );
    }
}

#[test]
fn tns_files_without_entries_and_with_shapes() {
    // Empty: the format's order gives the shape [0, ..]; a neutral list needs a shape.
    let t: Csf3<f64> = io::read_tns_from("# nothing\n\n".as_bytes(), "e.tns").unwrap();
    assert_eq!(t.shape(), &[0, 0, 0]);
    assert_eq!(
        io::read_tns_from::<Entries<f64>>("".as_bytes(), "e.tns")
            .unwrap_err()
            .to_string(),
        "e.tns:1: the file has no entries, so its order is unknown: give the shape (read_tns_with_shape)"
    );
    let t: Csf3<f64> = io::read_tns_with_shape_from("".as_bytes(), "e.tns", &[2, 3, 4]).unwrap();
    assert_eq!((t.shape(), t.nnz()), (&[2, 3, 4][..], 0));
    // The file's order must be the format's.
    assert_eq!(
        io::read_tns_from::<Csr<f64>>("1 1 1 1.0\n".as_bytes(), "o.tns")
            .unwrap_err()
            .to_string(),
        "o.tns:1: the file has 3 indices per line, but the tensor has order 2"
    );
    assert_eq!(
        io::read_tns_with_shape_from::<Csr<f64>>("1 1 1.0\n".as_bytes(), "o.tns", &[2, 2, 2]),
        Err(Error::OrderMismatch {
            expected: 2,
            found: 3
        })
    );
    assert_eq!(
        io::read_tns_with_shape_from::<Entries<f64>>("1 1 1.0\n".as_bytes(), "o.tns", &[2, 2, 2])
            .unwrap_err()
            .to_string(),
        "o.tns:1: expected 4 fields (3 indices and a value, for a shape of 3 modes), found 3"
    );
    // Writing a matrix-only format and an order-3 tensor to Matrix Market.
    let t = Csf3::<f64>::from_entries(&[1, 1, 1], [([0, 0, 0], 1.0)]).unwrap();
    assert_eq!(
        io::write_matrix_market_to(Vec::new(), &t),
        Err(Error::OrderMismatch {
            expected: 2,
            found: 3
        })
    );
}

// ---------------------------------------------------------------------------------------
// Files, formats, errors.

#[test]
fn files_are_written_and_read_in_every_format() {
    let dir = std::env::temp_dir().join(format!("sparse-io-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a: Csr<f64> = io::read_matrix_market(data("lap5_symmetric.mtx")).unwrap();
    let want = a.entries();
    macro_rules! through {
        ($($t:ty),+) => {$({
            let t: $t = io::read_matrix_market(data("lap5_symmetric.mtx")).unwrap();
            assert_eq!(nonzeros(t.entries()), want, "{} read", stringify!($t));
            let path = dir.join("m.mtx");
            io::write_matrix_market(&path, &t).unwrap();
            let back: Csr<f64> = io::read_matrix_market(&path).unwrap();
            assert_eq!(nonzeros(back.entries()), want, "{} written", stringify!($t));
            let path = dir.join("m.tns");
            io::write_tns(&path, &t).unwrap();
            let back: $t = io::read_tns_with_shape(&path, &[5, 5]).unwrap();
            assert_eq!(back.entries(), t.entries(), "{} through .tns", stringify!($t));
        })+};
    }
    through!(
        Csr<f64>,
        Csc<f64>,
        Coo<f64>,
        Dcsr<f64>,
        Dia<f64>,
        Ell<f64>,
        Bcsr<f64, 2, 2>,
        HashMat<f64>,
        Dense2<f64>,
        Csb<f64>,
        CooAos<f64>
    );
    // Writing where no file can be created.
    let missing = dir.join("no/such/dir/m.mtx");
    match io::write_matrix_market(&missing, &a) {
        Err(Error::Io { file, kind, .. }) => {
            assert_eq!(file, missing.display().to_string());
            assert_eq!(kind, std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A symmetric file of `n` rows large enough to be read in chunks on every core (over
/// 8 MB), with comment and blank lines among its entries: the lower triangle of a
/// banded matrix, entry `(i, j)` of value `i - j + 0.5`.
fn large_symmetric_file(n: usize) -> (String, List<f64>) {
    let mut text = String::from("%%MatrixMarket matrix coordinate real symmetric\n");
    let mut lines = Vec::new();
    let mut want = Vec::new();
    for i in 0..n {
        for j in i.saturating_sub(4)..=i {
            let v = (i - j) as f64 + 0.5;
            lines.push(format!("{} {}   {v:.17e}", i + 1, j + 1));
            want.push((vec![i, j], v));
            if i != j {
                want.push((vec![j, i], v));
            }
        }
    }
    text += &format!("{n} {n} {}\n", lines.len());
    for (k, line) in lines.iter().enumerate() {
        text += line;
        text += match k % 1000 {
            0 => "\n% a comment\n",
            500 => "\r\n\n",
            _ => "\n",
        };
    }
    want.sort_by(|a, b| a.0.cmp(&b.0));
    (text, want)
}

#[test]
fn large_files_are_read_in_chunks_with_the_same_entries_and_errors() {
    let (text, want) = large_symmetric_file(50_000);
    // Files from 8 MiB on (four chunks of 2 MiB) are read in chunks.
    assert!(text.len() > 8 << 20, "{} bytes is not large", text.len());
    let path = std::env::temp_dir().join(format!("sparse-io-large-{}.mtx", std::process::id()));
    std::fs::write(&path, &text).unwrap();
    let from_file: Csr<f64> = io::read_matrix_market(&path).unwrap();
    assert_eq!(from_file.entries(), want);
    let from_reader: Entries<f64> = io::read_matrix_market_from(text.as_bytes(), "m").unwrap();
    assert_eq!(list(&from_reader), want);
    // The same entries through a large `.tns` file, which is read in chunks too.
    let tns = path.with_extension("tns");
    let mut tns_text = String::from("# a comment\n");
    for (c, v) in &want {
        tns_text += &format!("{} {}\t{v:.17e}\n", c[0] + 1, c[1] + 1);
    }
    assert!(tns_text.len() > 8 << 20);
    std::fs::write(&tns, &tns_text).unwrap();
    let back: Csr<f64> = io::read_tns(&tns).unwrap();
    assert_eq!(back.entries(), want);
    let shaped: Coo<f64> = io::read_tns_with_shape(&tns, &[50_000, 50_000]).unwrap();
    assert_eq!(shaped.entries(), want);
    let small = io::read_tns_with_shape::<Coo<f64>>(&tns, &[50_000, 49_999]).unwrap_err();
    let line = tns_text
        .lines()
        .position(|l| l.starts_with("49996 50000"))
        .unwrap()
        + 1;
    std::fs::remove_file(&tns).unwrap();
    assert_eq!(
        small.to_string(),
        format!(
            "{}:{line}: index 2 is 50000, outside 1..=49999",
            tns.display()
        )
    );
    // A defect near the end is worded as in a small file, with its line.
    let at = text.find("\n50000 49996 ").unwrap();
    let line = text[..=at].matches('\n').count() + 1;
    let bad = text.replacen("\n50000 49996 ", "\n49996 50000 ", 1);
    std::fs::write(&path, &bad).unwrap();
    let error = io::read_matrix_market::<Csr<f64>>(&path).unwrap_err();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(
        error.to_string(),
        format!(
            "{}:{line}: entry (49996, 50000) lies above the diagonal, but a symmetric file \
             stores only the lower triangle (row index >= column index)",
            path.display()
        )
    );
}

#[test]
fn a_missing_file_is_an_io_error() {
    let path = data("no-such-file.mtx");
    match io::read_matrix_market::<Csr<f64>>(&path) {
        Err(Error::Io {
            file,
            kind,
            message,
        }) => {
            assert_eq!(file, path.display().to_string());
            assert_eq!(kind, std::io::ErrorKind::NotFound);
            let shown = Error::Io {
                file: file.clone(),
                kind,
                message: message.clone(),
            }
            .to_string();
            assert_eq!(shown, format!("{file}: {message}"));
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        io::read_tns::<Csf3<f64>>(data("no-such-file.tns")),
        Err(Error::Io { .. })
    ));
}

#[test]
fn a_shape_the_index_type_cannot_hold_is_the_constructors_error() {
    let text = "%%MatrixMarket matrix coordinate real general\n1 5000000000 0\n";
    assert_eq!(
        mm::<Csr<f64>>(text),
        Err(Error::IndexOverflow {
            index_type: "u32",
            value: 5_000_000_000
        })
    );
    let a: Csr<f64, u64> = mm(text).unwrap();
    assert_eq!(a.shape(), &[1, 5_000_000_000]);
}

/// Each file of the malformed corpus, the line of its defect and the message.
const MALFORMED: &[(&str, usize, &str)] = &[
    (
        "empty.mtx",
        1,
        "the file is empty; a Matrix Market file starts with `%%MatrixMarket matrix <format> <field> <symmetry>`",
    ),
    (
        "no_banner.mtx",
        1,
        "expected the banner `%%MatrixMarket matrix <format> <field> <symmetry>`, found `3 3 1`",
    ),
    (
        "unknown_format.mtx",
        1,
        "unknown format `sparse`: expected `coordinate` or `array`",
    ),
    (
        "unknown_field.mtx",
        1,
        "unknown field `quaternion`: expected `real`, `double`, `integer`, `pattern` or `complex`",
    ),
    (
        "unknown_symmetry.mtx",
        1,
        "unknown symmetry `lopsided`: expected `general`, `symmetric`, `skew-symmetric` or `hermitian`",
    ),
    (
        "complex.mtx",
        1,
        "a `complex` file is read into a tensor of `num_complex::Complex<f64>` or `Complex<f32>` values, not `f64`",
    ),
    (
        "bad_size_line.mtx",
        3,
        "expected 3 fields on the size line (rows, columns, entries), found 2",
    ),
    (
        "truncated.mtx",
        5,
        "the file ends after 3 of the 4 entries the size line declares",
    ),
    (
        "too_many.mtx",
        5,
        "more entries than the 2 the size line declares",
    ),
    ("zero_index.mtx", 4, "row index is 0, but indices are 1-based"),
    ("out_of_range.mtx", 4, "column index is 4, outside 1..=3"),
    ("non_numeric.mtx", 4, "value `two` is not a valid f64"),
    (
        "trailing_garbage.mtx",
        4,
        "expected 3 fields (row, column, value), found 4",
    ),
    (
        "index_overflow.mtx",
        3,
        "row index 99999999999999999999999 is too large for usize",
    ),
    (
        "upper_triangle.mtx",
        4,
        "entry (1, 2) lies above the diagonal, but a symmetric file stores only the lower triangle (row index >= column index)",
    ),
    (
        "skew_diagonal.mtx",
        4,
        "entry (2, 2) lies on the diagonal with the nonzero value 3.0, but the diagonal of a skew-symmetric matrix is zero",
    ),
    (
        "non_square_symmetric.mtx",
        2,
        "a symmetric matrix must be square, but the size line declares 3 x 4",
    ),
    (
        "array_wrong_count.mtx",
        5,
        "the file ends after 3 of the 4 values of the array's 2 x 2 components",
    ),
    (
        "inconsistent_fields.tns",
        2,
        "expected 4 fields (3 indices and a value, as on line 1), found 3",
    ),
    ("zero_index.tns", 2, "index 1 is 0, but indices are 1-based"),
    ("non_integer_index.tns", 2, "index 2 `x` is not a positive integer"),
];

#[test]
fn every_malformed_file_is_an_error_naming_its_line() {
    let dir = data("malformed");
    let mut listed: Vec<&str> = MALFORMED.iter().map(|m| m.0).collect();
    listed.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk, "every file of the corpus is checked");
    for &(name, line, detail) in MALFORMED {
        let path = dir.join(name);
        let file = path.display().to_string();
        let want = Error::Parse {
            file: file.clone(),
            line,
            detail: detail.to_owned(),
        };
        let got = if name.ends_with(".tns") {
            io::read_tns::<Entries<f64>>(&path).map(|_| ())
        } else {
            io::read_matrix_market::<Csr<f64>>(&path).map(|_| ())
        };
        assert_eq!(got, Err(want.clone()), "{name}");
        assert_eq!(want.to_string(), format!("{file}:{line}: {detail}"));
        // The same through the in-memory reader, into another format.
        let bytes = std::fs::read(&path).unwrap();
        let got = if name.ends_with(".tns") {
            io::read_tns_from::<Entries<f32>>(&bytes[..], name).map(|_| ())
        } else {
            io::read_matrix_market_from::<Coo<f64>>(&bytes[..], name).map(|_| ())
        };
        let Err(Error::Parse {
            line: l, detail: d, ..
        }) = got
        else {
            panic!("{name}: {got:?}");
        };
        assert_eq!((l, d.as_str()), (line, detail), "{name} in memory");
    }
}

#[test]
fn more_defects_inline() {
    let err = |text: &str| mm::<Csr<f64>>(text).unwrap_err().to_string();
    let coordinate = "%%MatrixMarket matrix coordinate real general\n";
    assert_eq!(
        err("%%MatrixMarket matrix coordinate real\n1 1 0\n"),
        "t.mtx:1: the banner has 3 words after `%%MatrixMarket`, expected 4: `%%MatrixMarket matrix <format> <field> <symmetry>`"
    );
    assert_eq!(
        err("%%MatrixMarket vector coordinate real general\n1 1 0\n"),
        "t.mtx:1: unknown object `vector`: only `matrix` is supported"
    );
    assert_eq!(
        err("%%MatrixMarket matrix array pattern general\n1 1\n"),
        "t.mtx:1: an `array` file cannot have the field `pattern`"
    );
    assert_eq!(
        err("%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n"),
        "t.mtx:1: a `pattern` file cannot be `skew-symmetric` (its mirrored entries would be -1)"
    );
    assert_eq!(
        err("%%MatrixMarket matrix coordinate real general\n% only comments\n"),
        "t.mtx:2: the file ends before the size line (rows, columns, entries)"
    );
    assert_eq!(
        err(&format!("{coordinate}3 x 1\n")),
        "t.mtx:2: the column count `x` is not a non-negative integer"
    );
    assert_eq!(
        err(&format!("{coordinate}3 3 -1\n")),
        "t.mtx:2: the entry count `-1` is not a non-negative integer"
    );
    assert_eq!(
        err(&format!("{coordinate}3 3 1\n1 1\n")),
        "t.mtx:3: expected 3 fields (row, column, value), found 2"
    );
    assert_eq!(
        err("%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 1 1.0\n"),
        "t.mtx:3: expected 2 fields (row, column), found 3"
    );
    assert_eq!(
        err(&format!("{coordinate}3 3 1\n1.5 1 1\n")),
        "t.mtx:3: row index `1.5` is not a positive integer"
    );
    assert_eq!(
        err("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 2 1\n"),
        "t.mtx:3: entry (1, 2) lies above the diagonal, but a skew-symmetric file stores only the strictly lower triangle (row index > column index)"
    );
    assert_eq!(
        err("%%MatrixMarket matrix array real general\n1 1\n1 2\n"),
        "t.mtx:3: expected 1 field (value) per line of an array, found 2"
    );
    assert_eq!(
        err("%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n"),
        "t.mtx:6: more values than the 3 of the lower triangle's 2 x 2 components"
    );
    assert_eq!(
        err("%%MatrixMarket matrix array real general\n99999999999 99999999999\n"),
        "t.mtx:2: a 99999999999 x 99999999999 array has too many components"
    );
    // A size line that claims more entries than the file could hold allocates nothing
    // unreasonable, and reports the truncation.
    assert_eq!(
        err(&format!("{coordinate}3 3 18446744073709551615\n1 1 1\n")),
        "t.mtx:3: the file ends after 1 of the 18446744073709551615 entries the size line declares"
    );
    // A zero skew-symmetric diagonal is allowed (kept as an explicit zero).
    let a: Coo<f64> =
        mm("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 2\n1 1 0\n2 1 1\n").unwrap();
    assert_eq!(
        a.entries(),
        vec![(vec![0, 0], 0.0), (vec![0, 1], -1.0), (vec![1, 0], 1.0)]
    );
    // Bytes that are not UTF-8 in a comment are fine; in a value, an error.
    let mut bytes =
        b"%%MatrixMarket matrix coordinate real general\n% caf\xe9\n1 1 1\n1 1 ".to_vec();
    bytes.extend_from_slice(b"\xff\n");
    assert_eq!(
        io::read_matrix_market_from::<Csr<f64>>(&bytes[..], "u.mtx")
            .unwrap_err()
            .to_string(),
        "u.mtx:4: value `\u{fffd}` is not a valid f64"
    );
}

#[test]
fn mutated_files_never_panic() {
    let seeds = [
        "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 3\n1 1 1.5\n3 2 -2\n4 4 1e3\n",
        "%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 2\n2 1 4\n3 2 -7\n",
        "%%MatrixMarket matrix coordinate pattern hermitian\n3 3 2\n2 1\n3 3\n",
        "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n",
        "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n",
    ];
    let tns = "# t\n1 2 3 1.5\n2 2 1 -4\n";
    let alphabet = b"0123456789 .-+eE%\n\t#x";
    let mut rng = Rng::new(11);
    for round in 0..3000 {
        let base = if round % 6 == 5 {
            tns
        } else {
            seeds[round % seeds.len()]
        };
        let mut bytes = base.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(bytes.len() + 1);
            match rng.below(3) {
                0 if at < bytes.len() => {
                    bytes.remove(at);
                }
                1 if at < bytes.len() => bytes[at] = alphabet[rng.below(alphabet.len())],
                _ => bytes.insert(at, alphabet[rng.below(alphabet.len())]),
            }
        }
        // Ok or Err, never a panic; when Ok, the tensor agrees with the neutral list.
        if let Ok(e) = io::read_matrix_market_from::<Entries<f64>>(&bytes[..], "m") {
            let a: Result<Csr<f64>, _> = io::read_matrix_market_from(&bytes[..], "m");
            if let Ok(a) = a {
                assert_eq!(a.shape(), e.shape());
            }
        }
        let _ = io::read_matrix_market_from::<Coo<u8>>(&bytes[..], "m");
        let _ = io::read_matrix_market_from::<Dia<i32>>(&bytes[..], "m");
        let _ = io::read_tns_from::<Csf3<f64>>(&bytes[..], "t");
        let _ = io::read_tns_from::<Entries<i64>>(&bytes[..], "t");
        let _ = io::read_tns_with_shape_from::<Coo3<u32>>(&bytes[..], "t", &[3, 3, 3]);
    }
}

#[test]
fn huge_declared_shapes_are_errors_not_aborts() {
    let text = "%%MatrixMarket matrix coordinate real general\n100000000000000 1 0\n";
    assert!(mm::<Csr<f64>>(text).is_err());
    assert!(mm::<Dense2<f64>>(text).is_err());
    assert!(mm::<Csr<f64, u64>>(text).is_err());
}

/// A general coordinate file of `n` entries (over 4 MB for `n` = 200,000), with line `bad` (1-based, if any) replaced by `defect`.
fn big_file(n: usize, declared: usize, bad: Option<(usize, &str)>) -> (String, List<f64>) {
    let mut rng = Rng::new(99);
    let mut text = format!("%%MatrixMarket matrix coordinate real general\n1000 1000 {declared}\n");
    let mut want = Vec::new();
    for k in 0..n {
        let (i, j, v) = (rng.below(1000), rng.below(1000), rng.unit() - 0.5);
        if bad.is_some_and(|(line, _)| line == k + 3) {
            text += bad.unwrap().1;
            text += "\n";
        } else {
            text += &format!("{} {} {v:.16e}\n", i + 1, j + 1);
        }
        if k % 1000 == 0 {
            text += "% a comment\n\n";
        }
        want.push((vec![i, j], v));
    }
    (text, want)
}

#[test]
fn large_files_parse_like_small_ones() {
    let (text, want) = big_file(200_000, 200_000, None);
    assert!(text.len() > 4 << 20);
    let e: Entries<f64> = mm(&text).unwrap();
    // In file order, exactly.
    let got: List<f64> = e.iter().map(|(c, v)| (c.to_vec(), v)).collect();
    assert_eq!(got, want);
    // Defects anywhere are reported at their line.
    let (text, _) = big_file(200_000, 200_000, Some((150_000, "7 7 x")));
    let line = text.lines().position(|l| l == "7 7 x").unwrap() + 1;
    assert_eq!(
        mm::<Entries<f64>>(&text).unwrap_err().to_string(),
        format!("t.mtx:{line}: value `x` is not a valid f64")
    );
    let (text, _) = big_file(200_000, 199_999, None);
    let lines = text.lines().count();
    let err = mm::<Entries<f64>>(&text).unwrap_err().to_string();
    assert_eq!(
        err,
        format!("t.mtx:{lines}: more entries than the 199999 the size line declares")
    );
    let (text, _) = big_file(200_000, 200_001, None);
    assert_eq!(
        mm::<Entries<f64>>(&text).unwrap_err().to_string(),
        format!("t.mtx:{lines}: the file ends after 200000 of the 200001 entries the size line declares")
    );
}

#[test]
fn an_array_too_large_to_write_is_not_representable() {
    let a = Dcsr::<f64, u64>::from_entries(&[1 << 40, 1 << 40], [([0, 0], 1.0)]).unwrap();
    assert!(matches!(
        io::write_matrix_market_with(Vec::new(), &a, Layout::Array),
        Err(Error::NotRepresentable { .. })
    ));
}
