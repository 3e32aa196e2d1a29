//! Precompute of loop-invariant factors (Kjolstad et al. 2019, taco's `precompute`): a loop
//! that sums products, some of whose factors do not change from one iteration to the next,
//! sums the product of the factors that do, and multiplies the sum by the others once after
//! the loop.
//!
//! In MTTKRP, `A(i,j) = B(i,k,l) * C(k,j) * D(l,j)` on a CSF tensor, the loop over `l` adds
//! `b * c(k,j) * d(l,j)` to each lane of the register block of row `i` (`crate::register_block`):
//! `C(k,j)` is the same for every `l`. So the lanes of a precomputed block `pre` receive
//! `b * d(l,j)` in the loop, and after it the register block receives `c(k,j) * pre`: one load
//! and one multiplication per lane and nonzero fewer, as hand-written MTTKRP does. In SDDMM,
//! `A(i,j) = B(i,j) * C(i,k) * D(j,k)`, the sum over `k` becomes a dot product of `C`'s and
//! `D`'s rows, multiplied by `B(i,j)` once.
//!
//! **What changes: rounding.** `x*a + x*b` becomes `x*(a + b)`, which floats compute up to
//! rounding: a float result is the same sum of the same products, associated differently,
//! within the usual rounding error of a sum. The order stays fixed, so a kernel still gives
//! the same result on every run, serial and parallel alike. Only kernels of a primitive float
//! value type (`f32`, `f64`) are rewritten: an integer sum would overflow at other terms (a
//! panic where overflow is checked), and another value type need not be commutative or
//! distributive.
//!
//! **What does not change:**
//! - A loop that runs no iteration adds nothing: the invariant factors could be infinite or
//!   NaN, and `inf * 0` is NaN. The multiplication after the loop runs only if the loop's
//!   range is not empty (its bounds are locals or constants the loop does not assign).
//! - A factor the kernel may make infinite where the data are finite (another reduction's
//!   temporary, an operand's `inf` fill) does not move: `x * (a + b)` is `inf` where `x *
//!   a + x * b` is NaN for `x = inf`, `b = 0`.
//! - No effect moves: the invariant factors, and the `let`s they read that are copied after
//!   the loop, are pure reads (values, level functions that only read, arithmetic). A
//!   declared function is never moved, since its body is the user's.
//!
//! **Conditions** (`Sum::find`). The loop's body holds only `let`s, presence flags set to
//! `true`, and one update `acc += f1 * f2 * ... * fn` of an inner sum's temporary, or, as
//! the body's last statement, a loop over a register block's lanes holding such statements
//! and one update of the block's lane. The factors split into those that read a local the
//! loop binds from its variable (transitively) and those that do not, both non-empty; the
//! latter also read neither the accumulator nor a flag the loop sets.

use crate::ir::{self, Assign, Expr, Local, Op, Stmt, ValueConst};
use crate::notation::Kernel;
use std::collections::HashSet;

/// The body of a kernel with every loop that sums products with loop-invariant factors
/// precomputed, if its value type is a primitive float.
pub fn precomputed(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    match crate::signature::is_float(&kernel.value_type) {
        true => factor(body),
        false => body,
    }
}

/// `body` with every loop that sums products with loop-invariant factors precomputed.
fn factor(body: Vec<Stmt>) -> Vec<Stmt> {
    body.into_iter().flat_map(stmt).collect()
}

fn stmt(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::For(x, lo, hi, b) => match Sum::find(x, &lo, &hi, &b) {
            Some(sum) => sum.precomputed(x, lo, hi, b),
            None => vec![Stmt::For(x, lo, hi, factor(b))],
        },
        Stmt::While(c, b) => vec![Stmt::While(c, factor(b))],
        Stmt::If(c, a, b) => vec![Stmt::If(c, factor(a), factor(b))],
        Stmt::Block(n, b) => vec![Stmt::Block(n, factor(b))],
        Stmt::Rows(t, n, b) => vec![Stmt::Rows(t, n, factor(b))],
        Stmt::Fold(fold, b) => vec![Stmt::Fold(fold, factor(b))],
        other => vec![other],
    }
}

/// The sum a loop accumulates, split by its factors.
struct Sum {
    /// The width of the register block whose lane the update is, in the loop's loop over
    /// the lanes; `None` for a scalar update.
    lanes: Option<usize>,
    /// What the loop updates (`t` or `block[lane]`).
    acc: Expr,
    /// The factors that do not change in the loop.
    invariant: Vec<Expr>,
    /// The factors that do.
    varying: Vec<Expr>,
    /// The loop body's `let`s that bind no varying local, in order: copied after the loop
    /// for the invariant factors (those they do not read are dropped).
    lets: Vec<Stmt>,
    /// The same, of the loop over the lanes.
    lane_lets: Vec<Stmt>,
}

