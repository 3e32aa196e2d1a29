//! The dense reference evaluator: values, magnitudes (for float tolerances), fill values and
//! the presence (sparsity pattern) of every output coordinate, by brute force over the placed
//! sums, as the language defines them (`TESTING.md`, "Sparse array programming"): every tensor
//! is dense with its fill value at the components it does not store; a call is its function
//! applied componentwise; a reduction folds over every coordinate of its variable, fill values
//! included. Fill values and presence follow the definition's own rules, not the compiler's.

use crate::data::{coordinates, Entries};
use crate::functions::{Fill, Func, Reducer};
use crate::kernel::{Bound, Kernel, Op, ParamKind, ValTy};
use crate::semantics::{place, Placed};
use std::cell::Cell;
use std::collections::HashMap;
use std::fmt::Write;

/// One output coordinate of the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Logical coordinate (empty for a scalar output).
    pub coord: Vec<usize>,
    /// The right side's value there; `None` if undefined (division by zero, i64 overflow, a
    /// float result too close to a discontinuity of a comparison to be decided, or a value
    /// where the sparse semantics and the dense one part: `inf * 0`).
    pub value: Option<f64>,
    /// The scale of the value's rounding error: the right side evaluated on absolute values
    /// with `-` as `+`, and through functions by their derivatives.
    pub mag: f64,
    /// Whether the right side is present there (the definition's presence).
    pub present: bool,
}

/// A stored input as read back from the runtime: its shape and stored entries.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    /// Logical shape.
    pub shape: Vec<usize>,
    /// Stored entries (explicit zeros included); a NaN value is undefined (an earlier
    /// statement of a sequence divided by zero or overflowed).
    pub entries: Entries,
    /// Per entry, its magnitude (the scale of its rounding error: an earlier statement's
    /// [`Point::mag`]); empty: each value's absolute value.
    pub mags: Vec<f64>,
    /// The tensor's fill value: the value of every component it does not store.
    pub fill: f64,
}

/// Arithmetic of the reference: exact `i64` (checked) or `f64`.
trait Num: Copy + PartialEq {
    /// Exact arithmetic (no rounding error to bound).
    const EXACT: bool;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn zero() -> Self;
    fn op(self, op: Op, o: Self) -> Option<Self>;
    fn neg(self) -> Option<Self>;
    fn call(f: Func, args: &[Self]) -> Option<Self>;
    /// An operator over fill values: as over values, but a float division by zero is the
    /// float's (`f(fills)` of the definition: `-1 / 0` is `-inf`).
    fn fill_op(self, op: Op, o: Self) -> Option<Self> {
        self.op(op, o)
    }
    fn constant(c: Fill, vt: ValTy) -> Self {
        Self::from_f64(c.value(vt))
    }
}

impl Num for f64 {
    const EXACT: bool = false;
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn zero() -> Self {
        0.0
    }
    fn op(self, op: Op, o: Self) -> Option<Self> {
        match op {
            Op::Add => Some(self + o),
            Op::Sub => Some(self - o),
            Op::Mul => Some(self * o),
            Op::Div if o == 0.0 => None,
            Op::Div => Some(self / o),
        }
    }
    fn neg(self) -> Option<Self> {
        Some(-self)
    }
    fn call(f: Func, args: &[Self]) -> Option<Self> {
        Some(f.apply_f64(args))
    }
    fn fill_op(self, op: Op, o: Self) -> Option<Self> {
        match op {
            Op::Div => Some(self / o),
            _ => self.op(op, o),
        }
    }
}

impl Num for i64 {
    const EXACT: bool = true;
    fn from_f64(x: f64) -> Self {
        x as i64
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn zero() -> Self {
        0
    }
    fn op(self, op: Op, o: Self) -> Option<Self> {
        match op {
            Op::Add => self.checked_add(o),
            Op::Sub => self.checked_sub(o),
            Op::Mul => self.checked_mul(o),
            Op::Div => self.checked_div(o),
        }
    }
    fn neg(self) -> Option<Self> {
        self.checked_neg()
    }
    fn call(f: Func, args: &[Self]) -> Option<Self> {
        f.apply_i64(args)
    }
}

/// Equal as fill values: by value, and NaN equal to NaN.
fn same<T: Num>(a: T, b: T) -> bool {
    a == b || (a.to_f64().is_nan() && b.to_f64().is_nan())
}

/// A tensor as a dense array (its fill value where it stores nothing) plus a stored-mask.
struct DenseIn<T> {
    shape: Vec<usize>,
    vals: Vec<T>,
    mags: Vec<f64>,
    undefined: Vec<bool>,
    stored: Vec<bool>,
    fill: T,
}

impl<T: Num> DenseIn<T> {
    fn new(s: &Stored) -> Self {
        let len: usize = s.shape.iter().product();
        let fill = T::from_f64(s.fill);
        let mut d = DenseIn {
            shape: s.shape.clone(),
            vals: vec![fill; len],
            mags: vec![magnitude(s.fill); len],
            undefined: vec![false; len],
            stored: vec![false; len],
            fill,
        };
        for (n, (c, v)) in s.entries.iter().enumerate() {
            let at = d.flat(c.iter().copied());
            let first = !d.stored[at];
            if first {
                d.vals[at] = T::zero();
                d.mags[at] = 0.0;
            }
            if v.is_nan() {
                d.undefined[at] = true;
            } else {
                d.vals[at] = d.vals[at].op(Op::Add, T::from_f64(*v)).unwrap_or(T::zero());
            }
            d.mags[at] += s.mags.get(n).copied().unwrap_or(magnitude(*v));
            d.stored[at] = true;
        }
        d
    }

    fn flat(&self, c: impl Iterator<Item = usize>) -> usize {
        c.zip(&self.shape).fold(0, |at, (c, &n)| at * n + c)
    }
}

/// `|x|` as a rounding-error scale: an infinity is exact (its own scale is 0).
fn magnitude(x: f64) -> f64 {
    if x.is_finite() {
        x.abs()
    } else {
        0.0
    }
}

/// An error scale, with what is not finite dropped.
fn finite(m: f64) -> f64 {
    if m.is_finite() {
        m
    } else {
        0.0
    }
}

/// `|d| * m`, 0 when `m` is (an exact operand contributes no error, even where `d` is not
/// finite).
fn term(d: f64, m: f64) -> f64 {
    if m == 0.0 {
        0.0
    } else {
        finite(d.abs() * m)
    }
}

struct Eval<'a, T> {
    k: &'a Kernel,
    tensors: Vec<Option<DenseIn<T>>>,
    scalars: &'a [f64],
    /// Per scalar, its magnitude (empty: its absolute value).
    scalar_mags: &'a [f64],
    sizes: &'a [usize],
    /// The fill value of every node of the placed right side, by address.
    fills: HashMap<*const Placed, Option<T>>,
    /// Non-present nodes whose finite value differed from their finite fill value: the
    /// definition contradicts itself there (a property the generator promised that does
    /// not hold), which the generator's tests require never happens.
    inconsistent: Cell<usize>,
    /// [`Eval::decided`] of the nodes asked, by address.
    decided: std::cell::RefCell<HashMap<*const Placed, bool>>,
}

