//! The dense reference evaluator: values, magnitudes (for float tolerances) and the presence
//! (sparsity pattern) of every output coordinate, by brute force over the placed sums.

use crate::data::{coordinates, Entries};
use crate::kernel::{Kernel, Op, ParamKind, ValTy};
use crate::semantics::{place, Placed};
use std::fmt::Write;

/// One output coordinate of the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Logical coordinate (empty for a scalar output).
    pub coord: Vec<usize>,
    /// The right side's value there; `None` if undefined (division by zero, i64 overflow).
    pub value: Option<f64>,
    /// The right side evaluated on absolute values with `-` as `+` (scale for tolerances).
    pub mag: f64,
    /// Whether the iteration space has a point there.
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
}

/// Arithmetic of the reference: exact `i64` (checked) or `f64`.
trait Num: Copy {
    /// Exact arithmetic (no rounding error to bound).
    const EXACT: bool;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn zero() -> Self;
    fn op(self, op: Op, o: Self) -> Option<Self>;
    fn neg(self) -> Option<Self>;
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
}

/// A tensor as a dense array plus a stored-mask.
struct DenseIn<T> {
    shape: Vec<usize>,
    vals: Vec<T>,
    mags: Vec<f64>,
    undefined: Vec<bool>,
    stored: Vec<bool>,
}

impl<T: Num> DenseIn<T> {
    fn new(s: &Stored) -> Self {
        let len: usize = s.shape.iter().product();
        let mut d = DenseIn {
            shape: s.shape.clone(),
            vals: vec![T::zero(); len],
            mags: vec![0.0; len],
            undefined: vec![false; len],
            stored: vec![false; len],
        };
        for (n, (c, v)) in s.entries.iter().enumerate() {
            let at = d.flat(c.iter().copied());
            if v.is_nan() {
                d.undefined[at] = true;
            } else {
                d.vals[at] = d.vals[at].op(Op::Add, T::from_f64(*v)).unwrap_or(T::zero());
            }
            d.mags[at] += s.mags.get(n).copied().unwrap_or(v.abs());
            d.stored[at] = true;
        }
        d
    }

    fn flat(&self, c: impl Iterator<Item = usize>) -> usize {
        c.zip(&self.shape).fold(0, |at, (c, &n)| at * n + c)
    }
}

struct Eval<'a, T> {
    tensors: Vec<Option<DenseIn<T>>>,
    scalars: &'a [f64],
    /// Per scalar, its magnitude (empty: its absolute value).
    scalar_mags: &'a [f64],
    sizes: &'a [usize],
}

/// Value (None: undefined), magnitude, presence.
type R<T> = (Option<T>, f64, bool);

impl<T: Num> Eval<'_, T> {
    fn eval(&self, p: &Placed, env: &mut [usize]) -> R<T> {
        match p {
            Placed::Access { param, vars } => {
                let t = self.tensors[*param].as_ref().expect("an accessed input");
                let at = t.flat(vars.iter().map(|&v| env[v]));
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
                let (m, p) = match op {
                    Op::Add | Op::Sub => (lm + rm, lp || rp),
                    Op::Mul => (lm * rm, lp && rp),
                    // The error of a / b: |da| / |b| + |a| |db| / b².
                    Op::Div => {
                        let m = match (lv, rv) {
                            (Some(a), Some(b)) if b.to_f64() != 0.0 => {
                                let (a, b) = (a.to_f64().abs(), b.to_f64().abs());
                                lm / b + a * rm / (b * b)
                            }
                            _ => f64::INFINITY,
                        };
                        (m, lp && rp)
                    }
                };
                (v, m, p)
            }
            Placed::Sum(vars, body) => {
                let mut acc = Some(T::zero());
                let (mut mag, mut present) = (0.0, false);
                let shape: Vec<usize> = vars.iter().map(|&v| self.sizes[v]).collect();
                for c in coordinates(&shape) {
                    for (&v, &x) in vars.iter().zip(&c) {
                        env[v] = x;
                    }
                    let (v, m, p) = self.eval(body, env);
                    acc = match (acc, v) {
                        (Some(a), Some(b)) => a.op(Op::Add, b),
                        _ => None,
                    };
                    mag += m;
                    present |= p;
                }
                (acc, mag, present)
            }
        }
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
    evaluate_with(k, var_sizes, tensors, scalars, &[])
}

