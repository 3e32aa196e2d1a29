//! The language of [`sparse_kernel!`](crate::sparse_kernel), chapter by chapter.
//!
//! This module holds no code: it is documentation, and every example in it is a test that
//! runs. The [macro's own page](crate::sparse_kernel) is the short version; these chapters
//! give the rules in full, and the reasons for them.
//!
//! 1. [`notation`]: index variables and the summation rule, `=` and `+=`, scalar parameters
//!    and scalar outputs, literals, `-` and `/`, outputs read on the right side.
//! 2. [`sparse_outputs`]: which entries a sparse output stores, explicit zeros, `+=` into a
//!    sparse output, what an output holds after an error.
//! 3. [`loop_orders`]: how the loops are ordered, what the compiler does when no single
//!    order exists (loop nests, workspaces, conversions), and the diagnostics of what is
//!    refused.
//! 4. [`schedules`]: `#[schedule(order(..), workspace(..), compute(..), convert(never))]`.
//! 5. [`formats`]: every format family, compositions of levels and mode orders, and how to
//!    choose.
//! 6. [`conversion`]: from any format to any other, transposes and permutations.
//! 7. [`files`]: Matrix Market and FROSTT files.
//! 8. [`interop`]: sprs, nalgebra-sparse and ndarray.
//! 9. [`tensors`]: the everyday tensor API: construction, iteration, rows and fibers,
//!    pruning, comparison, printing.
//! 10. [`errors`]: what fails at compile time and what at run time.
//! 11. [`sparse_arrays`]: fill values, functions with algebraic properties, reductions by
//!     `min`, `max` and other monoids, semirings, masks and windows.
//!
//! # A first kernel
//!
//! A kernel is a Rust signature whose parameter types name storage formats, and a body of
//! tensor index notation. Users depend on `sparse-runtime` alone and import its
//! [`prelude`](crate::prelude):
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// Row sums of `a`, scaled.
//!     pub fn row_sums(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>) {
//!         y(i) = alpha * a(i, j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[3, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([2, 1], 4.0)])?;
//! let mut y = Dense1::zeros(3);
//! row_sums(&mut y, 10.0, &a)?;
//! assert_eq!(y.as_slice(), &[30.0, 0.0, 40.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! The expansion is an ordinary function, `pub fn row_sums(y: &mut Dense1<f64>, alpha: f64,
//! a: &Csr<f64>) -> Result<(), sparse_runtime::Error>`, whose loop walks the rows of `a`
//! and, in each row, only the stored entries. Nothing is decided at run time: the formats
//! are part of the types, so each kernel is compiled for exactly the formats it names.
//!
//! # Further reading
//!
//! The compiler follows four papers: Kjolstad et al., *The tensor algebra compiler*
//! (OOPSLA 2017: index notation, iteration graphs, merge lattices); Chou, Kjolstad and
//! Amarasinghe, *Format abstraction for sparse tensor algebra compilers* (OOPSLA 2018: level
//! formats); Kjolstad et al., *Tensor algebra compilation with workspaces* (CGO 2019);
//! Chou, Kjolstad and Amarasinghe, *Automatic generation of efficient sparse tensor format
//! conversion routines* (PLDI 2020); and Henry et al., *Compilation of sparse array
//! programming models* (OOPSLA 2021: fill values, functions and windows).

pub mod conversion;
pub mod errors;
pub mod files;
pub mod formats;
pub mod interop;
pub mod loop_orders;
pub mod notation;
pub mod schedules;
pub mod sparse_arrays;
pub mod sparse_outputs;
pub mod tensors;
