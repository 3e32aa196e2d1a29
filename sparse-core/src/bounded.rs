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
//! Where every coordinate appended to a level comes with its value (`l.append_coord(j);
//! vals.push(v);`, the last level of a CSR-like output), the values are used nowhere else
//! and the level's assembly ends in the block, one writer takes both
//! (`let mut l = l.append_bounded_entries(vals, bound)?;`, for a level that declares it), the
//! pairs become `l.append_entry(j, v)` and the level's `append_finalize` gives both back:
//! one count and one room size for the two arrays, as a hand-written loop keeps. (Two
//! writers held a count and a size each, and a sparse add's merge ran out of registers.)
//!
//! Runs after `parallel` and `reduction`: the serial paths they keep are rewritten like any
//! other block (their tasks do not reserve).

use crate::ir::{block_uses, call, try_, var, visit_stmts, Expr, Local, Split, Stmt};
use crate::level::LevelFn;
use crate::notation::Kernel;

/// `body` with every reserved append into room.
pub fn appends(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let bounded = |local: Local, f: LevelFn| match local {
        Local::Level(t, k) => kernel
            .tensors
            .get(t)
            .and_then(|t| t.format.levels.get(k))
            .is_some_and(|l| l.function(f).is_some()),
        _ => false,
    };
    block(&bounded, body)
}

/// Whether a level (a `Local::Level`) declares a level function.
type Declares<'a> = dyn Fn(Local, LevelFn) -> bool + 'a;

fn block(bounded: &Declares, body: Vec<Stmt>) -> Vec<Stmt> {
    let body: Vec<Stmt> = body.into_iter().map(|s| stmt(bounded, s)).collect();
    into_room(bounded, body)
}

