//! Sparse array programming: fill values, functions, reductions, masks and windows
//! (Henry, Hsu, Kjolstad et al., *Compilation of sparse array programming models*, OOPSLA
//! 2021).
//!
//! Tensor algebra knows `+` (a union of the operands' patterns) and `*` (an intersection)
//! over implicit zeros. Graph algorithms, image masks and most element-wise functions need
//! other functions and other values for what is not stored: a distance matrix's missing
//! entries are infinite, `pow`'s natural background is 1. This chapter gives the rules.
//!
//! # Fill values
//!
//! Every tensor has a *fill value*: the value of each component it does not store, zero unless
//! set ([`Tensor::with_fill`](crate::Tensor::with_fill), [`Tensor::fill`](crate::Tensor::fill)).
//! A kernel is compiled for the fill values its parameters declare with `#[fill(c)]` (zero
//! without one); `c` is a number (`1`, `-2.5`) or `inf`/`-inf` (`f64::INFINITY`, and for
//! integers `MAX`/`MIN`: the identity of `min`/`max`, "no path" in a shortest-path kernel).
//! A call checks every sparse operand's fill against the declared one and returns
//! [`Error::FillMismatch`](crate::Error::FillMismatch) before writing anything if one differs.
//! A dense operand stores every component, so it has no fill to declare.
//!
//! The output's fill is *derived*: it is the statement's value where no operand is stored
//! (`min` of two infinity-filled matrices is infinity-filled), and a sparse output gets it on
//! return. Declaring `#[fill(..)]` on the output asserts it; a different value is a compile
//! error.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// The element-wise minimum of two distance matrices.
//!     pub fn shortest(c: &mut Csr<f64>, #[fill(inf)] a: &Csr<f64>, #[fill(inf)] b: &Csr<f64>) {
//!         c(i, j) = min(a(i, j), b(i, j))
//!     }
//! }
//!
//! let inf = f64::INFINITY;
//! let a = Csr::from_entries(&[2, 2], [([0, 0], 3.0), ([1, 1], 5.0)])?.with_fill(inf);
//! let b = Csr::from_entries(&[2, 2], [([0, 0], 4.0), ([0, 1], 1.0)])?.with_fill(inf);
//! let mut c = Csr::from_entries(&[2, 2], [([0, 0], 0.0)])?;
//! shortest(&mut c, &a, &b)?;
//! assert_eq!(c.fill(), inf);
//! assert_eq!(c.entries(), vec![(vec![0, 0], 3.0), (vec![0, 1], 1.0), (vec![1, 1], 5.0)]);
//!
//! // An operand of another fill value is refused.
//! let zero_filled = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0)])?;
//! assert!(shortest(&mut c, &zero_filled, &b).is_err());
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Functions
//!
//! A call `f(e1, e2, ..)` applies a function to every component, fill values included. `f` is
//! one of the [`functions`](crate::functions) the language knows by name (`min`, `max`,
//! `abs`, `sqrt`, `exp`, `pow`, `ldexp`, `shl`, `shr`, the comparisons `eq ne lt le gt ge` and
//! the boolean `and or xor not`, which take any nonzero value as true and give 1 or 0), or a
//! function declared in the same `sparse_kernel!` block with `#[function(..)]`:
//!
//! | property | meaning |
//! |---|---|
//! | `commutative` | `f(a, b) == f(b, a)` |
//! | `associative` | `f(f(a, b), c) == f(a, f(b, c))` |
//! | `idempotent` | `f(a, a) == a` |
//! | `identity = c` | `f(a, c) == a` and `f(c, b) == b` |
//! | `identity(x) = c` | the same for parameter `x` alone |
//! | `annihilator = c` | `f(c, b) == c` and `f(a, c) == c` |
//! | `annihilator(x) = c` | `f` is `c` whenever parameter `x` is `c` |
//! | `iterate(formula)` | an explicit region, see below |
//!
//! Properties are promises the compiler relies on: it never checks them, and a false one gives
//! wrong values (never undefined behaviour). Contradictory ones (an identity equal to the
//! annihilator, `commutative` with different identities, binary properties of a function of
//! one argument) are compile errors. A declared function must be safe (not `unsafe fn`).
//!
//! **Where the loops go.** A function's result can differ from its fill value only where some
//! argument is stored, so the loops visit the union of its arguments' patterns, narrowed to
//! the intersection of the arguments whose fill value *annihilates* it (`0` for `*`, `-inf`
//! for `min`, `inf` for a declared `plus` of the tropical semiring). That is all the compiler
//! needs: a function without properties is correct, only perhaps slower. Where one side is
//! not stored, the other is combined with its fill value.
//!
//! **Per-case bodies** replace the call where an argument written as a constant is not stored
//! with that fill value. The greatest common divisor is a union, and `gcd(x, 0) == |x|`:
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     #[function(commutative, associative, identity = 0)]
//!     #[case(gcd(x, 0) => x.abs())]
//!     #[case(gcd(0, y) => y.abs())]
//!     fn gcd(a: i64, b: i64) -> i64 {
//!         let (mut a, mut b) = (a.abs(), b.abs());
//!         while b != 0 {
//!             (a, b) = (b, a % b);
//!         }
//!         a
//!     }
//!
//!     pub fn gcds(c: &mut SparseVec<i64>, a: &SparseVec<i64>, b: &SparseVec<i64>) {
//!         c(i) = gcd(a(i), b(i))
//!     }
//! }
//!
//! let a = SparseVec::from_entries(&[4], [([0], 12), ([1], -9)])?;
//! let b = SparseVec::from_entries(&[4], [([0], 18), ([3], 7)])?;
//! let mut c = a.clone(); // re-assembled by the call
//! gcds(&mut c, &a, &b)?;
//! assert_eq!(c.entries(), vec![(vec![0], 6), (vec![1], 9), (vec![3], 7)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! **An explicit region** `iterate(formula)`, over the parameters with `&` (both stored), `|`
//! (either) and `!` (not stored), *defines* the function as its value at the fill values
//! wherever the formula is false: the compiler neither calls it nor visits those coordinates
//! for it. A formula must be false where no argument is stored. `iterate(x & !m)` is a
//! structural complemented mask: wherever `m` stores an entry, even an explicit zero, the
//! result is not computed at all (an *omitter* point of the merge lattice, section 6.2).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// `x` where `m` stores nothing.
//!     #[function(iterate(x & !m))]
//!     fn unless(x: f64, m: f64) -> f64 {
//!         if m != 0.0 { 0.0 } else { x }
//!     }
//!
//!     /// GraphBLAS `y<!m> = A x`: rows that `m` stores are skipped, never computed.
//!     pub fn masked_mxv(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &Dense1<f64>, m: &SparseVec<f64>) {
//!         y(i) = unless(a(i, j) * x(j), m(i))
//!     }
//! }
//!
//! let a = Csr::from_entries(&[3, 2], [([0, 0], 1.0), ([1, 1], 2.0), ([2, 0], 3.0)])?;
//! let x = Dense1::from_vec(vec![10.0, 100.0]);
//! let m = SparseVec::from_entries(&[3], [([1], 1.0)])?;
//! let mut y = m.clone(); // re-assembled by the call
//! masked_mxv(&mut y, &a, &x, &m)?;
//! assert_eq!(y.entries(), vec![(vec![0], 10.0), (vec![2], 30.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Reductions
//!
//! `sum[j](e)`, `prod[j](e)`, `min[j](e)`, `max[j](e)`, `any[j](e)` (a fold by `or`),
//! `all[j](e)` (by `and`), or `f[j](e)` for a declared function that is commutative,
//! associative and has an identity, fold `e` over every coordinate of `j`, starting from the
//! function's identity (so over an empty dimension the result is the identity). One variable
//! per bracket; nest them for more (`min[i](min[j](e))`). A variable that appears only on the
//! right and is not reduced explicitly is summed, as everywhere else in the language.
//!
//! Where the body's fill value is the reduction's identity (an infinity-filled matrix under
//! `min`, `plus(w(i, j), d(j))` with `w` infinity-filled), only the stored coordinates are
//! visited; otherwise every coordinate takes part, and the loop *covers* the dimension: the
//! reduction is then stored at every coordinate of the other variables, over an empty
//! dimension too (`min[j]` of a zero-filled row with no columns is stored as `inf`). The
//! compiler decides the body's fill value at compile time by folding: the operators'
//! identities and annihilators, the declared properties, and the prelude's boolean
//! functions, comparisons, `min`, `max` and `abs` of constants (`gt(a(i, j), b(j))` over
//! fill values -1 and 0 has fill 0, so `sum[j]` of it visits only stored coordinates). It
//! does not evaluate other functions of fill values (`exp`, a declared function without
//! properties); a reduction over them covers its dimension, which is correct, only slower.
//! Semirings follow: min-plus `mxv` is a relaxation step of Bellman-Ford.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// Addition of path lengths: infinity (no path) annihilates it.
//!     #[function(commutative, associative, identity = 0, annihilator = inf)]
//!     fn plus(a: f64, b: f64) -> f64 {
//!         a + b
//!     }
//!
//!     /// `d'(i) = min(d(i), min_j w(i, j) + d(j))` over the stored edges only.
//!     pub fn relax(next: &mut Dense1<f64>, #[fill(inf)] w: &Csr<f64>, d: &Dense1<f64>) {
//!         next(i) = min(d(i), min[j](plus(w(i, j), d(j))))
//!     }
//! }
//!
//! let inf = f64::INFINITY;
//! // Edges 0 -> 1 (weight 2), 1 -> 2 (3), 0 -> 2 (9), stored by destination row.
//! let w = Csr::from_entries(&[3, 3], [([1, 0], 2.0), ([2, 1], 3.0), ([2, 0], 9.0)])?.with_fill(inf);
//! let mut d = Dense1::from_vec(vec![0.0, inf, inf]);
//! let mut next = Dense1::zeros(3);
//! for _ in 0..2 {
//!     relax(&mut next, &w, &d)?;
//!     std::mem::swap(&mut d, &mut next);
//! }
//! assert_eq!(d.as_slice(), &[0.0, 2.0, 5.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Windows
//!
//! An index may read a *window* of an operand's mode: `a(i[lo..hi], j)` reads rows `lo..hi`
//! of `a` as rows `0..hi - lo`; `i[lo..]` and `i[..hi]` leave an end open;
//! `a(i, j[(lo..hi).step_by(s)])` reads every `s`-th column. Bounds are integer literals or
//! `usize` parameters of the kernel. The index variable's size is the window's length, and a
//! call checks on entry that every window lies within its mode. Nothing is copied: a `Dense`
//! level is located at the projected coordinate `lo + s * i`, and an ordered compact level
//! (`Compressed`, `Singleton`) narrows each segment to the window by binary search and steps
//! over coordinates off the stride. A window cannot reach a hash level (unordered), ELL's
//! slots (positions without coordinates), a stride over COO's runs of equal rows, a
//! struct-held format (`Dia`, `Bcsr`, `Csb`, `CooAos`) or the output: those are compile
//! errors.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     /// Rows `lo..lo + n` of `a` times `x`.
//!     pub fn block_spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>, lo: usize, hi: usize) {
//!         y(i) = a(i[lo..hi], j) * x(j)
//!     }
//! }
//!
//! let a = Csr::from_entries(&[4, 2], [([1, 0], 1.0), ([2, 1], 2.0), ([3, 0], 3.0)])?;
//! let x = Dense1::from_vec(vec![10.0, 100.0]);
//! let mut y = Dense1::zeros(2);
//! block_spmv(&mut y, &a, &x, 1, 3)?;
//! assert_eq!(y.as_slice(), &[10.0, 200.0]);
//! // A window past the end of the mode is an error, not a read out of bounds.
//! assert!(block_spmv(&mut y, &a, &x, 3, 5).is_err());
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
