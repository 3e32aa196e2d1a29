//! Runtime of `sparse_kernel!`, a build-time sparse tensor algebra compiler.
//!
//! Write tensor index notation in [`sparse_kernel!`], next to a Rust signature whose
//! parameter types name each tensor's storage format; the macro checks it and compiles it
//! at build time into plain, monomorphic loops over the level structs of this crate (the
//! taco compiler, done as a procedural macro: no JIT, no C toolchain, no run-time dispatch).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// y = A x + z
//!     pub fn spmv_add(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>, z: &SparseVec<f64>) {
//!         y(i) = a(i, j) * x(j) + z(i)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], -1.0)])?;
//! let z = SparseVec::<f64>::from_entries(&[2], [([1], 10.0)])?;
//! let mut y = Dense1::zeros(2);
//! spmv_add(&mut y, &a, &Dense1::from_vec(vec![3.0, 4.0]), &z)?;
//! assert_eq!(y.as_slice(), &[8.0, 7.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! **Start here:** the documentation of [`sparse_kernel!`] is the language in brief, with
//! runnable examples; the [`guide`] takes it chapter by chapter (notation and summation,
//! sparse outputs, loop orders and diagnostics, schedules, formats and how to choose one,
//! conversion, files, interop, the everyday tensor API, errors).
//!
//! This crate provides what the generated loops and their callers need:
//!
//! - level formats ([`Dense`], [`Compressed`], [`Singleton`], [`Slotted`], [`Hashed`],
//!   and [`Range`], [`Offset`], [`InBlock`], [`CompressedAos`], [`SingletonAos`] inside
//!   struct formats) with `#[inline]` level functions, their properties configured by
//!   markers ([`NonUnique`]: `Compressed<u32, NonUnique>`, also spelled
//!   [`CompressedNonUnique`]; [`Unordered`], [`Padded`]);
//! - [`Tensor`], a shape plus a tuple of levels plus values, with construction
//!   from coordinates, validation of raw arrays, lazy iteration over its entries
//!   ([`Tensor::iter`]), and the everyday operations of the [`guide::tensors`] chapter;
//! - format aliases ([`Csr`], [`Csc`], [`Coo`], [`Dense2`], ...), the remapped
//!   formats [`Dia`], [`Bcsr`] and [`Csb`], the struct-held [`CooAos`];
//! - fill values: every tensor has one ([`Tensor::fill`], zero unless set by
//!   [`Tensor::with_fill`]), the value of every component it does not store, which
//!   conversions carry and dense results spell out;
//! - [`functions`], which kernels call by name (`min`, `max`, `and`, `pow`, ...);
//! - [conversion](convert) between any two formats, [files](io) (Matrix Market, FROSTT),
//!   [interop] with sprs, nalgebra-sparse and ndarray (cargo features), and
//!   [errors](Error).
//!
//! A tensor's format is its level tuple (outermost level first) and its mode
//! order, following Chou, Kjolstad and Amarasinghe, "Format abstraction for
//! sparse tensor algebra compilers" (2018):
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([0, 2], 0.5)])?;
//! assert_eq!(a.levels().1.pos(), &[0, 1, 2]);
//! assert_eq!(a.entries(), vec![(vec![0, 2], 1.5), (vec![1, 0], 2.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Level kinds
//!
//! Capabilities and properties of each level (Chou et al. 2018, Table 1); the
//! compiler reasons only about these. *Position* iteration walks stored
//! positions, *value* iteration every coordinate.
//!
//! | level | iteration | locate | assembly | full | ordered | unique | branchless | compact |
//! |---|---|---|---|---|---|---|---|---|
//! | [`Dense`] | value | yes | insert | yes | yes | yes | | yes |
//! | [`Compressed<I>`](Compressed) | position | | append | | yes | yes | | yes |
//! | [`Compressed<I, NonUnique>`](CompressedNonUnique) | position (runs) | | append | | yes | | | yes |
//! | [`Compressed<I, Unordered>`](Unordered) | position (reordered to merge) | | append | | | yes | | yes |
//! | [`Singleton<I>`](Singleton) | position | | append | | yes | yes | yes | yes |
//! | [`Singleton<I, NonUnique>`](SingletonNonUnique) | position (runs) | | append | | yes | | yes | yes |
//! | [`Singleton<I, Padded>`](SingletonPadded) | position (skips empty) | | | | yes | yes | yes | |
//! | [`Slotted<I>`](Slotted) | position (skips empty) | | | | yes | yes | | |
//! | [`Hashed<I>`](Hashed) | position (skips empty) | yes (found?) | insert (last level) | | | yes | | |
//! | [`Range`] (inside [`Dia`]) | position | | | | yes | yes | | yes |
//! | [`CompressedAos<I>`](CompressedAos) (inside [`CooAos`]) | position (runs) | | | | yes | | | yes |
//! | [`SingletonAos<I>`](SingletonAos) (inside [`CooAos`]) | position | | | | yes | yes | yes | yes |
//! | [`Offset`] (inside [`Dia`]) | position | | | | yes | yes | yes | yes |
//! | [`InBlock<B>`](InBlock) (inside [`Bcsr`]) | position (clipped at the edge) | | | | yes | yes | | yes |
//!
//! # Formats
//!
//! | alias | levels | mode order | good for |
//! |---|---|---|---|
//! | [`Dense1`], [`Dense2`], [`Dense3`] | `(Dense, ..)` | identity | dense data |
//! | [`SparseVec`] | `(Compressed,)` | identity | sparse vectors |
//! | [`Csr`] | `(Dense, Compressed)` | identity | general sparse matrices, row access |
//! | [`Csc`] | `(Dense, Compressed)` | `Modes<1, 0>` | column access |
//! | [`Dcsr`], [`Dcsc`] | `(Compressed, Compressed)` | identity, `Modes<1, 0>` | hypersparse matrices (most rows empty) |
//! | [`Coo`] | `(Compressed<I, NonUnique>, Singleton)` | identity | unsorted triples, one pass |
//! | [`Csf3`], [`Csf4`] | `(Compressed, ..)` | identity | sparse 3- and 4-tensors |
//! | [`Coo3`] | `(Compressed<I, NonUnique>, Singleton<I, NonUnique>, Singleton)` | identity | 3-tensor triples |
//! | [`HashVec`], [`HashMat`] | `(Hashed,)`, `(Dense, Hashed)` | identity | random-access construction and updates |
//! | [`Dia`] | `(Dense, Range, Offset)` over `(d, i, j)` | remapped | banded matrices, grid stencils |
//! | [`Ell`] | `(Dense, Slotted)` | identity | about as many entries in every row |
//! | [`CooAos`] | `(CompressedAos, SingletonAos)` over one pair array | identity | coordinate pairs used as they arrive |
//! | [`Bcsr`] | `(Dense, Compressed, InBlock, InBlock)` over `(i / R, j / C, i, j)` | remapped | matrices of small dense blocks (finite elements) |
//! | [`Csb`] | `(Dense, Dense, CompressedNonUnique, Singleton)` over `(i / beta, j / beta, i, j)` | remapped | `A x` and `Aᵀ x` from one copy, local and parallel-friendly blocks |
//!
//! Any other composition is written out as [`Tensor<V, (levels..), Modes<..>>`](Tensor).
#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]