/// What [`Scan`] walks a loop's body with.
#[derive(Default)]
struct Scan {
    /// The locals bound from the loop's variable (transitively).
    varying: HashSet<Local>,
    /// The locals the loop assigns: the accumulator and flags.
    assigned: HashSet<Local>,
    /// The update found: whether in the lanes, its target, its factors split.
    update: Option<(bool, Expr, Vec<Expr>, Vec<Expr>)>,
    lets: Vec<Stmt>,
    lane_lets: Vec<Stmt>,
    /// The number of lanes of the loop over a register block's lanes, if the body ends in one.
    width: Option<usize>,
}

impl Sum {
    /// The sum `for x in lo..hi { body }` accumulates, if it meets the module's conditions.
    fn find(x: Local, lo: &Expr, hi: &Expr, body: &[Stmt]) -> Option<Sum> {
        if !bound(lo) || !bound(hi) {
            return None;
        }
        let mut scan = Scan::default();
        scan.varying.insert(x);
        scan.block(body, false)?;
        let (lanes, acc, invariant, varying) = scan.update?;
        // The bounds are evaluated again after the loop: the loop must not assign them.
        if [lo, hi]
            .iter()
            .any(|b| scan.assigned.iter().any(|&l| ir::expr_uses(b, l)))
        {
            return None;
        }
        let reads_assigned = |e: &Expr| scan.assigned.iter().any(|&l| ir::expr_uses(e, l));
        let copied_ok = scan
            .lets
            .iter()
            .chain(&scan.lane_lets)
            .all(|s| matches!(s, Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) if pure(v) && !reads_assigned(v)));
        let factors_ok = invariant
            .iter()
            .all(|f| pure(f) && finite(f) && !reads_assigned(f));
        (copied_ok && factors_ok && !invariant.is_empty() && !varying.is_empty()).then_some(Sum {
            lanes: if lanes { scan.width } else { None },
            acc,
            invariant,
            varying,
            lets: scan.lets,
            lane_lets: scan.lane_lets,
        })
    }

    /// ```text
    /// let mut pre = 0                       ([0; width] for a register block)
    /// for x in lo..hi { body, its update `pre += varying` (`pre[lane] += ..`) }
    /// if lo < hi { invariant lets; acc += invariant * pre  (in a loop over the lanes) }
    /// ```
    fn precomputed(self, x: Local, lo: Expr, hi: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let zero = Expr::Value(ValueConst::Zero);
        let (pre, init) = match self.lanes {
            Some(width) => {
                let lane = Expr::Lane(
                    Box::new(ir::var(Local::Precomputed)),
                    Box::new(ir::var(Local::Lane)),
                );
                (lane, Expr::Repeat(Box::new(zero), width))
            }
            None => (ir::var(Local::Precomputed), zero),
        };
        let partial = Stmt::Assign(pre.clone(), Assign::Add, product(self.varying));
        let body = with_update(body, &partial);
        let total = product(self.invariant);
        let apply = Stmt::Assign(self.acc, Assign::Add, ir::bin(Op::Mul, total, pre));
        let mut after = self.lets;
        match self.lanes {
            Some(width) => {
                let mut lane_body = self.lane_lets;
                lane_body.push(apply);
                after.push(Stmt::For(
                    Local::Lane,
                    Expr::Usize(0),
                    Expr::Usize(width),
                    lane_body,
                ));
            }
            None => after.push(apply),
        }
        let nonempty = ir::bin(Op::Lt, lo.clone(), hi.clone());
        // The invariant factors' `let`s now unused in the loop, and the copies the product
        // after it does not read, are dropped (all pure).
        ir::prune_unused_lets(vec![
            Stmt::Let(Local::Precomputed, true, init),
            Stmt::For(x, lo, hi, body),
            Stmt::If(nonempty, after, Vec::new()),
        ])
    }
}