/// [`evaluate`] with the magnitudes of the scalars (NaN scalars are undefined).
fn evaluate_with(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
    scalar_mags: &[f64],
) -> Vec<Point> {
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
) -> Vec<Point> {
    let placed = place(k);
    let ev = Eval::<T> {
        tensors: tensors
            .iter()
            .map(|t| t.as_ref().map(DenseIn::new))
            .collect(),
        scalars,
        scalar_mags,
        sizes: var_sizes,
    };
    let out_shape: Vec<usize> = k.out_vars.iter().map(|&v| var_sizes[v]).collect();
    let mut env = vec![0; k.n_vars()];
    coordinates(&out_shape)
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
        .collect()
}

fn close(vt: ValTy, got: f64, want: f64, mag: f64) -> bool {
    if vt == ValTy::I64 {
        got == want
    } else {
        (got - want).abs() <= vt.tolerance() * (mag + 1e-300)
    }
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

/// Checks a sparse output: exactly the present coordinates, each once, with reference values.
/// After `+=` (into an output written in place), the coordinates `old` stored are kept too,
/// and values are the old ones plus the new.
pub fn check_sparse(
    k: &Kernel,
    points: &[Point],
    old: &[(Vec<usize>, f64)],
    got: &[(Vec<usize>, f64)],
) -> Result<(), String> {
    let old_at = |c: &[usize]| -> Option<f64> {
        old.iter()
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
    let present_blocks: std::collections::BTreeSet<Vec<usize>> = points
        .iter()
        .filter(|p| p.present)
        .filter_map(|p| block_of(&p.coord))
        .collect();
    let in_present_block = |c: &[usize]| block_of(c).is_some_and(|b| present_blocks.contains(&b));
    let mut errs = Vec::new();
    let mut seen = std::collections::BTreeMap::new();
    for (c, _) in got {
        *seen.entry(c.clone()).or_insert(0) += 1;
    }
    for (c, n) in &seen {
        if *n > 1 {
            errs.push(format!("{c:?} is stored {n} times"));
        }
    }
    for pt in points {
        let stored = got.iter().find(|(c, _)| *c == pt.coord);
        let kept = old_at(&pt.coord);
        if let (Some(o), Some((_, gv))) = (kept, stored) {
            let (want, mag) = match (pt.present, pt.value) {
                (true, Some(v)) => (o + v, o.abs() + pt.mag),
                (true, None) => continue,
                (false, _) => (o, o.abs()),
            };
            if !close(k.vt, *gv, want, mag) {
                errs.push(format!(
                    "at {:?}: got {gv}, want {want} (= old {o} + rhs)",
                    pt.coord
                ));
            }
            continue;
        }
        if kept.is_some() {
            errs.push(format!("{:?} was stored before `+=` and is gone", pt.coord));
            continue;
        }
        match (pt.present, stored) {
            (true, None) => errs.push(format!(
                "{:?} is missing (reference value {})",
                pt.coord,
                pt.value.map_or("undefined".into(), |v| v.to_string())
            )),
            // Inside a stored dense block, components nothing contributes to are zeros.
            (false, Some((_, v))) if *v == 0.0 && in_present_block(&pt.coord) => {}
            (false, Some((_, v))) => errs.push(format!(
                "{:?} is stored (value {v}) but nothing contributes there",
                pt.coord
            )),
            (true, Some((_, gv))) => {
                if let Some(want) = pt.value {
                    if !close(k.vt, *gv, want, pt.mag) {
                        errs.push(format!("at {:?}: got {gv}, want {want}", pt.coord));
                    }
                }
            }
            (false, None) => {}
        }
    }
    for (c, _) in got {
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
        let points = evaluate_with(&step, var_sizes, &stored, &values, &mags);
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
