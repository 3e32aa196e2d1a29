//! Strip-mining of innermost dense loops: `for k in lo..dim_k { body }` becomes strips of
//! [`STRIP`] iterations, each a loop of constant length, then the iterations past the last
//! whole strip.
//!
//! A loop whose length is known only at run time is compiled by LLVM as a loop of scalar
//! iterations when it cannot reorder them (a float sum, which must add in order): in SDDMM,
//! `t += b(i,j) * c(i,k) * d(j,k)` loaded `c` and `d` one value at a time. A strip of constant
//! length is unrolled whole, so its loads and products are vectorized and issued together while
//! the sum still adds in order (the dot product of a row of 16: 54-61 ms in one loop, 44-49 ms
//! in strips of 8, on 5M nonzeros).
//!
//! The iterations run in the same order as before, one after another, so every result is
//! unchanged bit for bit whatever the body does; the loop variable is a fresh `let` per
//! iteration inside a strip, as it was the loop's own binding. (`crate::lane_sums`, which
//! runs next unless a schedule asks for sums in the order written, then gives a float sum
//! a partial sum per lane: that is where the order changes.)

use crate::ir::{self, Assign, Expr, Local, Op, Stmt};

/// Iterations per strip.
pub const STRIP: usize = 8;

/// `body` with every innermost loop `for k in lo..dim_k` over a dense dimension strip-mined.
pub fn strips(body: Vec<Stmt>) -> Vec<Stmt> {
    body.into_iter().flat_map(stmt).collect()
}

fn stmt(s: Stmt) -> Vec<Stmt> {
    match s {
        Stmt::For(l, lo, hi, b) if strippable(l, &lo, &hi, &b) => strip_mined(l, lo, hi, b),
        Stmt::For(l, lo, hi, b) => vec![Stmt::For(l, lo, hi, strips(b))],
        Stmt::While(c, b) => vec![Stmt::While(c, strips(b))],
        Stmt::If(c, a, b) => vec![Stmt::If(c, strips(a), strips(b))],
        Stmt::Block(n, b) => vec![Stmt::Block(n, strips(b))],
        Stmt::Rows(t, n, b) => vec![Stmt::Rows(t, n, strips(b))],
        Stmt::Fold(fold, b) => vec![Stmt::Fold(fold, strips(b))],
        other => vec![other],
    }
}

/// A loop over an index variable up to its dimension, with no loop inside, that is not the
/// remainder of a register block (fewer than a strip's iterations by construction).
fn strippable(l: Local, lo: &Expr, hi: &Expr, body: &[Stmt]) -> bool {
    // Up to the dimension, or to the end of a parallel fold's chunk of it.
    let dense = matches!((l, hi), (Local::Index(v), Expr::Var(Local::Dim(d))) if v == *d)
        || matches!((l, hi), (Local::Index(_), Expr::Var(Local::ChunkHi)));
    let remainder = matches!(lo, Expr::Var(Local::BlockStart));
    dense && !remainder && !has_loop(body)
}

fn has_loop(body: &[Stmt]) -> bool {
    body.iter().any(|s| match s {
        Stmt::For(..) | Stmt::While(..) | Stmt::Rows(..) | Stmt::Fold(..) => true,
        Stmt::If(_, a, b) => has_loop(a) || has_loop(b),
        Stmt::Block(_, b) => has_loop(b),
        _ => false,
    })
}

/// ```text
/// let mut strip = lo
/// while strip + STRIP <= hi {
///   for strip_lane in 0..STRIP { let k = strip + strip_lane; body }
///   strip += STRIP
/// }
/// for k in strip..hi { body }
/// ```
fn strip_mined(k: Local, lo: Expr, hi: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
    let start = ir::var(Local::Strip);
    let whole = ir::bin(
        Op::Le,
        ir::bin(Op::Add, start.clone(), Expr::Usize(STRIP)),
        hi.clone(),
    );
    let mut lane_body = vec![Stmt::Let(
        k,
        false,
        ir::bin(Op::Add, start.clone(), ir::var(Local::StripLane)),
    )];
    lane_body.extend(body.iter().cloned());
    let per_strip = vec![
        Stmt::For(
            Local::StripLane,
            Expr::Usize(0),
            Expr::Usize(STRIP),
            lane_body,
        ),
        Stmt::Assign(start.clone(), Assign::Add, Expr::Usize(STRIP)),
    ];
    vec![
        Stmt::Let(Local::Strip, true, lo),
        Stmt::While(whole, per_strip),
        Stmt::For(k, start, hi, body),
    ]
}
