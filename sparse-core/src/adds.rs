//! A row's adds into its dense accumulator bound the entries it appends.
//!
//! A loop that sums each row into a dense accumulator and appends the accumulator's keys
//! (Gustavson's SpGEMM: `c(i, j) = a(i, k) * b(k, j)` adds `a(i, k) * b(k, j)` at key `j` for
//! every `k` of `a`'s row, then appends the keys) appends at most as many entries as the row
//! made adds: each key was added at least once. Counting the adds needs only the row's
//! loops: their statements with each `workspace.add_unchecked(j, v)` made `adds += 1` and
//! everything that touches the accumulator or the output removed. What is left reads only
//! the operands' levels, and LLVM folds an innermost loop that only counts into its trip
//! count: for SpGEMM, the lengths of `b`'s rows that `a`'s row names, a pass over `a`'s
//! entries instead of the products.
//!
//! The parallel assembly (`crate::parallel`) turns that count into the bound its one-phase
//! split needs ([`crate::ir::Bound::Adds`]): the runtime computes every row's bound first,
//! in parallel, then runs the loop once, each chunk of rows writing into a window as long as
//! its rows' bounds. Two phases (counting the distinct keys of every row with a key counter,
//! then filling) cost the adds twice.

use crate::ir::{self, block_uses, Assign, Expr, Local, Stmt};
use std::collections::HashSet;

/// The statements counting the adds of one row of `row_body` (the body of a loop over the
/// rows that sums each into [`Local::Workspace`] and appends to `level` and `vals`) into
/// [`Local::Adds`], which they start at 0; `None` unless every coordinate the row appends
/// to `level` is a key of the accumulator (`level.append_coords(workspace.keys())`), or if
/// a statement kept reads a local that a removed statement set, or if the row adds nothing.
pub fn row_adds(row_body: &[Stmt], level: Local, vals: Local) -> Option<Vec<Stmt>> {
    if !appends_keys_only(row_body, level) {
        return None;
    }
    let mut removed = HashSet::new();
    let counted = count_block(row_body, &[level, vals, Local::Workspace], &mut removed)?;
    let mut reads_removed = false;
    ir::visit_stmts(&counted, &mut |s| {
        ir::shallow_reads(s, &mut |l| reads_removed |= removed.contains(&l));
    });
    if reads_removed || !adds(&counted) {
        return None;
    }
    // What is left of the row's loops binds coordinates the count no longer reads.
    let start = Stmt::Let(Local::Adds, true, Expr::Usize(0));
    Some(ir::prune_unused_lets(
        [start].into_iter().chain(counted).collect(),
    ))
}

/// `body` with each add into the accumulator made `adds += 1`, every other statement that
/// touches `touched` removed, and every compound statement left without an add removed
/// (the locals removed statements bind or assign go into `removed`); `None` if a statement
/// the count needs cannot be kept (a loop whose bounds read the accumulator or the output,
/// or a nested parallel statement).
fn count_block(
    body: &[Stmt],
    touched: &[Local],
    removed: &mut HashSet<Local>,
) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    for s in body {
        let touches = |e: &Expr| touched.iter().any(|&l| ir::expr_uses(e, l));
        let kept = match s {
            Stmt::Expr(Expr::Call(r, "add_unchecked", _)) if is(r, Local::Workspace) => Some(
                Stmt::Assign(ir::var(Local::Adds), Assign::Add, Expr::Usize(1)),
            ),
            Stmt::For(l, lo, hi, b) if !touches(lo) && !touches(hi) => {
                let b = count_block(b, touched, removed)?;
                adds(&b).then(|| Stmt::For(*l, lo.clone(), hi.clone(), b))
            }
            Stmt::While(c, b) if !touches(c) => {
                let b = count_block(b, touched, removed)?;
                adds(&b).then(|| Stmt::While(c.clone(), b))
            }
            Stmt::If(c, t, e) if !touches(c) => {
                let (t, e) = (
                    count_block(t, touched, removed)?,
                    count_block(e, touched, removed)?,
                );
                (adds(&t) || adds(&e)).then(|| Stmt::If(c.clone(), t, e))
            }
            Stmt::Block(n, b) => {
                let b = count_block(b, touched, removed)?;
                adds(&b).then_some(Stmt::Block(*n, b))
            }
            Stmt::Rows(..) | Stmt::Fold(..) => return None,
            // A compound statement whose header reads the accumulator or the output holds
            // no add the count could keep without it.
            Stmt::For(..) | Stmt::While(..) | Stmt::If(..) if adds(std::slice::from_ref(s)) => {
                return None;
            }
            s if touched
                .iter()
                .any(|&l| block_uses(std::slice::from_ref(s), l)) =>
            {
                None
            }
            s => Some(s.clone()),
        };
        match kept {
            Some(k) => out.push(k),
            None => binds(s, removed),
        }
    }
    Some(out)
}

