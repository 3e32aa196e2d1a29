//! Schedules: `#[schedule(...)]` chooses how a kernel computes, never what.
//!
//! A schedule is an attribute on a kernel inside `sparse_kernel!`, holding directives
//! separated by commas, each at most once. The macro removes it (rustc never sees it). A
//! directive that cannot be honoured (an order no format admits, a variable the kernel does
//! not have, a workspace for an output written in place) is a compile error at the
//! directive, saying why: none is ever ignored.
//!
//! | directive | effect |
//! |---|---|
//! | `order(i, k, j)` | the listed loops nest in this order, outermost first, in every loop nest of the kernel; unlisted variables go where the compiler puts them |
//! | `workspace(v)`, `workspace(v, dense)`, `workspace(v, hash)` | the sparse output's levels from the one storing `v` down are computed in a workspace; the levels above it are appended by the outer loops |
//! | `compute(name)` | also emit `name`, a compute-only variant that writes only the values into an output this kernel assembled |
//! | `convert(never)` | forbid implicit conversions of operands: the compile error names the conversion to make before the call |
//! | `parallel(never)` | keep every loop serial (by default the rows of a dense output run in parallel: [below](#parallel-loops-and-parallelnever)) |
//! | `precompute(never)` | sum every product term by term, in the order written (by default a factor that does not change in a summing loop multiplies the loop's sum once, and a float sum over a dense dimension keeps a partial sum per lane: [below](#precomputed-factors-and-precomputenever)) |
//!
//! # `order`
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // Row i of c as a combination of the rows of b: the loop over k outside the one over j.
//!     #[schedule(order(i, k, j))]
//!     fn spmm_rows(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
//!         c(i, j) = a(i, k) * b(k, j)
//!     }
//!     // Inner products: every c(i, j) summed over k in the innermost loop.
//!     #[schedule(order(i, j, k))]
//!     fn spmm_dots(c: &mut Dense2<f64>, a: &Csr<f64>, b: &Dense2<f64>) {
//!         c(i, j) = a(i, k) * b(k, j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 3], [([0, 0], 1.0), ([1, 2], 2.0)])?;
//! let b = Dense2::from_vec(3, 2, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
//! let (mut c1, mut c2) = (Dense2::zeros(2, 2), Dense2::zeros(2, 2));
//! spmm_rows(&mut c1, &a, &b)?;
//! spmm_dots(&mut c2, &a, &b)?;
//! assert_eq!(c1.as_slice(), &[1.0, 2.0, 10.0, 12.0]);
//! assert_eq!(c1, c2);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! An order against a format's storage is refused: with `b` in CSR, `order(i, k, j)` for
//! `c(i, k) = a(i, j) * b(j, k)` gives
//! `` no loop order traverses `b` (Csr<f64>) in its storage order `` with the help
//! `` store `b` as `Csc<f64>` ``, and
//! `` no loop nest of `inner_products` can run its loops in the order `i`, `k`, `j` `` at the
//! directive.
//!
//! # `workspace`
//!
//! Without a directive the compiler uses a workspace only where no order appends the output
//! directly, at the deepest level that works, dense for one workspace level and hash for
//! more. The directive puts it where you say: `workspace(k)` for `c(i, k)` keeps the rows
//! appended by the loop over `i` and accumulates each row in the workspace. A *dense*
//! workspace is an array as long as the row with a list of the touched coordinates; a
//! *hash* workspace holds only the touched coordinates, for rows far sparser than the
//! matrix is wide.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     #[schedule(workspace(k, hash))]
//!     fn spgemm_hash(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, k) = a(i, j) * b(j, k)
//!     }
//!     #[schedule(workspace(k, dense))]
//!     fn spgemm_dense(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, k) = a(i, j) * b(j, k)
//!     }
//!     // y = Aᵀ x into a sparse vector: the whole output in one workspace.
//!     #[schedule(workspace(j))]
//!     fn spmv_t(y: &mut SparseVec<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(j) = a(i, j) * x(i)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[3, 3], [([0, 2], 1.0), ([1, 0], 2.0), ([2, 1], 3.0)])?;
//! let (mut h, mut d) = (Csr::new(&[3, 3])?, Csr::new(&[3, 3])?);
//! spgemm_hash(&mut h, &a, &a)?;
//! spgemm_dense(&mut d, &a, &a)?;
//! assert_eq!(h.entries(), vec![(vec![0, 1], 3.0), (vec![1, 2], 2.0), (vec![2, 0], 6.0)]);
//! assert_eq!(h, d);
//!
//! let mut y = SparseVec::new(&[3])?;
//! spmv_t(&mut y, &a, &Dense1::from_vec(vec![1.0, 0.0, 1.0]))?;
//! assert_eq!(y.entries(), vec![(vec![0], 0.0), (vec![1], 3.0), (vec![2], 1.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! (The explicit zero at `0` of `y` is `a(1, 0) * x(1)`: computed, so stored; see
//! [`sparse_outputs`](super::sparse_outputs).)
//!
//! # `compute`
//!
//! An iterative method whose matrices keep their patterns while their values change need
//! not assemble the output's pattern on every call (taco's assemble/compute split).
//! `#[schedule(compute(name))]` emits a second function, `name`, with the same parameters,
//! that runs the same loops but only stores values, in order, into the pattern the kernel
//! assembled.
//!
//! Every tensor structure carries a number no other structure has (kept by clones and by
//! [`vals_mut`](crate::Tensor::vals_mut), new whenever levels are built). The kernel
//! records its own identity and its sparse operands' numbers in the output it assembles (a
//! dense operand's pattern is its shape, which every call checks: SDDMM's next dense factors
//! may be new tensors, views or slices), and the
//! compute-only variant checks them first: an output this kernel did not assemble, or
//! assembled for operands whose patterns have since been rebuilt, is
//! `Err(`[`Error::NotAssembled`](crate::Error::NotAssembled)`)` and is left unchanged,
//! never values stored at the wrong coordinates. A compute-only variant needs an assembled
//! output assigned by `=`: a dense or hash output, or `+=`, is refused at the directive.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     #[schedule(compute(add_values))]
//!     fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, j) = a(i, j) + b(i, j)
//!     }
//! }
//!
//! let mut a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([1, 1], 2.0)])?;
//! let b = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 5.0)])?;
//! let mut c = Csr::new(&[2, 2])?;
//!
//! // Not assembled by `add` yet: refused, c unchanged.
//! assert!(matches!(add_values(&mut c, &a, &b), Err(Error::NotAssembled { .. })));
//!
//! add(&mut c, &a, &b)?; // the pattern and the values
//! for step in 1..=3 {
//!     a.vals_mut()[1] = step as f64; // same pattern, new values
//!     add_values(&mut c, &a, &b)?; // the values only
//! }
//! assert_eq!(c.entries(), vec![(vec![0, 0], 1.0), (vec![0, 1], 5.0), (vec![1, 1], 3.0)]);
//!
//! // A rebuilt operand has a new pattern: call `add` again first.
//! let a2 = a.pruned()?;
//! assert!(add_values(&mut c, &a2, &b).is_err());
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # `convert(never)`
//!
//! A kernel that reads an operand against its storage order may convert it on every call
//! (see [`loop_orders`](super::loop_orders#when-no-single-order-exists)). `convert(never)`
//! forbids that, and forbids computing the whole output in a workspace; the kernel then
//! either has an order without them or is a compile error that names the conversion to
//! make before the call:
//!
//! ```compile_fail
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // error: no loop order traverses `c` (Csr<f64>) in its storage order, and
//!     // `convert(never)` forbids converting it
//!     // help: convert it before the call, `let c: Csc<_> = c.convert()?;`
//!     // (sparse_runtime::convert), and pass that; or remove `convert(never)`
//!     #[schedule(convert(never))]
//!     fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) {
//!         a(i, j) = b(i, j) + c(j, i)
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Following the help: the kernel takes the operand in the format the loops need, and the
//! caller converts it once.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     #[schedule(convert(never))]
//!     fn plus_transpose(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csc<f64>) {
//!         a(i, j) = b(i, j) + c(j, i)
//!     }
//! }
//!
//! let b = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 1.0)])?;
//! let c: Csc<f64> = b.convert()?; // once, before any number of calls
//! let mut a = Csr::new(&[2, 2])?;
//! plus_transpose(&mut a, &b, &c)?;
//! assert_eq!(a.entries(), vec![(vec![0, 1], 1.0), (vec![1, 0], 1.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # What the compiler does without being asked
//!
//! Three rewrites of the loops need no directive, and none changes a result: every value is
//! computed by the same operations in the same order as in the plain loops (the `--ir` of
//! the `sparse-kernel` CLI shows them). A fourth, [precompute](#precomputed-factors-and-precomputenever),
//! rounds floats differently, and `precompute(never)` turns it off.
//!
//! - **Register blocks of a dense output's row.** Where the loops between a dense output's
//!   row and its last coordinate only add into that row (SpMM's loop over `A`'s row, MTTKRP's
//!   two sparse loops), they run once per 8 consecutive coordinates (`block_start`), adding
//!   into a local array of 8 values (`block[lane]`) that LLVM keeps in registers, stored to
//!   the output after them; the coordinates past the last whole block run the loops as
//!   written. Each component receives the same terms in the same order. When the output is
//!   filled right before a loop over all its rows, a row's blocks start from the fill value
//!   and only the columns past the last block are filled, so each component is written once.
//! - **Strips of dense loops.** An innermost loop over a dense dimension runs in strips of 8
//!   iterations of constant length (`strip`, `strip_lane`), then the rest: LLVM unrolls a
//!   strip and vectorizes its loads and products, while a floating-point sum still adds in
//!   order.
//! - **Reserved sparse outputs.** An output assembled from scratch reserves its coordinates
//!   and values once, from a bound on its operands' stored entries (`nnz(A) + nnz(B)` for
//!   `A + B`, the smaller operand's for a product), instead of growing by doubling; where no
//!   bound is known (a product with a sum over a shared index, as in SpGEMM) it grows.
//!
//! The runtime's large arrays (from 4 MiB) ask Linux for transparent huge pages before they are
//! first written, which made filling them 2-4x faster on our machine where the setting is
//! `madvise`; elsewhere the request is a no-op.
//!
//! # Precomputed factors, and `precompute(never)`
//!
//! A loop that sums products, some of whose factors do not change in it, sums the product of
//! the factors that do and multiplies the sum by the others once, after the loop (taco's
//! precompute, Kjolstad et al. 2019). In MTTKRP, `a(i,j) = b(i,k,l) * c(k,j) * d(l,j)` on a
//! `Csf3`, each fiber `(i, k)` sums `b * d(l, j)` over its `l` (per lane of the register
//! block) and then adds `c(k, j)` times that sum; in SDDMM, `a(i,j) = b(i,j) * c(i,k) *
//! d(j,k)`, each dot product of `c`'s and `d`'s rows is multiplied by `b(i, j)` once; in
//! `y(i) = alpha * a(i,j) * x(j)`, each row's sum is multiplied by `alpha` once. It saves a
//! multiplication (and in MTTKRP a load) per term: MTTKRP on a power-law tensor ran
//! 1.1-1.2x faster, SDDMM's values 1.05-1.1x. `--ir` shows the sum as `pre`.
//!
//! Only kernels of `f32` or `f64` values are rewritten (an integer sum would overflow at
//! other terms, and another value type need not commute). A float result is `x * (a + b)`
//! where the plain loop computes `x * a + x * b`: the same terms, associated differently, so
//! it differs from the plain loop's within the rounding error of the sum. The
//! order is fixed, so a kernel still gives the same result on every run, with any number of
//! threads. A loop that runs no iteration (an empty row or fiber) still adds nothing, even
//! when the moved factor is infinite. A factor the kernel itself may make infinite (another
//! reduction's result, an operand's `inf` fill) never moves, since `(a + b) * inf` and
//! `a * inf + b * inf` differ when `b` is 0 or of another sign; a stored `inf` in a moved
//! factor can still make them differ, and `precompute(never)` keeps the written order.
//! Only pure reads move: a declared function is always
//! called where it was written. In MTTKRP only the columns of whole register blocks (8 at a
//! time) are summed this way; the columns past them run as written.
//!
//! A float sum over a dense dimension (a dot product of two dense rows, as in SDDMM; a dense
//! vector's norm; a dense matrix's row times a vector) adds the terms of each group of 8
//! consecutive iterations into a partial sum per lane, from `-0.0`, and adds the eight
//! partial sums once the groups are done, by halves (lanes 0-3 plus lanes 4-7, then the
//! first two plus the last two, then the two left); the iterations past the last whole group
//! add in order. LLVM then adds whole vectors instead of one addition after another: on
//! SDDMM with rows of 16, about 1.1x faster. The order is fixed and the same for every vector
//! width, so results are again the same on every run and machine, within the rounding error
//! of the sum of the plain loop's; a sum of zeros keeps its sign. A parallel fold's chunks
//! (below) are summed the same way, each from the start of its chunk.
//!
//! `#[schedule(precompute(never))]` keeps every product summed term by term in the order the
//! loops visit the terms, as written (no factor moved, no partial sums): for results that
//! must match another program's term-by-term sums bit for bit.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn scaled(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = alpha * a(i, j) * x(j)
//!     }
//!     #[schedule(precompute(never))]
//!     fn scaled_as_written(y: &mut Dense1<f64>, alpha: f64, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = alpha * a(i, j) * x(j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[1, 2], [([0, 0], 0.1), ([0, 1], 0.3)])?;
//! let x = Dense1::from_vec(vec![1.0, 1.0]);
//! let mut y = Dense1::<f64>::new(&[1])?;
//! scaled(&mut y, 3.0, &a, &x)?;
//! assert_eq!(y.as_slice(), &[3.0 * (0.1 + 0.3)]); // 1.2000000000000002
//! scaled_as_written(&mut y, 3.0, &a, &x)?;
//! assert_eq!(y.as_slice(), &[3.0 * 0.1 + 3.0 * 0.3]); // 1.2
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Parallel loops, and `parallel(never)`
//!
//! With the runtime's cargo feature `parallel` (on by default), a kernel whose output is
//! dense runs the rows of that output in parallel wherever a loop nest's outermost loop
//! runs over the output's first storage level and each of its iterations writes only its
//! own row: SpMV, SpMM, TTV and the like into `Dense1`/`Dense2`/`Dense3` outputs, the
//! residual, each nest of a split statement. The rows go to [rayon](https://docs.rs/rayon)
//! in the pool the kernel is called from (the global one, or the pool of a caller's
//! `ThreadPool::install`, so `num_threads(1)` keeps a call on one thread). Each row is
//! computed by the same operations in the same order as in the serial loop, so the result
//! is the same bit for bit with any number of threads, floating-point sums included: there
//! is no separate deterministic mode because none is needed (a scalar output's fold, below,
//! is deterministic too, in an order of its own). A task takes
//! [`min_rows`](crate::parallel::min_rows) rows (4096 components), or fewer where the rows
//! are heavy: about 32768 entries of the inputs read, so a tensor's 2000 slices of 4000
//! entries each still make a couple of hundred tasks. A kernel with fewer rows than one task
//! takes runs as the plain loop.
//!
//! A loop nest whose outermost loop iterates the first level of an ordered sparse input
//! whose coordinates are the output's rows (MTTKRP on a `Csf3` or a `Coo3`, SpMV on a `Dcsr`
//! or a `Coo`) runs in parallel too: its positions are split into tasks, each starting
//! where a row's positions start (a `Coo` row stays in one task), and each task owns the
//! rows from its first position's coordinate to the next task's, so the rows no position
//! names are still filled (and, with `+=`, kept).
//!
//! The compute-only variant of a kernel whose output is CSR-like (a `Dense` first level, a
//! second level with a `pos` array: [`compute`](#compute)) runs its rows in parallel
//! too, where each row's iteration writes only through the variant's store of the next
//! value (SDDMM's values, a sparse sum's): the output's `pos` says where each row's values
//! start, so each task stores into the values of its rows, and the rows are split into
//! tasks of about equally many values (a power-law row does not hold up its task's
//! neighbours). The values are the serial variant's, bit for bit.
//!
//! A kernel that assembles a CSR-like output (a `Dense` first level, a `Compressed` second)
//! by a loop over its rows (a sparse sum, an elementwise product, `c(i, j) += a(i, j)`, SDDMM,
//! TTV, inner products, Gustavson's SpGEMM) assembles it in two phases with more than one
//! thread: the tasks run the loop once to count each row's entries (computing no value, and
//! with a key counter for SpGEMM's accumulator), the counts' running sum becomes the
//! output's `pos`, the coordinates and values are allocated once, and the tasks run the
//! loop again to write their rows into place (each with an accumulator of its own). The
//! output is the serial one, bit for bit. Where the operands bound each row's entries (a sum
//! or an elementwise product of CSR-like operands whose rows are the output's: a row of `a +
//! b` has at most the entries of `a`'s and `b`'s rows), the loop runs once instead: chunks
//! of rows, taken in order by the threads, write their rows into windows as long as their
//! operands' entries in those rows, and each is placed right after the chunks before it (a
//! sparse sum on 2 threads: 1.5-1.8x its 1-thread speed, where counting first gained
//! nothing). Gustavson's SpGEMM runs once too: a row appends at most as many entries as it
//! made adds into its accumulator (for `a(i, k) * b(k, j)`, the lengths of `b`'s rows that
//! `a`'s row names), which a first pass over `a`'s entries counts for every row. Where the
//! loop runs over the positions of a sparse root instead (TTV on a `Csf3`) and each entry
//! takes a sum, it runs once too where each position's appends can be counted (TTV: a
//! position of `i` appends at most one entry per `(i, j)` position below it): chunks of
//! positions, each starting at a row's first position, are written and placed in order as
//! chunks of rows are; otherwise each task appends its rows to a level and values of its
//! own, and the runtime concatenates them in row order.
//!
//! A loop that calls a function you declared (or one of its per-case bodies) is not run
//! twice: it assembles its output serially, calling the function once per entry.
//!
//! A kernel whose output is a scalar (an inner product, a norm, `max[i](..)`, `any[i](..)`)
//! folds its outermost loop in parallel: the loop's iterations (rows, or a sparse root's
//! positions) are cut into chunks of 4096 ([`fold_chunk`](crate::parallel::fold_chunk)),
//! each chunk folds its iterations from the reduction's identity, and the chunks' values
//! are combined in order. The chunks do not depend on the number of threads, so the result
//! is the same with any number of them, and without the feature `parallel`; but a
//! floating-point sum is reassociated where chunks meet, so its last bits can differ from
//! the serial loop's order, which `parallel(never)` keeps (as does
//! [`with_fold_chunk`](crate::parallel::with_fold_chunk)`(usize::MAX, ..)`). Integer sums
//! and products stay serial (a reassociated partial sum could overflow where the loop's
//! order does not); folds by `min`, `max`, `and`, `or` are exact and fold in parallel for
//! every value type. A fold that can stop early (`any` reaching 1) stops each chunk early.
//!
//! Kept serial today: merges over a sparse root's positions, sparse outputs of other formats
//! or assembled through a hash workspace or a workspace of several levels, integer sums into a scalar, loop nests whose outermost loop
//! iterates another sparse level (an unordered level, a hash table) or skips runs of a
//! `Coo`'s rows (deduplication), and scratch arrays. `--ir` of the `sparse-kernel` CLI prints a parallel loop as
//! `parallel rows 0..dim_i`, around the loop each task runs over its rows `row_lo..row_hi`
//! (or `parallel rows 0..dim_i by positions p..end of level`, around the loop over a task's
//! positions `pos_lo..pos_hi`; a compute-only variant's, `parallel rows 0..dim_i by values
//! of level`; a sparse output's assembly, `parallel rows 0..dim_i appending level`, or
//! `parallel rows 0..dim_i counting, then filling level` in two phases (`parallel rows
//! 0..dim_i filling level in windows of ..` in one); a scalar's,
//! `parallel fold of t0 over 0..dim_i`, around the loop over a chunk `chunk_lo..chunk_hi`).
//!
//! `#[schedule(parallel(never))]` keeps every loop of a kernel serial (for a kernel called
//! from inside another parallel loop, say); building the runtime with
//! `default-features = false` keeps every kernel serial.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     #[schedule(parallel(never))]
//!     fn spmv_serial(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0)])?;
//! let x = Dense1::from_vec(vec![1.0, 10.0]);
//! let mut y = Dense1::<f64>::new(&[2])?;
//! spmv_serial(&mut y, &a, &x)?;
//! assert_eq!(y.as_slice(), &[20.0, 3.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
