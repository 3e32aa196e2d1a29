//! Shared helpers for the integration tests: a seeded PRNG, random sparse
//! entries, generic construction of any format from entries, a dense oracle
//! tensor, and value comparison that names the first mismatching coordinate.
//!
//! Kernel tests build every operand of every format from the *same* random
//! entries, run the generated kernel, and compare `to_dense()` of its output
//! with a dense oracle computed by nested loops over [`DenseT`]s.

use sparse_runtime::{Dense, Levels, ModeOrder, Tensor, Value};
use std::fmt::{Debug, Display};

/// Densities every kernel is swept over.
pub const DENSITIES: [f64; 4] = [0.0, 0.01, 0.3, 1.0];

/// Seeds every kernel is swept over.
pub const SEEDS: [u64; 3] = [1, 0x5eed, 0xdecaf];

/// Matrix shapes: empty in either or both modes, 1x1, vectors, moderate.
pub const MATRIX_SHAPES: [[usize; 2]; 8] = [
    [0, 0],
    [0, 3],
    [3, 0],
    [1, 1],
    [1, 6],
    [6, 1],
    [7, 9],
    [30, 20],
];

/// Order-3 shapes.
pub const TENSOR3_SHAPES: [[usize; 3]; 7] = [
    [0, 0, 0],
    [0, 2, 3],
    [2, 0, 3],
    [1, 1, 1],
    [3, 4, 0],
    [5, 7, 6],
    [12, 9, 8],
];

/// Vector lengths.
pub const VECTOR_LENGTHS: [usize; 6] = [0, 1, 2, 7, 30, 101];

/// A xorshift64* generator: small, seeded, reproducible.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        // splitmix64 of the seed, so that nearby seeds give unrelated streams
        // and the state is never 0.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        Rng(if z == 0 { 0x2545_f491_4f6c_dd1d } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n`; `n` must be positive.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        (self.next_u64() % n as u64) as usize
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Shuffles `v` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for k in (1..v.len()).rev() {
            let j = self.below(k + 1);
            v.swap(k, j);
        }
    }
}

/// A value type the tests use: random non-zero values, conversion for
/// tolerances, and whether arithmetic on it is exact.
pub trait TestValue: Value + Display {
    /// Whether results must match exactly (integers, small values).
    const EXACT: bool;
    /// The default relative tolerance for this type.
    const TOL: f64;
    /// A random non-zero value: floats in `±[0.1, 2)`, integers in `±1..=4`.
    fn random(rng: &mut Rng) -> Self;
    /// Converts a small number (tests' scalar parameters).
    fn from_f64(x: f64) -> Self;
    /// Converts to `f64` for tolerance checks.
    fn to_f64(self) -> f64;
}

fn random_sign(rng: &mut Rng) -> f64 {
    if rng.chance(0.5) {
        -1.0
    } else {
        1.0
    }
}

