//! Sparse outputs: which entries they store, explicit zeros, `+=`, and failures.
//!
//! # Outputs written in place, outputs assembled
//!
//! An output whose levels can all *insert* is written in place: a dense output (every level
//! `Dense`: [`Dense1`](crate::Dense1), [`Dense2`](crate::Dense2), ...), a hash output
//! (`Dense` levels then one `Hashed`: [`HashVec`](crate::HashVec),
//! [`HashMat`](crate::HashMat)) and a scalar output. Under `=` it is cleared first (a dense
//! output is zero-filled, a hash output emptied), under `+=` it keeps what it holds and
//! the new values are added.
//!
//! Any other output is *assembled*: each call builds its levels anew, appending its
//! entries in storage order, and replaces the old ones. The output's old pattern does not
//! matter under `=`; pass [`Tensor::new`](crate::Tensor::new) of the right shape the first
//! time.
//!
//! # Which entries a sparse output stores
//!
//! An entry is stored exactly where the right side's iteration space has a point:
//!
//! - `a + b` and `a - b`: the union of the operands' patterns;
//! - `a * b` and `a / d`: the intersection (with a dense `d`, the pattern of `a`);
//! - a sum over a variable: the coordinates where at least one term was summed
//!   (`y(i) = a(i, j) * x(j)` stores `i` if row `i` of `a` and `x` share a coordinate);
//! - a scalar or a literal: every coordinate (`a(i) + 1` stores all of them).
//!
//! A value computed at such a point is stored even when it is zero: an *explicit zero*
//! (`a(i) + b(i)` where the two cancel). Nothing is stored where nothing was computed, so a
//! kernel never fills a sparse output with zeros. [`Tensor::pruned`](crate::Tensor::pruned)
//! drops explicit zeros afterwards, and [`Tensor::same_values`](crate::Tensor::same_values)
//! compares tensors ignoring them.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn add(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) {
//!         c(i) = a(i) + b(i)
//!     }
//!     fn mul(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) {
//!         c(i) = a(i) * b(i)
//!     }
//!     fn spmspv(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &SparseVec<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//!     fn shift(c: &mut SparseVec<f64>, a: &SparseVec<f64>) {
//!         c(i) = a(i) + 1
//!     }
//! }
//!
//! let a = SparseVec::<f64>::from_entries(&[4], [([0], 1.0), ([2], 2.0)])?;
//! let b = SparseVec::<f64>::from_entries(&[4], [([2], -2.0), ([3], 0.0)])?;
//! let mut c = SparseVec::new(&[4])?;
//!
//! add(&mut c, &a, &b)?; // the union; 2 + -2 and the explicit zero of b are stored
//! assert_eq!(c.entries(), vec![(vec![0], 1.0), (vec![2], 0.0), (vec![3], 0.0)]);
//! assert_eq!(c.pruned()?.entries(), vec![(vec![0], 1.0)]);
//!
//! mul(&mut c, &a, &b)?; // the intersection
//! assert_eq!(c.entries(), vec![(vec![2], -4.0)]);
//!
//! // Row 0 meets x at column 2; row 1 stores entries, none of them where x does.
//! let m = Csr::<f64>::from_entries(&[3, 4], [([0, 2], 3.0), ([1, 1], 5.0)])?;
//! let mut y = SparseVec::new(&[3])?;
//! spmspv(&mut y, &m, &a)?;
//! assert_eq!(y.entries(), vec![(vec![0], 6.0)]);
//!
//! shift(&mut c, &a)?; // a constant covers every coordinate
//! assert_eq!(c.nnz(), 4);
//! assert_eq!(c.to_dense(), vec![2.0, 1.0, 3.0, 1.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # `+=` into a sparse output
//!
//! `c += e` is `c = c_old + e`: the old entries are kept, the new ones join them, and where
//! both exist the values are added. The kernel reads the old contents as one more operand:
//! it moves them aside before it assembles the new levels, and back if it returns an error
//! or panics.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn add_product(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, k) += a(i, j) * b(j, k)
//!     }
//!     fn add_into_hash(h: &mut HashVec<f64>, x: &SparseVec<f64>) {
//!         h(i) += x(i)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 1.0)])?;
//! let b = Csr::<f64>::from_entries(&[2, 2], [([1, 0], 2.0), ([1, 1], 3.0)])?;
//! let mut c = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 10.0), ([1, 1], 20.0)])?;
//! add_product(&mut c, &a, &b)?; // a b stores (0, 0) = 2 and (0, 1) = 3
//! assert_eq!(
//!     c.entries(),
//!     vec![(vec![0, 0], 12.0), (vec![0, 1], 3.0), (vec![1, 1], 20.0)]
//! );
//!
//! // A hash output is written in place: `+=` inserts new coordinates, adds to old ones.
//! let mut h = HashVec::<f64>::from_entries(&[4], [([3], 1.0)])?;
//! add_into_hash(&mut h, &SparseVec::from_entries(&[4], [([0], 5.0), ([3], 1.0)])?)?;
//! assert_eq!(h.entries(), vec![(vec![0], 5.0), (vec![3], 2.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Outputs after a failure
//!
//! A kernel checks every shape before it writes anything, so a
//! [`DimensionMismatch`](crate::Error::DimensionMismatch) leaves the output as it was. If
//! the kernel stops midway, by a panic in the value arithmetic (an integer division by
//! zero, an overflow in a debug build) or an error while assembling (an index type too
//! narrow for the result), a sparse output is left the valid, empty tensor of its shape:
//! never half-built, never breaking an invariant later kernels rely on. An output whose old
//! contents the kernel reads (`+=` into a sparse output, or an output read on the right side)
//! gets them back instead, after an error as after a panic.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn divide(c: &mut SparseVec<i32>, a: &SparseVec<i32>, d: &Dense1<i32>) {
//!         c(i) = a(i) / d(i)
//!     }
//! }
//!
//! let a = SparseVec::<i32>::from_entries(&[3], [([0], 6), ([2], 1)])?;
//! let mut c = SparseVec::<i32>::from_entries(&[3], [([1], 7)])?;
//!
//! let short = Dense1::from_vec(vec![1, 1]);
//! assert!(divide(&mut c, &a, &short).is_err()); // checked on entry: c untouched
//! assert_eq!(c.entries(), vec![(vec![1], 7)]);
//!
//! let zero_at_2 = Dense1::from_vec(vec![3, 1, 0]);
//! let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
//!     divide(&mut c, &a, &zero_at_2) // 1 / 0 panics after (0) was computed
//! }));
//! assert!(outcome.is_err());
//! assert_eq!((c.shape(), c.nnz()), (&[3][..], 0)); // empty, valid, ready for reuse
//! divide(&mut c, &a, &Dense1::from_vec(vec![3, 1, 1]))?;
//! assert_eq!(c.entries(), vec![(vec![0], 2), (vec![2], 1)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Formats an output may have
//!
//! A kernel assembles any output whose levels are, from the top: `Dense` levels, then
//! `Compressed` levels or COO runs (a `CompressedNonUnique` level, `SingletonNonUnique`
//! levels, then a `Singleton`), optionally ending in a block of `Dense` levels (a BCSR-like
//! `Tensor<f64, (Dense, Compressed, Dense, Dense)>`: each block appended zero-filled); or
//! `Dense` levels and one last `Hashed` level. So [`Csr`](crate::Csr),
//! [`Csc`](crate::Csc), [`Dcsr`](crate::Dcsr), [`Dcsc`](crate::Dcsc),
//! [`Coo`](crate::Coo), [`Coo3`](crate::Coo3), [`Csf3`](crate::Csf3),
//! [`Csf4`](crate::Csf4), [`SparseVec`](crate::SparseVec), the dense and hash formats, and
//! compositions such as `Tensor<f64, (CompressedNonUnique, Singleton, Compressed)>` are
//! outputs. [`Ell`](crate::Ell), [`Dia`](crate::Dia), [`Bcsr`](crate::Bcsr),
//! [`Csb`](crate::Csb) and [`CooAos`](crate::CooAos) are inputs only: build them from a
//! kernel's output by [conversion](super::conversion). Any other output format is a compile
//! error naming the level that cannot be assembled (see
//! [`loop_orders`](super::loop_orders#what-is-refused)).