/// Value (None: undefined), magnitude, presence.
type R<T> = (Option<T>, f64, bool);

impl<'a, T: Num> Eval<'a, T> {
    /// The fill value of every node below `p` (`None`: the node has no fill value, NONE).
    fn compute_fills(&mut self, p: &Placed) -> Option<T> {
        let vt = self.k.vt;
        let fill = match p {
            Placed::Access { param, .. } => Some(
                self.tensors[*param]
                    .as_ref()
                    .expect("an accessed input")
                    .fill,
            ),
            Placed::Scalar { .. } | Placed::Lit(_) => None,
            Placed::Neg(b) => self.compute_fills(b).and_then(T::neg),
            Placed::Bin(op, l, r) => {
                let fills = [self.compute_fills(l), self.compute_fills(r)];
                let ann = operator_annihilators(*op);
                // A divisor whose fill value is decided to be 0 is dense: the quotient is
                // present everywhere and has no fill value.
                let by_zero = *op == Op::Div && fills[1] == Some(T::zero()) && self.decided(r);
                // Only a fill value the compiler decides annihilates (`2 * (absdiff(c, x) *
                // d)` over 0-filled `c`, `x` has no fill value: `absdiff(0, 0)` is not
                // evaluated, and the literal has none).
                let decided = [self.decided_fill(l), self.decided_fill(r)];
                annihilated(&decided, &ann, vt).or_else(|| {
                    if by_zero {
                        return None;
                    }
                    fills[0]?.fill_op(*op, fills[1]?)
                })
            }
            Placed::Call(f, args) => {
                let fills: Vec<Option<T>> = args.iter().map(|a| self.compute_fills(a)).collect();
                let ann: Vec<Option<Fill>> = (0..args.len()).map(|n| f.annihilator(n)).collect();
                let direct = || {
                    let all: Option<Vec<T>> = fills.iter().copied().collect();
                    T::call(*f, &all?)
                };
                if f.iterate(&vec![false; args.len()]).is_some() {
                    direct()
                } else {
                    let decided: Vec<Option<T>> =
                        args.iter().map(|a| self.decided_fill(a)).collect();
                    annihilated(&decided, &ann, vt).or_else(direct)
                }
            }
            // A reduction has its identity as its fill value where the compiler decides that
            // its body's is the identity; otherwise it covers its dimension (NONE).
            Placed::Sum(_, body) => match self.compute_fills(body) {
                Some(f) if f == T::zero() && self.decided(body) => Some(T::zero()),
                _ => None,
            },
            Placed::Reduce(by, _, body) => {
                let identity = T::constant(by.identity(), vt);
                match self.compute_fills(body) {
                    Some(f) if same(f, identity) && self.decided(body) => Some(identity),
                    _ => None,
                }
            }
        };
        self.fills.insert(p as *const Placed, fill);
        fill
    }

    fn fill(&self, p: &Placed) -> Option<T> {
        self.fills.get(&(p as *const Placed)).copied().flatten()
    }

    /// Whether the compiler decides the node's fill value as a constant, by folding without
    /// evaluating a function it cannot evaluate exactly (TESTING.md, "Fill values the
    /// compiler decides"): an access's; an annihilator, where an argument whose fill value
    /// is decided to be it annihilates; `-c` of a decided number; the prelude's boolean
    /// functions, comparisons, `min`, `max` and `abs` of decided values (not a zero against
    /// `-inf`, which is 0 in unsigned types; `abs` of a number); a binary node where an
    /// argument is decided to be an identity (or both are equal under `min`/`max`), to the
    /// other's; `0 - 0`; a reduction's identity over a body decided to be it. The fills of
    /// every node below `p` must be computed.
    fn decided(&self, p: &Placed) -> bool {
        if let Some(&d) = self.decided.borrow().get(&(p as *const Placed)) {
            return d;
        }
        let d = self.decide(p);
        self.decided.borrow_mut().insert(p as *const Placed, d);
        d
    }

    /// The fill value of a node where the compiler decides it (a region is narrowed only by
    /// an argument whose fill value is decided to be an annihilator, as the compiler folds).
    fn decided_fill(&self, p: &Placed) -> Option<T> {
        self.fill(p).filter(|_| self.decided(p))
    }

