//! Fill values: every component a tensor does not store has its fill value, which
//! conversions carry and write into the components a target stores but the source does
//! not; printing, comparing, pruning and resetting keep or show it.

use crate::convert::{Source, Target};
use crate::level::{Compressed, Dense, Hashed, Slotted};
use crate::{
    Bcsr, Coo, CooAos, Csb, Csc, Csr, Dense1, Dense2, Dense3, Dia, Ell, Error, HashMat, Modes,
    SparseVec, Tensor,
};

const INF: f64 = f64::INFINITY;

/// A 3 x 4 matrix with entries (0, 1), (1, 0), (1, 3), (2, 2), of fill value `fill`.
fn sample(fill: f64) -> Csr<f64> {
    let list = [([0, 1], 1.0), ([1, 0], 2.0), ([1, 3], 3.0), ([2, 2], 0.0)];
    Csr::from_entries(&[3, 4], list).unwrap().with_fill(fill)
}

/// The row-major dense array of `sample(fill)`.
fn sample_dense(fill: f64) -> Vec<f64> {
    let f = fill;
    vec![f, 1.0, f, f, 2.0, f, f, 3.0, f, f, 0.0, f]
}

#[test]
fn every_constructor_gives_fill_zero() {
    assert_eq!(Csr::<f64>::new(&[2, 2]).unwrap().fill(), 0.0);
    assert_eq!(Dense1::<i32>::zeros(3).fill(), 0);
    assert_eq!(Dense2::from_vec(1, 1, vec![5u8]).unwrap().fill(), 0);
    assert_eq!(Dense3::<f32>::zeros(1, 1, 1).fill(), 0.0);
    let columns = Compressed::<u32>::from_raw(2, vec![0, 1], vec![1]).unwrap();
    let a = Csr::from_levels(&[1, 2], (Dense::new(1), columns), vec![4.0]).unwrap();
    assert_eq!(a.fill(), 0.0);
    assert_eq!(a.pruned().unwrap().fill(), 0.0);
    assert_eq!(Dia::<f64>::new(&[2, 2]).unwrap().fill(), 0.0);
    assert_eq!(CooAos::<f64>::new(&[2, 2]).unwrap().fill(), 0.0);
    assert_eq!(Csb::<f64>::new(&[2, 2]).unwrap().fill(), 0.0);
    assert_eq!(Bcsr::<f64, 2, 2>::new(&[2, 2]).unwrap().fill(), 0.0);
    let e = Ell::<f64>::from_ell_arrays(1, 2, 1, vec![1], vec![3.0]).unwrap();
    assert_eq!(e.fill(), 0.0);
}

#[test]
fn with_fill_and_set_fill_change_nothing_stored() {
    let a = sample(0.0);
    let b = a.clone().with_fill(INF);
    assert_eq!((b.levels(), b.vals()), (a.levels(), a.vals()));
    assert_eq!(b.entries(), a.entries());
    assert_eq!(b.nnz(), a.nnz());
    assert_eq!(b.pattern_id(), a.pattern_id()); // the same structure
    let mut c = b.clone();
    c.set_fill(0.0);
    assert_eq!(c, a);
    assert_ne!(b, a);
    assert_eq!(b.clone(), b); // clones keep the fill value
}

#[test]
fn to_dense_writes_the_fill_value_where_nothing_is_stored() {
    assert_eq!(sample(INF).to_dense(), sample_dense(INF));
    assert_eq!(sample(0.0).to_dense(), sample_dense(0.0));
    // An explicit zero stays zero; a NaN fill value is written too.
    let d = sample(f64::NAN).to_dense();
    assert!(d[0].is_nan() && d[10] == 0.0 && d[1] == 1.0);
    // Repeated coordinates under a non-unique level are summed, not added to the fill.
    let coo = Coo::<i32>::from_entries(&[2, 2], [([0, 0], 1), ([0, 0], 2)])
        .unwrap()
        .with_fill(10);
    assert_eq!(coo.to_dense(), vec![3, 10, 10, 10]);
}

