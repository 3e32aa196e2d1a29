//! Interoperability with sprs, nalgebra-sparse and ndarray (cargo features).
//!
//! The [`interop`](crate::interop) module converts to and from the arrays of three crates,
//! each behind a cargo feature of that crate's name; none is enabled by default:
//!
//! ```toml
//! [dependencies]
//! sparse-runtime = { version = "0.1", features = ["sprs", "nalgebra-sparse", "ndarray"] }
//! ```
//!
//! | feature | their type | ours | how |
//! |---|---|---|---|
//! | `sprs` | `sprs::CsMatI<V, J, Jptr>`, CSR or CSC storage | [`Csr<V, I>`](crate::Csr), [`Csc<V, I>`](crate::Csc) | `TryFrom` both ways; `a.sprs_view()` lends our arrays to sprs |
//! | `nalgebra-sparse` | `CsrMatrix<V>`, `CscMatrix<V>` | `Csr<V, I>`, `Csc<V, I>` | `TryFrom` into ours, `From` into theirs |
//! | `nalgebra-sparse` | `CooMatrix<V>` | any format | `from_coo_matrix` (repeats summed), `to_coo_matrix` |
//! | `ndarray` | `Array1`, `Array2`, `Array3` and their views | [`Dense1`](crate::Dense1), [`Dense2`](crate::Dense2), [`Dense3`](crate::Dense3) | `From` into ours, `TryFrom` into theirs; `d.as_array_view()` |
//!
//! Converting an owned value *moves* its arrays wherever the layouts agree (the same index
//! type, a row-major contiguous array): no copy. A borrowed value is copied. Whatever comes
//! in is validated by this crate's own constructors, so no conversion builds an invalid
//! tensor, and what may not fit (an index or a dimension too large for the target's index
//! type, a negative index) is an `Err`. Each submodule (`interop::sprs`,
//! `interop::nalgebra_sparse`, `interop::ndarray`, present with its feature) documents its
//! conversions with a runnable example.
//!
//! Interop needs more than this crate's minimum Rust version of 1.83 for two of the
//! features: `ndarray` builds with 1.83; `sprs` (0.11.6) needs 1.88 and `nalgebra-sparse`
//! (0.12) needs 1.89, as those crates do.
//!
//! A kernel takes only this crate's formats, so a matrix from another crate is converted
//! (moved, where the layouts agree) before the call:
//!
//! ```
//! # #[cfg(feature = "ndarray")] {
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmm(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
//!         c(i, j) = a(i, k) * b(k, j)
//!     }
//! }
//!
//! let b = Dense2::from(ndarray::array![[1.0, 2.0], [3.0, 4.0]]); // moved
//! let a = Csr::<f64>::from_entries(&[1, 2], [([0, 1], 10.0)])?;
//! let mut c = Dense2::zeros(1, 2);
//! spmm(&mut c, &a, &b)?;
//! let c = ndarray::Array2::try_from(c)?; // moved back out
//! assert_eq!(c, ndarray::array![[30.0, 40.0]]);
//! # }
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