    fn decide(&self, p: &Placed) -> bool {
        let vt = self.k.vt;
        let infinite =
            |x: T| same(x, T::constant(Fill::Inf, vt)) || same(x, T::constant(Fill::NegInf, vt));
        let is = |x: &Placed, c: Option<Fill>| {
            self.decided(x)
                && matches!((self.fill(x), c), (Some(f), Some(c)) if same(f, T::constant(c, vt)))
        };
        // A binary node over decided arguments folds where an argument is an identity (or
        // both are equal under an idempotent function), to the other argument's fill value.
        let folds = |l: &Placed, r: &Placed, id: [Option<Fill>; 2], idempotent: bool, sub: bool| {
            let (Some(a), Some(b)) = (self.fill(l), self.fill(r)) else {
                return false;
            };
            let at = |n: usize, v: T| id[n].is_some_and(|i| same(v, T::constant(i, vt)));
            let folded = if (idempotent && same(a, b)) || at(1, b) {
                Some(a)
            } else if at(0, a) && !sub {
                Some(b)
            } else if sub && a == T::zero() && b == T::zero() {
                Some(a)
            } else {
                None
            };
            self.decided(l)
                && self.decided(r)
                && folded.is_some_and(|f| self.fill(p).is_some_and(|d| same(d, f)))
        };
        match p {
            Placed::Access { .. } => true,
            Placed::Neg(x) => self.decided(x) && self.fill(x).is_some_and(|f| !infinite(f)),
            Placed::Bin(op, l, r) => {
                let ann = operator_annihilators(*op);
                let (zero, one) = (Some(Fill::ZERO), Some(Fill::ONE));
                let id = match op {
                    Op::Add => [zero, zero],
                    Op::Sub => [None, zero],
                    Op::Mul => [one, one],
                    Op::Div => [None, one],
                };
                // `0 - b` is `-b`, exact for a number, as the compiler folds it.
                let negation = *op == Op::Sub
                    && is(l, Some(Fill::ZERO))
                    && self.decided(r)
                    && self.fill(r).is_some_and(|f| !infinite(f));
                is(l, ann[0]) || is(r, ann[1]) || negation || folds(l, r, id, false, *op == Op::Sub)
            }
            Placed::Call(f, args) => {
                if f.iterate(&vec![false; args.len()]).is_some() {
                    return false;
                }
                if args
                    .iter()
                    .enumerate()
                    .any(|(n, a)| is(a, f.annihilator(n)))
                {
                    return true;
                }
                let fills: Option<Vec<T>> = args.iter().map(|a| self.fill(a)).collect();
                let exact = fills.as_ref().is_some_and(|v| match f {
                    Func::And | Func::Or | Func::Xor | Func::Not => true,
                    Func::Abs => !infinite(v[0]),
                    Func::Eq
                    | Func::Ne
                    | Func::Lt
                    | Func::Le
                    | Func::Gt
                    | Func::Ge
                    | Func::Min
                    | Func::Max => {
                        let neg_inf = |x: T| same(x, T::constant(Fill::NegInf, vt));
                        let zero = |x: T| x == T::zero();
                        !(zero(v[0]) && neg_inf(v[1]) || neg_inf(v[0]) && zero(v[1]))
                    }
                    _ => false,
                });
                if exact && args.iter().all(|a| self.decided(a)) {
                    return true;
                }
                let idempotent = matches!(f, Func::Min | Func::Max);
                args.len() == 2
                    && folds(
                        &args[0],
                        &args[1],
                        [identity_of(*f, 0), identity_of(*f, 1)],
                        idempotent,
                        false,
                    )
            }
            Placed::Sum(_, b) => is(b, Some(Fill::ZERO)),
            Placed::Reduce(by, _, b) => is(b, Some(by.identity())),
            Placed::Scalar { .. } | Placed::Lit(_) => false,
        }
    }

    /// A float value within its rounding error of zero: its truth is not decided.
    fn undecided(&self, x: T, m: f64) -> bool {
        !T::EXACT && m > 0.0 && x.to_f64().abs() <= self.k.vt.tolerance() * m
    }

    fn eval(&self, p: &Placed, env: &mut [usize]) -> R<T> {
        let (mut v, m, present) = self.eval_node(p, env);
        // Beyond `f32`'s range an `f32` kernel has an infinity where `f64` has a number.
        if self.k.vt == ValTy::F32 && v.is_some_and(|x| x.to_f64().abs() > f64::from(f32::MAX)) {
            v = v.filter(|x| !x.to_f64().is_finite());
        }
        if present {
            return (v, m, present);
        }
        // Where a node is not present its value is its fill value, by the definition; a
        // value that differs is a place where the dense semantics and the sparse one part.
        match (v, self.fill(p)) {
            (Some(x), Some(f)) if !same(x, f) && !close(self.k.vt, x.to_f64(), f.to_f64(), m) => {
                let (xf, ff) = (x.to_f64(), f.to_f64());
                if xf.is_finite() && ff.is_finite() {
                    self.inconsistent.set(self.inconsistent.get() + 1);
                }
                (None, m, present)
            }
            _ => (v, m, present),
        }
    }

    fn eval_node(&self, p: &Placed, env: &mut [usize]) -> R<T> {
        match p {
            Placed::Access { param, vars } => {
                let t = self.tensors[*param].as_ref().expect("an accessed input");
                // A window reads component `lo + step * i` of its mode.
                let at = t.flat(vars.iter().enumerate().map(
                    |(m, &v)| match self.k.window(*param, m) {
                        None => env[v],
                        Some(w) => {
                            let lo = match w.lo {
                                None => 0,
                                Some(Bound::Lit(n)) => n,
                                Some(Bound::Param(p)) => self.scalars[p] as usize,
                            };
                            lo + w.step * env[v]
                        }
                    },
                ));
                let v = Some(t.vals[at]).filter(|_| !t.undefined[at]);
                (v, t.mags[at], t.stored[at])
            }
            Placed::Scalar { param } => {
                let v = self.scalars[*param];
                let mag = self.scalar_mags.get(*param).copied().unwrap_or(v.abs());
                (Some(T::from_f64(v)).filter(|_| !v.is_nan()), mag, true)
            }
            Placed::Lit(v) => (Some(T::from_f64(*v)), v.abs(), true),
            Placed::Neg(b) => {
                let (v, m, p) = self.eval(b, env);
                (v.and_then(T::neg), m, p)
            }
            Placed::Bin(op, l, r) => {
                let (lv, lm, lp) = self.eval(l, env);
                let (rv, rm, rp) = self.eval(r, env);
                let v = match (lv, rv) {
                    // A float divisor within its rounding error of zero (a difference of
                    // nearly equal values an earlier statement computed) gives a quotient of
                    // any size: undefined.
                    (_, Some(b))
                        if *op == Op::Div && !T::EXACT && b.to_f64().abs() <= 1e-3 * rm =>
                    {
                        None
                    }
                    (Some(a), Some(b)) => a.op(*op, b),
                    _ => None,
                };
                let m = match op {
                    Op::Add | Op::Sub => finite(lm + rm),
                    Op::Mul => finite(lm * rm),
                    // The error of a / b: |da| / |b| + |a| |db| / b².
                    Op::Div => match (lv, rv) {
                        (Some(a), Some(b)) if b.to_f64() != 0.0 => {
                            let (a, b) = (a.to_f64().abs(), b.to_f64().abs());
                            finite(lm / b + a * rm / (b * b))
                        }
                        _ => f64::INFINITY,
                    },
                };
                let fills = [self.decided_fill(l), self.decided_fill(r)];
                let present = region(&fills, &operator_annihilators(*op), &[lp, rp], self.k.vt);
                (v, m, present)
            }
            Placed::Call(f, args) => {
                let evaluated: Vec<R<T>> = args.iter().map(|a| self.eval(a, env)).collect();
                let presence: Vec<bool> = evaluated.iter().map(|e| e.2).collect();
                let fills: Vec<Option<T>> = args.iter().map(|a| self.fill(a)).collect();
                if let Some(inside) = f.iterate(&presence) {
                    if !inside {
                        // Outside its declared region the function's value is that of the
                        // arguments' fill values.
                        let fills: Option<Vec<T>> = fills.iter().copied().collect();
                        let v = fills.and_then(|a| T::call(*f, &a));
                        return (v, 0.0, false);
                    }
                    let (v, m) = self.apply(*f, &evaluated);
                    return (v, m, true);
                }
                let ann: Vec<Option<Fill>> = (0..args.len()).map(|n| f.annihilator(n)).collect();
                let decided: Vec<Option<T>> = args.iter().map(|a| self.decided_fill(a)).collect();
                let present = region(&decided, &ann, &presence, self.k.vt);
                let (v, m) = self.apply(*f, &evaluated);
                (v, m, present)
            }
            Placed::Sum(vars, body) => {
                let mut acc = Some(T::zero());
                let (mut mag, mut any) = (0.0, false);
                let shape: Vec<usize> = vars.iter().map(|&v| self.sizes[v]).collect();
                let points = coordinates(&shape);
                for c in &points {
                    for (&v, &x) in vars.iter().zip(c) {
                        env[v] = x;
                    }
                    let (v, m, p) = self.eval(body, env);
                    acc = match (acc, v) {
                        (Some(a), Some(b)) => a.op(Op::Add, b),
                        _ => None,
                    };
                    mag += m;
                    any |= p;
                }
                // Present where the body is, if its fill value is 0 (decided); else, covering
                // its dimension, everywhere (0 over an empty one).
                let present = if self.fill(p).is_some() { any } else { true };
                (acc, finite(mag), present)
            }
            Placed::Reduce(by, var, body) => {
                let vt = self.k.vt;
                let identity = T::constant(by.identity(), vt);
                let mut acc: R<T> = (Some(identity), magnitude(identity.to_f64()), false);
                let mut any = false;
                for x in 0..self.sizes[*var] {
                    env[*var] = x;
                    let e = self.eval(body, env);
                    any |= e.2;
                    let (v, m) = match by.func() {
                        Some(f) => self.apply(f, &[acc, e]),
                        None => {
                            let op = if *by == Reducer::Prod {
                                Op::Mul
                            } else {
                                Op::Add
                            };
                            let v = match (acc.0, e.0) {
                                (Some(a), Some(b)) => a.op(op, b),
                                _ => None,
                            };
                            let m = if op == Op::Mul {
                                acc.1 * e.1
                            } else {
                                acc.1 + e.1
                            };
                            (v, finite(m))
                        }
                    };
                    acc = (v, m, false);
                }
                // Present where the body is, if its fill value is the identity (decided);
                // else everywhere.
                let present = if self.fill(p).is_some() { any } else { true };
                (acc.0, acc.1, present)
            }
        }
    }

