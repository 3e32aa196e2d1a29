//! Errors: what the compiler refuses, and what fails at run time.
//!
//! # At compile time
//!
//! The macro never panics. A mistake is a `compile_error!` at the offending tokens, with a
//! help line that says what to write instead; every error of a kernel is reported at once,
//! and the function is still declared (with a stub body), so a caller sees one
//! error at the kernel rather than a cascade at every call site. The diagnostics, grouped:
//!
//! | mistake | example message |
//! |---|---|
//! | an unknown tensor or name | `` unknown tensor `q` ``, help: `` the kernel's tensors are `y`, `a`; declare `q` as a parameter to use it `` |
//! | wrong number of index variables | `` `a` is a Csr<f64> of order 2 but is indexed with 3 index variables ``, help: `` write `a(i, j)` `` |
//! | an index variable twice in one access | `` index variable `i` appears twice in one access `` |
//! | an output variable missing on the right | `` output index variable `j` does not appear on the right side `` |
//! | an input written, an output not `&mut`, a `&mut` input | `` cannot write `y`: it is an input (`&Dense1<f64>`) ``, help: `` declare the output as `y: &mut Dense1<f64>` `` |
//! | the scalar output read | `` `out` is the scalar output and cannot be read ``, help: `` use `+=` to accumulate into it `` |
//! | an unsupported operator or expression | `` unsupported operator in index notation ``, help: `` the operators are `+`, `-`, `*`, `/` and unary `-` `` |
//! | value types that differ | `` scalar `alpha` is `f32` but `y` holds `f64` `` |
//! | a float literal in an integer kernel | `` float literal in a kernel over `i64` ``, help: `` write an integer literal `` |
//! | a sparse divisor with fill value 0 | `` divisor `c` is sparse (SparseVec<f64>) with fill value 0: dividing by its implicit zeros is undefined `` |
//! | an unknown function or reduction | `` unknown function `hypot` ``, `` unknown reduction `median` ``, help listing the prelude ([`sparse_arrays`](super::sparse_arrays)) |
//! | a reduction by a function that is not a monoid | `` `plain` cannot reduce: a reduction needs a commutative, associative function of two arguments with an identity `` |
//! | contradictory properties | `` contradictory properties of `both`: 0 is both the identity and the annihilator of `a` `` |
//! | an output fill that is not the derived one | `` the output's fill value is inf, not 0: that is the statement's value where no operand is stored `` |
//! | a window no level reaches | `` a window cannot reach mode 0 of `a`: it is stored in a `Hashed` level, whose coordinates are not in order `` |
//! | a misspelt format | `` `i32` is not an index type ``, `` `Dense2` takes its value type ``, or an unknown type name listing the known ones |
//! | an alias, re-export or look-alike of a format | rustc's `mismatched types` at the parameter: a format is read from its name, and rustc checks that the name is the runtime type |
//! | an output that cannot be assembled | `` output format `Tensor<f64, (Dense, Singleton)>` cannot be assembled: its `Singleton` level (level 1) appends in lockstep with its parent, ... `` |
//! | no loop order | `` no loop order traverses `b` (Csr<f64>) in its storage order: ... ``, with the format or operand to use instead ([`loop_orders`](super::loop_orders#what-is-refused)) |
//! | a schedule that cannot be honoured | `` unknown schedule directive `vectorize` ``, `` no loop nest of `f` can run its loops in the order `i`, `k`, `j` ``, ... ([`schedules`](super::schedules)) |
//! | size limits | bodies of more than 1024 tokens, nesting deeper than 64, more than 256 parameters or 64 functions in one block |
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // Three errors, reported together: `%` is not an operator, `a` has two modes,
//!     // `q` is not a parameter.
//!     fn broken(y: &mut Dense1<f64>, a: &Csr<f64>) {
//!         y(i) = a(i) * q(i) % 2.0
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! # At run time
//!
//! Every fallible operation returns [`Result<_, Error>`](crate::Error); the message alone
//! names the numbers involved. Kernels fail only on shapes (checked on entry) and, for a
//! compute-only variant, on an output they did not assemble; constructors and readers fail
//! on what they are given.
//!
//! | variant | raised by |
//! |---|---|
//! | [`DimensionMismatch`](crate::Error::DimensionMismatch) | a kernel whose index variable binds dimensions of different sizes, or a window past its mode ([`sparse_arrays`](super::sparse_arrays#windows)) |
//! | [`FillMismatch`](crate::Error::FillMismatch) | a kernel given a sparse operand whose fill value is not the one it was compiled for ([`sparse_arrays`](super::sparse_arrays#fill-values)); also no file writer or export to a crate that assumes zero takes a nonzero fill ([`NotRepresentable`](crate::Error::NotRepresentable)) |
//! | [`NotAssembled`](crate::Error::NotAssembled) | a compute-only variant given an output its kernel did not assemble for these operands ([`schedules`](super::schedules#compute)) |
//! | [`CoordinateOutOfBounds`](crate::Error::CoordinateOutOfBounds) | a coordinate outside the shape |
//! | [`OrderMismatch`](crate::Error::OrderMismatch) | a shape or coordinate with the wrong number of modes |
//! | [`IndexOverflow`](crate::Error::IndexOverflow) | a size or count the index type cannot hold; the message says to use a wider one |
//! | [`InvalidLevel`](crate::Error::InvalidLevel) | raw arrays that break a level's invariant (unsorted columns, `pos` not monotone, ...) |
//! | [`LengthMismatch`](crate::Error::LengthMismatch) | an array of the wrong length |
//! | [`NotRepresentable`](crate::Error::NotRepresentable) | entries the format cannot hold, or storage that cannot be allocated |
//! | [`InvalidModeOrder`](crate::Error::InvalidModeOrder) | a `Modes<..>` that is not a permutation |
//! | [`Parse`](crate::Error::Parse), [`Io`](crate::Error::Io) | a malformed file, or the operating system ([`files`](super::files)) |
//!
//! `Error` implements [`std::error::Error`], so `?` moves it into `Box<dyn Error>` or
//! `anyhow::Error`. It is `#[non_exhaustive]`: match it with a wildcard arm.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 1], 1.0)])?;
//! let err = spmv(&mut Dense1::zeros(2), &a, &Dense1::zeros(4)).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "kernel `spmv`: index variable `j` has size 3 in `a` (mode 1) but size 4 in `x` (mode 0)"
//! );
//!
//! let err = Csr::<f64>::from_entries(&[2, 3], [([2, 0], 1.0)]).unwrap_err();
//! assert!(matches!(err, Error::CoordinateOutOfBounds { .. }));
//! let err = Csr::<f64>::from_entries(&[2, 3, 4], [([0, 0, 0], 1.0)]).unwrap_err();
//! assert!(matches!(err, Error::OrderMismatch { expected: 2, found: 3 }));
//!
//! let err = Csr::<f64>::new(&[1, 1 << 33]).unwrap_err(); // more columns than u32 counts
//! assert!(matches!(err, Error::IndexOverflow { index_type: "u32", .. }));
//! assert!(err.to_string().contains("use a wider index type"));
//! assert!(Csr::<f64, u64>::new(&[1, 1 << 33]).is_ok());
//!
//! let err = Csr::<f64>::from_csr_arrays(1, 3, vec![0, 2], vec![2, 1], vec![1.0, 1.0]).unwrap_err();
//! assert!(matches!(err, Error::InvalidLevel { level: 1, .. }));
//! let err = Dense2::from_vec(2, 2, vec![1.0; 3]).unwrap_err();
//! assert!(matches!(err, Error::LengthMismatch { expected: 4, found: 3, .. }));
//!
//! // A singleton level holds one coordinate per parent position: not two in row 0.
//! let err = Tensor::<f64, (Dense, Singleton)>::from_entries(&[2, 2], [([0, 0], 1.0), ([0, 1], 1.0)])
//!     .unwrap_err();
//! assert!(matches!(err, Error::NotRepresentable { .. }));
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