impl Scan {
    /// Walks a block of the loop's body (`lanes`: the loop over a register block's lanes);
    /// `None` if a statement breaks the module's conditions.
    fn block(&mut self, body: &[Stmt], lanes: bool) -> Option<()> {
        for (n, s) in body.iter().enumerate() {
            match s {
                Stmt::Let(l, false, v) => self.bind(&[*l], v, s, lanes),
                Stmt::LetPair(a, b, false, v) => {
                    let bound: Vec<Local> = a.iter().chain(b).copied().collect();
                    self.bind(&bound, v, s, lanes);
                }
                Stmt::Assign(
                    Expr::Var(flag @ Local::TempSome(_)),
                    Assign::Set,
                    Expr::Bool(true),
                ) => {
                    self.assigned.insert(*flag);
                }
                Stmt::Assign(acc, Assign::Add, v) if self.update.is_none() => {
                    let local = accumulator(acc, lanes)?;
                    self.assigned.insert(local);
                    let (invariant, varying) =
                        factors(v).into_iter().partition(|f| !self.reads_varying(f));
                    self.update = Some((lanes, acc.clone(), invariant, varying));
                }
                Stmt::For(Local::Lane, Expr::Usize(0), Expr::Usize(width), b)
                    if !lanes && n + 1 == body.len() =>
                {
                    self.width = Some(*width);
                    self.block(b, true)?;
                }
                _ => return None,
            }
        }
        Some(())
    }

    /// Records a `let` of `locals` to `v`: varying if `v` reads a varying local, else copied
    /// after the loop.
    fn bind(&mut self, locals: &[Local], v: &Expr, s: &Stmt, lanes: bool) {
        if self.reads_varying(v) {
            self.varying.extend(locals);
        } else {
            // A rebinding of a varying local's name to an invariant value.
            locals.iter().for_each(|l| {
                self.varying.remove(l);
            });
            let lets = if lanes {
                &mut self.lane_lets
            } else {
                &mut self.lets
            };
            lets.push(s.clone());
        }
    }

    fn reads_varying(&self, e: &Expr) -> bool {
        self.varying.iter().any(|&l| ir::expr_uses(e, l))
    }
}

/// The local an update may accumulate into: an inner sum's temporary, or in the loop over the
/// lanes, the register block's lane.
fn accumulator(acc: &Expr, lanes: bool) -> Option<Local> {
    match (acc, lanes) {
        (Expr::Var(t @ Local::Temp(_)), false) => Some(*t),
        (Expr::Lane(a, i), true)
            if matches!(**a, Expr::Var(Local::Block)) && matches!(**i, Expr::Var(Local::Lane)) =>
        {
            Some(Local::Block)
        }
        _ => None,
    }
}

/// A loop bound evaluated again after the loop: a local or a constant.
fn bound(e: &Expr) -> bool {
    matches!(e, Expr::Var(_) | Expr::Usize(_))
}

/// The factors of a product `f1 * f2 * ... * fn` (any association).
fn factors(e: &Expr) -> Vec<Expr> {
    match e {
        Expr::Binary(Op::Mul, a, b) => {
            let mut fs = factors(a);
            fs.extend(factors(b));
            fs
        }
        other => vec![other.clone()],
    }
}

/// `f1 * f2 * ... * fn`, associated from the left (`fs` is not empty).
fn product(fs: Vec<Expr>) -> Expr {
    fs.into_iter()
        .reduce(|a, b| ir::bin(Op::Mul, a, b))
        .unwrap_or(Expr::Value(ValueConst::Zero))
}

/// `body` with its update (in the loop over the lanes, if there) replaced by `update`.
fn with_update(body: Vec<Stmt>, update: &Stmt) -> Vec<Stmt> {
    body.into_iter()
        .map(|s| match s {
            Stmt::Assign(_, Assign::Add, _) => update.clone(),
            Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, with_update(b, update)),
            other => other,
        })
        .collect()
}

/// Whether evaluating `e` once more, or once less, is unobservable: it reads values, calls
/// only level functions that read, and computes; no `?`, no runtime helper, no declared
/// function, no allocation.
/// Whether a pure factor is finite where the stored values and scalars it reads are: it holds
/// no infinity (an operand's `inf` fill) and reads no temporary (`min` over an empty
/// dimension is `inf`). Only such a factor moves: `(a + b) * inf` is `inf` where `a * inf +
/// b * inf` with `b = 0` is NaN, and the two differ in sign where `a` and `b` do.
fn finite(e: &Expr) -> bool {
    let mut temp = false;
    ir::visit_expr(e, &mut |l| temp |= matches!(l, Local::Temp(_)));
    !temp && !holds_infinity(e)
}

fn holds_infinity(e: &Expr) -> bool {
    ir::expr_any(e, &mut |e| {
        matches!(e, Expr::Value(ValueConst::Infinity(_)))
    })
}

