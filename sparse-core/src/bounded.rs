//! Bounded appends: an output whose entries have a bound computed from its operands
//! appends them into room reserved for that bound, instead of pushing onto growing vectors.
//!
//! Lowering reserves an appended output's entries where it can bound them
//! (`Lowerer::entry_bound`: a sum stores at most `nnz(A) + nnz(B)` entries, a product at
//! most the smaller, and so on): `level.append_reserve(bound)` for the levels of the last
//! group and `reserve_values(vals, bound)`. The appends below still went through
//! `Vec::push`, which checks the capacity and, the vector being behind a reference the
//! stores might alias, reloads its length and capacity after every entry: sparse add took
//! 1.3-1.5x the time of the same loop writing by index.
//!
//! This pass follows each such reservation with writers that take the level's coordinates
//! and the values out into the room (`let mut l = l.append_bounded(bound)?;` for every
//! level that declares `append_bounded`, and `let mut vals = bounded_values(vals, bound)?;`),
//! with the same append functions, so the statements below are unchanged and now name the
//! writers. Before the output's first `append_finalize`, the values are given back
//! (`vals.finish()?`); each level's writer gives its coordinates back in its own
//! `append_finalize`. A writer checks every write against the room: should a bound ever be
//! wrong, the kernel returns an error, never a stray write or a wrong result.
//!
//! Runs after `parallel` and `reduction`: the serial paths they keep are rewritten like any
//! other block (their tasks do not reserve).

use crate::ir::{call, try_, var, Expr, Local, Stmt};
use crate::level::LevelFn;
use crate::notation::Kernel;

/// `body` with every reserved append into room.
pub fn appends(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let bounded = |local: Local| match local {
        Local::Level(t, k) => kernel
            .tensors
            .get(t)
            .and_then(|t| t.format.levels.get(k))
            .is_some_and(|l| l.function(LevelFn::AppendBounded).is_some()),
        _ => false,
    };
    block(&bounded, body)
}

fn block(bounded: &dyn Fn(Local) -> bool, body: Vec<Stmt>) -> Vec<Stmt> {
    let body: Vec<Stmt> = body.into_iter().map(|s| stmt(bounded, s)).collect();
    into_room(bounded, body)
}

fn stmt(bounded: &dyn Fn(Local) -> bool, s: Stmt) -> Stmt {
    match s {
        Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(bounded, b)),
        Stmt::While(c, b) => Stmt::While(c, block(bounded, b)),
        Stmt::If(c, a, b) => Stmt::If(c, block(bounded, a), block(bounded, b)),
        Stmt::Block(n, b) => Stmt::Block(n, block(bounded, b)),
        Stmt::Rows(t, split, b) => Stmt::Rows(t, split, block(bounded, b)),
        Stmt::Fold(f, b) => Stmt::Fold(f, block(bounded, b)),
        s => s,
    }
}

/// A reservation found in a block: `level.append_reserve(bound)` or
/// `reserve_values(vals, bound)` of a tensor.
enum Reserve {
    Level(Local, Expr),
    Values(Local, Expr),
}

/// The reservation `s` makes, and the tensor it reserves for.
fn reservation(s: &Stmt) -> Option<(usize, Reserve)> {
    match s {
        Stmt::Expr(Expr::Call(r, "append_reserve", args)) => match (&**r, args.as_slice()) {
            (Expr::Var(l @ Local::Level(t, _)), [bound]) => {
                Some((*t, Reserve::Level(*l, bound.clone())))
            }
            _ => None,
        },
        Stmt::Expr(Expr::Runtime("reserve_values", args)) => match args.as_slice() {
            [Expr::Var(v @ Local::Vals(t)), bound] => {
                Some((*t, Reserve::Values(*v, bound.clone())))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether `s` is `level.append_finalize(..)?` of a level of tensor `t`.
fn finalizes(s: &Stmt, t: usize) -> bool {
    let Stmt::Expr(Expr::Try(e)) = s else {
        return false;
    };
    matches!(&**e, Expr::Call(r, "append_finalize", _)
        if matches!(&**r, Expr::Var(Local::Level(u, _)) if *u == t))
}

/// The block with writers after its reservations of one output, when the block also ends
/// that output's assembly (its `append_finalize`), so the values go back in it.
fn into_room(bounded: &dyn Fn(Local) -> bool, mut body: Vec<Stmt>) -> Vec<Stmt> {
    let found: Vec<(usize, usize, Reserve)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| reservation(s).map(|(t, r)| (i, t, r)))
        .collect();
    let (Some(&(_, t, _)), Some(&(last, _, _))) = (found.first(), found.last()) else {
        return body;
    };
    // One output's reservations, finalized later in the same block.
    if found.iter().any(|&(_, u, _)| u != t) {
        return body;
    }
    let Some(end) = (last + 1..body.len()).find(|&i| finalizes(&body[i], t)) else {
        return body;
    };
    // Each reservation a writer makes (the writer reserves the room itself) is replaced by
    // the writer; the values are given back before the first finalize.
    let mut finish = None;
    let mut replaced = vec![None; body.len()];
    for (i, _, r) in found {
        replaced[i] = match r {
            Reserve::Level(l, bound) if bounded(l) => {
                let take = call(var(l), "append_bounded", vec![bound]);
                Some(Stmt::Let(l, true, try_(take)))
            }
            Reserve::Level(..) => None,
            Reserve::Values(v, bound) => {
                finish = Some(Stmt::Expr(try_(call(var(v), "finish", vec![]))));
                let take = Expr::Runtime("bounded_values", vec![var(v), bound]);
                Some(Stmt::Let(v, true, try_(take)))
            }
        };
    }
    body.splice(end..end, finish);
    body.into_iter()
        .zip(replaced.into_iter().chain(std::iter::repeat(None)))
        .map(|(s, writer)| writer.unwrap_or(s))
        .collect()
}
