//! `Tensor::from_coordinate_arrays`: a tensor built from one array of coordinates per mode
//! and one of values is the tensor `from_entries` builds from the same entries, in every
//! format tried (repeats summed in the same order, explicit zeros kept, empty rows, empty
//! and single-entry inputs), with `u32` and `usize` coordinates; bad arrays are errors.

use sparse_runtime::prelude::*;
use sparse_tests::Rng;

/// Unsorted entries with repeats and explicit zeros: small integers, so sums are exact.
fn random_list(shape: &[usize], count: usize, seed: u64) -> Vec<(Vec<usize>, f64)> {
    let mut rng = Rng::new(seed);
    let mut list: Vec<(Vec<usize>, f64)> = Vec::new();
    if shape.contains(&0) {
        return list;
    }
    while list.len() < count {
        let c: Vec<usize> = shape.iter().map(|&n| rng.below(n)).collect();
        if shape[0] > 1 && c[0] % 5 == 2 {
            continue; // an empty row
        }
        let v = rng.below(5) as f64 - 2.0;
        if rng.chance(0.15) && !list.is_empty() {
            let k = rng.below(list.len());
            list.push((list[k].0.clone(), v));
        } else {
            list.push((c, v));
        }
    }
    list
}

/// The list's coordinate arrays, one per mode, as `I`.
fn arrays<I: TryFrom<usize>>(order: usize, list: &[(Vec<usize>, f64)]) -> Vec<Vec<I>> {
    let as_i = |c: usize| I::try_from(c).ok().expect("coordinates fit");
    (0..order)
        .map(|m| list.iter().map(|(c, _)| as_i(c[m])).collect())
        .collect()
}

fn check<L: Levels, O: ModeOrder>(shapes: &[&[usize]]) {
    for (n, shape) in shapes.iter().enumerate() {
        for count in [0, 1, 700] {
            let list = random_list(shape, count, n as u64 * 31 + count as u64);
            let vals: Vec<f64> = list.iter().map(|e| e.1).collect();
            let want = Tensor::<f64, L, O>::from_entries(shape, list.iter().map(|(c, v)| (c, *v)))
                .expect("valid entries");
            let narrow = arrays::<u32>(shape.len(), &list);
            let wide = arrays::<usize>(shape.len(), &list);
            let narrow: Vec<&[u32]> = narrow.iter().map(Vec::as_slice).collect();
            let wide: Vec<&[usize]> = wide.iter().map(Vec::as_slice).collect();
            let a = Tensor::<f64, L, O>::from_coordinate_arrays(shape, &narrow, &vals);
            let b = Tensor::<f64, L, O>::from_coordinate_arrays(shape, &wide, &vals);
            let case = format!("{} entries on {shape:?}", list.len());
            for got in [a, b] {
                let got = got.unwrap_or_else(|e| panic!("{case}: {e}"));
                assert_eq!(got.entries(), want.entries(), "{case}");
            }
        }
    }
}

#[test]
fn every_format_gets_the_tensor_from_entries_builds() {
    let matrices: &[&[usize]] = &[&[30, 20], &[1, 50], &[50, 1], &[0, 4], &[3, 3]];
    check::<(Dense, Compressed), Identity>(matrices);
    check::<(Dense, Compressed), Modes<1, 0>>(matrices);
    check::<(Compressed<u32, NonUnique>, Singleton), Identity>(matrices);
    check::<(Compressed, Compressed), Identity>(matrices);
    check::<(Dense, Dense), Identity>(matrices);
    check::<(Dense, Hashed), Identity>(matrices);
    let tensors: &[&[usize]] = &[&[6, 7, 8], &[1, 1, 40], &[0, 2, 2]];
    check::<(Compressed, Compressed, Compressed), Identity>(tensors);
    check::<
        (
            Compressed<u32, NonUnique>,
            Singleton<u32, NonUnique>,
            Singleton,
        ),
        Identity,
    >(tensors);
    check::<(Dense,), Identity>(&[&[9], &[0]]);
}

#[test]
fn bad_arrays_are_errors() {
    let (rows, cols, vals) = ([1u32, 0], [2u32, 1], [1.0, 2.0]);
    let short = [1u32];
    let order = Csr::<f64>::from_coordinate_arrays(&[2, 3], &[&rows], &vals);
    assert_eq!(
        order.unwrap_err(),
        Error::OrderMismatch {
            expected: 2,
            found: 1
        }
    );
    let length = Csr::<f64>::from_coordinate_arrays(&[2, 3], &[&rows, &short], &vals);
    assert!(matches!(
        length.unwrap_err(),
        Error::LengthMismatch {
            expected: 2,
            found: 1,
            ..
        }
    ));
    let outside = Csr::<f64>::from_coordinate_arrays(&[2, 2], &[&rows, &cols], &vals);
    assert_eq!(
        outside.unwrap_err(),
        Error::CoordinateOutOfBounds {
            coordinate: vec![1, 2],
            shape: vec![2, 2]
        }
    );
    let shape = Csr::<f64>::from_coordinate_arrays(&[2, 3, 1], &[&rows, &cols, &cols], &vals);
    assert!(shape.is_err());
}