    /// A function of evaluated arguments: its value (undefined if an argument is, or if a
    /// float argument is too close to where the function jumps for its result to be
    /// decided) and the scale of the value's rounding error.
    fn apply(&self, f: Func, args: &[R<T>]) -> (Option<T>, f64) {
        let values: Option<Vec<T>> = args.iter().map(|a| a.0).collect();
        let Some(values) = values else {
            return (None, 0.0);
        };
        let Some(r) = T::call(f, &values) else {
            return (None, 0.0);
        };
        let x: Vec<f64> = values.iter().map(|v| v.to_f64()).collect();
        let m: Vec<f64> = args.iter().map(|a| a.1).collect();
        let rf = r.to_f64();
        if T::EXACT {
            return (Some(r), 0.0);
        }
        let undecided = |n: usize| self.undecided(values[n], m[n]);
        let mag = match f {
            Func::Min | Func::Max => {
                // Nearly equal arguments: either may be chosen.
                let tie = (x[0] - x[1]).abs() <= self.k.vt.tolerance() * (m[0] + m[1]);
                if tie {
                    m[0].max(m[1])
                } else if same(r, values[0]) {
                    m[0]
                } else {
                    m[1]
                }
            }
            Func::And | Func::Or | Func::Xor => {
                if undecided(0) || undecided(1) {
                    return (None, 0.0);
                }
                0.0
            }
            Func::Not => {
                if undecided(0) {
                    return (None, 0.0);
                }
                0.0
            }
            Func::Unless => {
                if undecided(1) {
                    return (None, 0.0);
                }
                if x[1] != 0.0 {
                    0.0
                } else {
                    m[0]
                }
            }
            Func::Eq | Func::Ne | Func::Lt | Func::Le | Func::Gt | Func::Ge => {
                let scale = m[0] + m[1];
                if scale > 0.0 && (x[0] - x[1]).abs() <= self.k.vt.tolerance() * scale {
                    return (None, 0.0);
                }
                0.0
            }
            Func::Abs => m[0],
            Func::Sqrt => {
                if undecided(0) {
                    return (None, 0.0);
                }
                if rf > 0.0 {
                    term(0.5 / rf, m[0]) + rf
                } else {
                    0.0
                }
            }
            Func::Exp => finite(rf * (1.0 + m[0])),
            Func::Pow => {
                if undecided(0) {
                    return (None, 0.0);
                }
                let d_base = x[1] * x[0].powf(x[1] - 1.0);
                let d_exp = if x[0] > 0.0 { rf * x[0].ln() } else { 0.0 };
                magnitude(rf) + term(d_base, m[0]) + term(d_exp, m[1])
            }
            Func::Ldexp => {
                magnitude(rf) + term(x[1].exp2(), m[0]) + term(rf * std::f64::consts::LN_2, m[1])
            }
            Func::Plus => finite(m[0] + m[1]),
            Func::AbsDiff => finite(m[0] + m[1]),
            Func::Skew => finite(2.0 * m[0] + m[1]),
            Func::Scale => finite(m[0] * m[1]),
            Func::Shl | Func::Shr | Func::Gcd => 0.0,
        };
        // A product scales the result by the other factor's magnitude: at least its own.
        (Some(r), mag.max(magnitude(rf)))
    }
}

/// The annihilator of each operand of a built-in operator: `0` for both of `*`, the left one
/// of `/`.
fn operator_annihilators(op: Op) -> [Option<Fill>; 2] {
    match op {
        Op::Mul => [Some(Fill::ZERO), Some(Fill::ZERO)],
        Op::Div => [Some(Fill::ZERO), None],
        Op::Add | Op::Sub => [None, None],
    }
}

/// The annihilator, when some argument's fill value is its annihilator at its position.
fn annihilated<T: Num>(fills: &[Option<T>], ann: &[Option<Fill>], vt: ValTy) -> Option<T> {
    fills.iter().zip(ann).find_map(|(f, a)| {
        let a = T::constant((*a)?, vt);
        (*f).filter(|f| same(*f, a)).map(|_| a)
    })
}

