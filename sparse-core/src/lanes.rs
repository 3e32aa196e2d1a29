//! Positions in the lanes of a register block or a strip (`crate::register_block`,
//! `crate::strip_mine`): loops `for lane in 0..N { let k = start + lane; .. locate(p, k) .. }`.
//!
//! A contiguous level (`Dense`, positions `p * size + k`) has
//! `locate(p, start + lane) == locate(p, start) + lane`. Written the first way, LLVM kept
//! `start + lane` for each pair of lanes in a register of its own (eight of them for
//! MTTKRP's block of 16) and added each to `p * size`; written the second way,
//! `locate(p, start)` is computed once per `p` and every lane is a constant displacement of
//! its load or store.
//!
//! The rewrite changes how a position is computed, not which: the same components are read
//! and written, in the same order, so results are unchanged bit for bit, and an unchecked
//! access stays within the bounds the original position had (the same number). It holds
//! where `k`, `start` and `lane` have the values of the loop's top: `lane` is the loop's
//! own variable, and a loop whose body binds `k` again or assigns `k` or `start` is left
//! as it is.

use crate::ir::{self, Expr, Local, Op, Stmt};
use crate::level::LevelFn;
use crate::notation::Kernel;

/// `body` with the positions of contiguous levels in every lane loop computed from the
/// lane's start.
pub fn positions(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let contiguous_locate = |recv: &Expr, name: &str| {
        let Expr::Var(Local::Level(t, level)) = recv else {
            return false;
        };
        let format = kernel
            .tensors
            .get(*t)
            .and_then(|t| t.format.levels.get(*level));
        format.is_some_and(|f| {
            f.is_contiguous() && f.function(LevelFn::Locate).map(|f| f.name) == Some(name)
        })
    };
    block(&contiguous_locate, body)
}

/// Whether `recv.name(..)` is `locate` on a contiguous level.
type IsContiguousLocate<'a> = dyn Fn(&Expr, &str) -> bool + 'a;

fn block(is_locate: &IsContiguousLocate, body: Vec<Stmt>) -> Vec<Stmt> {
    body.into_iter().map(|s| stmt(is_locate, s)).collect()
}

fn stmt(is_locate: &IsContiguousLocate, s: Stmt) -> Stmt {
    match s {
        Stmt::For(lane, lo, hi, b) if is_lane(lane) => {
            let b = block(is_locate, b);
            let b = match lane_start(lane, &b) {
                Some((k, start)) => rewrite(is_locate, lane, k, start, b),
                None => b,
            };
            Stmt::For(lane, lo, hi, b)
        }
        Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(is_locate, b)),
        Stmt::While(c, b) => Stmt::While(c, block(is_locate, b)),
        Stmt::If(c, a, b) => {
            let a = block(is_locate, a);
            Stmt::If(c, a, block(is_locate, b))
        }
        Stmt::Block(n, b) => Stmt::Block(n, block(is_locate, b)),
        Stmt::Rows(t, split, b) => Stmt::Rows(t, split, block(is_locate, b)),
        Stmt::Fold(fold, b) => Stmt::Fold(fold, block(is_locate, b)),
        other => other,
    }
}

fn is_lane(l: Local) -> bool {
    matches!(l, Local::Lane | Local::StripLane)
}

/// The coordinate `k` and start a lane loop's body opens with (`let k = start + lane`),
/// where the rest of the body keeps all three unchanged.
fn lane_start(lane: Local, body: &[Stmt]) -> Option<(Local, Local)> {
    let Some(Stmt::Let(k, false, Expr::Binary(Op::Add, start, l))) = body.first() else {
        return None;
    };
    let (Expr::Var(start), Expr::Var(l)) = (&**start, &**l) else {
        return None;
    };
    if *l != lane {
        return None;
    }
    let (k, start) = (*k, *start);
    let mut changed = false;
    ir::visit_stmts(&body[1..], &mut |s| {
        changed |= match s {
            Stmt::Let(l, ..) | Stmt::For(l, ..) => [k, start, lane].contains(l),
            Stmt::LetPair(a, b, ..) => [*a, *b]
                .iter()
                .flatten()
                .any(|l| [k, start, lane].contains(l)),
            Stmt::Assign(Expr::Var(l), ..) => [k, start, lane].contains(l),
            _ => false,
        }
    });
    (!changed).then_some((k, start))
}

