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
            .and_then(|l| l.function(f))
            .map(|f| f.name),
        _ => None,
    };
    block(&bounded, body)
}

/// The name under which a level (a `Local::Level`) declares a level function, if it does:
/// calls are recognized and made by the names the level declares, never by a convention.
/// (The writers' own methods, `append_entry`, `append_entries` and `finish`, are the
/// runtime's room types', not a level's.)
type Declares<'a> = dyn Fn(Local, LevelFn) -> Option<&'static str> + 'a;

/// The level and arguments of `e`, if it calls level function `f` of a level that declares it.
fn level_call<'e>(bounded: &Declares, e: &'e Expr, f: LevelFn) -> Option<(Local, &'e [Expr])> {
    match e {
        Expr::Call(r, m, args) => match **r {
            Expr::Var(l @ Local::Level(..)) if bounded(l, f) == Some(*m) => Some((l, args)),
            _ => None,
        },
        _ => None,
    }
}

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
fn reservation(bounded: &Declares, s: &Stmt) -> Option<(usize, Reserve)> {
    let Stmt::Expr(e) = s else { return None };
    if let Some((l @ Local::Level(t, _), [bound])) = level_call(bounded, e, LevelFn::AppendReserve)
    {
        return Some((t, Reserve::Level(l, bound.clone())));
    }
    match e {
        Expr::Runtime("reserve_values", args) => match args.as_slice() {
            [Expr::Var(v @ Local::Vals(t)), bound] => {
                Some((*t, Reserve::Values(*v, bound.clone())))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The level `s` finalizes, if it is `level.append_finalize(..)?`.
fn finalized(bounded: &Declares, s: &Stmt) -> Option<Local> {
    match s {
        Stmt::Expr(Expr::Try(e)) => level_call(bounded, e, LevelFn::AppendFinalize).map(|c| c.0),
        _ => None,
    }
}

/// The block with writers after its reservations of one output, when the block also ends
/// that output's assembly (its `append_finalize`), so the values go back in it.
fn into_room(bounded: &Declares, mut body: Vec<Stmt>) -> Vec<Stmt> {
    let found: Vec<(usize, usize, Reserve)> = body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| reservation(bounded, s).map(|(t, r)| (i, t, r)))
        .collect();
    let (Some(&(_, t, _)), Some(&(last, _, _))) = (found.first(), found.last()) else {
        return body;
    };
    // One output's reservations, finalized later in the same block.
    if found.iter().any(|&(_, u, _)| u != t) {
        return body;
    }
    let Some(end) = (last + 1..body.len())
        .find(|&i| matches!(finalized(bounded, &body[i]), Some(Local::Level(u, _)) if u == t))
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
            // The level's writer, as the level declares it (`entries` pairs only a level
            // that declares the joint one); a level that declares neither keeps its reservation.
            (Reserve::Level(l, bound), fused) => {
                let joint = fused.as_ref().filter(|(f, ..)| *f == l).map(|(_, v, _)| *v);
                let take = match joint {
                    Some(v) => bounded(l, LevelFn::AppendBoundedEntries)
                        .map(|name| call(var(l), name, vec![var(v), bound])),
                    None => bounded(l, LevelFn::AppendBounded)
                        .map(|name| call(var(l), name, vec![bound])),
                };
                take.map(|take| Some(Stmt::Let(l, true, try_(take))))
            }
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
            if bounded(*l, LevelFn::AppendBoundedEntries).is_some()
                && rest.iter().any(|s| finalized(bounded, s) == Some(*l)) =>
        {
            pair(bounded, rest, *l, v).map(|paired| (*l, v, paired))
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
    let starts = |s: &Stmt| match s {
        Stmt::Expr(e) => level_call(bounded, e, LevelFn::AppendInit).is_some_and(|c| c.0 == l),
        _ => false,
    };
    let joins = bounded(l, LevelFn::AppendBoundedEntries).is_some()
        && body.first().is_some_and(starts)
        && body.iter().any(|s| finalized(bounded, s) == Some(l));
    let paired = match joins {
        true => pair(bounded, &body[1..], l, v),
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
fn pair(bounded: &Declares, stmts: &[Stmt], l: Local, v: Local) -> Option<Vec<Stmt>> {
    let paired = pair_block(bounded, stmts.to_vec(), l, v);
    let mut lone = false;
    visit_stmts(&paired, &mut |s| {
        let Stmt::Expr(e) = s else { return };
        lone |= [LevelFn::AppendCoord, LevelFn::AppendCoords]
            .into_iter()
            .any(|f| level_call(bounded, e, f).is_some_and(|c| c.0 == l));
    });
    (!lone && !block_uses(&paired, v)).then_some(paired)
}

fn pair_block(bounded: &Declares, stmts: Vec<Stmt>, l: Local, v: Local) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    let mut it = stmts.into_iter().peekable();
    while let Some(s) = it.next() {
        let coord = match &s {
            Stmt::Expr(e) => match level_call(bounded, e, LevelFn::AppendCoord) {
                Some((m, [j])) if m == l => Some(j.clone()),
                _ => None,
            },
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
            Stmt::For(n, lo, hi, b) => Stmt::For(n, lo, hi, pair_block(bounded, b, l, v)),
            Stmt::While(c, b) => Stmt::While(c, pair_block(bounded, b, l, v)),
            Stmt::If(c, a, b) => Stmt::If(
                c,
                pair_block(bounded, a, l, v),
                pair_block(bounded, b, l, v),
            ),
            Stmt::Block(n, b) => Stmt::Block(n, pair_block(bounded, b, l, v)),
            s => s,
        });
    }
    out
}

/// Whether `e` is local `l`.
fn is(e: &Expr, l: Local) -> bool {
    matches!(e, Expr::Var(x) if *x == l)
}
