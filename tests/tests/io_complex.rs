//! Matrix Market `complex` files: read into `Complex<f64>` and `Complex<f32>` tensors in
//! every symmetry and both layouts, written back bit-identical, large files read in chunks,
//! each defect an error naming its line, and a kernel over a file read against the dense
//! reference.
#![deny(warnings)]

use sparse_runtime::io::{self, Entries, FromEntries, Layout};
use sparse_runtime::num_complex::{Complex, Complex32, Complex64};
use sparse_runtime::prelude::*;
use sparse_tests::Rng;

/// Reads Matrix Market text into `T`.
fn mm<T: FromEntries>(text: &str) -> Result<T, Error> {
    io::read_matrix_market_from(text.as_bytes(), "c.mtx")
}

fn c(re: f64, im: f64) -> Complex64 {
    Complex::new(re, im)
}

/// A parse error of `c.mtx` at `line`.
fn parse_error(line: usize, detail: &str) -> Error {
    Error::Parse {
        file: "c.mtx".into(),
        line,
        detail: detail.into(),
    }
}

#[test]
fn coordinate_files_give_their_entries_in_every_symmetry() {
    let body = "3 3 3\n1 1 1.5 -2\n3 1 0.25 1e-3\n3 2 -1 +4\n";
    let general = format!("%%MatrixMarket matrix coordinate complex general\n{body}");
    let a: Csr<Complex64> = mm(&general).unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 0], c(1.5, -2.0)),
            (vec![2, 0], c(0.25, 1e-3)),
            (vec![2, 1], c(-1.0, 4.0))
        ]
    );

    let symmetric = general.replace("general", "symmetric");
    let a: Coo<Complex64> = mm(&symmetric).unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 0], c(1.5, -2.0)),
            (vec![0, 2], c(0.25, 1e-3)),
            (vec![1, 2], c(-1.0, 4.0)),
            (vec![2, 0], c(0.25, 1e-3)),
            (vec![2, 1], c(-1.0, 4.0))
        ]
    );

    // Hermitian: the mirror is the conjugate, and the diagonal must be real.
    let hermitian = "%%MatrixMarket matrix coordinate complex hermitian\n\
                     3 3 3\n1 1 1.5 0\n3 1 0.25 1e-3\n3 2 -1 -0\n";
    let a: Dcsr<Complex64> = mm(hermitian).unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 0], c(1.5, 0.0)),
            (vec![0, 2], c(0.25, -1e-3)),
            (vec![1, 2], c(-1.0, 0.0)),
            (vec![2, 0], c(0.25, 1e-3)),
            (vec![2, 1], c(-1.0, -0.0))
        ]
    );
    // -0 conjugated is +0, bit for bit.
    let mirrored = a.entries()[2].1;
    assert!(mirrored.im.to_bits() == 0.0f64.to_bits());
    assert_eq!(
        mm::<Csr<Complex64>>(&general.replace("general", "hermitian")).unwrap_err(),
        parse_error(
            3,
            "entry (1, 1) lies on the diagonal with the value Complex { re: 1.5, im: -2.0 }, \
             but the diagonal of a hermitian matrix is real"
        )
    );

    // Skew-symmetric: both parts negated.
    let skew = "%%MatrixMarket matrix coordinate complex skew-symmetric\n\
                3 3 2\n2 1 1.5 -2\n3 2 -0.5 0\n";
    let a: Csr<Complex32> = mm(skew).unwrap();
    let f = |re: f32, im: f32| Complex32::new(re, im);
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 1], f(-1.5, 2.0)),
            (vec![1, 0], f(1.5, -2.0)),
            (vec![1, 2], f(0.5, -0.0)),
            (vec![2, 1], f(-0.5, 0.0))
        ]
    );
}

#[test]
fn array_files_are_column_major_in_every_symmetry() {
    let general = "%%MatrixMarket matrix array complex general\n2 2\n1 2\n3 4\n5 6\n7 8\n";
    let a: Dense2<Complex64> = mm(general).unwrap();
    assert_eq!(a.as_slice(), &[c(1., 2.), c(5., 6.), c(3., 4.), c(7., 8.)]);

    let hermitian = "%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n3 4\n7 0\n";
    let a: Dense2<Complex64> = mm(hermitian).unwrap();
    assert_eq!(a.as_slice(), &[c(1., 0.), c(3., -4.), c(3., 4.), c(7., 0.)]);

    let skew = "%%MatrixMarket matrix array complex skew-symmetric\n2 2\n3 4\n";
    let a: Dense2<Complex64> = mm(skew).unwrap();
    assert_eq!(
        a.as_slice(),
        &[c(0., 0.), c(-3., -4.), c(3., 4.), c(0., 0.)]
    );

    assert_eq!(
        mm::<Dense2<Complex64>>("%%MatrixMarket matrix array complex general\n1 1\n1\n")
            .unwrap_err(),
        parse_error(
            3,
            "expected 2 fields (real part, imaginary part) per line of a complex array, found 1"
        )
    );
}