/// Whether `body` adds into the accumulator anywhere (before counting) or counts an add
/// (after).
fn adds(body: &[Stmt]) -> bool {
    let mut found = false;
    ir::visit_stmts(body, &mut |s| {
        found |= matches!(s, Stmt::Expr(Expr::Call(r, "add_unchecked", _)) if is(r, Local::Workspace))
            || matches!(s, Stmt::Assign(Expr::Var(Local::Adds), ..));
    });
    found
}

/// Whether every coordinate `row_body` appends to `level` is a key of the accumulator: its
/// only appends are `level.append_coords(workspace.keys())`.
fn appends_keys_only(row_body: &[Stmt], level: Local) -> bool {
    let keys = |args: &[Expr]| matches!(args, [Expr::Call(w, "keys", a)] if a.is_empty() && is(w, Local::Workspace));
    !ir::any_expr(row_body, &mut |e| match e {
        Expr::Call(r, "append_coords", args) if is(r, level) => !keys(args),
        Expr::Call(r, m, _) if is(r, level) => !matches!(*m, "len" | "append_edges"),
        _ => false,
    })
}

/// Adds the locals `s` binds or assigns, at any depth, to `out`.
fn binds(s: &Stmt, out: &mut HashSet<Local>) {
    ir::visit_stmts(std::slice::from_ref(s), &mut |s| match s {
        Stmt::Let(l, ..) | Stmt::For(l, ..) => {
            out.insert(*l);
        }
        Stmt::LetPair(a, b, ..) => out.extend(a.iter().chain(b)),
        Stmt::Assign(Expr::Var(l), ..) => {
            out.insert(*l);
        }
        _ => {}
    });
}