/// `sample(fill)` converted to `T` has the same values and fill value.
fn converts<T: Target<f64> + Source<f64>>(fill: f64) -> T {
    let t: T = sample(fill).convert().unwrap();
    assert_eq!(Source::fill(&t), fill);
    let back: Dense2<f64> = t.convert().unwrap();
    assert_eq!(
        back.as_slice(),
        &sample_dense(fill)[..],
        "{}",
        std::any::type_name::<T>()
    );
    t
}

#[test]
fn conversions_carry_the_fill_value_into_every_format() {
    for fill in [INF, -1.0, 0.0] {
        converts::<Csc<f64>>(fill);
        converts::<Coo<f64>>(fill);
        converts::<crate::Dcsr<f64>>(fill);
        converts::<HashMat<f64>>(fill);
        converts::<Ell<f64>>(fill);
        converts::<Tensor<f64, (Compressed<u32>, Dense)>>(fill);
        converts::<Tensor<f64, (Dense, Dense), Modes<1, 0>>>(fill);
        converts::<Tensor<f64, (Compressed<u32>, Dense), Modes<1, 0>>>(fill);
        converts::<Dia<f64>>(fill);
        converts::<CooAos<f64>>(fill);
        converts::<Csb<f64>>(fill);
        converts::<Bcsr<f64, 2, 2>>(fill);
        converts::<Bcsr<f64, 2, 3>>(fill);
        let d = converts::<Dense2<f64>>(fill);
        assert_eq!(d.as_slice(), &sample_dense(fill)[..]);
    }
}

#[test]
fn dense_targets_store_the_fill_value_where_the_source_stores_nothing() {
    let d: Dense2<f64> = sample(INF).convert().unwrap();
    assert_eq!(d.as_slice(), &sample_dense(INF)[..]);
    assert_eq!(d.fill(), INF);
    // Column-major dense: the same components, stored by columns.
    let t: Tensor<f64, (Dense, Dense), Modes<1, 0>> = sample(-1.0).convert().unwrap();
    assert_eq!(t.vals()[..3], [-1.0, 2.0, -1.0]);
    // A dense block below a sparse level: the rest of a stored row is the fill value.
    let r: Tensor<f64, (Compressed<u32>, Dense)> = sample(7.0).convert().unwrap();
    assert_eq!(r.vals(), &sample_dense(7.0)[..]);
    // Transposed and permuted sources carry it too.
    let tr: Dense2<f64> = sample(5.0).transpose().unwrap();
    assert_eq!(
        (tr.fill(), tr.as_slice()[0], tr.as_slice()[1]),
        (5.0, 5.0, 2.0)
    );
    let p: Dense2<f64> = sample(5.0).permuted(&[1, 0]).unwrap().convert().unwrap();
    assert_eq!(p, tr);
    // Vectors and order-3 tensors.
    let v = SparseVec::<i64>::from_entries(&[4], [([2], 9)])
        .unwrap()
        .with_fill(i64::MAX);
    let dv: Dense1<i64> = v.convert().unwrap();
    assert_eq!(dv.as_slice(), &[i64::MAX, i64::MAX, 9, i64::MAX]);
    let t3 = crate::Csf3::<f64>::from_entries(&[2, 1, 2], [([1, 0, 1], 1.0)]).unwrap();
    let d3: Dense3<f64> = t3.with_fill(2.0).convert().unwrap();
    assert_eq!(d3.as_slice(), &[2.0, 2.0, 2.0, 1.0]);
}

#[test]
fn padding_that_is_not_stored_stays_zero() {
    // ELL's empty slots and a hash level's empty buckets are no components.
    let e: Ell<f64> = sample(INF).convert().unwrap();
    let (_, columns): &(Dense, Slotted<u32>) = e.levels();
    for p in 0..columns.len() {
        if !columns.is_stored(p) {
            assert_eq!(e.vals()[p], 0.0);
        }
    }
    let h: Tensor<f64, (Dense, Hashed<u32>)> = sample(INF).convert().unwrap();
    assert_eq!(h.nnz(), 4);
    assert!(h.vals().iter().all(|v| v.is_finite()));
}

