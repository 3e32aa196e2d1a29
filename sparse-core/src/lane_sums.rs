//! Partial sums per strip lane: a float sum over a strip-mined loop (`crate::strip_mine`)
//! adds each lane's terms into a partial sum of its own, and adds the partial sums into the
//! sum after the last whole strip, halving: lanes `l` and `l + 4`, then `l` and `l + 2`,
//! then the two left. The iterations past the last whole strip still add in order.
//!
//! A strip whose terms all add into one value is a chain of dependent additions: SDDMM's
//! dot product of two rows of 16 adds sixteen times in a row per nonzero, with a shuffle
//! before every other addition to take the upper half of a product pair. With a partial sum
//! per lane, LLVM keeps the partial sums in vector registers and adds whole vectors; the
//! halving order is what folding a vector in halves computes, so the sum is the same with
//! vectors of 2, 4 or 8 values (SDDMM's values on the banded matrix: 44-46 ms in order,
//! 38 ms in lanes in a probe, where the hand-written loop over rows of a constant 16 took
//! 38-40 ms).
//!
//! **What changes: rounding.** The sum adds the same terms in another fixed order, so a float
//! result is within the usual rounding error of a sum, and the same on every run, serial and
//! parallel alike (a parallel fold's chunk is a loop of its own, whose strips are the same
//! wherever it runs). As `crate::precompute`, the pass rewrites only kernels of a primitive
//! float value type, and only where `#[schedule(precompute(never))]` does not ask for every
//! sum in the order written.
//!
//! **What does not change:**
//! - Signs of zero and an empty loop: the partial sums start at `-0`, which added to any
//!   value gives that value, so a sum of zeros keeps the sign the in-order sum gives it, and
//!   a loop without a whole strip leaves the sum as it was, bit for bit.
//! - Every term is computed and added once; nothing else moves.
//!
//! **Conditions.** The accumulator is an inner sum's temporary or a scalar precomputed sum,
//! and every statement of the lane's body that touches it is an update `acc += term` whose
//! term does not read it (directly or in an `if`). The lane's body leaves no reduction early
//! ([`Stmt::Exit`]): an exit mid-strip would skip the partial sums.

use crate::ir::{self, Assign, Expr, Local, Op, Stmt, ValueConst};
use crate::notation::Kernel;
use crate::strip_mine::STRIP;

/// The body of a kernel with every float sum over a strip's lanes split into partial sums
/// per lane, if its value type is a primitive float.
pub fn partial_sums(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    match crate::signature::is_float(&kernel.value_type) {
        true => block(body),
        false => body,
    }
}

fn block(body: Vec<Stmt>) -> Vec<Stmt> {
    body.into_iter().flat_map(stmt).collect()
}

fn stmt(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::While(c, b) => match strip_lanes(&b).map(accumulators) {
            Some(accs) => split(c, b, accs),
            None => vec![Stmt::While(c, block(b))],
        },
        Stmt::For(l, lo, hi, b) => vec![Stmt::For(l, lo, hi, block(b))],
        Stmt::If(c, a, b) => vec![Stmt::If(c, block(a), block(b))],
        Stmt::Block(n, b) => vec![Stmt::Block(n, block(b))],
        Stmt::Rows(t, n, b) => vec![Stmt::Rows(t, n, block(b))],
        Stmt::Fold(fold, b) => vec![Stmt::Fold(fold, block(b))],
        other => vec![other],
    }
}

/// The lane loop's body, if `body` is a strip of a strip-mined loop:
/// `for strip_lane in 0..STRIP { .. } strip += STRIP`.
fn strip_lanes(body: &[Stmt]) -> Option<&[Stmt]> {
    match body {
        [Stmt::For(Local::StripLane, Expr::Usize(0), Expr::Usize(STRIP), lanes), Stmt::Assign(Expr::Var(Local::Strip), Assign::Add, Expr::Usize(STRIP))] => {
            Some(lanes)
        }
        _ => None,
    }
}

/// The sums the lanes accumulate that meet the module's conditions, in order of first update.
fn accumulators(lanes: &[Stmt]) -> Vec<Local> {
    if exits(lanes) {
        return Vec::new();
    }
    let mut found = Vec::new();
    ir::visit_stmts(lanes, &mut |s| {
        if let Stmt::Assign(
            Expr::Var(acc @ (Local::Temp(_) | Local::Precomputed)),
            Assign::Add,
            _,
        ) = s
        {
            if !found.contains(acc) {
                found.push(*acc);
            }
        }
    });
    found.retain(|&acc| only_updates(lanes, acc));
    found
}

