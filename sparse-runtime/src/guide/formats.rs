//! Formats: every family, compositions of levels, mode orders, and how to choose.
//!
//! A format is a tuple of *levels*, outermost first, and a *mode order* saying which
//! logical mode each level stores (Chou, Kjolstad and Amarasinghe 2018). The compiler knows
//! nothing about named formats: it asks each level what it can do (locate a coordinate,
//! iterate positions or values, append or insert) and what it guarantees (full, ordered,
//! unique, branchless, compact), so any composition works in any kernel. The
//! [crate documentation](crate#level-kinds) tabulates the level kinds.
//!
//! A kernel indexes every format by its logical coordinates: `a(i, j)` is row `i`, column
//! `j`, whether `a` is a [`Csr`](crate::Csr), a [`Csc`](crate::Csc) or a [`Dia`](crate::Dia).
//! The format decides only which loop orders are cheap, and which formats may be outputs
//! ([`sparse_outputs`](super::sparse_outputs#formats-an-output-may-have)).
//!
//! # Which format for which data
//!
//! | the data | format | why |
//! |---|---|---|
//! | dense | [`Dense1`](crate::Dense1), [`Dense2`](crate::Dense2), [`Dense3`](crate::Dense3) | no indices; borrow and give back the `Vec` |
//! | a sparse vector | [`SparseVec`](crate::SparseVec) | sorted coordinates and values |
//! | a vector probed more than scanned, or updated at random | [`HashVec`](crate::HashVec) | expected O(1) locate and insert; unordered |
//! | a general sparse matrix, row access (SpMV, most kernels) | [`Csr`](crate::Csr) | the default: compact, by rows, an output of every kernel |
//! | column access, `Aᵀ x` | [`Csc`](crate::Csc) | CSR by columns |
//! | most rows (columns) empty | [`Dcsr`](crate::Dcsr) ([`Dcsc`](crate::Dcsc)) | only nonempty rows are stored, no pointer per empty row |
//! | triples arriving unsorted, used once | [`Coo`](crate::Coo), [`CooAos`](crate::CooAos) | one coordinate per entry; COO SpMV is one pass over the entries, each row summed in a register |
//! | banded, a stencil on a grid | [`Dia`](crate::Dia) | no column indices; each diagonal streams against a slice of `x` |
//! | about as many entries in every row | [`Ell`](crate::Ell) | no row pointers, fixed-width rows; wasteful if one row is much fuller |
//! | small dense blocks (several unknowns per mesh node) | [`Bcsr`](crate::Bcsr) | one index per block, dense loops inside; wasteful for scattered entries |
//! | needed as `A x` and `Aᵀ x` from one copy | [`Csb`](crate::Csb) | square blocks favour neither rows nor columns |
//! | rows built entry by entry, random updates | [`HashMat`](crate::HashMat) | a hash table per row; a kernel output written in place |
//! | sparse 3- and 4-tensors | [`Csf3`](crate::Csf3), [`Csf4`](crate::Csf4), [`Coo3`](crate::Coo3) | compressed fibers per mode, or coordinate triples |
//! | anything else | [`Tensor<V, (levels..), Modes<..>>`](crate::Tensor) | a composition written out |
//!
//! The index type `I` of `pos` and `crd` arrays is `u32` by default (SpMV is bound by
//! memory traffic, and half-width indices halve it); write `Csr<f64, u64>` or
//! `Csr<f64, usize>` for more than `u32::MAX` entries or a dimension that large. A tensor
//! too large for its index type is an [`Error::IndexOverflow`](crate::Error::IndexOverflow)
//! at construction, never a wrapped index.
//!
//! # Vectors: `Dense1`, `SparseVec`, `HashVec`
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn dot(out: &mut f64, x: &SparseVec<f64>, h: &HashVec<f64>) {
//!         out = x(i) * h(i)
//!     }
//!     fn axpy(y: &mut Dense1<f64>, alpha: f64, x: &SparseVec<f64>, z: &Dense1<f64>) {
//!         y(i) = alpha * x(i) + z(i)
//!     }
//! }
//!
//! let x = SparseVec::<f64>::from_entries(&[5], [([1], 2.0), ([4], 3.0)])?;
//! let h = HashVec::<f64>::from_entries(&[5], [([4], 10.0), ([0], 7.0)])?;
//! let mut out = 0.0;
//! dot(&mut out, &x, &h)?; // each entry of x located in h's table
//! assert_eq!(out, 30.0);
//!
//! let mut y = Dense1::zeros(5);
//! axpy(&mut y, 2.0, &x, &Dense1::from_vec(vec![1.0; 5]))?;
//! assert_eq!(y.into_vec(), vec![1.0, 5.0, 1.0, 1.0, 7.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Your own storage: slices and dense views
//!
//! A kernel reads and writes dense operands you already hold without a copy. A slice is a
//! dense vector: `x: &[f64]` is an input, `y: &mut [f64]` an output, and its shape is its
//! length. Matrices and 3-tensors over a row-major slice are views, made with their shape,
//! which is checked against the slice's length: [`Dense2View`](crate::Dense2View) and
//! [`Dense3View`](crate::Dense3View) are inputs (`b: &Dense2View<'_, f64>`),
//! [`Dense2ViewMut`](crate::Dense2ViewMut) and [`Dense3ViewMut`](crate::Dense3ViewMut) outputs
//! (`c: &mut Dense2ViewMut<'_, f64>`).
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv(y: &mut [f64], a: &Csr<f64>, x: &[f64]) {
//!         y(i) = a(i, j) * x(j)
//!     }
//!     fn spmm(c: &mut Dense2ViewMut<'_, f64>, a: &Csr<f64>, b: &Dense2View<'_, f64>) {
//!         c(i, k) = a(i, j) * b(j, k)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 0], 3.0)])?;
//! let x = vec![1.0, 10.0];
//! let mut y = vec![0.0; 2];
//! spmv(&mut y, &a, &x)?;
//! assert_eq!(y, [20.0, 3.0]);
//!
//! let b = vec![1.0, 2.0, 3.0, 4.0]; // [[1, 2], [3, 4]]
//! let mut c = vec![0.0; 4];
//! spmm(&mut Dense2ViewMut::new([2, 2], &mut c)?, &a, &Dense2View::new([2, 2], &b)?)?;
//! assert_eq!(c, [6.0, 8.0, 3.0, 6.0]);
//! assert!(Dense2View::new([3, 2], &b).is_err());
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Compressed matrices: `Csr`, `Csc`, `Dcsr`, `Dcsc`
//!
//! [`Csr`](crate::Csr) is `(Dense, Compressed)`: a dense level of rows, then each row's
//! columns as a segment of `crd` delimited by `pos`. [`Csc`](crate::Csc) has the same levels
//! in the mode order `Modes<1, 0>` (columns first). [`Dcsr`](crate::Dcsr) and
//! [`Dcsc`](crate::Dcsc) compress the outer level too, storing only the nonempty rows or
//! columns. The four compute the same thing; they differ in which loops are cheap.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv_csr(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn spmv_csc(y: &mut Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn spmv_dcsr(y: &mut Dense1<f64>, a: &Dcsr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn add_dcsc(c: &mut Dcsc<f64>, a: &Dcsc<f64>, b: &Dcsc<f64>) { c(i, j) = a(i, j) + b(i, j) }
//! }
//!
//! let entries = [([0, 1], 1.0), ([2, 0], 2.0), ([2, 2], 3.0)];
//! let a = Csr::<f64>::from_entries(&[3, 3], entries)?;
//! assert_eq!(a.levels().1.pos(), &[0, 1, 1, 3]); // row 1 is an empty segment
//! let d = Dcsr::<f64>::from_entries(&[3, 3], entries)?;
//! assert_eq!(d.levels().0.crd(), &[0, 2]); // only rows 0 and 2 are stored
//!
//! let x = Dense1::from_vec(vec![1.0, 2.0, 3.0]);
//! let (mut y1, mut y2, mut y3) = (Dense1::zeros(3), Dense1::zeros(3), Dense1::zeros(3));
//! spmv_csr(&mut y1, &a, &x)?;
//! spmv_csc(&mut y2, &a.convert()?, &x)?; // Csc walks column by column, scatters into y
//! spmv_dcsr(&mut y3, &d, &x)?;
//! assert_eq!(y1.as_slice(), &[2.0, 0.0, 11.0]);
//! assert!(y1 == y2 && y2 == y3);
//!
//! let b = Dcsc::<f64>::from_entries(&[3, 3], [([0, 1], 1.0)])?;
//! let mut c = Dcsc::new(&[3, 3])?;
//! add_dcsc(&mut c, &a.convert()?, &b)?;
//! assert_eq!(c.entries()[0], (vec![0, 1], 2.0));
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Coordinate lists: `Coo`, `Coo3`, `CooAos`
//!
//! [`Coo`](crate::Coo) is `(CompressedNonUnique, Singleton)`: a row coordinate per entry
//! (sorted, repeated along a row) and a column per entry. COO SpMV, `y(i) = a(i, j) * x(j)`,
//! visits each row's run of entries and sums it into `y(i)` once; where COO alone drives a
//! loop that is linear in it and writes no output component per run (`y(j) = a(i, j) *
//! x(i)`), the loop is *fused*, one pass over the entries adding into the output. COO is also an
//! output format; so is [`Coo3`](crate::Coo3). [`CooAos`](crate::CooAos) stores the same
//! coordinates as one array of `(row, column)` pairs; it is an input format.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv_coo(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn spmv_aos(y: &mut Dense1<f64>, a: &CooAos<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn add_coo(c: &mut Coo<f64>, a: &Coo<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }
//!     fn scale3(c: &mut Coo3<f64>, a: &Coo3<f64>, s: f64) { c(i, j, k) = s * a(i, j, k) }
//! }
//!
//! let entries = [([1, 0], 1.0), ([0, 2], 2.0), ([1, 2], 3.0)];
//! let a = Coo::<f64>::from_entries(&[2, 3], entries)?;
//! assert_eq!(a.levels().0.crd(), &[0, 1, 1]); // one row coordinate per entry
//! assert_eq!(a.levels().1.crd(), &[2, 0, 2]);
//! let x = Dense1::from_vec(vec![1.0, 1.0, 1.0]);
//! let (mut y, mut z) = (Dense1::zeros(2), Dense1::zeros(2));
//! spmv_coo(&mut y, &a, &x)?;
//! spmv_aos(&mut z, &CooAos::from_entries(&[2, 3], entries)?, &x)?;
//! assert_eq!(y.as_slice(), &[2.0, 4.0]);
//! assert_eq!(y, z);
//!
//! let mut c = Coo::new(&[2, 3])?;
//! add_coo(&mut c, &a, &Csr::from_entries(&[2, 3], [([0, 0], 5.0)])?)?;
//! assert_eq!(c.nnz(), 4);
//!
//! let t = Coo3::<f64>::from_entries(&[2, 2, 2], [([1, 1, 0], 2.0), ([0, 1, 1], 1.0)])?;
//! let mut u = Coo3::new(&[2, 2, 2])?;
//! scale3(&mut u, &t, 3.0)?;
//! assert_eq!(u.entries(), vec![(vec![0, 1, 1], 3.0), (vec![1, 1, 0], 6.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Tensors: `Csf3`, `Csf4`, `Dense3`
//!
//! [`Csf3`](crate::Csf3) and [`Csf4`](crate::Csf4) (compressed sparse fibers) compress
//! every level: a tree of coordinates, one path per entry. Kernels on them follow that
//! tree, so the operand's first mode is the outer loop.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     // Tensor-times-vector into a CSR matrix.
//!     fn ttv(a: &mut Csr<f64>, b: &Csf3<f64>, c: &Dense1<f64>) {
//!         a(i, j) = b(i, j, k) * c(k)
//!     }
//!     // MTTKRP, the kernel of CP decomposition.
//!     fn mttkrp(a: &mut Dense2<f64>, b: &Csf3<f64>, c: &Dense2<f64>, d: &Dense2<f64>) {
//!         a(i, j) = b(i, k, l) * c(k, j) * d(l, j)
//!     }
//!     fn contract(t: &mut Dense3<f64>, b: &Csf4<f64>, x: &Dense1<f64>) {
//!         t(i, j, k) = b(i, j, k, l) * x(l)
//!     }
//! }
//!
//! let b = Csf3::<f64>::from_entries(&[2, 2, 3], [([0, 1, 2], 2.0), ([1, 0, 0], 3.0), ([1, 0, 1], 1.0)])?;
//! let mut a = Csr::new(&[2, 2])?;
//! ttv(&mut a, &b, &Dense1::from_vec(vec![1.0, 10.0, 100.0]))?;
//! assert_eq!(a.entries(), vec![(vec![0, 1], 200.0), (vec![1, 0], 13.0)]);
//!
//! let ones = |n| Dense2::from_vec(n, 1, vec![1.0; n]);
//! let mut m = Dense2::zeros(2, 1);
//! mttkrp(&mut m, &b, &ones(2)?, &ones(3)?)?;
//! assert_eq!(m.as_slice(), &[2.0, 4.0]); // the sums of the slices b(i, :, :)
//!
//! let b4 = Csf4::<f64>::from_entries(&[1, 1, 2, 2], [([0, 0, 1, 1], 4.0)])?;
//! let mut t = Dense3::zeros(1, 1, 2);
//! contract(&mut t, &b4, &Dense1::from_vec(vec![0.0, 0.5]))?;
//! assert_eq!(t.as_slice(), &[0.0, 2.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Hash rows: `HashMat`
//!
//! [`HashMat`](crate::HashMat) is `(Dense, Hashed)`: every row a hash table of its columns.
//! As an input it answers `a(i, j)` in expected constant time, so an element-wise product
//! costs the other operand's entries. As an output it is written in place, in any loop
//! order: Gustavson's SpGEMM accumulates each row of `c` straight into its table.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spgemm(c: &mut HashMat<f64>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, j) = a(i, k) * b(k, j)
//!     }
//!     fn masked(c: &mut Csr<f64>, m: &Csr<f64>, h: &HashMat<f64>) {
//!         c(i, j) = m(i, j) * h(i, j)
//!     }
//! }
//!
//! let a = Csr::<f64>::from_entries(&[2, 2], [([0, 0], 1.0), ([0, 1], 2.0), ([1, 1], 3.0)])?;
//! let mut h = HashMat::new(&[2, 2])?;
//! spgemm(&mut h, &a, &a)?; // [1 2; 0 3]^2 = [1 8; 0 9]
//! assert_eq!(h.entries(), vec![(vec![0, 0], 1.0), (vec![0, 1], 8.0), (vec![1, 1], 9.0)]);
//!
//! let mut c = Csr::new(&[2, 2])?;
//! masked(&mut c, &Csr::from_entries(&[2, 2], [([0, 1], 1.0)])?, &h)?;
//! assert_eq!(c.entries(), vec![(vec![0, 1], 8.0)]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Diagonals: `Dia`
//!
//! [`Dia`](crate::Dia) stores each diagonal that holds an entry in full, with no column
//! indices. It is *remapped*: stored as the order-3 hierarchy `(d, i, j)`, `d` a diagonal's
//! number. A kernel still writes `a(i, j)`; the compiler reads it as a sum over the hidden
//! `d`, placed around that access alone, and walks the matrix diagonal by diagonal. So a
//! `Dia` is an input: a result that must be appended in row order (a `Csr` output of
//! `Dia + Csr`) is refused, with the help to write it into a `Dense2` or `HashMat`.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv(y: &mut Dense1<f64>, a: &Dia<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//!     fn add(c: &mut HashMat<f64>, a: &Dia<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }
//! }
//!
//! // The 1-D Laplacian [2 -1 0; -1 2 -1; 0 -1 2].
//! let a = Dia::<f64>::from_diagonals(3, 3, vec![-1, 0, 1], vec![
//!     0.0, -1.0, -1.0, // offset -1: rows 1 and 2 (slot 0 lies outside the matrix)
//!     2.0, 2.0, 2.0, // the main diagonal
//!     -1.0, -1.0, 0.0, // offset 1: rows 0 and 1
//! ])?;
//! let mut y = Dense1::zeros(3);
//! spmv(&mut y, &a, &Dense1::from_vec(vec![1.0, 2.0, 3.0]))?;
//! assert_eq!(y.as_slice(), &[0.0, 0.0, 4.0]);
//!
//! let mut c = HashMat::new(&[3, 3])?;
//! add(&mut c, &a, &Csr::from_entries(&[3, 3], [([0, 2], 5.0)])?)?;
//! assert_eq!(c.nnz(), 8);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Fixed-width rows: `Ell`
//!
//! [`Ell`](crate::Ell) (ELLPACK) gives every row the same number of slots, the width of the
//! fullest row; empty slots come last in a row. Its rows merge with other matrices' rows in
//! column order. It is an input format.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn add(c: &mut Csr<f64>, a: &Ell<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }
//! }
//!
//! let a = Ell::<f64>::from_entries(&[2, 3], [([0, 0], 1.0), ([0, 2], 2.0), ([1, 1], 3.0)])?;
//! assert_eq!((a.width(), a.col_idx()), (2, &[0, 2, 1, u32::MAX][..]));
//! let b = Csr::<f64>::from_entries(&[2, 3], [([0, 1], 4.0), ([1, 1], 1.0)])?;
//! let mut c = Csr::new(&[2, 3])?;
//! add(&mut c, &a, &b)?;
//! assert_eq!(c.to_dense(), vec![1.0, 4.0, 2.0, 0.0, 4.0, 0.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Blocks: `Bcsr` and `Csb`
//!
//! [`Bcsr<V, R, C>`](crate::Bcsr) stores dense `R x C` blocks, one column index per block;
//! the block size is part of the type. [`Csb`](crate::Csb) cuts the matrix into square
//! blocks of a size chosen at construction and stores each block's entries as a coordinate
//! list, so `A x` and `Aᵀ x` are the same loop over blocks. Both are remapped like `Dia`
//! (the hidden coordinates are the block row and column) and are input formats.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! sparse_kernel! {
//!     fn spmv_bcsr(y: &mut Dense1<f64>, a: &Bcsr<f64, 2, 2>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//!     fn spmv_csb(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//!     fn spmv_t_csb(y: &mut Dense1<f64>, a: &Csb<f64>, x: &Dense1<f64>) {
//!         y(j) = a(i, j) * x(i)
//!     }
//! }
//!
//! let entries = [([0, 0], 1.0), ([0, 1], 2.0), ([1, 0], 3.0), ([2, 2], 4.0)];
//! let x = Dense1::from_vec(vec![1.0, 1.0, 1.0]);
//! let mut y = Dense1::zeros(3);
//!
//! let b = Bcsr::<f64, 2, 2>::from_entries(&[3, 3], entries)?;
//! assert_eq!(b.block_count(), 2); // block (1, 1) is cut by both edges
//! spmv_bcsr(&mut y, &b, &x)?;
//! assert_eq!(y.as_slice(), &[3.0, 3.0, 4.0]);
//!
//! let s = Csb::<f64>::from_entries_with_block(&[3, 3], 2, entries)?;
//! spmv_csb(&mut y, &s, &x)?;
//! assert_eq!(y.as_slice(), &[3.0, 3.0, 4.0]);
//! spmv_t_csb(&mut y, &s, &x)?;
//! assert_eq!(y.as_slice(), &[4.0, 2.0, 4.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
//!
//! # Compositions and mode orders
//!
//! Any tuple of levels is a format, written `Tensor<V, (levels..), O>` in a kernel's
//! signature and in Rust code alike; `O` is [`Identity`](crate::Identity) (the default) or
//! [`Modes<..>`](crate::Modes), where level `k` stores logical mode `Modes`' `k`-th
//! number. The aliases are such compositions (`Csc<f64>` is
//! `Tensor<f64, (Dense, Compressed), Modes<1, 0>>`, and a kernel accepts either spelling).
//! Level properties are set by a marker after the index type: `Compressed<u32, NonUnique>`
//! (also spelled `CompressedNonUnique`), `Compressed<u32, Unordered>` (each segment in any
//! order: rows scattered into CSR without a sort; merged through a sorted copy where order
//! matters), `Singleton<u32, Padded>`.
//!
//! ```
//! use sparse_runtime::prelude::*;
//!
//! type Csc64 = Tensor<f64, (Dense, Compressed<u64>), Modes<1, 0>>;
//! type Unsorted = Tensor<f64, (Dense, Compressed<u32, Unordered>)>;
//! type Blocks = Tensor<f64, (Dense, Compressed, Dense, Dense)>;
//! type Kji = Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 1, 0>>;
//!
//! sparse_kernel! {
//!     // Types written out in the signature: the macro reads the levels from the spelling.
//!     fn spmv(y: &mut Dense1<f64>, a: &Tensor<f64, (Dense, Compressed<u64>), Modes<1, 0>>, x: &Dense1<f64>) {
//!         y(i) = a(i, j) * x(j)
//!     }
//!     fn spgemm(c: &mut Tensor<f64, (Dense, Compressed<u32, Unordered>)>, a: &Csr<f64>, b: &Csr<f64>) {
//!         c(i, k) = a(i, j) * b(j, k)
//!     }
//!     // Block-sparse rows of dense 1 x 2 blocks, as an output: each block appended whole.
//!     fn to_blocks(c: &mut Tensor<f64, (Dense, Compressed, Dense, Dense)>, a: &Tensor<f64, (Dense, Compressed, Dense, Dense)>) {
//!         c(i, j, k, l) = 2 * a(i, j, k, l)
//!     }
//!     fn slice_sums(y: &mut Dense1<f64>, t: &Tensor<f64, (Compressed, Compressed, Compressed), Modes<2, 1, 0>>) {
//!         y(k) = t(i, j, k)
//!     }
//! }
//!
//! let a = Csc64::from_entries(&[2, 2], [([0, 1], 2.0), ([1, 1], 3.0)])?;
//! assert_eq!(a.levels().1.pos(), &[0u64, 0, 2]); // column 0 empty, column 1 two rows
//! let mut y = Dense1::zeros(2);
//! spmv(&mut y, &a, &Dense1::from_vec(vec![1.0, 1.0]))?;
//! assert_eq!(y.as_slice(), &[2.0, 3.0]);
//!
//! let p = Csr::<f64>::from_entries(&[2, 3], [([0, 0], 1.0), ([0, 2], 1.0), ([1, 1], 1.0)])?;
//! let q = Csr::<f64>::from_entries(&[3, 2], [([0, 1], 1.0), ([1, 0], 1.0), ([2, 0], 1.0)])?;
//! let mut u = Unsorted::new(&[2, 2])?;
//! spgemm(&mut u, &p, &q)?; // row 0's columns in whatever order the workspace met them
//! assert_eq!(u.entries(), vec![(vec![0, 0], 1.0), (vec![0, 1], 1.0), (vec![1, 0], 1.0)]);
//!
//! let blocks = Blocks::from_entries(&[2, 2, 1, 2], [([1, 0, 0, 1], 1.0)])?;
//! let mut twice = Blocks::new(&[2, 2, 1, 2])?;
//! to_blocks(&mut twice, &blocks)?;
//! assert_eq!(twice.vals(), &[0.0, 2.0]); // the one stored block, zero-filled
//!
//! let t = Kji::from_entries(&[2, 2, 2], [([0, 0, 1], 1.0), ([1, 1, 1], 2.0), ([1, 0, 0], 4.0)])?;
//! assert_eq!(t.levels().0.crd(), &[0, 1]); // the top level stores mode 2, k
//! slice_sums(&mut y, &t)?;
//! assert_eq!(y.as_slice(), &[4.0, 3.0]);
//! # Ok::<(), sparse_runtime::Error>(())
//! ```