/// The region of a function without a declared formula: the intersection of the arguments
/// whose fill value is their annihilator, if any; else the union of all.
fn region<T: Num>(fills: &[Option<T>], ann: &[Option<Fill>], present: &[bool], vt: ValTy) -> bool {
    let annihilating: Vec<usize> = (0..fills.len())
        .filter(
            |&n| matches!((fills[n], ann[n]), (Some(f), Some(a)) if same(f, T::constant(a, vt))),
        )
        .collect();
    if annihilating.is_empty() {
        present.iter().any(|&p| p)
    } else {
        annihilating.iter().all(|&n| present[n])
    }
}

/// What the reference computes for a single statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Every output coordinate, row-major.
    pub points: Vec<Point>,
    /// The right side's fill value (`None`: it has none, NONE).
    pub fill: Option<f64>,
    /// Nodes where a finite value differed from a finite fill value while not present: the
    /// definition contradicting itself, which only a false promise of the generator causes.
    pub inconsistent: usize,
}

impl Evaluation {
    /// Some present point has an undefined value (an integer overflow, a division by zero).
    pub fn undefined(&self) -> bool {
        self.points.iter().any(|p| p.value.is_none())
    }
}

/// Evaluates the kernel's right side at every output coordinate.
///
/// `tensors[p]` holds input `p`'s stored entries, `scalars[p]` scalar input `p`'s value.
pub fn evaluate(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
) -> Vec<Point> {
    evaluate_with(k, var_sizes, tensors, scalars, &[]).points
}

/// [`evaluate`], with the right side's fill value and the self-consistency count.
pub fn evaluation(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
) -> Evaluation {
    evaluate_with(k, var_sizes, tensors, scalars, &[])
}

/// [`evaluate`] with the magnitudes of the scalars (NaN scalars are undefined).
fn evaluate_with(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
    scalar_mags: &[f64],
) -> Evaluation {
    match k.vt {
        ValTy::I64 => evaluate_as::<i64>(k, var_sizes, tensors, scalars, scalar_mags),
        ValTy::F64 | ValTy::F32 => evaluate_as::<f64>(k, var_sizes, tensors, scalars, scalar_mags),
    }
}

fn evaluate_as<T: Num>(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
    scalar_mags: &[f64],
) -> Evaluation {
    let placed = place(k);
    let mut ev = Eval::<T> {
        k,
        tensors: tensors
            .iter()
            .map(|t| t.as_ref().map(DenseIn::new))
            .collect(),
        scalars,
        scalar_mags,
        sizes: var_sizes,
        fills: HashMap::new(),
        inconsistent: Cell::new(0),
        decided: Default::default(),
    };
    let fill = ev.compute_fills(&placed);
    let out_shape: Vec<usize> = k.out_vars.iter().map(|&v| var_sizes[v]).collect();
    let mut env = vec![0; k.n_vars()];
    let points = coordinates(&out_shape)
        .into_iter()
        .map(|coord| {
            for (&v, &c) in k.out_vars.iter().zip(&coord) {
                env[v] = c;
            }
            let (v, mag, present) = ev.eval(&placed, &mut env);
            Point {
                coord,
                value: v.map(Num::to_f64),
                mag,
                present,
            }
        })
        .collect();
    Evaluation {
        points,
        fill: fill.map(Num::to_f64),
        inconsistent: ev.inconsistent.get(),
    }
}

/// The fill value of a kernel's right side when its inputs have their declared fill values
/// (`None`: NONE), without data.
pub fn rhs_fill(k: &Kernel) -> Option<f64> {
    let placed = place(k);
    match k.vt {
        ValTy::I64 => {
            with_declared_fills::<i64, _>(k, &placed, |ev| ev.fill(&placed).map(Num::to_f64))
        }
        _ => with_declared_fills::<f64, _>(k, &placed, |ev| ev.fill(&placed)),
    }
}

/// Whether every argument of every call with a declared `iterate(..)` formula has a fill
/// value (the formula defines the value outside its region as the function of those).
pub fn iterate_args_have_fills(k: &Kernel) -> bool {
    let placed = place(k);
    with_declared_fills::<f64, _>(k, &placed, |ev| {
        let mut ok = true;
        iterate_fills(&placed, ev, &mut ok);
        ok
    })
}

/// Clears `ok` where a call with a declared formula has an argument without a fill value.
fn iterate_fills(p: &Placed, ev: &Eval<'_, f64>, ok: &mut bool) {
    if let Placed::Call(f, args) = p {
        if f.iterate(&vec![false; args.len()]).is_some() {
            *ok &= args.iter().all(|a| ev.fill(a).is_some());
        }
    }
    match p {
        Placed::Neg(b) | Placed::Sum(_, b) | Placed::Reduce(_, _, b) => iterate_fills(b, ev, ok),
        Placed::Bin(_, l, r) => {
            iterate_fills(l, ev, ok);
            iterate_fills(r, ev, ok);
        }
        Placed::Call(_, args) => args.iter().for_each(|a| iterate_fills(a, ev, ok)),
        _ => {}
    }
}

/// The identity of a function at argument `pos`, as the runtime documents it (only used to
/// avoid drawing output fill values the compiler cannot fold).
fn identity_of(f: Func, pos: usize) -> Option<Fill> {
    match (f, pos) {
        (Func::Min, _) => Some(Fill::Inf),
        (Func::Max, _) => Some(Fill::NegInf),
        (Func::And, _) => Some(Fill::ONE),
        (Func::Or | Func::Xor | Func::Plus | Func::Gcd, _) => Some(Fill::ZERO),
        (Func::Pow, 1) | (Func::Scale, 1) => Some(Fill::ONE),
        (Func::Ldexp | Func::Shl | Func::Shr, 1) => Some(Fill::ZERO),
        _ => None,
    }
}

/// Whether the right side's fill value is a constant without arithmetic on fill values (an
/// access's, an annihilator's, a sum's 0, a reduction's identity, `min`/`max` of equal
/// ones, `-0`), so that the output may declare it: the compiler refuses a declared fill value
/// it can only compute at run time.
pub fn fill_plainly_constant(k: &Kernel) -> bool {
    let placed = place(k);
    with_declared_fills::<f64, _>(k, &placed, |ev| ev.decided(&placed))
}