#[test]
fn real_integer_and_pattern_files_read_into_complex_tensors() {
    let real = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n2 1 -3\n";
    let a: Csr<Complex64> = mm(real).unwrap();
    assert_eq!(
        a.entries(),
        vec![(vec![0, 0], c(1.5, 0.0)), (vec![1, 0], c(-3.0, 0.0))]
    );
    let pattern = "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n";
    let a: Csr<Complex32> = mm(pattern).unwrap();
    assert_eq!(
        a.entries(),
        vec![
            (vec![0, 1], Complex32::new(1.0, 0.0)),
            (vec![1, 0], Complex32::new(1.0, 0.0))
        ]
    );
}

#[test]
fn defects_are_errors_naming_their_line() {
    let text = "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.5 2\n";
    assert_eq!(
        mm::<Csr<f64>>(text).unwrap_err(),
        parse_error(
            1,
            "a `complex` file is read into a tensor of `num_complex::Complex<f64>` or \
             `Complex<f32>` values, not `f64`"
        )
    );
    // A complex type the reader cannot take apart is refused the same way.
    assert_eq!(
        mm::<Csr<Complex<i64>>>(text).unwrap_err(),
        parse_error(
            1,
            "a `complex` file is read into a tensor of `num_complex::Complex<f64>` or \
             `Complex<f32>` values, not `num_complex::Complex<i64>`"
        )
    );
    let short = text.replace("1 1 1.5 2", "1 1 1.5");
    assert_eq!(
        mm::<Csr<Complex64>>(&short).unwrap_err(),
        parse_error(
            3,
            "expected 4 fields (row, column, real part, imaginary part), found 3"
        )
    );
    let bad = text.replace("1 1 1.5 2", "1 1 1.5 2x");
    assert_eq!(
        mm::<Csr<Complex64>>(&bad).unwrap_err(),
        parse_error(3, "value `2x` is not a valid f64")
    );
    let above = "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 2 1 1\n";
    assert_eq!(
        mm::<Csr<Complex64>>(above).unwrap_err(),
        parse_error(
            3,
            "entry (1, 2) lies above the diagonal, but a hermitian file stores only the lower \
             triangle (row index >= column index)"
        )
    );
}

/// A random complex value with awkward parts: signed zeros, tiny and huge magnitudes,
/// infinities.
fn awkward(rng: &mut Rng) -> f64 {
    match rng.below(8) {
        0 => 0.0,
        1 => -0.0,
        2 => f64::INFINITY,
        3 => 1e-310,
        4 => -1.7e308,
        _ => (rng.unit() - 0.5) * 10f64.powi(rng.below(20) as i32 - 10),
    }
}

fn bits(entries: Vec<(Vec<usize>, Complex64)>) -> Vec<(Vec<usize>, u64, u64)> {
    entries
        .into_iter()
        .map(|(k, v)| (k, v.re.to_bits(), v.im.to_bits()))
        .collect()
}

#[test]
fn written_files_read_back_bit_identical() {
    let mut rng = Rng::new(11);
    for (m, n) in [(0, 0), (1, 1), (4, 7), (20, 3)] {
        let mut entries = Vec::new();
        for i in 0..m {
            for j in 0..n {
                if rng.chance(0.4) {
                    entries.push(([i, j], c(awkward(&mut rng), awkward(&mut rng))));
                }
            }
        }
        let a = Csr::<Complex64>::from_entries(&[m, n], entries.iter().copied()).unwrap();
        let mut out = Vec::new();
        io::write_matrix_market_to(&mut out, &a).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("%%MatrixMarket matrix coordinate complex general\n"));
        let back: Csr<Complex64> = mm(&text).unwrap();
        assert_eq!(bits(back.entries()), bits(a.entries()), "{m} x {n}");

        // The array writer sums entries into a zero-filled array, so a part `-0.0` is
        // written `0.0` (as for real values); the array case draws no negative zero.
        let mut part = || {
            let x = awkward(&mut rng);
            if x == 0.0 {
                0.0
            } else {
                x
            }
        };
        let d: Dense2<Complex64> =
            Dense2::from_vec(m, n, (0..m * n).map(|_| c(part(), part())).collect()).unwrap();
        let mut out = Vec::new();
        io::write_matrix_market_with(&mut out, &d, Layout::Array).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("%%MatrixMarket matrix array complex general\n"));
        let back: Dense2<Complex64> = mm(&text).unwrap();
        assert_eq!(bits(back.entries()), bits(d.entries()), "array {m} x {n}");
    }

    let a = Csr::<Complex32>::from_entries(&[1, 2], [([0, 1], Complex32::new(0.1, -3.0))]).unwrap();
    let mut out = Vec::new();
    io::write_matrix_market_to(&mut out, &a).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "%%MatrixMarket matrix coordinate complex general\n1 2 1\n1 2 0.1 -3.0\n"
    );

    // A complex type the writer cannot take apart is refused rather than written garbled.
    let a = Csr::<Complex<i64>>::from_entries(&[1, 1], [([0, 0], Complex::new(1, 2))]).unwrap();
    let err = io::write_matrix_market_to(&mut Vec::new(), &a).unwrap_err();
    assert!(
        matches!(&err, Error::NotRepresentable { detail } if detail.contains("Complex<i64>")),
        "{err:?}"
    );
}

