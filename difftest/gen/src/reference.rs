//! The dense reference evaluator: values, magnitudes (for float tolerances) and the presence
//! (sparsity pattern) of every output coordinate, by brute force over the placed sums.

use crate::data::{coordinates, Entries};
use crate::kernel::{Kernel, Op, ValTy};
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
    /// Stored entries (explicit zeros included).
    pub entries: Entries,
}

/// Arithmetic of the reference: exact `i64` (checked) or `f64`.
trait Num: Copy {
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn zero() -> Self;
    fn op(self, op: Op, o: Self) -> Option<Self>;
    fn neg(self) -> Option<Self>;
}

impl Num for f64 {
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
    stored: Vec<bool>,
}

impl<T: Num> DenseIn<T> {
    fn new(s: &Stored) -> Self {
        let len: usize = s.shape.iter().product();
        let mut d = DenseIn {
            shape: s.shape.clone(),
            vals: vec![T::zero(); len],
            stored: vec![false; len],
        };
        for (c, v) in &s.entries {
            let at = d.flat(c.iter().copied());
            d.vals[at] = d.vals[at].op(Op::Add, T::from_f64(*v)).unwrap_or(T::zero());
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
                let v = t.vals[at];
                (Some(v), v.to_f64().abs(), t.stored[at])
            }
            Placed::Scalar { param } => {
                let v = self.scalars[*param];
                (Some(T::from_f64(v)), v.abs(), true)
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
                    (Some(a), Some(b)) => a.op(*op, b),
                    _ => None,
                };
                let (m, p) = match op {
                    Op::Add | Op::Sub => (lm + rm, lp || rp),
                    Op::Mul => (lm * rm, lp && rp),
                    Op::Div => (if rm == 0.0 { f64::INFINITY } else { lm / rm }, lp && rp),
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
    match k.vt {
        ValTy::I64 => evaluate_as::<i64>(k, var_sizes, tensors, scalars),
        ValTy::F64 | ValTy::F32 => evaluate_as::<f64>(k, var_sizes, tensors, scalars),
    }
}

fn evaluate_as<T: Num>(
    k: &Kernel,
    var_sizes: &[usize],
    tensors: &[Option<Stored>],
    scalars: &[f64],
) -> Vec<Point> {
    let placed = place(k);
    let ev = Eval::<T> {
        tensors: tensors
            .iter()
            .map(|t| t.as_ref().map(DenseIn::new))
            .collect(),
        scalars,
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