impl TestValue for f64 {
    const EXACT: bool = false;
    const TOL: f64 = 1e-10;
    fn random(rng: &mut Rng) -> Self {
        random_sign(rng) * (0.1 + 1.9 * rng.unit())
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl TestValue for f32 {
    const EXACT: bool = false;
    const TOL: f64 = 1e-4;
    fn random(rng: &mut Rng) -> Self {
        (random_sign(rng) * (0.1 + 1.9 * rng.unit())) as f32
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl TestValue for i64 {
    const EXACT: bool = true;
    const TOL: f64 = 0.0;
    fn random(rng: &mut Rng) -> Self {
        let magnitude = 1 + rng.below(4) as i64;
        if rng.chance(0.5) {
            -magnitude
        } else {
            magnitude
        }
    }
    fn from_f64(x: f64) -> Self {
        x as i64
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// Sparse entries in logical coordinates.
pub type Entries<V> = Vec<(Vec<usize>, V)>;

/// Every coordinate of `shape`, in row-major order.
pub fn coordinates(shape: &[usize]) -> Vec<Vec<usize>> {
    let len: usize = shape.iter().product();
    let mut out = Vec::with_capacity(len);
    for mut flat in 0..len {
        let mut c = vec![0; shape.len()];
        for (slot, &n) in c.iter_mut().zip(shape).rev() {
            *slot = flat % n;
            flat /= n;
        }
        out.push(c);
    }
    out
}

/// Random non-zero entries of `shape`, each coordinate present with
/// probability `density`, in shuffled order.
///
/// Unless `density` is 1, one random slice per mode is emptied (for a matrix:
/// a row and a column), so formats meet empty rows and columns. Any mode of
/// size 0 gives no entries.
pub fn random_entries<V: TestValue>(shape: &[usize], density: f64, seed: u64) -> Entries<V> {
    let mut rng = Rng::new(seed ^ 0x0123_4567_89ab_cdef);
    let mut entries: Entries<V> = Vec::new();
    for c in coordinates(shape) {
        if rng.chance(density) {
            let v = V::random(&mut rng);
            entries.push((c, v));
        }
    }
    if density < 1.0 && !entries.is_empty() {
        let emptied: Vec<usize> = shape.iter().map(|&n| rng.below(n)).collect();
        entries.retain(|(c, _)| c.iter().zip(&emptied).all(|(a, b)| a != b));
    }
    rng.shuffle(&mut entries);
    entries
}

/// Random entries at every coordinate of `shape`, never zero (divisors).
pub fn nonzero_entries<V: TestValue>(shape: &[usize], seed: u64) -> Entries<V> {
    let mut rng = Rng::new(seed ^ 0xfeed_f00d);
    coordinates(shape)
        .into_iter()
        .map(|c| {
            let v = V::random(&mut rng);
            (c, v)
        })
        .collect()
}

/// The density of a secondary operand: a deterministic mix of [`DENSITIES`]
/// so that operands of one case differ in sparsity.
pub fn other_density(density: f64, seed: u64, operand: u64) -> f64 {
    let at = DENSITIES.iter().position(|&d| d == density).unwrap_or(0);
    DENSITIES[(at + (seed.wrapping_add(operand) % 4) as usize) % 4]
}

/// Builds a tensor of any format from entries, panicking with context on error.
pub fn build<V: Value, L: Levels, O: ModeOrder>(
    shape: &[usize],
    entries: &[(Vec<usize>, V)],
) -> Tensor<V, L, O> {
    Tensor::<V, L, O>::from_entries(shape, entries.iter().map(|(c, v)| (c.as_slice(), *v)))
        .unwrap_or_else(|e| {
            panic!(
                "from_entries({shape:?}) into {} failed: {e}",
                std::any::type_name::<Tensor<V, L, O>>()
            )
        })
}

/// A dense oracle tensor: a logical shape and row-major values.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseT<V> {
    /// Logical shape.
    pub shape: Vec<usize>,
    /// Row-major values.
    pub data: Vec<V>,
}

impl<V: Value> DenseT<V> {
    /// The zero tensor of `shape`.
    pub fn zeros(shape: &[usize]) -> Self {
        DenseT {
            shape: shape.to_vec(),
            data: vec![V::zero(); shape.iter().product()],
        }
    }

    /// The tensor holding `entries` (duplicates summed).
    pub fn from_entries(shape: &[usize], entries: &[(Vec<usize>, V)]) -> Self {
        let mut t = Self::zeros(shape);
        for (c, v) in entries {
            t.add(c, *v);
        }
        t
    }

    /// The row-major offset of `c`; panics when out of range.
    pub fn offset(&self, c: &[usize]) -> usize {
        assert_eq!(c.len(), self.shape.len(), "coordinate order");
        c.iter().zip(&self.shape).fold(0, |at, (&x, &n)| {
            assert!(x < n, "coordinate {c:?} outside {:?}", self.shape);
            at * n + x
        })
    }

    /// The value at `c`.
    pub fn get(&self, c: &[usize]) -> V {
        self.data[self.offset(c)]
    }

    /// Sets the value at `c`.
    pub fn set(&mut self, c: &[usize], v: V) {
        let at = self.offset(c);
        self.data[at] = v;
    }

    /// Adds `v` at `c`.
    pub fn add(&mut self, c: &[usize], v: V) {
        let at = self.offset(c);
        self.data[at] = self.data[at] + v;
    }

    /// The size of mode `k`.
    pub fn dim(&self, k: usize) -> usize {
        self.shape[k]
    }
}

/// Whether `actual` is within relative tolerance `tol` of `expected`
/// (exactly equal for exact types; an infinity or NaN only matches itself).
pub fn close<V: TestValue>(actual: V, expected: V, tol: f64) -> bool {
    if V::EXACT {
        return actual == expected;
    }
    let (a, e) = (actual.to_f64(), expected.to_f64());
    // Equal infinities are close (their difference is NaN), and so are two NaNs.
    if a == e || (a.is_nan() && e.is_nan()) {
        return true;
    }
    if a.is_nan() || e.is_nan() {
        return false;
    }
    (a - e).abs() <= tol * a.abs().max(e.abs()).max(1.0)
}

/// Asserts that the row-major `actual` matches `expected` within relative
/// tolerance `tol`, naming the first mismatching coordinate and the case.
pub fn assert_close<V: TestValue>(actual: &[V], expected: &DenseT<V>, tol: f64, case: impl Debug) {
    assert_eq!(
        actual.len(),
        expected.data.len(),
        "{case:?}: output has {} components, the oracle {} (shape {:?})",
        actual.len(),
        expected.data.len(),
        expected.shape
    );
    let coords = coordinates(&expected.shape);
    let bad = actual
        .iter()
        .zip(&expected.data)
        .position(|(&a, &e)| !close(a, e, tol));
    if let Some(at) = bad {
        let count = actual
            .iter()
            .zip(&expected.data)
            .filter(|(&a, &e)| !close(a, e, tol))
            .count();
        panic!(
            "{case:?}: first mismatch at {:?} of shape {:?}: kernel {} vs oracle {} \
             ({count} mismatches in {} components)",
            coords[at],
            expected.shape,
            actual[at],
            expected.data[at],
            actual.len()
        );
    }
}

/// Asserts that a scalar result matches within relative tolerance `tol`.
pub fn assert_scalar_close<V: TestValue>(actual: V, expected: V, tol: f64, case: impl Debug) {
    assert!(
        close(actual, expected, tol),
        "{case:?}: kernel {actual} vs oracle {expected}"
    );
}

/// Calls `f(density, seed)` for every density of [`DENSITIES`] and seed of [`SEEDS`].
pub fn sweep(mut f: impl FnMut(f64, u64)) {
    for density in DENSITIES {
        for seed in SEEDS {
            f(density, seed);
        }
    }
}

/// A seed derived from a case seed and a shape, so that every shape draws
/// fresh entries.
pub fn case_seed(seed: u64, shape: &[usize], operand: u64) -> u64 {
    shape.iter().fold(
        seed.wrapping_mul(31)
            .wrapping_add(operand.wrapping_mul(0x9e37)),
        |h, &n| h.wrapping_mul(1_000_003).wrapping_add(n as u64),
    )
}

/// The coordinates a tensor stores, in order (a sparse output's pattern).
pub fn stored<V: Value, L: Levels, O: ModeOrder>(t: &Tensor<V, L, O>) -> Vec<Vec<usize>> {
    t.entries().into_iter().map(|(c, _)| c).collect()
}

/// Re-validates a kernel's output through the validating constructor.
pub fn revalidate<V: Value, L: Levels + Clone, O: ModeOrder>(t: &Tensor<V, L, O>) {
    let again = Tensor::<V, L, O>::from_levels(t.shape(), t.levels().clone(), t.vals().to_vec());
    assert!(again.is_ok(), "output is invalid: {again:?}");
}

/// Asserts that a parallel kernel's sparse output equals the serial kernel's (pattern, and
/// values bit for bit) and passes validation.
pub fn assert_same_output<L: Levels + Clone, O: ModeOrder>(
    got: &Tensor<f64, L, O>,
    want: &Tensor<f64, L, O>,
    case: impl Debug,
) {
    assert_eq!(stored(got), stored(want), "{case:?}");
    assert_eq!(float_bits(got.vals()), float_bits(want.vals()), "{case:?}");
    revalidate(got);
}

/// `y = A x` over any value type.
pub fn matvec<V: TestValue>(a: &DenseT<V>, x: &DenseT<V>) -> DenseT<V> {
    let mut y = DenseT::zeros(&[a.dim(0)]);
    for i in 0..a.dim(0) {
        let mut s = V::zero();
        for j in 0..a.dim(1) {
            s = s + a.get(&[i, j]) * x.get(&[j]);
        }
        y.set(&[i], s);
    }
    y
}

/// `C = A B` over dense oracle matrices, written straightforwardly.
pub fn matmul(a: &DenseT<f64>, b: &DenseT<f64>) -> DenseT<f64> {
    let (m, k, n) = (a.dim(0), a.dim(1), b.dim(1));
    let mut c = DenseT::zeros(&[m, n]);
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for l in 0..k {
                s += a.get(&[i, l]) * b.get(&[l, j]);
            }
            c.set(&[i, j], s);
        }
    }
    c
}

/// The oracle of an element-wise `f(a, b)` over two dense tensors of one shape.
pub fn elementwise(a: &DenseT<f64>, b: &DenseT<f64>, f: impl Fn(f64, f64) -> f64) -> DenseT<f64> {
    let mut out = DenseT::zeros(&a.shape);
    for c in coordinates(&a.shape) {
        out.set(&c, f(a.get(&c), b.get(&c)));
    }
    out
}

/// The `k`-th matrix operand's random entries of one case (`k > 0` at another density).
pub fn operand_entries(shape: [usize; 2], density: f64, seed: u64, k: u64) -> Entries<f64> {
    let density = if k == 0 {
        density
    } else {
        other_density(density, seed, k)
    };
    random_entries(&shape, density, case_seed(seed, &shape, k))
}

/// A dense vector of `n` non-zero random values, as a `Dense1` and as its oracle.
pub fn dense_vec(n: usize, seed: u64) -> (Tensor<f64, (Dense,)>, DenseT<f64>) {
    let e = nonzero_entries(&[n], seed);
    (build(&[n], &e), DenseT::from_entries(&[n], &e))
}

/// A set of coordinates: a sparse output's stored pattern, or an iteration space.
pub type Pattern = std::collections::BTreeSet<Vec<usize>>;

/// The coordinates of `entries`.
pub fn pattern<V>(entries: &[(Vec<usize>, V)]) -> Pattern {
    entries.iter().map(|(c, _)| c.clone()).collect()
}

/// Checks a sparse output: its values against the oracle, its stored pattern against
/// `space` (exactly the iteration space's points: no explicit zeros beyond them, none
/// missing), and its validity.
pub fn check_sparse_output<L: Levels + Clone, O: ModeOrder>(
    out: &Tensor<f64, L, O>,
    want: &DenseT<f64>,
    space: &Pattern,
    case: impl Debug,
) {
    assert_close(&out.to_dense(), want, f64::TOL, &case);
    let got: Pattern = stored(out).into_iter().collect();
    assert_eq!(&got, space, "stored pattern of {case:?}");
    revalidate(out);
}

/// The splits a parallel kernel test runs under: tasks of 1, 2 and 3 rows (or positions),
/// and the default (`None`).
pub const SPLITS: [Option<usize>; 4] = [Some(1), Some(2), Some(3), None];

/// Runs `f` with tasks of at least `min` rows, or the default split for `None`.
pub fn with_split<R>(min: Option<usize>, f: impl FnOnce() -> R) -> R {
    match min {
        Some(m) => sparse_runtime::parallel::with_min_rows(m, f),
        None => f(),
    }
}

/// The bit patterns of float values, to compare results bit for bit (NaN included).
pub fn float_bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// `start` plus `terms` in the order a float sum over a strip-mined loop adds them
/// (`sparse_core::lane_sums`): the terms of the whole strips of 8 into a partial sum per lane
/// (`k % 8`, each from `-0.0`), those added by halves (lanes `l` and `l + 4`, then `l` and
/// `l + 2`, then the two left) onto `start`, then the terms past the last whole strip in order.
pub fn lane_order_sum(start: f64, terms: &[f64]) -> f64 {
    let whole = terms.len() / 8 * 8;
    let mut lanes = [-0.0f64; 8];
    for (k, t) in terms[..whole].iter().enumerate() {
        lanes[k % 8] += t;
    }
    let [l0, l1, l2, l3, l4, l5, l6, l7] = lanes;
    let halves = ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7));
    terms[whole..].iter().fold(start + halves, |t, x| t + x)
}

/// `n` float values of magnitude up to 1000 from `seed`, irregular enough that sums of them
/// round differently in different orders.
pub fn wave(n: usize, seed: u64) -> Vec<f64> {
    (0..n)
        .map(|x| ((x as u64 * 31 + seed) as f64 * 0.61).sin() * 1e3)
        .collect()
}

/// The operands of an SDDMM `a(i,j) = b(i,j) * c(i,k) * d(j,k)` with `b` an `m x n` CSR of
/// the case's density and seed and `c`, `d` dense of `r` columns ([`wave`] values): `b`'s
/// entries, `b`, and the values and matrices of `c` and `d`.
pub struct SddmmCase {
    pub entries: Entries<f64>,
    pub b: Tensor<f64, (Dense, sparse_runtime::Compressed<u32>)>,
    pub cv: Vec<f64>,
    pub dv: Vec<f64>,
    pub c: Tensor<f64, (Dense, Dense)>,
    pub d: Tensor<f64, (Dense, Dense)>,
}

impl SddmmCase {
    pub fn new([m, n, r]: [usize; 3], density: f64, seed: u64) -> Self {
        let entries = random_entries::<f64>(&[m, n], density, seed);
        let b = build(&[m, n], &entries);
        let (cv, dv) = (wave(m * r, seed), wave(n * r, seed + 9));
        let dense = |rows: usize, v: &[f64]| {
            Tensor::from_levels(&[rows, r], (Dense::new(rows), Dense::new(r)), v.to_vec())
                .expect("a dense matrix")
        };
        let (c, d) = (dense(m, &cv), dense(n, &dv));
        SddmmCase {
            entries,
            b,
            cv,
            dv,
            c,
            d,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rng_is_reproducible_and_uniformish() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(7).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut r = Rng::new(0);
        let mean = (0..10_000).map(|_| r.unit()).sum::<f64>() / 10_000.0;
        assert!((mean - 0.5).abs() < 0.02, "{mean}");
    }

    #[test]
    fn random_entries_respect_shape_density_and_empty_slices() {
        assert!(random_entries::<f64>(&[0, 5], 1.0, 1).is_empty());
        assert!(random_entries::<f64>(&[5, 5], 0.0, 1).is_empty());
        assert_eq!(random_entries::<f64>(&[4, 5], 1.0, 1).len(), 20);
        let e = random_entries::<i64>(&[30, 20], 0.3, 3);
        assert!(e.iter().all(|(c, v)| c[0] < 30 && c[1] < 20 && *v != 0));
        let empty_row = (0..30).any(|r| e.iter().all(|(c, _)| c[0] != r));
        let empty_col = (0..20).any(|k| e.iter().all(|(c, _)| c[1] != k));
        assert!(empty_row && empty_col);
    }

    #[test]
    fn assert_close_names_the_coordinate() {
        let expected = DenseT::from_entries(&[2, 2], &[(vec![1, 0], 1.0)]);
        assert_close(&[0.0, 0.0, 1.0, 0.0], &expected, 1e-12, "ok");
        let err = std::panic::catch_unwind(|| {
            assert_close(&[0.0, 0.0, 1.5, 0.0], &expected, 1e-12, "bad")
        })
        .unwrap_err();
        let msg = err.downcast_ref::<String>().unwrap();
        assert!(msg.contains("[1, 0]"), "{msg}");
    }
}