#[test]
fn struct_formats_keep_the_fill_value_outside_the_matrix_zero() {
    // DIA: a stored diagonal's slots inside the matrix hold the fill value, those outside 0.
    let a = Csr::<f64>::from_entries(&[2, 3], [([0, 1], 1.0)])
        .unwrap()
        .with_fill(INF);
    let d: Dia<f64> = a.convert().unwrap();
    assert_eq!(d.offsets(), &[1]);
    assert_eq!(d.vals(), &[1.0, INF]);
    let d: Dia<f64> = Csr::<f64>::from_entries(&[2, 2], [([1, 0], 1.0)])
        .unwrap()
        .with_fill(INF)
        .convert()
        .unwrap();
    assert_eq!(d.vals(), &[0.0, 1.0]); // slot 0 of offset -1 lies outside
    assert_eq!(d.to_dense(), vec![INF, INF, 1.0, INF]);
    // BCSR: an edge block's components outside the matrix are zero, inside the fill.
    let b: Bcsr<f64, 2, 2> = Csr::<f64>::from_entries(&[3, 3], [([2, 2], 1.0)])
        .unwrap()
        .with_fill(INF)
        .convert()
        .unwrap();
    assert_eq!(b.block_vals(0), &[1.0, 0.0, 0.0, 0.0]);
    let b: Bcsr<f64, 2, 2> = Csr::<f64>::from_entries(&[3, 3], [([2, 1], 1.0)])
        .unwrap()
        .with_fill(INF)
        .convert()
        .unwrap();
    assert_eq!(b.block_vals(0), &[INF, 1.0, 0.0, 0.0]);
    let e = Bcsr::<f64, 2, 2>::from_bsr_arrays(
        3,
        3,
        b.row_ptr().to_vec(),
        b.col_idx().to_vec(),
        b.vals().to_vec(),
    );
    assert!(
        e.is_ok(),
        "the edge components are zero, as the validating constructor wants"
    );
}

#[test]
fn struct_formats_delegate_the_fill_value_to_their_view() {
    let mut d = Dia::<f64>::new(&[2, 2]).unwrap();
    d.set_fill(3.0);
    assert_eq!((d.fill(), d.view().fill()), (3.0, 3.0));
    let c = CooAos::<f64>::new(&[2, 2]).unwrap().with_fill(3.0);
    assert_eq!(c.view().fill(), 3.0);
    let mut s = Csb::<f64>::new(&[2, 2]).unwrap();
    s.set_fill(3.0);
    assert_eq!(s.view().fill(), 3.0);
    let b = Bcsr::<f64, 1, 1>::new(&[2, 2]).unwrap().with_fill(3.0);
    assert_eq!(b.view().fill(), 3.0);
    assert_ne!(b, Bcsr::<f64, 1, 1>::new(&[2, 2]).unwrap());
    let s2 = Csb::<f64>::with_block_from_source(&sample(-2.0), 2).unwrap();
    assert_eq!((s2.fill(), s2.to_dense()), (-2.0, sample_dense(-2.0)));
}

#[test]
fn debug_and_display_show_a_fill_value_that_is_not_zero() {
    let zero = sample(0.0);
    let debug = format!("{zero:?}");
    assert!(!debug.contains("fill"), "{debug}");
    assert!(
        debug.starts_with("Tensor { shape: [3, 4], levels: ("),
        "{debug}"
    );
    let inf = sample(INF);
    let debug = format!("{inf:?}");
    assert!(
        debug.contains("vals: [1.0, 2.0, 3.0, 0.0], fill: inf, order: PhantomData"),
        "{debug}"
    );
    assert!(
        format!("{:?}", Dia::<f64>::new(&[1, 1]).unwrap().with_fill(2.0)).contains("fill: 2.0")
    );
    assert_eq!(
        Dense1::from_vec(vec![1]).with_fill(-1).to_string(),
        "tensor of shape 1, fill value -1, 1 stored entry\n  (0): 1\n"
    );
    assert!(zero
        .to_string()
        .starts_with("tensor of shape 3 x 4, 4 stored entries\n"));
}

