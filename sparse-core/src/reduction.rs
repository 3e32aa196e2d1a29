//! Parallel folds of a scalar: the outermost loop of a reduction into a scalar temporary
//! (`let mut t = start; for x in lo..hi { .. t += term .. }`, an inner product, a norm, a
//! `min`) becomes a [`Stmt::Fold`], which the runtime's `parallel_fold` splits into chunks of
//! consecutive iterations: each chunk folds its iterations into a temporary of its own,
//! starting from the fold's start, and the chunks' values are combined in order by the same
//! update (`t + partial`, `f(t, partial)`).
//!
//! Why the result is the fold's:
//! - **The start is the identity.** Lowering starts a reduction's temporary from its
//!   function's identity (or unit: `or`'s `0`, an identity on `or`'s results), and the loop
//!   must follow that `let` with nothing between that touches the temporary. So every chunk
//!   may start from the temporary's value before the loop, and the first chunk's value is
//!   what the serial loop has after those iterations.
//! - **Reassociation.** The chunks' values are combined in order, so only associativity is
//!   used (a reduction's function is declared associative and commutative; a sum is `+`).
//!   For floats that reassociates the sum at the chunks' boundaries: chunks have a fixed
//!   length (4096 iterations, not a share of the threads), so the result is the same with
//!   any number of threads, with or without the feature `parallel`. A loop of one chunk is
//!   the serial loop. Integer sums and products stay serial: reassociated, a partial sum can
//!   overflow where the serial order does not (a panic in a debug build); `min`, `max`, `and`
//!   and `or` of the runtime's prelude cannot, and fold in parallel for every value type.
//! - **Independent iterations.** An iteration may assign only locals it binds and the
//!   temporary, only by the fold's update (the term reads no temporary of the fold), and
//!   may read the temporary only to leave the fold early when it reached the function's
//!   annihilator (a chunk's value that reached it makes the whole fold's). Everything else
//!   it reads is immutable during the loop (dimensions, level structs, value arrays,
//!   parameters); anything with an effect keeps the loop serial. rustc checks this again:
//!   the chunk closure is `Fn + Sync`. Each term is computed once, as in the serial loop;
//!   combining the chunks calls the reduction's function once more per chunk boundary, on
//!   two of its own results.
//!
//! Only a kernel whose output is a scalar folds in parallel (a tensor output is split by
//! rows instead, `crate::parallel`); a reduction whose temporary also records presence
//! (`TempSome`) is assigned outside its update and stays serial.

use crate::ir::{self, Expr, Fold, Local, Stmt};
use crate::notation::Kernel;
use crate::parallel::{iterations_independent, Update, Writes};
use std::collections::HashSet;

/// The body with the outermost loop of every scalar reduction that can fold in parallel
/// made a [`Stmt::Fold`] (see the module documentation).
pub fn folds(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    if kernel.output_access().is_some() {
        return body;
    }
    block(kernel, body)
}

/// Rewrites the statements of one block outside every loop (the body, or a branch of a
/// top-level `if`).
fn block(kernel: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    for stmt in body {
        let stmt = match stmt {
            Stmt::If(c, a, b) => Stmt::If(c, block(kernel, a), block(kernel, b)),
            other => match fold(kernel, &out, &other) {
                Some(fold) => fold,
                None => other,
            },
        };
        out.push(stmt);
    }
    out
}

/// `stmt` as a parallel fold, if it is the loop of a reduction into a temporary whose `let`
/// is among `before`, with nothing after it touching the temporary, and it qualifies.
fn fold(kernel: &Kernel, before: &[Stmt], stmt: &Stmt) -> Option<Stmt> {
    // The loop, alone in its reduction's exit block if it has one.
    let (exit, looped) = match stmt {
        Stmt::Block(n, inner) => match &inner[..] {
            [looped @ Stmt::For(..)] => (Some(*n), looped),
            _ => return None,
        },
        looped => (None, looped),
    };
    let Stmt::For(var, lo, hi, body) = looped else {
        return None;
    };
    let (acc, update) = update_of(body)?;
    let Local::Temp(id) = acc else { return None };
    // An exit of the fold's own reduction needs its label inside each chunk.
    let labelled = exit == Some(id) || (exit.is_none() && !ir::exits(body, id));
    if !labelled || !starts_fresh(before, acc) {
        return None;
    }
    if !reassociates(kernel, update) {
        return None;
    }
    let writes = Writes::Folded { acc, update };
    if !iterations_independent(body, None, *var, *var, writes) {
        return None;
    }
    let chunk = Stmt::For(
        *var,
        ir::var(Local::ChunkLo),
        ir::var(Local::ChunkHi),
        body.clone(),
    );
    let chunk = match exit {
        Some(n) => Stmt::Block(n, vec![chunk]),
        None => chunk,
    };
    let fold = Fold {
        acc,
        lo: lo.clone(),
        hi: hi.clone(),
        combine: update.combine(acc, Local::Partial),
    };
    Some(Stmt::Fold(fold, vec![chunk]))
}

/// The temporary a loop body folds into, and how: its first assignment of a temporary it
/// does not bind itself (the independence check then requires every other write of it to
/// be the same update).
fn update_of(body: &[Stmt]) -> Option<(Local, Update)> {
    let mut inner = HashSet::new();
    crate::parallel::bound_locals(body, &mut inner);
    let mut found = None;
    ir::visit_stmts(body, &mut |s| match (&found, s) {
        (None, Stmt::Assign(Expr::Var(l @ Local::Temp(_)), ..)) if !inner.contains(l) => {
            found = Some(Update::of(s, *l).map(|u| (*l, u)));
        }
        _ => {}
    });
    found.flatten()
}

/// Whether `acc` was bound by a `let` in `before` that no later statement there touches:
/// its value at the loop is its start.
fn starts_fresh(before: &[Stmt], acc: Local) -> bool {
    let Some(at) = before
        .iter()
        .rposition(|s| matches!(s, Stmt::Let(l, true, _) if *l == acc))
    else {
        return false;
    };
    // `block_uses` sees reads and assignments; a `let` of the same local would shadow it.
    let after = &before[at + 1..];
    let mut bound = HashSet::new();
    crate::parallel::bound_locals(after, &mut bound);
    !ir::block_uses(after, acc) && !bound.contains(&acc)
}

/// Whether a fold by `update` may be reassociated at chunk boundaries: any fold of floats;
/// over other value types only the runtime's prelude functions (`min`, `max`, `and`, `or`,
/// ...), which cannot overflow.
fn reassociates(kernel: &Kernel, update: Update) -> bool {
    if crate::signature::is_float(&kernel.value_type) {
        return true;
    }
    match update {
        Update::Apply(ir::Callee::Function(f)) => matches!(
            kernel.functions[f].callee,
            crate::algebra::Callee::Prelude(_)
        ),
        _ => false,
    }
}