fn pure(e: &Expr) -> bool {
    const READS: [&str; 4] = [
        "locate",
        "pos_access_unchecked",
        "pos_bounds_unchecked",
        "get_unchecked",
    ];
    let all = |es: &[&Expr]| es.iter().all(|e| pure(e));
    match e {
        Expr::Var(_) | Expr::Param(_) | Expr::Usize(_) | Expr::Bool(_) | Expr::Value(_) => true,
        Expr::Binary(op, a, b) => !matches!(op, Op::Div | Op::Rem) && all(&[a, b]),
        Expr::Index(a, b) | Expr::Min(a, b) | Expr::Pair(a, b) | Expr::Lane(a, b) => all(&[a, b]),
        Expr::Neg(a) | Expr::Not(a) => pure(a),
        Expr::Select(c, a, b) => all(&[c, a, b]),
        Expr::Call(r, m, args) => READS.contains(m) && pure(r) && args.iter().all(pure),
        Expr::Deref(_)
        | Expr::Try(_)
        | Expr::NewScratch
        | Expr::NewWorkspace(..)
        | Expr::Runtime(..)
        | Expr::Slice(_)
        | Expr::Apply(..)
        | Expr::Repeat(..) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(t: usize, at: Local) -> Expr {
        ir::index(ir::var(Local::Vals(t)), ir::var(at))
    }

    /// `for k in 0..dim { let p = k; t += update }`.
    fn sum_loop(update: Expr) -> Stmt {
        let (k, p) = (Local::Index(0), Local::Pos(0, 0));
        Stmt::For(
            k,
            Expr::Usize(0),
            ir::var(Local::Dim(0)),
            vec![
                Stmt::Let(p, false, ir::var(k)),
                Stmt::Assign(ir::var(Local::Temp(0)), Assign::Add, update),
            ],
        )
    }

    #[test]
    fn an_invariant_factor_moves_after_the_loop() {
        let update = ir::bin(
            Op::Mul,
            vals(1, Local::Pos(1, 0)),
            vals(2, Local::Pos(0, 0)),
        );
        let out = factor(vec![sum_loop(update)]);
        assert_eq!(out.len(), 3, "{out:?}");
        let Stmt::For(_, _, _, body) = &out[1] else {
            panic!("{out:?}")
        };
        let Stmt::Assign(Expr::Var(Local::Precomputed), Assign::Add, v) = &body[1] else {
            panic!("{body:?}")
        };
        assert!(ir::expr_uses(v, Local::Pos(0, 0)) && !ir::expr_uses(v, Local::Pos(1, 0)));
        let Stmt::If(Expr::Binary(Op::Lt, _, _), after, _) = &out[2] else {
            panic!("{out:?}")
        };
        assert!(matches!(
            &after[..],
            [Stmt::Assign(Expr::Var(Local::Temp(0)), Assign::Add, _)]
        ));
    }

    #[test]
    fn nothing_moves_without_both_kinds_of_factor() {
        let varying_only = ir::bin(
            Op::Mul,
            vals(1, Local::Pos(0, 0)),
            vals(2, Local::Pos(0, 0)),
        );
        let invariant_only = vals(1, Local::Pos(1, 0));
        for update in [varying_only, invariant_only] {
            let out = factor(vec![sum_loop(update)]);
            assert!(matches!(&out[..], [Stmt::For(..)]), "{out:?}");
        }
    }

    #[test]
    fn a_declared_function_or_a_read_of_the_sum_stays() {
        let call = Expr::Apply(ir::Callee::Function(0), vec![vals(1, Local::Pos(1, 0))]);
        let reads_sum = ir::var(Local::Temp(0));
        for invariant in [call, reads_sum] {
            let update = ir::bin(Op::Mul, invariant, vals(2, Local::Pos(0, 0)));
            let out = factor(vec![sum_loop(update)]);
            assert!(matches!(&out[..], [Stmt::For(..)]), "{out:?}");
        }
    }

    #[test]
    fn a_factor_that_may_be_infinite_stays() {
        // Another reduction's result (`min` over an empty dimension is `inf`), and an
        // operand's `inf` fill where it is absent.
        let reduced = ir::var(Local::Temp(1));
        let filled = Expr::Select(
            Box::new(ir::var(Local::Found(1, 0))),
            Box::new(vals(1, Local::Pos(1, 0))),
            Box::new(Expr::Value(ValueConst::Infinity(false))),
        );
        for invariant in [reduced, filled] {
            let update = ir::bin(Op::Mul, invariant, vals(2, Local::Pos(0, 0)));
            let out = factor(vec![sum_loop(update)]);
            assert!(matches!(&out[..], [Stmt::For(..)]), "{out:?}");
        }
    }
}