/// Whether a block touches `acc` only by updates `acc += term` whose terms do not read it.
fn only_updates(body: &[Stmt], acc: Local) -> bool {
    body.iter().all(|s| match s {
        Stmt::Assign(Expr::Var(target), Assign::Add, term) if *target == acc => {
            !ir::expr_uses(term, acc)
        }
        Stmt::If(c, a, b) => !ir::expr_uses(c, acc) && only_updates(a, acc) && only_updates(b, acc),
        other => !ir::block_uses(std::slice::from_ref(other), acc),
    })
}

/// Whether a block leaves any reduction early.
fn exits(body: &[Stmt]) -> bool {
    let mut found = false;
    ir::visit_stmts(body, &mut |s| found |= matches!(s, Stmt::Exit(_)));
    found
}

/// ```text
/// let mut lane_sums_n = [-0; STRIP]                 (one per accumulator)
/// while cond { for strip_lane in 0..STRIP { .. lane_sums_n[strip_lane] += term .. } strip += STRIP }
/// acc += halving(lane_sums_n)
/// ```
fn split(cond: Expr, strip: Vec<Stmt>, accs: Vec<Local>) -> Vec<Stmt> {
    if accs.is_empty() {
        return vec![Stmt::While(cond, strip)];
    }
    let negative_zero = Expr::Neg(Box::new(Expr::Value(ValueConst::Zero)));
    let mut out: Vec<Stmt> = (0..accs.len())
        .map(|n| {
            let init = Expr::Repeat(Box::new(negative_zero.clone()), STRIP);
            Stmt::Let(Local::LaneSums(n), true, init)
        })
        .collect();
    let strip = strip
        .into_iter()
        .map(|s| match s {
            Stmt::For(Local::StripLane, lo, hi, lanes) => {
                Stmt::For(Local::StripLane, lo, hi, into_lanes(lanes, &accs))
            }
            other => other,
        })
        .collect();
    out.push(Stmt::While(cond, strip));
    for (n, acc) in accs.into_iter().enumerate() {
        let lanes = (0..STRIP)
            .map(|lane| {
                let sums = Box::new(ir::var(Local::LaneSums(n)));
                Expr::Lane(sums, Box::new(Expr::Usize(lane)))
            })
            .collect();
        out.push(Stmt::Assign(ir::var(acc), Assign::Add, halving(lanes)));
    }
    out
}

/// A lane's body with each update `acc += term` of an accumulator in `accs` made an update
/// of the lane's partial sum (the updates sit at its top or in `if`s: `only_updates`).
fn into_lanes(body: Vec<Stmt>, accs: &[Local]) -> Vec<Stmt> {
    body.into_iter()
        .map(|s| match s {
            Stmt::Assign(Expr::Var(acc), Assign::Add, term) if accs.contains(&acc) => {
                let n = accs.iter().position(|&a| a == acc).unwrap_or_default();
                let lane = Expr::Lane(
                    Box::new(ir::var(Local::LaneSums(n))),
                    Box::new(ir::var(Local::StripLane)),
                );
                Stmt::Assign(lane, Assign::Add, term)
            }
            Stmt::If(c, a, b) => Stmt::If(c, into_lanes(a, accs), into_lanes(b, accs)),
            other => other,
        })
        .collect()
}

