//! Conversion between formats: `convert`, `transpose`, `permuted`.
//!
//! Every format converts to every other, compositions of levels included, through two
//! traits in the [prelude](crate::prelude): a [`Source`](crate::convert::Source) lists its
//! stored components (every tensor and struct format), a
//! [`Target`](crate::convert::Target) assembles itself from any source (every tensor and
//! struct format). rustc composes one direct routine per pair, so there is no intermediate
//! list of coordinates: a conversion reads the source with its levels' own loops and
//! assembles the target from what its levels declare (Chou et al. 2020; the
//! [`convert`](crate::convert) module describes the routines).
//!
//! - `a.convert::<T>()?` (or `let b: T = a.convert()?;`): the same tensor in format `T`.
//! - `a.transpose::<T>()?`: the transpose of a matrix, `t(i, j) = a(j, i)`, stored as `T`.
//!   `Csr` to `Csr` is a transposition by counting; note that `a.convert::<Csc<_>>()` keeps
//!   the matrix and changes only its storage order.
//! - `a.permuted(&[..])?`: a view of `a` with its modes permuted (mode `k` of the view is
//!   mode `modes[k]` of `a`); nothing is copied until the view is converted.
//!
//! A conversion copies the stored components, explicit zeros included; a target that pads
//! (`Dia`'s diagonals, `Bcsr`'s blocks, `Ell`'s slots, dense levels) stores zeros besides.
//! Its cost is linear in the entries for a compressed level below dense ones (counted, then
//! placed); other compositions sort the entries by a radix sort, skipped when the source
//! already lists them in the target's order. The result is validated like every
//! constructor's.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Coo::<f64>::from_entries(&[3, 4], [([2, 1], 1.0), ([0, 3], 2.0), ([0, 1], 3.0)])?;
//! let b: Csr<f64> = a.convert()?; // COO -> CSR
//! let c: Csc<f64> = b.convert()?; // CSR -> CSC, by counting
//! assert_eq!(c.col(1), Some((&[0u32, 2][..], &[3.0, 1.0][..])));
//! assert_eq!(c.entries(), a.entries()); // the same matrix, stored otherwise
//!
//! let t: Csr<f64> = b.transpose()?; // 4 x 3
//! assert_eq!(t.shape(), &[4, 3]);
//! assert_eq!(t.row(1), Some((&[0u32, 2][..], &[3.0, 1.0][..])));
//!
//! let d: Dia<f64> = b.convert()?; // the diagonals holding an entry, in full
//! assert_eq!(d.offsets(), &[-1, 1, 3]);
//! assert_eq!(d.nnz(), 6); // explicit zeros where the diagonals pass through no entry
//! let back: Csr<f64> = d.convert()?;
//! assert!(back.same_values(&b) && back != b);
//!
//! let h: HashMat<f64> = b.convert()?;
//! let e: Ell<f64> = h.convert()?;
//! assert_eq!(e.width(), 2);
//!
//! // A 3-tensor with its modes rotated: mode k of the view is mode [2, 0, 1][k] of x.
//! let x = Csf3::<f64>::from_entries(&[2, 3, 4], [([1, 2, 3], 5.0)])?;
//! let y: Coo3<f64> = x.permuted(&[2, 0, 1])?.convert()?;
//! assert_eq!(y.entries(), vec![(vec![3, 1, 2], 5.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! A kernel may convert an operand itself, when no loop order reads it in its storage
//! order ([`loop_orders`](super::loop_orders#when-no-single-order-exists)): the same
//! routines, run on every call. Converting once before the calls, as above, and passing
//! the result is cheaper; [`convert(never)`](super::schedules#convertnever) makes the
//! kernel's own conversion a compile error.
//!
//! A list of coordinates converts the same way: [`from_entries`](crate::Tensor::from_entries)
//! and the file readers build an [`io::Entries`](crate::io::Entries) list (repeats summed)
//! and hand it to [`Target::from_source`](crate::convert::Target::from_source).