/// The fill values of `p`, a right side placed for `k` (hidden sums or not), under the
/// declared fill values, without data; `f` asks what it needs of them.
fn with_declared_fills<T: Num, R>(k: &Kernel, p: &Placed, f: impl FnOnce(&Eval<'_, T>) -> R) -> R {
    let tensors: Vec<Option<Stored>> = k
        .params
        .iter()
        .map(|q| {
            q.format().map(|fm| Stored {
                shape: vec![0; fm.order()],
                fill: q.fill.as_ref().map_or(0.0, |f| f.value.value(k.vt)),
                ..Stored::default()
            })
        })
        .collect();
    let scalars = vec![1.0; k.params.len()];
    let sizes = vec![0; k.n_vars()];
    let mut ev = Eval::<T> {
        k,
        tensors: tensors
            .iter()
            .map(|t| t.as_ref().map(DenseIn::new))
            .collect(),
        scalars: &scalars,
        scalar_mags: &[],
        sizes: &sizes,
        fills: HashMap::new(),
        inconsistent: Cell::new(0),
        decided: Default::default(),
    };
    ev.compute_fills(p);
    f(&ev)
}

/// Whether an additive term `p` may run in a loop nest of its own (the split rule, TESTING.md
/// "The oracle"): its fill value is NONE (present everywhere: its nest visits every point) or
/// decided to be 0 (it contributes nothing outside its own loops).
pub fn zero_outside(k: &Kernel, p: &Placed) -> bool {
    with_declared_fills::<f64, _>(k, p, |ev| match ev.fill(p) {
        None => true,
        Some(f) => f == 0.0 && ev.decided(p),
    })
}

/// Whether sum `p` covers its dimensions (its fill value is NONE: its body's fill is not
/// decided to be the identity), so that it is present over an empty dimension.
pub fn covers(k: &Kernel, p: &Placed) -> bool {
    with_declared_fills::<f64, _>(k, p, |ev| ev.fill(p).is_none())
}

/// The calls of a function with a declared `iterate(..)` region that can never hold, since
/// the arguments it needs absent are stored everywhere (TESTING.md, "The oracle"), by
/// function name, for every statement of `k`.
pub fn empty_regions(k: &Kernel) -> Vec<&'static str> {
    let placed = place(k);
    let mut found = Vec::new();
    with_declared_fills(k, &placed, |ev| walk_regions(ev, &placed, &mut found));
    found
}

fn walk_regions(ev: &Eval<'_, f64>, p: &Placed, found: &mut Vec<&'static str>) {
    match p {
        Placed::Neg(b) | Placed::Sum(_, b) | Placed::Reduce(_, _, b) => walk_regions(ev, b, found),
        Placed::Bin(_, l, r) => {
            walk_regions(ev, l, found);
            walk_regions(ev, r, found);
        }
        Placed::Call(f, args) => {
            args.iter().for_each(|a| walk_regions(ev, a, found));
            if f.iterate(&vec![false; args.len()]).is_none() {
                return;
            }
            let everywhere: Vec<bool> = args.iter().map(|a| ev.everywhere(a)).collect();
            let free: Vec<usize> = (0..args.len()).filter(|&n| !everywhere[n]).collect();
            let holds = (0..1usize << free.len()).any(|bits| {
                let mut present = everywhere.clone();
                for (b, &n) in free.iter().enumerate() {
                    present[n] = bits >> b & 1 == 1;
                }
                f.iterate(&present) == Some(true)
            });
            if !holds {
                found.push(f.name());
            }
        }
        Placed::Access { .. } | Placed::Scalar { .. } | Placed::Lit(_) => {}
    }
}

impl<T: Num> Eval<'_, T> {
    /// Whether a node is present at every coordinate whatever its operands store: a dense
    /// access, a literal or scalar, a reduction without a fill value (covering), an operator
    /// or call whose region holds over such arguments alone (the region: the declared
    /// formula, else the AND of the arguments whose fill value is decided to be their
    /// annihilator, else the OR of all). Fills must be computed.
    fn everywhere(&self, p: &Placed) -> bool {
        let vt = self.k.vt;
        let region = |args: &[&Placed], ann: &[Option<Fill>]| {
            let present: Vec<bool> = args.iter().map(|a| self.everywhere(a)).collect();
            let annihilating: Vec<usize> = (0..args.len())
                .filter(|&n| {
                    self.decided(args[n])
                        && matches!((self.fill(args[n]), ann[n]), (Some(f), Some(a)) if same(f, T::constant(a, vt)))
                })
                .collect();
            if annihilating.is_empty() {
                present.iter().any(|&x| x)
            } else {
                annihilating.iter().all(|&n| present[n])
            }
        };
        match p {
            Placed::Access { param, .. } => self.k.params[*param]
                .format()
                .is_some_and(|f| f.all_dense()),
            Placed::Scalar { .. } | Placed::Lit(_) => true,
            Placed::Neg(b) => self.everywhere(b),
            Placed::Sum(..) | Placed::Reduce(..) => self.fill(p).is_none(),
            Placed::Bin(op, l, r) => region(&[l, r], &operator_annihilators(*op)),
            Placed::Call(f, args) => {
                let args: Vec<&Placed> = args.iter().collect();
                let present: Vec<bool> = args.iter().map(|a| self.everywhere(a)).collect();
                match f.iterate(&present) {
                    Some(holds) => holds,
                    None => {
                        let ann: Vec<Option<Fill>> =
                            (0..args.len()).map(|n| f.annihilator(n)).collect();
                        region(&args, &ann)
                    }
                }
            }
        }
    }
}

/// Values equal within the tolerance of the value type (`mag`: the scale of the reference's
/// rounding error); equal values (infinities included) and two NaNs are equal.
pub fn close(vt: ValTy, got: f64, want: f64, mag: f64) -> bool {
    if got == want || (got.is_nan() && want.is_nan()) {
        return true;
    }
    if vt == ValTy::I64 {
        return false;
    }
    (got - want).abs() <= vt.tolerance() * (mag + 1e-300)
}

/// Checks a dense or scalar output (`got`: every stored entry, the scalar as one entry at
/// `[]`) against the reference; `old` is the output's stale content (for `+=`).
pub fn check_dense(
    k: &Kernel,
    points: &[Point],
    old: &[(Vec<usize>, f64)],
    got: &[(Vec<usize>, f64)],
) -> Result<(), String> {
    let mut errs = Vec::new();
    if got.len() != points.len() {
        errs.push(format!(
            "the dense output stores {} entries, expected {}",
            got.len(),
            points.len()
        ));
    }
    let old_at = |c: &[usize]| -> f64 {
        old.iter()
            .find(|(oc, _)| oc.as_slice() == c)
            .map_or(0.0, |e| e.1)
    };
    for (pt, (gc, gv)) in points.iter().zip(got) {
        if *gc != pt.coord {
            errs.push(format!("entry at {gc:?} where {:?} was expected", pt.coord));
            break;
        }
        let Some(v) = pt.value else { continue };
        let (want, mag) = if k.accumulate {
            let o = old_at(&pt.coord);
            (o + v, o.abs() + pt.mag)
        } else {
            (v, pt.mag)
        };
        if !close(k.vt, *gv, want, mag) {
            let o = old_at(&pt.coord);
            errs.push(format!(
                "at {:?}: got {gv}, want {want}{}",
                pt.coord,
                if k.accumulate && *gv == o {
                    format!(" (= old {o} + rhs {v}; the stale value was left)")
                } else if k.accumulate {
                    format!(" (= old {o} + rhs {v})")
                } else if *gv == o {
                    " (the stale value was left)".to_string()
                } else {
                    String::new()
                }
            ));
        }
    }
    summarize(errs)
}