/// Whether `e` is local `l`.
fn is(e: &Expr, l: Local) -> bool {
    matches!(e, Expr::Var(x) if *x == l)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{call, var};

    const C: Local = Local::Level(0, 1);
    const VALS: Local = Local::Vals(0);
    const A: Local = Local::Level(1, 1);
    const B: Local = Local::Level(2, 1);

    /// `let (p, end) = level.pos_bounds_unchecked(parent); for p in p..end { body }`, as
    /// access `a` iterates a level.
    fn positions(a: usize, level: Local, parent: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let (p, end) = (Local::Pos(a, 1), Local::End(a, 1));
        let bounds = call(var(level), "pos_bounds_unchecked", vec![parent]);
        vec![
            Stmt::LetPair(Some(p), Some(end), false, bounds),
            Stmt::For(p, var(p), var(end), body),
        ]
    }

    /// A row of Gustavson's SpGEMM: the adds, then `rest` (the copy into the output).
    fn gustavson(rest: Vec<Stmt>) -> Vec<Stmt> {
        let (k, j) = (Local::Index(2), Local::Index(1));
        let add = Stmt::Expr(call(
            var(Local::Workspace),
            "add_unchecked",
            vec![var(j), Expr::Usize(1)],
        ));
        let inner = [Stmt::Let(
            j,
            false,
            call(var(B), "pos_access_unchecked", vec![var(Local::Pos(2, 1))]),
        )]
        .into_iter()
        .chain([add])
        .collect();
        let outer = [Stmt::Let(
            k,
            false,
            call(var(A), "pos_access_unchecked", vec![var(Local::Pos(1, 1))]),
        )]
        .into_iter()
        .chain(positions(2, B, var(k), inner))
        .collect();
        positions(1, A, var(Local::Index(0)), outer)
            .into_iter()
            .chain(rest)
            .collect()
    }

    /// The copy of the accumulator's keys and values into the output, segment recorded.
    fn copy_keys() -> Vec<Stmt> {
        let keys = call(var(Local::Workspace), "keys", vec![]);
        let values = call(var(Local::Workspace), "values", vec![]);
        let (begin, end) = (Local::SegBegin(0, 1), Local::SegEnd(0, 1));
        vec![
            Stmt::Expr(call(var(Local::Workspace), "sort", vec![])),
            Stmt::Let(begin, false, call(var(C), "len", vec![])),
            Stmt::Expr(call(var(C), "append_coords", vec![keys])),
            Stmt::Expr(call(var(VALS), "extend", vec![values])),
            Stmt::Let(end, false, call(var(C), "len", vec![])),
            Stmt::If(
                ir::bin(ir::Op::Gt, var(end), var(begin)),
                vec![Stmt::Expr(call(
                    var(C),
                    "append_edges",
                    vec![var(Local::Index(0)), var(begin), var(end)],
                ))],
                vec![],
            ),
            Stmt::Expr(call(var(Local::Workspace), "clear", vec![])),
        ]
    }

    #[test]
    fn a_gustavson_row_counts_its_products() {
        let counted = row_adds(&gustavson(copy_keys()), C, VALS).expect("a bound");
        let mut adds = 0;
        ir::visit_stmts(&counted, &mut |s| {
            adds += usize::from(matches!(
                s,
                Stmt::Assign(Expr::Var(Local::Adds), Assign::Add, _)
            ));
        });
        assert_eq!(adds, 1);
        assert!(matches!(
            &counted[0],
            Stmt::Let(Local::Adds, true, Expr::Usize(0))
        ));
        for gone in [Local::Workspace, C, VALS, Local::Index(1)] {
            assert!(!block_uses(&counted, gone), "{gone:?}");
        }
    }

    #[test]
    fn a_coordinate_not_of_the_keys_gives_no_bound() {
        let mut rest = copy_keys();
        rest.push(Stmt::Expr(call(
            var(C),
            "append_coord",
            vec![Expr::Usize(0)],
        )));
        assert!(row_adds(&gustavson(rest), C, VALS).is_none());
        // Coordinates appended from elsewhere than the keys.
        let rest = vec![Stmt::Expr(call(
            var(C),
            "append_coords",
            vec![call(var(A), "coords", vec![])],
        ))];
        assert!(row_adds(&gustavson(rest), C, VALS).is_none());
    }

    #[test]
    fn adds_under_a_loop_over_the_accumulator_give_no_bound() {
        // A loop whose bound reads the accumulator, adding inside: it cannot be kept.
        let n = call(var(Local::Workspace), "len", vec![]);
        let body = vec![Stmt::For(
            Local::Cursor,
            Expr::Usize(0),
            n,
            gustavson(vec![]),
        )];
        assert!(row_adds(&body, C, VALS).is_none());
    }

    #[test]
    fn a_count_reading_what_a_removed_statement_set_gives_no_bound() {
        // `let n = workspace.len(); for p in 0..n { add }`: the loop reads `n`.
        let n = Local::WorkspaceLen;
        let add = Stmt::Expr(call(
            var(Local::Workspace),
            "add_unchecked",
            vec![Expr::Usize(0), Expr::Usize(1)],
        ));
        let body = vec![
            Stmt::Let(n, false, call(var(Local::Workspace), "len", vec![])),
            Stmt::For(Local::Cursor, Expr::Usize(0), var(n), vec![add]),
        ];
        assert!(row_adds(&body, C, VALS).is_none());
        // A row that adds nothing.
        assert!(row_adds(&copy_keys(), C, VALS).is_none());
    }
}