/// The sum of `lanes` (a power of two of them) by halves: lane `l` plus lane `l + n/2`, until
/// one is left; what adding a vector's halves computes, whatever the vectors' width.
fn halving(mut lanes: Vec<Expr>) -> Expr {
    while lanes.len() > 1 {
        let upper = lanes.split_off(lanes.len() / 2);
        lanes = lanes
            .into_iter()
            .zip(upper)
            .map(|(a, b)| ir::bin(Op::Add, a, b))
            .collect();
    }
    lanes.pop().unwrap_or(Expr::Value(ValueConst::Zero))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn x(n: usize) -> Expr {
        ir::index(ir::var(Local::Vals(1)), ir::var(Local::Index(n)))
    }

    /// `for k in 0..dim { body }`, strip-mined.
    fn strips(body: Vec<Stmt>) -> Vec<Stmt> {
        let k = Local::Index(0);
        let dim = ir::var(Local::Dim(0));
        crate::strip_mine::strips(vec![Stmt::For(k, Expr::Usize(0), dim, body)])
    }

    fn add(acc: Local, term: Expr) -> Stmt {
        Stmt::Assign(ir::var(acc), Assign::Add, term)
    }

    /// The lane loop's body of the (first) strip of `out`, and what follows the strip.
    fn lanes_and_after(out: &[Stmt]) -> (&[Stmt], &[Stmt]) {
        let at = out
            .iter()
            .position(|s| matches!(s, Stmt::While(..)))
            .expect("a strip");
        let Stmt::While(_, strip) = &out[at] else {
            unreachable!()
        };
        (strip_lanes(strip).expect("lanes"), &out[at + 1..])
    }

    #[test]
    fn a_sum_splits_into_partial_sums_added_by_halves() {
        let t = Local::Temp(0);
        let out = block(strips(vec![add(t, x(0))]));
        let (lanes, after) = lanes_and_after(&out);
        let Some(Stmt::Assign(Expr::Lane(sums, lane), Assign::Add, _)) = lanes.last() else {
            panic!("{lanes:?}")
        };
        assert!(matches!(**sums, Expr::Var(Local::LaneSums(0))));
        assert!(matches!(**lane, Expr::Var(Local::StripLane)));
        let Some(Stmt::Assign(Expr::Var(acc), Assign::Add, total)) = after.first() else {
            panic!("{after:?}")
        };
        assert_eq!(*acc, t);
        let lane_of = |e: &Expr| match e {
            Expr::Lane(_, l) => match **l {
                Expr::Usize(l) => l,
                _ => panic!("{e:?}"),
            },
            _ => panic!("{e:?}"),
        };
        let pair = |e: &Expr| match e {
            Expr::Binary(Op::Add, a, b) => (lane_of(a), lane_of(b)),
            _ => panic!("{e:?}"),
        };
        let quad = |e: &Expr| match e {
            Expr::Binary(Op::Add, a, b) => (pair(a), pair(b)),
            _ => panic!("{e:?}"),
        };
        let Expr::Binary(Op::Add, lo, hi) = total else {
            panic!("{total:?}")
        };
        assert_eq!((quad(lo), quad(hi)), (((0, 4), (2, 6)), ((1, 5), (3, 7))));
        // The iterations past the last whole strip add in order.
        let Some(Stmt::For(_, _, _, rest)) = after.last() else {
            panic!("{after:?}")
        };
        assert!(matches!(&rest[..], [Stmt::Assign(Expr::Var(a), Assign::Add, _)] if *a == t));
    }

    #[test]
    fn each_sum_gets_its_own_partial_sums_and_an_update_in_an_if_too() {
        let (t0, t1) = (Local::Temp(0), Local::Temp(1));
        let found = ir::var(Local::Found(0, 0));
        let body = vec![
            add(t0, x(0)),
            Stmt::If(found, vec![add(t1, x(0))], Vec::new()),
        ];
        let out = block(strips(body));
        let lets = out
            .iter()
            .filter(|s| matches!(s, Stmt::Let(Local::LaneSums(_), true, _)))
            .count();
        assert_eq!(lets, 2, "{out:?}");
        let (lanes, after) = lanes_and_after(&out);
        assert!(
            !ir::block_uses(lanes, t0) && !ir::block_uses(lanes, t1),
            "{lanes:?}"
        );
        let totals: Vec<Local> = after
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign(Expr::Var(acc), Assign::Add, _) => Some(*acc),
                _ => None,
            })
            .collect();
        assert_eq!(totals, [t0, t1]);
    }

    #[test]
    fn a_sum_read_in_the_lanes_or_left_early_adds_in_order() {
        let t = Local::Temp(0);
        let reads_itself = vec![add(t, ir::bin(Op::Mul, ir::var(t), x(0)))];
        let read_elsewhere = vec![add(t, x(0)), Stmt::Let(Local::Pos(0, 0), false, ir::var(t))];
        let assigned = vec![add(t, x(0)), Stmt::Assign(ir::var(t), Assign::Set, x(0))];
        let exits = vec![
            add(t, x(0)),
            Stmt::If(ir::var(Local::Found(0, 0)), vec![Stmt::Exit(0)], Vec::new()),
        ];
        for body in [reads_itself, read_elsewhere, assigned, exits] {
            let before = strips(body);
            let out = block(before.clone());
            assert_eq!(format!("{out:?}"), format!("{before:?}"));
        }
    }
}