/// A sparse output after the call, as the runtime shows it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SparseOut {
    /// Its stored entries (explicit zeros included).
    pub entries: Entries,
    /// Its fill value.
    pub fill: f64,
}

/// Checks a sparse output: it stores exactly the present coordinates, each once, with
/// reference values; its fill value is the right side's (0 where it has none); and every
/// component it does not store has the reference's value there (through its fill value).
/// After `+=` (`y = y_old + rhs`, `y_old` at its own fill value `old.fill`), the coordinates
/// `old` stored are present too.
pub fn check_sparse(
    k: &Kernel,
    ev: &Evaluation,
    old: &SparseOut,
    got: &SparseOut,
) -> Result<(), String> {
    let points = &ev.points;
    let old_at = |c: &[usize]| -> Option<f64> {
        old.entries
            .iter()
            .find(|(oc, _)| oc.as_slice() == c)
            .map(|e| e.1)
            .filter(|_| k.accumulate)
    };
    // An output with a dense block below its appending levels stores whole blocks: the
    // blocks (storage coordinates above the block) where some point is present.
    let block_of = |c: &[usize]| -> Option<Vec<usize>> {
        let f = k.out_format()?;
        let levels = f.dense_block_start()?;
        Some((0..levels).map(|l| c[f.modes[l]]).collect())
    };
    let want_fill = if k.accumulate {
        ev.fill.map(|f| old.fill + f)
    } else {
        ev.fill
    }
    .unwrap_or(0.0);
    // What the output must hold at each point: presence, value, error scale.
    let want: Vec<(bool, Option<f64>, f64)> = points
        .iter()
        .map(|pt| {
            if !k.accumulate {
                return (pt.present, pt.value, pt.mag);
            }
            let o = old_at(&pt.coord);
            let base = o.unwrap_or(old.fill);
            (
                o.is_some() || pt.present,
                pt.value.map(|v| base + v),
                magnitude(base) + pt.mag,
            )
        })
        .collect();
    let present_blocks: std::collections::BTreeSet<Vec<usize>> = points
        .iter()
        .zip(&want)
        .filter(|(_, w)| w.0)
        .filter_map(|(p, _)| block_of(&p.coord))
        .collect();
    let in_present_block = |c: &[usize]| block_of(c).is_some_and(|b| present_blocks.contains(&b));
    let mut errs = Vec::new();
    // A fill value computed by a function (`exp(1)` in `f32`) is rounded like any value.
    if !close(k.vt, got.fill, want_fill, magnitude(want_fill)) {
        errs.push(format!(
            "the output's fill value is {}, want {want_fill}",
            got.fill
        ));
    }
    let mut seen = std::collections::BTreeMap::new();
    for (c, _) in &got.entries {
        *seen.entry(c.clone()).or_insert(0) += 1;
    }
    for (c, n) in &seen {
        if *n > 1 {
            errs.push(format!("{c:?} is stored {n} times"));
        }
    }
    for (pt, &(present, value, mag)) in points.iter().zip(&want) {
        let stored = got.entries.iter().find(|(c, _)| *c == pt.coord);
        let kept = old_at(&pt.coord);
        let wrong = |v: f64| value.is_some_and(|w| !close(k.vt, v, w, mag));
        let show = || value.map_or("undefined".into(), |v| v.to_string());
        match (present, stored) {
            (true, None) if kept.is_some() => {
                errs.push(format!("{:?} was stored before `+=` and is gone", pt.coord))
            }
            (true, None) => errs.push(format!(
                "{:?} is missing (reference value {})",
                pt.coord,
                show()
            )),
            // Inside a stored dense block, components nothing contributes to hold the
            // output's fill value (the reference's value there).
            (false, Some((_, v))) if in_present_block(&pt.coord) && !wrong(*v) => {}
            (false, Some((_, v))) => errs.push(format!(
                "{:?} is stored (value {v}) but nothing contributes there",
                pt.coord
            )),
            (true, Some((_, gv))) => {
                if wrong(*gv) {
                    let how = kept.map_or(String::new(), |o| format!(" (= old {o} + rhs)"));
                    errs.push(format!("at {:?}: got {gv}, want {}{how}", pt.coord, show()));
                }
            }
            (false, None) => {
                if wrong(got.fill) {
                    errs.push(format!(
                        "at {:?} (not stored): the output's fill value {} is not the reference's value {}",
                        pt.coord,
                        got.fill,
                        show()
                    ));
                }
            }
        }
    }
    for (c, _) in &got.entries {
        if !points.iter().any(|p| p.coord == *c) {
            errs.push(format!("{c:?} is stored but outside the output's shape"));
        }
    }
    summarize(errs)
}

fn summarize(errs: Vec<String>) -> Result<(), String> {
    if errs.is_empty() {
        return Ok(());
    }
    let mut s = String::new();
    for e in errs.iter().take(6) {
        let _ = write!(s, "{e}; ");
    }
    if errs.len() > 6 {
        let _ = write!(s, "... ({} differences in all)", errs.len());
    }
    Err(s.trim_end_matches("; ").to_string())
}

/// One stored component of an output after a kernel of several statements.
#[derive(Clone, Debug, PartialEq)]
pub struct Component {
    /// Logical coordinate (empty for a scalar).
    pub coord: Vec<usize>,
    /// Its value; `None` if undefined.
    pub value: Option<f64>,
    /// The scale of its rounding error.
    pub mag: f64,
}

/// What the reference computes for a kernel of several statements.
#[derive(Clone, Debug, PartialEq)]
pub struct SequenceResult {
    /// Per parameter: an output's final contents (its stored components; a scalar's one at
    /// `[]`), `None` for inputs.
    pub outputs: Vec<Option<Vec<Component>>>,
    /// Some statement computed an undefined value (a division by zero, an integer overflow).
    pub undefined: bool,
}

