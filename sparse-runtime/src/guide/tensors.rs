//! The everyday tensor API: building, reading, filtering, comparing and printing tensors.
//!
//! Every format alias is a [`Tensor<V, L, O>`](crate::Tensor) (values `V`, a tuple of
//! levels `L`, a mode order `O`), so everything below works on `Csr`, `Coo`, `Csf3`,
//! `HashMat`, `Dense2`, ... alike. The struct formats ([`Dia`](crate::Dia),
//! [`Bcsr`](crate::Bcsr), [`Csb`](crate::Csb), [`CooAos`](crate::CooAos)) have their own
//! constructors and accessors, and convert to any tensor.
//!
//! # Building
//!
//! | constructor | builds |
//! |---|---|
//! | [`Tensor::from_entries(shape, entries)`](crate::Tensor::from_entries) | any format from `(coordinate, value)` pairs in any order, repeats summed; a coordinate outside `shape` is an `Err` |
//! | [`Tensor::new(shape)`](crate::Tensor::new) | the all-zero tensor: sparse levels empty, dense ones zero-filled |
//! | [`Tensor::from_levels(shape, levels, vals)`](crate::Tensor::from_levels) | from raw level structs ([`Compressed::from_raw`](crate::Compressed::from_raw), ...), every invariant checked |
//! | [`Csr::from_csr_arrays`](crate::Csr::from_csr_arrays), [`Csc::from_csc_arrays`](crate::Csc::from_csc_arrays), [`Ell::from_ell_arrays`](crate::Ell::from_ell_arrays) | from the classic arrays, validated; [`into_csr_arrays`](crate::Csr::into_csr_arrays) gives them back |
//! | [`Dense1::from_vec`](crate::Dense1::from_vec), [`Dense2::from_vec`](crate::Dense2::from_vec), [`Dense3::from_vec`](crate::Dense3::from_vec), `zeros` | dense tensors over a row-major `Vec`, moved in |
//! | [`Source::convert`](crate::convert::Source::convert) | from any other format ([`conversion`](super::conversion)) |
//! | [`io::read_matrix_market`](crate::io::read_matrix_market), [`io::read_tns`](crate::io::read_tns) | from files ([`files`](super::files)) |
//!
//! No safe function builds a tensor that breaks an invariant of its levels: kernels read
//! without bounds checks on the strength of that validation.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([1, 2], 1.0), ([0, 0], 2.0), ([1, 2], 0.5)])?;
//! assert_eq!(a.entries(), vec![(vec![0, 0], 2.0), (vec![1, 2], 1.5)]); // repeats summed
//!
//! let b = Csr::<f64>::from_csr_arrays(2, 3, vec![0, 1, 2], vec![0, 2], vec![2.0, 1.5])?;
//! assert_eq!(a, b);
//! assert!(Csr::<f64>::from_csr_arrays(2, 3, vec![0, 1, 2], vec![0, 3], vec![2.0, 1.5]).is_err());
//!
//! let c: Csr<f64> = Tensor::from_levels(
//!     &[2, 3],
//!     (Dense::new(2), Compressed::from_raw(3, vec![0u32, 1, 2], vec![0, 2])?),
//!     vec![2.0, 1.5],
//! )?;
//! assert_eq!(c, a);
//!
//! let z = Csf3::<f64>::new(&[4, 5, 6])?;
//! assert_eq!((z.shape(), z.nnz()), (&[4, 5, 6][..], 0));
//! let d = Dense2::from_vec(2, 2, vec![1.0, 2.0, 3.0, 4.0])?;
//! assert_eq!(d.entries()[2], (vec![1, 0], 3.0));
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Reading
//!
//! - [`iter()`](crate::Tensor::iter) visits the stored entries lazily, in storage order,
//!   without allocating: each item is a [`Coord`](crate::Coord) (the logical coordinate, a
//!   slice through `Deref`) and the value. `&tensor` is `IntoIterator` too.
//! - [`entries()`](crate::Tensor::entries) lists them sorted by coordinate, in a `Vec`.
//! - [`Csr::row(i)`](crate::Csr::row) and [`Csc::col(j)`](crate::Csc::col) borrow a row's
//!   columns (a column's rows) and values as two slices, `None` outside the matrix;
//!   [`fiber(k)`](crate::Tensor::fiber) does the same for any `(Dense, Compressed)`
//!   composition.
//! - [`as_slice`](crate::Dense1::as_slice), [`as_mut_slice`](crate::Dense1::as_mut_slice)
//!   and [`into_vec`](crate::Dense1::into_vec) lend or give back the row-major values of a
//!   dense tensor (no copy); [`vals`](crate::Tensor::vals) and
//!   [`vals_mut`](crate::Tensor::vals_mut) those of any tensor, in storage order (changing
//!   values never changes the pattern).
//! - [`shape`](crate::Tensor::shape), [`order`](crate::Tensor::order),
//!   [`nnz`](crate::Tensor::nnz) (stored entries, explicit zeros included),
//!   [`to_dense`](crate::Tensor::to_dense) (a row-major `Vec`, for tests),
//!   [`levels`](crate::Tensor::levels) (the raw `pos` and `crd` arrays).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csc::<f64>::from_entries(&[2, 3], [([0, 2], 1.5), ([1, 0], 2.0), ([0, 0], -1.0)])?;
//! let order: Vec<[usize; 2]> = a.iter().map(|(c, _)| [c[0], c[1]]).collect();
//! assert_eq!(order, [[0, 0], [1, 0], [0, 2]]); // column by column
//! let total: f64 = a.iter().map(|(_, v)| v).sum();
//! assert_eq!(total, 2.5);
//! for (c, v) in &a {
//!     assert_eq!(a.to_dense()[c[0] * 3 + c[1]], v);
//! }
//!
//! assert_eq!(a.col(0), Some((&[0u32, 1][..], &[-1.0, 2.0][..])));
//! assert_eq!(a.col(1), Some((&[][..], &[][..])));
//! assert_eq!(a.col(3), None);
//!
//! let mut y = Dense1::from_vec(vec![1.0, 2.0]);
//! y.as_mut_slice()[0] = 5.0;
//! assert_eq!(y.into_vec(), vec![5.0, 2.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Filtering, comparing, printing
//!
//! - [`retain(|c, v| ..)`](crate::Tensor::retain) keeps the entries a predicate accepts, in
//!   a new tensor of the same format; [`pruned()`](crate::Tensor::pruned) drops explicit
//!   zeros.
//! - `==` ([`PartialEq`]) is *structural*: the same shape, levels and stored values, so a
//!   tensor holding an explicit zero differs from the same tensor without it, and a `Csr`
//!   is never compared with a `Csc` (they are different types).
//!   [`same_values`](crate::Tensor::same_values) compares values, a missing entry counting
//!   as zero. Under both, `NaN` equals nothing.
//! - [`Display`](std::fmt::Display) prints the shape and up to 20 entries, sorted; `{:?}`
//!   prints the storage.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.5), ([1, 0], 0.0), ([1, 2], -2.0)])?;
//! let b = a.pruned()?;
//! assert_eq!((a.nnz(), b.nnz()), (3, 2));
//! assert!(a != b && a.same_values(&b));
//!
//! let upper = a.retain(|c, _| c[1] > c[0])?;
//! assert_eq!(upper.entries(), vec![(vec![0, 2], 1.5), (vec![1, 2], -2.0)]);
//!
//! assert_eq!(b.to_string(), "tensor of shape 2 x 3, 2 stored entries\n  (0, 2): 1.5\n  (1, 2): -2.0\n");
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