/// `body` (after its `let k`) with `locate(p, k)` on a contiguous level made
/// `locate(p, start) + lane`, and the `let k` dropped if nothing reads `k` any more.
fn rewrite(
    is_locate: &IsContiguousLocate,
    lane: Local,
    k: Local,
    start: Local,
    body: Vec<Stmt>,
) -> Vec<Stmt> {
    let mut body = body.into_iter();
    let mut out: Vec<Stmt> = body.next().into_iter().collect();
    let rest = ir::map_exprs(body.collect(), &mut |e| match e {
        Expr::Call(recv, name, mut args)
            if is_locate(&recv, name) && matches!(&args[..], [_, Expr::Var(c)] if *c == k) =>
        {
            args[1] = ir::var(start);
            ir::bin(Op::Add, Expr::Call(recv, name, args), ir::var(lane))
        }
        other => other,
    });
    if !ir::block_uses(&rest, k) {
        out.clear();
    }
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Level 0 of tensor 0 is contiguous; anything else is not.
    fn is_locate(recv: &Expr, name: &str) -> bool {
        matches!(recv, Expr::Var(Local::Level(0, 0))) && name == "locate"
    }

    fn locate(t: usize, name: &'static str) -> Expr {
        let level = ir::var(Local::Level(t, 0));
        ir::call(
            level,
            name,
            vec![ir::var(Local::Pos(0, 0)), ir::var(Local::Index(0))],
        )
    }

    /// `for lane in 0..8 { let k = block_start + lane; rest; let p = position }`.
    fn lane_loop(rest: Vec<Stmt>, position: Expr) -> Vec<Stmt> {
        let k = Local::Index(0);
        let start = ir::bin(Op::Add, ir::var(Local::BlockStart), ir::var(Local::Lane));
        let mut body = vec![Stmt::Let(k, false, start)];
        body.extend(rest);
        body.push(Stmt::Let(Local::Pos(1, 0), false, position));
        vec![Stmt::For(Local::Lane, Expr::Usize(0), Expr::Usize(8), body)]
    }

    fn body_of(out: &[Stmt]) -> &[Stmt] {
        let [Stmt::For(_, _, _, body)] = out else {
            panic!("{out:?}")
        };
        body
    }

    #[test]
    fn a_contiguous_locate_adds_the_lane_to_the_start() {
        let out = block(&is_locate, lane_loop(vec![], locate(0, "locate")));
        let [Stmt::Let(_, _, Expr::Binary(Op::Add, call, lane))] = body_of(&out) else {
            panic!("{out:?}")
        };
        let Expr::Call(_, "locate", args) = &**call else {
            panic!("{call:?}")
        };
        assert!(matches!(args[1], Expr::Var(Local::BlockStart)), "{args:?}");
        assert!(matches!(**lane, Expr::Var(Local::Lane)));
    }

    #[test]
    fn other_levels_and_changed_locals_are_left_alone() {
        let other = [locate(1, "locate"), locate(0, "locate_unchecked")];
        for position in other {
            let input = lane_loop(vec![], position);
            let out = block(&is_locate, input.clone());
            assert_eq!(format!("{out:?}"), format!("{input:?}"));
        }
        let rebind = Stmt::Let(Local::Index(0), false, Expr::Usize(3));
        let moves_start = Stmt::Assign(ir::var(Local::BlockStart), ir::Assign::Add, Expr::Usize(1));
        for change in [rebind, moves_start] {
            let input = lane_loop(vec![change], locate(0, "locate"));
            let out = block(&is_locate, input.clone());
            assert_eq!(format!("{out:?}"), format!("{input:?}"));
        }
    }
}