mod aliases;
mod alloc;
mod block;
mod blocked;
mod build;
mod compute;
pub mod convert;
mod csb;
mod dense;
mod error;
mod everyday;
pub mod functions;
pub mod guide;
mod index;
pub mod interop;
pub mod io;
mod iter;
mod level;
mod levels;
mod mode_order;
pub mod parallel;
mod reorder;
mod room;
mod structured;
mod tensor;
mod update;
mod validate;
mod value;
mod view;
mod walk;
mod window;
mod workspace;

#[cfg(test)]
mod tests;

pub use aliases::{
    Coo, Coo3, Csc, Csf3, Csf4, Csr, Dcsc, Dcsr, Dense1, Dense2, Dense3, Ell, HashMat, HashVec,
    SparseVec,
};
pub use blocked::{Bcsr, BlockView};
pub use csb::{Csb, CsbView};
pub use error::Error;
pub use index::Index;
pub use iter::{Coord, Iter};
pub use level::{
    Compressed, CompressedAos, CompressedNonUnique, Dense, Hashed, InBlock, Level, Markers,
    NonUnique, Offset, Padded, Properties, Range, Singleton, SingletonAos, SingletonNonUnique,
    SingletonPadded, Slotted, Unordered,
};
pub use levels::Levels;
pub use mode_order::{Identity, ModeOrder, Modes};
/// Compiles tensor index notation into plain Rust functions, at build time.
///
/// A `sparse_kernel!` block holds one or more `fn` items. Each parameter's type names a
/// storage format ([`Csr<f64>`](crate::Csr), [`Dense1<f64>`](crate::Dense1), ...) or is a
/// plain scalar, and the body is a statement of tensor index notation (or several, run in
/// order). The macro checks the statement against the formats, finds loops that walk every sparse operand in its storage
/// order, and expands each item into a monomorphic function of the same name, visibility,
/// doc comments and attributes that returns `Result<(), `[`Error`]`>`.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     /// y = A x
///     pub fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
///         y(i) = a(i, j) * x(j)
///     }
/// }
///
/// let a = Csr::<f64>::from_entries(&[2, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([1, 1], 3.0)])?;
/// let x = Dense1::from_vec(vec![1.0, 10.0, 100.0]);
/// let mut y = Dense1::zeros(2);
/// spmv(&mut y, &a, &x)?;
/// assert_eq!(y.as_slice(), &[201.0, 30.0]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
///
/// This page is the language in brief. The [`guide`] takes each part in turn,
/// with more examples: [notation](crate::guide::notation),
/// [sparse outputs](crate::guide::sparse_outputs), [loop orders](crate::guide::loop_orders),
/// [schedules](crate::guide::schedules), [formats](crate::guide::formats).
///
/// # The signature
///
/// - **The output** is the one `&mut` parameter: a tensor written on the left
///   (`y: &mut Dense1<f64>`, written `y(i) = ...`) or a scalar (`out: &mut f64`, written
///   `out = ...`). Tensor inputs are `&` parameters.
/// - **Scalar parameters** are passed by value (`alpha: f64`) and have the kernel's value
///   type, which every tensor of the kernel shares.
/// - **Types** are format aliases (`Csr<f64>`, `Csc<f64, u64>`, `Bcsr<f64, 2, 2>`, ...) or a
///   composition of levels written out, `Tensor<f64, (Dense, Compressed), Modes<1, 0>>`. The
///   macro reads a format from the name as written; rustc then checks that the name is that
///   runtime type, so a type alias of your own is a compile error, never a wrong layout.
///   Dense operands over storage you own need no copy: a slice is a vector (`x: &[f64]`,
///   `y: &mut [f64]`), and [`Dense2View`]/[`Dense2ViewMut`] (and the `Dense3` ones) are
///   matrices and 3-tensors over a row-major slice.
/// - **The result** is `Err(`[`Error::DimensionMismatch`]`)`
///   when an index variable binds dimensions of different sizes (checked on entry, before
///   anything is written); a kernel never reads out of bounds.
///
/// # The statement
///
/// `output = expression`, `output += expression` or `output -= expression` (signed value
/// types), optionally followed by `;`. A body may hold several statements and scalar
/// temporaries (`let s = x(i) * x(i);`), run in order: see
/// [several statements per kernel](crate::guide::notation#several-statements-per-kernel).
///
/// - **Index variables** are identifiers that are not parameters, one per mode of each
///   access (`a(i, j)`), distinct within an access. Every variable of the output must occur
///   on the right.
/// - **Summation** (Einstein's convention): a variable absent from the left is summed over
///   the smallest subexpression holding all its uses, so `r(i) = b(i) - a(i, j) * x(j)` is
///   `b - A x`, `y(i) = (a(i, j) + c(i, j)) * x(j)` is `(A + C) x`, and `out = a(i) * b(i)`
///   is a dot product.
/// - **Operators**: `+`, `-`, `*`, `/`, unary `-` and parentheses. Operands are accesses,
///   scalar parameters and numeric literals (typed as the value type: `2` is `2.0` in an
///   `f64` kernel; `2.5` in an integer kernel is an error). A divisor must be dense (every
///   level `Dense`), a scalar or a literal: division by an implicit zero is undefined.
/// - **`=` and `+=`**: `=` replaces the output, `+=` adds to what it holds. A tensor output
///   may also be read on the right, as it was before the call (`x(i) = a(i, j) * x(j)`); a
///   scalar output may not (accumulate with `+=` instead).
/// - **Implicit zeros annihilate**: a product is computed only where every factor stores a
///   value, so an implicit zero times `NaN` is `0`, as in taco.
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
///         r(i) = b(i) - a(i, j) * x(j)
///     }
///     fn axpy_plus_one(y: &mut Dense1<f64>, alpha: f64, x: &SparseVec<f64>, z: &Dense1<f64>) {
///         y(i) = alpha * x(i) + z(i) + 1
///     }
///     fn dot(out: &mut f64, a: &SparseVec<f64>, b: &Dense1<f64>) {
///         out = a(i) * b(i)
///     }
///     fn add_row_sums(y: &mut Dense1<f64>, a: &Csr<f64>) {
///         y(i) += a(i, j)
///     }
///     fn scaled_ratio(y: &mut Dense1<f64>, x: &SparseVec<f64>, d: &Dense1<f64>) {
///         y(i) = -x(i) / (2 * d(i))
///     }
/// }
///
/// let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 2.0), ([0, 1], 1.0), ([1, 1], 3.0)])?;
/// let x = Dense1::from_vec(vec![1.0, 1.0]);
/// let mut r = Dense1::zeros(2);
/// residual(&mut r, &Dense1::from_vec(vec![5.0, 5.0]), &a, &x)?;
/// assert_eq!(r.as_slice(), &[2.0, 2.0]);
///
/// let s = SparseVec::<f64>::from_entries(&[2], [([1], 4.0)])?;
/// let mut y = Dense1::zeros(2);
/// axpy_plus_one(&mut y, 0.5, &s, &Dense1::from_vec(vec![10.0, 20.0]))?;
/// assert_eq!(y.as_slice(), &[11.0, 23.0]);
///
/// let mut out = 0.0;
/// dot(&mut out, &s, &Dense1::from_vec(vec![100.0, 3.0]))?;
/// assert_eq!(out, 12.0);
///
/// add_row_sums(&mut y, &a)?; // adds 3 and 3 to [11, 23]
/// assert_eq!(y.as_slice(), &[14.0, 26.0]);
///
/// // 0 / 0 at the coordinate `s` does not store: the implicit zero annihilates.
/// scaled_ratio(&mut y, &s, &Dense1::from_vec(vec![0.0, 2.0]))?;
/// assert_eq!(y.as_slice(), &[0.0, -1.0]);
///
/// let too_long = Dense1::from_vec(vec![1.0, 2.0, 3.0]);
/// assert!(matches!(residual(&mut r, &too_long, &a, &x), Err(Error::DimensionMismatch { .. })));
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
///
/// # What an output stores
///
/// A dense output (every level `Dense`), a hash output (`Dense` levels then one `Hashed`)
/// and a scalar output are written in place: `=` overwrites every component, `+=` adds to
/// it. A sparse output is assembled anew by every call, and stores an entry exactly where
/// the right side's iteration space has a point: a sum stores the union of its operands'
/// patterns, a product the intersection, a reduction the coordinates where something was
/// summed. A value computed there is stored even if it is zero (an *explicit zero*;
/// [`Tensor::pruned`] drops them); nothing is stored where nothing
/// was computed. `+=` into a sparse output keeps its old entries and adds the new ones to
/// them, on the union of both patterns. A sparse output is never left half-built: a kernel
/// that panics midway leaves it the empty tensor of its shape, or its old contents if the
/// kernel reads them (`+=`, or the output on the right side). More in
/// [`guide::sparse_outputs`].
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     fn add(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) {
///         c(i) = a(i) + b(i)
///     }
///     fn mul(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) {
///         c(i) = a(i) * b(i)
///     }
/// }
///
/// let a = SparseVec::<f64>::from_entries(&[5], [([0], 1.0), ([2], 2.0)])?;
/// let b = SparseVec::<f64>::from_entries(&[5], [([2], -2.0), ([3], 4.0)])?;
/// let mut c = SparseVec::new(&[5])?;
/// add(&mut c, &a, &b)?;
/// assert_eq!(c.entries(), vec![(vec![0], 1.0), (vec![2], 0.0), (vec![3], 4.0)]);
/// mul(&mut c, &a, &b)?;
/// assert_eq!(c.entries(), vec![(vec![2], -4.0)]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
///
/// # Loop orders, and what is refused
///
/// Every level that cannot locate a coordinate (all but `Dense` and `Hashed`) is walked in
/// storage order, a sum's loops run inside the loops around it, and a sparse output is
/// appended in its storage order. The compiler finds an order that satisfies all of this. When there is
/// none, it splits a dense output's additive terms into loop nests of their own, appends a
/// sparse output through a **workspace** (Gustavson's algorithm for `C = A B` in CSR), or
/// **converts** an operand read against its storage order on entry (and says so in the
/// generated function's documentation). What still has no order is a compile error at the
/// offending access, with a help line:
///
/// ```compile_fail
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     // `b` is read row-major and column-major at once: no order walks both.
///     fn mul_own_transpose(c: &mut Csr<f64>, b: &Csr<f64>) {
///         c(i, j) = b(i, j) * b(j, i)
///     }
/// }
/// # fn main() {}
/// ```
///
/// The refusals and their diagnostics are listed in
/// [`guide::loop_orders`].
///
/// # Schedules
///
/// `#[schedule(...)]` on a kernel chooses how it computes, never what; a directive that
/// cannot be honoured is a compile error, never ignored.
///
/// | directive | effect |
/// |---|---|
/// | `order(i, k, j)` | these loops nest in this order, outermost first |
/// | `workspace(k)`, `workspace(k, dense)`, `workspace(k, hash)` | the output's levels from the one storing `k` down are computed in a workspace of that kind |
/// | `compute(name)` | also emit `name`, which recomputes only the values of an output this kernel assembled |
/// | `convert(never)` | no implicit conversion of an operand: a compile error naming the conversion to make instead |
///
/// ```
/// use sparse_runtime::prelude::*;
///
/// sparse_kernel! {
///     #[schedule(workspace(k, hash), compute(spgemm_values))]
///     fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
///         c(i, k) = a(i, j) * b(j, k)
///     }
/// }
///
/// let mut a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0)])?;
/// let mut c = Csr::new(&[2, 2])?;
/// spgemm(&mut c, &a, &a)?;
/// assert_eq!(c.entries(), vec![(vec![0, 0], 6.0), (vec![1, 1], 6.0)]);
/// a.vals_mut()[0] = 1.0; // new values, same pattern
/// spgemm_values(&mut c, &a, &a)?; // only the values are recomputed
/// assert_eq!(c.entries(), vec![(vec![0, 0], 3.0), (vec![1, 1], 3.0)]);
/// # Ok::<(), sparse_runtime::Error>(())
/// ```
///
/// See [`guide::schedules`].
///
/// # Functions, fill values, reductions and windows
///
/// Every tensor has a fill value (the value of what it does not store, zero by default);
/// `#[fill(inf)] w: &Csr<f64>` compiles a kernel for an infinity-filled `w`. Kernels call
/// the [`functions`] prelude (`min(a(i), b(i))`, `and`, `not`, `pow`, ...) and functions
/// declared in the same block with their algebraic properties
/// (`#[function(commutative, associative, identity = 0, annihilator = inf)] fn plus(..)`),
/// reduce by monoids (`min[j](plus(w(i, j), d(j)))`, `any[j](..)`), and read windows of
/// operands in place (`a(i[lo..hi], j)`). See [`guide::sparse_arrays`].
///
/// # Formats
///
/// | format | levels | for |
/// |---|---|---|
/// | [`Dense1`], [`Dense2`], [`Dense3`] | `Dense` | dense data |
/// | [`SparseVec`], [`HashVec`] | `Compressed`, `Hashed` | sparse vectors |
/// | [`Csr`], [`Csc`] | `(Dense, Compressed)`, by rows or columns | the general sparse matrix |
/// | [`Dcsr`], [`Dcsc`] | `(Compressed, Compressed)` | most rows (columns) empty |
/// | [`Coo`], [`Coo3`], [`CooAos`] | `(CompressedNonUnique, .., Singleton)` | coordinate lists |
/// | [`Csf3`], [`Csf4`] | `Compressed` per mode | sparse tensors |
/// | [`HashMat`] | `(Dense, Hashed)` | random-access rows |
/// | [`Dia`] | diagonals | banded matrices, stencils |
/// | [`Ell`] | `(Dense, Slotted)` | as many entries in every row |
/// | [`Bcsr`] | dense `R x C` blocks | block-structured matrices |
/// | [`Csb`] | square blocks of COO | `A x` and `Aᵀ x` from one copy |
/// | [`Tensor<V, (levels..), Modes<..>>`](crate::Tensor) | any composition, any mode order | the rest |
///
/// How to choose one, and an example of each in a kernel:
/// [`guide::formats`].
///
/// # Around the kernels
///
/// Tensors are built from entries, arrays or files and converted between formats by
/// ordinary functions: [`guide::tensors`] (construction, `iter`, `row`, `pruned`,
/// `same_values`, `Display`), [`guide::conversion`], [`guide::files`],
/// [`guide::interop`]; [`guide::errors`] lists every diagnostic and run-time error.
pub use sparse_macros::sparse_kernel;
pub use structured::{CooAos, Dia};
#[doc(hidden)]
pub use tensor::Assembly;
pub use tensor::Tensor;
pub use value::Value;
pub use view::{Dense1View, Dense1ViewMut, Dense2View, Dense2ViewMut, Dense3View, Dense3ViewMut};

/// The [`num_complex`](https://docs.rs/num-complex) crate, whose `Complex<f32>` and
/// `Complex<f64>` are value types of every kernel (see [`Value`]), and what [`io`] reads
/// Matrix Market `complex` files into.
pub use num_complex;

/// The [`num_traits`](https://docs.rs/num-traits) crate, whose `Num` a [`Value`] implements
/// and whose `FromPrimitive` converts a kernel's literals over a value type that is not a
/// primitive number.
pub use num_traits;

/// Everything a user of `sparse_kernel!` needs in scope.
pub mod prelude {
    pub use crate::convert::{Source, Target};
    pub use crate::{
        sparse_kernel, Bcsr, Compressed, CompressedNonUnique, Coo, Coo3, CooAos, Csb, Csc, Csf3,
        Csf4, Csr, Dcsc, Dcsr, Dense, Dense1, Dense1View, Dense1ViewMut, Dense2, Dense2View,
        Dense2ViewMut, Dense3, Dense3View, Dense3ViewMut, Dia, Ell, Error, HashMat, HashVec,
        Hashed, Identity, Index, Level, Levels, ModeOrder, Modes, NonUnique, Padded, Singleton,
        SingletonNonUnique, SingletonPadded, Slotted, SparseVec, Tensor, Unordered, Value,
    };
}

/// Items generated code names by absolute path. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::alloc::reserve_values;
    pub use crate::block::{append_fill_block, append_zero_block, block_len};
    pub use crate::compute::{check_all_stored, store_next};
    pub use crate::error::fill_mismatch;
    pub use crate::parallel::append_bounded as parallel_append_bounded;
    pub use crate::parallel::append_bounded_accumulated as parallel_append_bounded_accumulated;
    pub use crate::parallel::append_counted as parallel_append_counted;
    pub use crate::parallel::append_counted_accumulated as parallel_append_counted_accumulated;
    pub use crate::parallel::append_positions as parallel_append_positions;
    pub use crate::parallel::append_positions_bounded as parallel_append_positions_bounded;
    pub use crate::parallel::append_runs_bounded as parallel_append_runs_bounded;
    pub use crate::parallel::fold as parallel_fold;
    pub use crate::parallel::fold_chunks as parallel_fold_chunks;
    pub use crate::parallel::fold_splits as parallel_fold_splits;
    pub use crate::parallel::positions as parallel_positions;
    pub use crate::parallel::rows as parallel_rows;
    pub use crate::parallel::segments as parallel_segments;
    pub use crate::parallel::splits_counted as parallel_splits_counted;
    pub use crate::parallel::splits_positions as parallel_splits_positions;
    pub use crate::reorder::Reordered;
    pub use crate::room::bounded_values;
    pub use crate::update::Update;
    pub use crate::value::Literal;
    pub use crate::window::{check_window, seek, window_len};
    pub use crate::workspace::{workspace_size, DenseAccumulator, HashAccumulator};
    pub use crate::{Assembly, Error, Index, Level, Levels, Tensor, Value};
    pub use num_traits;
}