#[test]
fn large_files_are_read_in_chunks_with_the_same_entries() {
    // Over 8 MiB: the reader splits the body into chunks parsed on every core.
    let n = 1000;
    let mut rng = Rng::new(5);
    let mut text = String::new();
    let mut want = Vec::new();
    let mut lines = 0;
    while text.len() < 9 << 20 {
        let (i, j) = (rng.below(n), rng.below(n));
        let v = c(rng.unit() - 0.5, rng.unit());
        text.push_str(&format!("{} {} {:?} {:?}\n", i + 1, j + 1, v.re, v.im));
        want.push((vec![i, j], v));
        lines += 1;
    }
    let head = format!("%%MatrixMarket matrix coordinate complex general\n{n} {n} {lines}\n");
    let entries: Entries<Complex64> = mm(&(head.clone() + &text)).unwrap();
    let got: Vec<(Vec<usize>, Complex64)> = entries.iter().map(|(k, v)| (k.to_vec(), v)).collect();
    assert_eq!(got, want, "file order, every entry");

    // A defect far into the file is still reported at its line.
    let broken = head + &text + "1 1 0.5\n";
    let err = mm::<Entries<Complex64>>(&broken).unwrap_err();
    assert!(
        matches!(&err, Error::Parse { line, .. } if *line == lines + 3),
        "{err:?}"
    );
}

sparse_kernel! {
    fn spmv(y: &mut Dense1<Complex64>, a: &Csr<Complex64>, x: &Dense1<Complex64>) {
        y(i) = a(i, j) * x(j)
    }
}

#[test]
fn a_kernel_over_a_file_read_matches_the_dense_reference() {
    let text = "%%MatrixMarket matrix coordinate complex hermitian\n\
                3 3 4\n1 1 2 0\n2 1 0 1\n3 2 1 -1\n3 3 -1 0\n";
    let a: Csr<Complex64> = mm(text).unwrap();
    let full = [
        [c(2., 0.), c(0., -1.), c(0., 0.)],
        [c(0., 1.), c(0., 0.), c(1., 1.)],
        [c(0., 0.), c(1., -1.), c(-1., 0.)],
    ];
    let x = [c(1., 1.), c(-2., 0.5), c(0., 3.)];
    let mut y = Dense1::zeros(3);
    spmv(&mut y, &a, &Dense1::from_vec(x.to_vec())).unwrap();
    for (i, row) in full.iter().enumerate() {
        let want: Complex64 = row.iter().zip(&x).map(|(a, b)| a * b).sum();
        assert_eq!(y.as_slice()[i], want, "row {i}");
    }
}

#[test]
fn tns_files_hold_complex_values_as_one_field() {
    let mut rng = Rng::new(3);
    let mut entries = Vec::new();
    for k in 0..40 {
        entries.push((
            [k % 3, k % 5, k % 7],
            c(awkward(&mut rng), awkward(&mut rng)),
        ));
    }
    let t = Csf3::<Complex64>::from_entries(&[3, 5, 7], entries.iter().copied()).unwrap();
    let mut out = Vec::new();
    io::write_tns_to(&mut out, &t).unwrap();
    let text = String::from_utf8(out).unwrap();
    let back: Csf3<Complex64> =
        io::read_tns_with_shape_from(text.as_bytes(), "t.tns", &[3, 5, 7]).unwrap();
    assert_eq!(bits(back.entries()), bits(t.entries()));

    let t = Coo3::<Complex32>::from_entries(&[1, 1, 2], [([0, 0, 1], Complex32::new(1.5, -2.0))])
        .unwrap();
    let mut out = Vec::new();
    io::write_tns_to(&mut out, &t).unwrap();
    assert_eq!(String::from_utf8(out).unwrap(), "1 1 2 1.5+-2.0i\n");
}
