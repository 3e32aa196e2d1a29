//! Loop orders: the rules, what the compiler does when no order fits, and what it refuses.
//!
//! # The rules
//!
//! Each index variable becomes a loop, and the loops nest in one order. An order is valid
//! when:
//!
//! 1. every operand is walked in its storage order: a level that cannot locate a coordinate
//!    (every level but `Dense` and `Hashed`) is iterated inside the loop of the level above
//!    it, so `a(i, j)` of a [`Csr`](crate::Csr) needs `i` outside `j`, of a
//!    [`Csc`](crate::Csc) `j` outside `i`;
//! 2. a sum's loops run inside the loops of the variables around it;
//! 3. a sparse output is appended in its storage order, every one of its levels included
//!    (a dense or hash output, written in place, may be visited in any order).
//!
//! `Dense` levels of the inputs constrain nothing: they are located, `x(j)` is read at
//! whatever `j` the loops reach (a `Hashed` level is located the same way, where another
//! operand drives the loop). So `y(j) = a(i, j) * x(i)` (`Aᵀ x`) with `a` in CSR walks
//! the rows of `a` and scatters into the dense `y`:
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn transpose_times(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(j) = a(i, j) * x(i)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([1, 2], 3.0)])?;
//! let mut y = Dense1::zeros(3);
//! transpose_times(&mut y, &a, &Dense1::from_vec(vec![1.0, 10.0]))?;
//! assert_eq!(y.as_slice(), &[20.0, 0.0, 31.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # When no single order exists
//!
//! The compiler tries, in this order:
//!
//! - **Loop nests.** A dense, hash or scalar output may be computed by consecutive loop
//!   nests, one per group of additive terms, each in its own order: the first writes, the
//!   others add. `r(i) = b(i) - a(i, j) * x(j)` with `a` in CSC is a loop over `b`, then a
//!   loop over the columns of `a`. To split, a product is distributed over a sum in its
//!   factors (`(a + d) * x` is `a * x + d * x`), which changes only the rounding of a float
//!   result while the factor copied into both terms is finite. So a factor the kernel itself
//!   may make infinite (a quotient, a function, a `min` or `max` reduction, an operand filled
//!   with `inf`) is never copied; a stored `inf` in `x` can still give NaN where the
//!   statement as written gives `inf` (`(2 - 1) * inf` against `2 * inf - 1 * inf`).
//! - **A workspace.** A sparse output that no order appends directly is computed a slice at
//!   a time: its outer levels are appended by the outer loops, and the levels below are
//!   accumulated in a dense or hash workspace, then copied out in order (taco's workspaces,
//!   Kjolstad et al. 2019). `c(i, k) = a(i, j) * b(j, k)` with all three in CSR is
//!   Gustavson's algorithm: a row of `c` at a time. The deepest split that works is chosen.
//! - **A conversion.** When an operand is read against its storage order and nothing else
//!   helps, the kernel converts it on entry into the same levels in the mode order the loops
//!   need (linear in its size; the fewest operands, one before two). The generated
//!   function's documentation says which operand, into what. To pay for it once, convert
//!   before the call ([`conversion`](super::conversion)) and pass the result; to forbid it,
//!   [`convert(never)`](super::schedules#convertnever).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // Two loop nests: `b` first, then `a` column by column.
//!     fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
//!         r(i) = b(i) - a(i, j) * x(j)
//!     }
//!     // A workspace per row of `c` (Gustavson).
//!     fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, k) = a(i, j) * b(j, k)
//!     }
//!     // `c` is read column-major against its CSR storage: converted on entry.
//!     fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
//!         a(i, j) = b(i, j) + c(j, i)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0), ([1, 1], 1.0)])?;
//! let mut r = Dense1::zeros(2);
//! residual(&mut r, &Dense1::from_vec(vec![5.0, 5.0]), &a.convert()?, &Dense1::from_vec(vec![1.0, 1.0]))?;
//! assert_eq!(r.as_slice(), &[3.0, 1.0]);
//!
//! let mut c = Csr::new(&[2, 2])?;
//! spgemm(&mut c, &a, &a)?; // [0 2; 3 1]^2 = [6 2; 3 7]
//! assert_eq!(c.to_dense(), vec![6.0, 2.0, 3.0, 7.0]);
//!
//! plus_transpose(&mut c, &a, &a)?; // [0 2; 3 1] + [0 3; 2 1]
//! assert_eq!(c.entries(), vec![(vec![0, 1], 5.0), (vec![1, 0], 5.0), (vec![1, 1], 2.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # What is refused
//!
//! Each of these is a compile error at the offending tokens, with a help line saying what to
//! write instead. Every error of a kernel is reported at once, and the function is still
//! declared with its signature, so its callers see one error rather than a cascade.
//!
//! | refused | example | instead |
//! |---|---|---|
//! | one operand read in two opposite orders | `c(i, j) = a(i, j) * a(j, i)`, `a` in CSR | pass the transpose as a second operand |
//! | a sparse divisor | `y(i) = a(i) / b(i)`, `b` a `SparseVec` | divide by a dense tensor |
//! | an output format that cannot be assembled | `(Dense, Singleton)`, `(Hashed, Compressed)`, `Ell`, `Dia`, `Bcsr`, `Csb` | see [which formats an output may have](super::sparse_outputs#formats-an-output-may-have) |
//! | an implicit conversion under `convert(never)` | [`schedules`](super::schedules#convertnever) | convert before the call |
//! | a diagonal access, a broadcast | `a(i, i)`, `y(i, j) = x(i)` | distinct variables; every output variable used on the right |
//! | size limits | more than 1024 tokens in a body, nesting deeper than 64, more than 256 parameters or 64 functions in one block | split the kernel, or the block |
//!
//! The first, as the compiler reports it:
//!
//! ```text
//! error: no loop order traverses `b` (Csr<f64>) in its storage order: it stores `j`, `i` in that order, but the rest of the statement needs `i`, `j`
//!        help: `b` is also read in another order: pass a second operand holding it with its levels in the order `i`, `j` (`b.convert::<Csc<f64>>()?`, sparse_runtime::convert) and read that here
//!  --> src/main.rs:5:29
//!   |
//! 5 |         a(i, j) = b(i, j) * b(j, i)
//!   |                             ^^^^^^^
//! ```
//!
//! and the fix it names, the transpose passed as an operand of its own:
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn mul_transpose(a: &mut Csr<f64>, b: &Csr<f64>, bt: &Csc<f64>) {
//!         a(i, j) = b(i, j) * bt(j, i)
//!     }
//! }
//!
//! let b = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0), ([1, 1], 4.0)])?;
//! let bt: Csc<f64> = b.convert()?;
//! let mut a = Csr::new(&[2, 2])?;
//! mul_transpose(&mut a, &b, &bt)?;
//! assert_eq!(a.entries(), vec![(vec![0, 1], 6.0), (vec![1, 0], 6.0), (vec![1, 1], 16.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! An output that cannot be assembled names the level at fault:
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // error: output format `Tensor<f64, (Dense, Singleton)>` cannot be assembled: its
//!     // `Singleton` level (level 1) appends in lockstep with its parent, which must be a
//!     // non-unique level that appends
//!     fn ell_like(y: &mut Tensor<f64, (Dense, Singleton)>, a: &Csr<f64>) {
//!         y(i, j) = a(i, j)
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Mistakes in the notation itself (an unknown tensor, an access with the wrong number of
//! index variables, an input written, an unsupported operator) are reported the same way;
//! [`errors`](super::errors) lists them.