#[test]
fn same_values_compares_each_side_against_its_own_fill_value() {
    let a = sample(INF);
    assert!(a.same_values(&a.clone()));
    assert!(!a.same_values(&sample(0.0)));
    // Storing the fill value explicitly changes no value.
    let mut list: Vec<(Vec<usize>, f64)> = sample(INF).entries();
    list.push((vec![0, 0], INF));
    let b = Csr::from_entries(&[3, 4], list).unwrap().with_fill(INF);
    assert!(a.same_values(&b) && a != b);
    // A tensor storing every component has the same values whatever the fill values.
    let d1 = Dense2::from_vec(1, 2, vec![1.0, 2.0]).unwrap();
    assert!(d1.same_values(&d1.clone().with_fill(INF)));
    // One side stores a component, the other has it as its fill value.
    let x = SparseVec::<f64>::from_entries(&[2], [([0], 1.0), ([1], 5.0)]).unwrap();
    let y = SparseVec::<f64>::from_entries(&[2], [([0], 1.0)])
        .unwrap()
        .with_fill(5.0);
    assert!(x.same_values(&y) && y.same_values(&x));
    let z = SparseVec::<f64>::from_entries(&[2], [([0], 1.0)])
        .unwrap()
        .with_fill(4.0);
    assert!(!x.same_values(&z) && !y.same_values(&z));
    // No component at all: nothing differs.
    let empty = Csr::<f64>::new(&[0, 3]).unwrap();
    assert!(empty.same_values(&empty.clone().with_fill(INF)));
    // NaN differs from everything, a NaN fill value included where it shows.
    let n = SparseVec::<f64>::new(&[1]).unwrap().with_fill(f64::NAN);
    assert!(!n.same_values(&n.clone()));
    let full = SparseVec::<f64>::from_entries(&[1], [([0], 1.0)]).unwrap();
    let full_nan = full.clone().with_fill(f64::NAN);
    assert!(full.same_values(&full_nan)); // every component stored: the fill value is none
}

#[test]
fn pruned_drops_the_entries_equal_to_the_fill_value() {
    let list = [([0, 0], INF), ([0, 1], 0.0), ([1, 1], 2.0)];
    let a = Csr::<f64>::from_entries(&[2, 2], list)
        .unwrap()
        .with_fill(INF);
    let p = a.pruned().unwrap();
    assert_eq!(p.entries(), vec![(vec![0, 1], 0.0), (vec![1, 1], 2.0)]);
    assert_eq!(p.fill(), INF);
    assert!(p.same_values(&a));
    // A dense format stores every component: what is dropped becomes the fill value.
    let d = Dense1::from_vec(vec![3, 7, 3]).with_fill(3);
    let dp = d.pruned().unwrap();
    assert_eq!((dp.as_slice(), dp.fill()), (&[3, 7, 3][..], 3));
    let r = Dense1::from_vec(vec![3, 7, 3])
        .with_fill(9)
        .retain(|c, _| c[0] == 1)
        .unwrap();
    assert_eq!(r.as_slice(), &[9, 7, 9]);
    // A NaN fill value equals nothing: nothing is dropped.
    let n = SparseVec::<f64>::from_entries(&[2], [([0], f64::NAN)])
        .unwrap()
        .with_fill(f64::NAN);
    assert_eq!(n.pruned().unwrap().nnz(), 1);
}

#[test]
fn an_interrupted_assembly_keeps_the_fill_value() {
    let mut t = sample(INF);
    {
        // SAFETY: nothing is changed; dropping the guard resets the tensor.
        let _guard = unsafe { t.assemble() };
    }
    assert_eq!((t.nnz(), t.fill()), (0, INF));
    assert_eq!(t.to_dense(), vec![INF; 12]);
}

#[test]
fn fill_mismatch_is_an_error_value() {
    let a = sample(3.0);
    let declared = INF;
    let check = || -> Result<(), Error> {
        if a.fill() != declared {
            return Err(crate::__private::fill_mismatch("a", declared, a.fill()));
        }
        Ok(())
    };
    let e = check().unwrap_err();
    assert_eq!(
        e.to_string(),
        "operand `a` has fill value 3.0, but the kernel was compiled for fill value inf; \
         build it with `.with_fill(..)` or declare `#[fill(..)]` to match"
    );
}