/// The largest integer the reference compares exactly (beyond it, `f64` rounds).
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// Runs a kernel of several statements on dense copies: each statement ([`Kernel::step`])
/// is evaluated by [`evaluate`] over what the statements before it left (outputs,
/// temporaries), and its output becomes what [`check_dense`] and [`check_sparse`] expect of
/// it: a dense or scalar output everywhere (`+=`, `-=`: added to its old contents), a sparse
/// output exactly on the present coordinates (with whole blocks of a dense block, zeros where
/// nothing contributes) or, after `+=`/`-=`, on their union with its old pattern.
///
/// `tensors[p]` holds tensor `p`'s stored entries (an output's stale ones), `scalars[p]`
/// scalar `p`'s value (a scalar output's stale one).
pub fn evaluate_sequence(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
) -> SequenceResult {
    let n = k.params.len();
    let component = |coord: Vec<usize>, v: f64| Component {
        coord,
        value: Some(v),
        mag: v.abs(),
    };
    let mut state: Vec<Option<Vec<Component>>> = k
        .params
        .iter()
        .enumerate()
        .map(|(p, param)| match param.kind {
            ParamKind::Output(_) => tensors[p].as_ref().map(|s| {
                s.entries
                    .iter()
                    .map(|(c, v)| component(c.clone(), *v))
                    .collect()
            }),
            ParamKind::ScalarOut => Some(vec![component(Vec::new(), scalars[p])]),
            _ => None,
        })
        .collect();
    let mut temporaries = vec![component(Vec::new(), 0.0); k.temporaries.len()];
    let mut undefined = false;
    for step in k.steps() {
        let mut stored: Vec<Option<Stored>> = Vec::new();
        let (mut values, mut mags) = (Vec::new(), Vec::new());
        for p in 0..step.params.len() {
            let current = if p < n {
                state[p].as_deref()
            } else {
                Some(std::slice::from_ref(&temporaries[p - n]))
            };
            let is_tensor = step.params[p].format().is_some();
            match (current, is_tensor) {
                (Some(c), true) => {
                    stored.push(Some(Stored {
                        fill: 0.0,
                        shape: tensors[p].as_ref().map_or(Vec::new(), |t| t.shape.clone()),
                        entries: c
                            .iter()
                            .map(|x| (x.coord.clone(), x.value.unwrap_or(f64::NAN)))
                            .collect(),
                        mags: c.iter().map(|x| x.mag).collect(),
                    }));
                    values.push(0.0);
                    mags.push(0.0);
                }
                (Some(c), false) => {
                    stored.push(None);
                    values.push(c[0].value.unwrap_or(f64::NAN));
                    mags.push(c[0].mag);
                }
                (None, _) => {
                    stored.push(tensors.get(p).cloned().flatten());
                    let v = scalars.get(p).copied().unwrap_or(0.0);
                    values.push(v);
                    mags.push(v.abs());
                }
            }
        }
        let points = evaluate_with(&step, var_sizes, &stored, &values, &mags).points;
        let old = if step.out < n {
            state[step.out].clone().unwrap_or_default()
        } else {
            vec![temporaries[step.out - n].clone()]
        };
        let written = written(&step, &points, &old);
        undefined |= points.iter().any(|p| p.present && p.value.is_none())
            || written.iter().any(|c| c.value.is_none());
        if step.out < n {
            state[step.out] = Some(written);
        } else {
            temporaries[step.out - n] = written.into_iter().next().expect("a scalar");
        }
    }
    SequenceResult {
        outputs: state,
        undefined,
    }
}

/// The contents of a step's output after it runs, from its old contents and the reference's
/// points.
fn written(k: &Kernel, points: &[Point], old: &[Component]) -> Vec<Component> {
    let old_at: std::collections::BTreeMap<&[usize], &Component> = old
        .iter()
        .filter(|_| k.accumulate)
        .map(|c| (c.coord.as_slice(), c))
        .collect();
    let bounded = |v: Option<f64>| {
        v.filter(|v| v.is_finite() && (k.vt != ValTy::I64 || v.abs() < EXACT_INTEGERS))
    };
    let sum = |o: &Component, pt: &Point| Component {
        coord: pt.coord.clone(),
        value: bounded(match (o.value, pt.value) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        }),
        mag: o.mag + pt.mag,
    };
    let new = |pt: &Point| Component {
        coord: pt.coord.clone(),
        value: bounded(pt.value),
        mag: pt.mag,
    };
    if k.dense_output() {
        return points
            .iter()
            .map(|pt| match old_at.get(pt.coord.as_slice()) {
                Some(o) => sum(o, pt),
                None => new(pt),
            })
            .collect();
    }
    let f = k.out_format().expect("a sparse output");
    let block_of = |c: &[usize]| -> Option<Vec<usize>> {
        let levels = f.dense_block_start()?;
        Some((0..levels).map(|l| c[f.modes[l]]).collect())
    };
    let present_blocks: std::collections::BTreeSet<Vec<usize>> = points
        .iter()
        .filter(|p| p.present)
        .filter_map(|p| block_of(&p.coord))
        .collect();
    points
        .iter()
        .filter_map(|pt| match (old_at.get(pt.coord.as_slice()), pt.present) {
            (Some(o), true) => Some(sum(o, pt)),
            (Some(o), false) => Some((*o).clone()),
            (None, true) => Some(new(pt)),
            (None, false) => block_of(&pt.coord)
                .filter(|b| present_blocks.contains(b))
                .map(|_| Component {
                    coord: pt.coord.clone(),
                    value: Some(0.0),
                    mag: 0.0,
                }),
        })
        .collect()
}

/// Checks an output's contents after a kernel of several statements against
/// [`evaluate_sequence`]'s: the same stored coordinates, each once, with close values.
pub fn check_contents(
    vt: ValTy,
    name: &str,
    want: &[Component],
    got: &[(Vec<usize>, f64)],
) -> Result<(), String> {
    let mut errs = Vec::new();
    let mut at: std::collections::BTreeMap<&[usize], Vec<f64>> = std::collections::BTreeMap::new();
    for (c, v) in got {
        at.entry(c.as_slice()).or_default().push(*v);
    }
    for (c, vs) in &at {
        if vs.len() > 1 {
            errs.push(format!("`{name}`: {c:?} is stored {} times", vs.len()));
        }
    }
    for w in want {
        match (at.get(w.coord.as_slice()), w.value) {
            (None, v) => errs.push(format!(
                "`{name}`: {:?} is missing (reference value {})",
                w.coord,
                v.map_or("undefined".into(), |v| v.to_string())
            )),
            (Some(g), Some(v)) if !close(vt, g[0], v, w.mag) => errs.push(format!(
                "`{name}`: at {:?}: got {}, want {v}",
                w.coord, g[0]
            )),
            _ => {}
        }
    }
    for (c, v) in got {
        if !want.iter().any(|w| w.coord == *c) {
            errs.push(format!(
                "`{name}`: {c:?} is stored (value {v}) but nothing contributes there"
            ));
        }
    }
    summarize(errs)
}