fn stmt(bounded: &Declares, s: Stmt) -> Stmt {
    match s {
        Stmt::For(l, lo, hi, b) => Stmt::For(l, lo, hi, block(bounded, b)),
        Stmt::While(c, b) => Stmt::While(c, block(bounded, b)),
        Stmt::If(c, a, b) => Stmt::If(c, block(bounded, a), block(bounded, b)),
        Stmt::Block(n, b) => Stmt::Block(n, block(bounded, b)),
        Stmt::Rows(t, split, b) => {
            let b = block(bounded, b);
            let b = match split {
                Split::Counted { level, .. }
                | Split::Appended {
                    level,
                    bound: Some(_),
                    ..
                } => task_entries(bounded, level, Local::Vals(t), b),
                _ => b,
            };
            Stmt::Rows(t, split, b)
        }
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

/// The level `s` finalizes, if it is `level.append_finalize(..)?`.
fn finalized(s: &Stmt) -> Option<Local> {
    match s {
        Stmt::Expr(Expr::Try(e)) => match &**e {
            Expr::Call(r, "append_finalize", _) => match &**r {
                Expr::Var(l @ Local::Level(..)) => Some(*l),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The block with writers after its reservations of one output, when the block also ends
/// that output's assembly (its `append_finalize`), so the values go back in it.
fn into_room(bounded: &Declares, mut body: Vec<Stmt>) -> Vec<Stmt> {
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
    let Some(end) = (last + 1..body.len())
        .find(|&i| matches!(finalized(&body[i]), Some(Local::Level(u, _)) if u == t))
    else {
        return body;
    };
    let fused = entries(bounded, &body, &found, last);
    // Each reservation a writer makes (the writer reserves the room itself) is replaced by
    // the writer (`Some(None)`: removed); unless a level's writer takes them, the values are
    // given back before the first finalize.
    let mut finish = None;
    let mut replaced: Vec<Option<Option<Stmt>>> = vec![None; body.len()];
    for (i, _, r) in found {
        replaced[i] = match (r, &fused) {
            (Reserve::Level(l, bound), Some((f, v, _))) if l == *f => {
                let take = call(var(l), "append_bounded_entries", vec![var(*v), bound]);
                Some(Some(Stmt::Let(l, true, try_(take))))
            }
            (Reserve::Level(l, bound), _) if bounded(l, LevelFn::AppendBounded) => {
                let take = call(var(l), "append_bounded", vec![bound]);
                Some(Some(Stmt::Let(l, true, try_(take))))
            }
            (Reserve::Level(..), _) => None,
            (Reserve::Values(..), Some(_)) => Some(None),
            (Reserve::Values(v, bound), None) => {
                finish = Some(Stmt::Expr(try_(call(var(v), "finish", vec![]))));
                let take = Expr::Runtime("bounded_values", vec![var(v), bound]);
                Some(Some(Stmt::Let(v, true, try_(take))))
            }
        };
    }
    match fused {
        Some((_, _, paired)) => {
            body.truncate(last + 1);
            body.extend(paired);
        }
        None => {
            body.splice(end..end, finish);
        }
    }
    body.into_iter()
        .zip(replaced.into_iter().chain(std::iter::repeat(None)))
        .filter_map(|(s, writer)| writer.unwrap_or(Some(s)))
        .collect()
}

/// One writer for a level and the values, where every coordinate appended to the level
/// comes with its value (`l.append_coord(j); vals.push(v);`, the last level of a CSR-like
/// output), the values are used nowhere else after their reservations and the level's
/// assembly ends in the block: the level, the values, and the statements after the last
/// reservation with the pairs made `l.append_entry(j, v)`, written under one count into
/// both rooms as a hand-written loop writes `crd[n]` and `vals[n]`. (Two writers each held a
/// count and a room's size, and a sparse add's merge ran out of registers for them.)
fn entries(
    bounded: &Declares,
    body: &[Stmt],
    found: &[(usize, usize, Reserve)],
    last: usize,
) -> Option<(Local, Local, Vec<Stmt>)> {
    let v = found.iter().find_map(|(_, _, r)| match r {
        Reserve::Values(v, _) => Some(*v),
        Reserve::Level(..) => None,
    })?;
    let rest = &body[last + 1..];
    found.iter().find_map(|(_, _, r)| match r {
        Reserve::Level(l, _)
            if bounded(*l, LevelFn::AppendBoundedEntries)
                && rest.iter().any(|s| finalized(s) == Some(*l)) =>
        {
            pair(rest, *l, v).map(|paired| (*l, v, paired))
        }
        _ => None,
    })
}

/// A task of rows assembled in parallel into windows ([`Split::Counted`], or
/// [`Split::Appended`] with a bound) with one writer for its level
/// `l` and values `v`, where [`entries`]' conditions hold in the task: after its
/// `l.append_init(..)`, `let mut l = l.append_entries(v);` and the pairs made
/// `l.append_entry(j, e)`. The runtime's stand-ins for the level and values (counting them,
/// or writing them into the task's windows) join as a bounded level's writer joins the
/// output's: the windows are the room, so no bound is passed.
fn task_entries(bounded: &Declares, l: Local, v: Local, body: Vec<Stmt>) -> Vec<Stmt> {
    let starts = |s: &Stmt| matches!(s, Stmt::Expr(Expr::Call(r, "append_init", _)) if is(r, l));
    let joins = bounded(l, LevelFn::AppendBoundedEntries)
        && body.first().is_some_and(starts)
        && body.iter().any(|s| finalized(s) == Some(l));
    let paired = match joins {
        true => pair(&body[1..], l, v),
        false => None,
    };
    let Some(paired) = paired else {
        return body;
    };
    let join = Stmt::Let(l, true, call(var(l), "append_entries", vec![var(v)]));
    body.into_iter()
        .take(1)
        .chain([join])
        .chain(paired)
        .collect()
}

/// `stmts` with every `l.append_coord(j); v.push(e);` made `l.append_entry(j, e)`, if that
/// leaves neither a use of `v` nor another append of coordinates to `l`.
fn pair(stmts: &[Stmt], l: Local, v: Local) -> Option<Vec<Stmt>> {
    let paired = pair_block(stmts.to_vec(), l, v);
    let mut lone = false;
    visit_stmts(&paired, &mut |s| {
        lone |= matches!(s, Stmt::Expr(Expr::Call(r, "append_coord" | "append_coords", _))
            if is(r, l));
    });
    (!lone && !block_uses(&paired, v)).then_some(paired)
}

fn pair_block(stmts: Vec<Stmt>, l: Local, v: Local) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    let mut it = stmts.into_iter().peekable();
    while let Some(s) = it.next() {
        let coord = match &s {
            Stmt::Expr(Expr::Call(r, "append_coord", args)) if is(r, l) && args.len() == 1 => {
                Some(args[0].clone())
            }
            _ => None,
        };
        let value = match (&coord, it.peek()) {
            (Some(_), Some(Stmt::Expr(Expr::Call(r, "push", args))))
                if is(r, v) && args.len() == 1 =>
            {
                Some(args[0].clone())
            }
            _ => None,
        };
        if let (Some(j), Some(e)) = (coord, value) {
            it.next();
            out.push(Stmt::Expr(call(var(l), "append_entry", vec![j, e])));
            continue;
        }
        out.push(match s {
            Stmt::For(n, lo, hi, b) => Stmt::For(n, lo, hi, pair_block(b, l, v)),
            Stmt::While(c, b) => Stmt::While(c, pair_block(b, l, v)),
            Stmt::If(c, a, b) => Stmt::If(c, pair_block(a, l, v), pair_block(b, l, v)),
            Stmt::Block(n, b) => Stmt::Block(n, pair_block(b, l, v)),
            s => s,
        });
    }
    out
}

/// Whether `e` is local `l`.
fn is(e: &Expr, l: Local) -> bool {
    matches!(e, Expr::Var(x) if *x == l)
}
