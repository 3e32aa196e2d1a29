//! Index notation: accesses, the summation rule, operators, scalars, `=` and `+=`.
//!
//! # Accesses and index variables
//!
//! A statement is `output = expression` or `output += expression` (a trailing `;` is
//! allowed). An *access* `a(i, j)` names a tensor parameter and gives one *index variable*
//! per mode of its logical shape, in logical order: `a(i, j)` is the component in row `i`
//! and column `j` whatever the storage (a [`Csc`](crate::Csc) is indexed `a(i, j)` too).
//! Index variables are any identifiers that are not parameters of the kernel; they need no
//! declaration. An index variable ranges over the dimensions it indexes, which must all have
//! the same size (checked when the kernel is called). Within one access the variables are
//! distinct: `a(i, i)` (a diagonal) is refused.
//!
//! Every index variable of the output must occur on the right side: the notation has no
//! broadcast (`y(i, j) = x(i)` is an error, "output index variable `j` does not appear on
//! the right side").
//!
//! # The summation rule
//!
//! A variable that does not occur on the left is summed (Einstein's convention), over the
//! *smallest subexpression that holds all its uses*, looking through `+` and `-`:
//!
//! - `r(i) = b(i) - a(i, j) * x(j)`: `j` occurs only in the product, so it is
//!   `b(i) - Σ_j a(i, j) x(j)`, the residual `b - A x`;
//! - `y(i) = a(i, j) * x(j) + c(i, k) * z(k)`: two sums, one per product;
//! - `y(i) = (a(i, j) + c(i, j)) * x(j)`: `j` occurs on both sides of the `+`, and both are
//!   inside the product, so the sum is over the whole product: `(A + C) x`;
//! - `y(i) = a(i, j) + x(j)`: the smallest subexpression holding both uses of `j` is the
//!   sum itself, `Σ_j (a(i, j) + x(j))`, the row sum of `a` plus the sum of `x`;
//! - `out = a(i, j) * b(i, j)` sums over both variables: the Frobenius inner product;
//! - `out = 2 * x(i) + 1`: the literal holds no `i`, so it stays outside the sum,
//!   `1 + Σ_i 2 x(i)`; to add the constant once per component, make it a tensor indexed by
//!   `i` (`out = 2 * x(i) + ones(i)`, `ones` a [`Dense1`](crate::Dense1) of ones).
//!
//! A product keeps all of its sums at its root, so `a(i, j) = b(i, k, l) * c(k, j) * d(l, j)`
//! (MTTKRP) is one sum over `k` and `l`, and the loops can follow `b`'s storage order.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn residual(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         r(i) = b(i) - a(i, j) * x(j)
//!     }
//!     fn two_products(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>, c: &Csr<f64>, z: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j) + c(i, k) * z(k)
//!     }
//!     fn sum_times(y: &mut Dense1<f64>, a: &Csr<f64>, c: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = (a(i, j) + c(i, j)) * x(j)
//!     }
//!     fn shared_sum(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) + x(j)
//!     }
//!     fn inner(out: &mut f64, a: &Csr<f64>, b: &Dense2<f64>) {
//!         out = a(i, j) * b(i, j)
//!     }
//!     fn matmul(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
//!         c(i, j) = a(i, k) * b(k, j)
//!     }
//!     fn outer(c: &mut Dense2<f64>, x: &SparseVec<f64>, y: &Dense1<f64>) {
//!         c(i, j) = x(i) * y(j)
//!     }
//!     fn total_plus_one(out: &mut f64, x: &Dense1<f64>) {
//!         out = 2 * x(i) + 1
//!     }
//! }
//!
//! // a = [1 2]    c = [0 1]    x = [1 1]
//! //     [0 3]        [4 0]
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([0, 1], 2.0), ([1, 1], 3.0)])?;
//! let c = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 1.0), ([1, 0], 4.0)])?;
//! let x = Dense1::from_vec(vec![1.0, 1.0]);
//! let mut y = Dense1::zeros(2);
//!
//! residual(&mut y, &Dense1::from_vec(vec![10.0, 10.0]), &a, &x)?;
//! assert_eq!(y.as_slice(), &[7.0, 7.0]);
//! two_products(&mut y, &a, &x, &c, &Dense1::from_vec(vec![0.0, 1.0]))?;
//! assert_eq!(y.as_slice(), &[4.0, 3.0]);
//! sum_times(&mut y, &a, &c, &x)?;
//! assert_eq!(y.as_slice(), &[4.0, 7.0]);
//! shared_sum(&mut y, &a, &Dense1::from_vec(vec![10.0, 20.0]))?;
//! assert_eq!(y.as_slice(), &[33.0, 33.0]); // row sums 3 and 3, plus 30
//!
//! let ones = Dense2::from_vec(2, 2, vec![1.0; 4])?;
//! let mut out = 0.0;
//! inner(&mut out, &a, &ones)?;
//! assert_eq!(out, 6.0);
//!
//! let mut m = Dense2::zeros(2, 2);
//! matmul(&mut m, &a, &ones)?;
//! assert_eq!(m.as_slice(), &[3.0, 3.0, 3.0, 3.0]);
//! let s = SparseVec::<f64>::from_entries(&[2], [([1], 2.0)])?;
//! outer(&mut m, &s, &Dense1::from_vec(vec![1.0, 5.0]))?;
//! assert_eq!(m.as_slice(), &[0.0, 0.0, 2.0, 10.0]);
//!
//! total_plus_one(&mut out, &Dense1::from_vec(vec![1.0, 1.0, 1.0]))?;
//! assert_eq!(out, 7.0); // 1 + (2 + 2 + 2), not (2 + 1) * 3
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # `=` and `+=`
//!
//! `=` replaces the output, `+=` adds the right side to it. A dense output under `=` is
//! overwritten everywhere, zero where nothing was computed (in `outer` above, the row `x`
//! does not store is zero, whatever `m` held before). A scalar output is written `out = ..`
//! or `out += ..`, without indices: everything on the right is summed into it. For sparse
//! outputs see [`sparse_outputs`](super::sparse_outputs).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn copy(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
//!         y(i) = x(i)
//!     }
//!     fn accumulate(y: &mut Dense1<f64>, x: &SparseVec<f64>) {
//!         y(i) += x(i)
//!     }
//!     fn total(out: &mut f64, a: &Csr<f64>) {
//!         out = a(i, j)
//!     }
//!     fn add_total(out: &mut f64, a: &Csr<f64>) {
//!         out += a(i, j)
//!     }
//! }
//!
//! let x = SparseVec::<f64>::from_entries(&[3], [([1], 5.0)])?;
//! let mut y = Dense1::from_vec(vec![1.0, 1.0, 1.0]);
//! accumulate(&mut y, &x)?;
//! assert_eq!(y.as_slice(), &[1.0, 6.0, 1.0]);
//! copy(&mut y, &x)?;
//! assert_eq!(y.as_slice(), &[0.0, 5.0, 0.0]);
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0)])?;
//! let mut out = 100.0;
//! total(&mut out, &a)?;
//! assert_eq!(out, 5.0);
//! add_total(&mut out, &a)?;
//! assert_eq!(out, 10.0);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! The scalar output is written, never read: `out = out + a(i)` is an error ("`out` is the
//! scalar output and cannot be read", help: "use `+=` to accumulate into it").
//!
//! # Scalar parameters and literals
//!
//! A parameter passed by value (`alpha: f64`) is a scalar, used by its name without
//! indices. Its type is the kernel's value type, shared by every tensor of the kernel. A
//! numeric literal is typed as the value type: in an `f64` kernel `2` means `2.0_f64`; in
//! an integer kernel a float literal is an error. Both are constants: they are "stored"
//! everywhere, so `a(i) + 1` has a value at every `i`, not only where `a` stores one.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn affine(y: &mut Dense1<f64>, alpha: f64, x: &SparseVec<f64>, beta: f64) {
//!         y(i) = alpha * x(i) + 2 * beta - 0.5
//!     }
//!     fn integer(y: &mut Dense1<i64>, x: &Dense1<i64>, k: i64) {
//!         y(i) = 3 * x(i) - k
//!     }
//! }
//!
//! let x = SparseVec::<f64>::from_entries(&[3], [([0], 4.0)])?;
//! let mut y = Dense1::zeros(3);
//! affine(&mut y, 0.5, &x, 1.0)?;
//! assert_eq!(y.as_slice(), &[3.5, 1.5, 1.5]);
//!
//! let mut n = Dense1::zeros(2);
//! integer(&mut n, &Dense1::from_vec(vec![1, -2]), 1)?;
//! assert_eq!(n.as_slice(), &[2, -7]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // error: float literal in a kernel over `i64`; help: write an integer literal
//!     fn half(y: &mut Dense1<i64>, x: &Dense1<i64>) {
//!         y(i) = 0.5 * x(i)
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! A scalar of another type is refused the same way ("scalar `alpha` is `f32` but `y` holds
//! `f64`"), as is a tensor of another value type.
//!
//! # Subtraction, negation and division
//!
//! `a - b` is a union like `a + b`: where only `b` stores a value the result is `-b`.
//! Unary `-` negates. `a / d` is an intersection like `a * d`, computed only where `a`
//! stores a value, so the divisor is never divided by at a coordinate the dividend does not
//! store. A divisor must be *dense* (every level `Dense`), a scalar parameter, a literal, or
//! an expression of those: dividing by the implicit zeros of a sparse tensor is undefined,
//! and refused at compile time.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn difference(c: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>) {
//!         c(i) = -a(i) - b(i)
//!     }
//!     fn scale_by(y: &mut Dense1<f64>, a: &SparseVec<f64>, d: &Dense1<f64>, s: f64) {
//!         y(i) = a(i) / (d(i) * s)
//!     }
//! }
//!
//! let a = SparseVec::<f64>::from_entries(&[3], [([0], 1.0), ([1], 2.0)])?;
//! let b = SparseVec::<f64>::from_entries(&[3], [([1], 1.0), ([2], 4.0)])?;
//! let mut c = SparseVec::new(&[3])?;
//! difference(&mut c, &a, &b)?;
//! assert_eq!(c.entries(), vec![(vec![0], -1.0), (vec![1], -3.0), (vec![2], -4.0)]);
//!
//! // d(2) is zero, but a stores nothing at 2: no division by zero there.
//! let mut y = Dense1::zeros(3);
//! scale_by(&mut y, &a, &Dense1::from_vec(vec![1.0, 4.0, 0.0]), 0.5)?;
//! assert_eq!(y.as_slice(), &[2.0, 1.0, 0.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // error: divisor `b` is sparse (SparseVec<f64>): dividing by its implicit zeros is
//!     // undefined; help: divide by a dense tensor (every level `Dense`), e.g. `Dense1<f64>`
//!     fn ratio(y: &mut Dense1<f64>, a: &Dense1<f64>, b: &SparseVec<f64>) {
//!         y(i) = a(i) / b(i)
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! # Implicit zeros annihilate
//!
//! A product is computed only where every factor stores a value; elsewhere it is an implicit
//! zero, whatever the other factors hold. So `x(i) * z(i)` with `x` sparse is `0` where `x`
//! stores nothing even if `z(i)` is `NaN` or infinite, as in taco. (Where `x` stores an
//! explicit `0.0`, the product is computed: `0.0 * NaN` is `NaN`.)
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn mask(y: &mut Dense1<f64>, x: &SparseVec<f64>, z: &Dense1<f64>) {
//!         y(i) = x(i) * z(i)
//!     }
//! }
//!
//! let x = SparseVec::<f64>::from_entries(&[3], [([0], 2.0), ([1], 0.0)])?;
//! let mut y = Dense1::zeros(3);
//! mask(&mut y, &x, &Dense1::from_vec(vec![3.0, f64::NAN, f64::NAN]))?;
//! assert_eq!(y.as_slice()[0], 6.0);
//! assert!(y.as_slice()[1].is_nan()); // an explicit zero times NaN
//! assert_eq!(y.as_slice()[2], 0.0); // an implicit zero: nothing computed
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Reading the output on the right side
//!
//! The output may occur on the right side too, in any format. It then stands for the
//! output *as it was before the call*: `x(i) = a(i, j) * x(j)` is a matrix-vector product
//! into the vector it reads, never a half-updated one. (The kernel moves the old contents
//! aside first, and back if it returns an error.)
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn apply(x: &mut Dense1<f64>, a: &Csr<f64>) {
//!         x(i) = a(i, j) * x(j)
//!     }
//!     fn rescale(c: &mut Csr<f64>, d: &Dense1<f64>) {
//!         c(i, j) = d(i) * c(i, j)
//!     }
//! }
//!
//! // A cyclic shift: x_new(i) = x_old(i + 1 mod 3).
//! let a = Csr::<f64>::from_entries(&[3, 3], [([0, 1], 1.0), ([1, 2], 1.0), ([2, 0], 1.0)])?;
//! let mut x = Dense1::from_vec(vec![1.0, 2.0, 3.0]);
//! apply(&mut x, &a)?;
//! assert_eq!(x.as_slice(), &[2.0, 3.0, 1.0]);
//!
//! let mut c = a.clone();
//! rescale(&mut c, &Dense1::from_vec(vec![1.0, 10.0, 100.0]))?;
//! assert_eq!(c.vals(), &[1.0, 10.0, 100.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Several statements per kernel
//!
//! A body may hold several statements, separated by `;`. They run in order, each exactly as
//! if it were a kernel of its own over the same parameters: a statement reads what earlier
//! ones wrote, and an output read on its own right side reads its contents from before that
//! statement. `let name = expression;` defines a **scalar temporary** of the kernel's value
//! type (the expression's index variables are summed, as for a scalar output), which later
//! statements read like a scalar parameter. `-=` subtracts (for signed value types; for
//! unsigned ones write `y(i) = y(i) - ...`). One conjugate-gradient iteration is one kernel:
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// On entry `r = b - a x`, `p` the search direction and `rho = r·r`; `q` is scratch.
//!     fn cg_iteration(x: &mut Dense1<f64>, r: &mut Dense1<f64>, p: &mut Dense1<f64>,
//!                     q: &mut Dense1<f64>, rho: &mut f64, a: &Csr<f64>) {
//!         q(i) = a(i, j) * p(j);
//!         let pq = p(i) * q(i);
//!         let alpha = rho / pq;
//!         x(i) += alpha * p(i);
//!         r(i) -= alpha * q(i);
//!         let rho_next = r(i) * r(i);
//!         p(i) = r(i) + rho_next / rho * p(i);
//!         rho = rho_next;
//!     }
//! }
//!
//! // a = [[4, 1], [1, 3]], b = [1, 2]: CG ends in two iterations.
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 4.0), ([0, 1], 1.0), ([1, 0], 1.0), ([1, 1], 3.0)])?;
//! let b = Dense1::from_vec(vec![1.0, 2.0]);
//! let (mut x, mut r, mut p, mut q) = (Dense1::zeros(2), b.clone(), b.clone(), Dense1::zeros(2));
//! let mut rho = 5.0;
//! for _ in 0..2 {
//!     cg_iteration(&mut x, &mut r, &mut p, &mut q, &mut rho, &a)?;
//! }
//! assert!((x.as_slice()[0] - 1.0 / 11.0).abs() < 1e-12 && (x.as_slice()[1] - 7.0 / 11.0).abs() < 1e-12);
//! assert!(rho < 1e-24);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! - **Checks first.** Every statement's shape checks run before the first statement does, so
//!   a mismatch anywhere returns `Err` and changes nothing. Once they pass, a statement can
//!   fail only where a kernel of one statement can fail after writing (an index overflow of
//!   a sparse output); the earlier statements' writes then stay.
//! - **Temporaries are defined once.** Redefining one, naming it like a parameter, assigning
//!   it after its `let` or reading it before its `let` is a compile error at the name.
//!   Temporaries are scalars; to keep an intermediate tensor, pass it as a `&mut` parameter
//!   (like `q` above).
//! - **Schedules** go on the statement they schedule, `#[schedule(workspace(k, hash))]`
//!   before it; a compute-only variant (`compute`) needs a kernel of one statement.
//! - **Each statement is its own loop nest.** Statements whose loops agree are not fused
//!   into one loop yet: a sequence makes as many passes over the data as it has statements.
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn too_early(y: &mut Dense1<f64>, x: &Dense1<f64>) {
//!         y(i) = s * x(i); // `s` is defined by the next statement
//!         let s = x(i) * x(i);
//!     }
//! }
//! # fn main() {}
//! ```
