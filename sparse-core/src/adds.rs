//! A row's adds into its dense accumulator, or a root position's appends, bound the entries
//! it appends.
//!
//! A loop that sums each row into a dense accumulator and appends the accumulator's keys
//! (Gustavson's SpGEMM: `c(i, j) = a(i, k) * b(k, j)` adds `a(i, k) * b(k, j)` at key `j` for
//! every `k` of `a`'s row, then appends the keys) appends at most as many entries as the row
//! made adds: each key was added at least once. A loop over the positions of a sparse root
//! that appends one coordinate at a time (TTV from CSF: `a(i, j) = b(i, j, k) * c(k)` appends
//! `j` once per `(i, j)` position of `b` that holds a product) appends at most as many
//! entries as its appends run, counted with the conditions around them dropped.
//!
//! Counting either needs only the loops around the counted statements (an event): their
//! statements with each event made `count += 1` and everything that touches the accumulator
//! or the output removed. What is left reads only the operands' levels, and LLVM folds an
//! innermost loop that only counts into its trip count: for SpGEMM, the lengths of `b`'s
//! rows that `a`'s row names, a pass over `a`'s entries instead of the products; for TTV,
//! the `(i, j)` positions below each `i`, a difference of `pos`.
//!
//! The parallel assembly (`crate::parallel`) turns that count into the bound its one-phase
//! split needs ([`crate::ir::Bound::Adds`], [`crate::ir::Bound::Appends`]): the runtime
//! computes every row's (position's) bound first, in parallel, then runs the loop once, each
//! chunk writing into a window as long as its bound. Two phases (counting the entries of
//! every row, then filling) cost the loop twice.

use crate::ir::{self, block_uses, Assign, Expr, Local, Stmt};
use crate::level::{LevelDecl, LevelFn};
use std::collections::HashSet;

/// The names under which an appended output's last level declares the functions its rows
/// call: counts and the parallel pass recognize its calls by them, never by a convention.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct AppendFns {
    /// `append_coord(j)`.
    pub coord: Option<&'static str>,
    /// `append_coords(keys)`.
    pub coords: Option<&'static str>,
    /// `append_edges(parent, begin, end)`.
    pub edges: Option<&'static str>,
    /// `len()`, a segment's bound.
    pub len: Option<&'static str>,
}

impl AppendFns {
    /// The functions as `decl` declares them.
    pub fn of(decl: &LevelDecl) -> AppendFns {
        let name = |f| decl.function(f).map(|f| f.name);
        AppendFns {
            coord: name(LevelFn::AppendCoord),
            coords: name(LevelFn::AppendCoords),
            edges: name(LevelFn::AppendEdges),
            len: name(LevelFn::Len),
        }
    }

    /// Whether `m` is the declared name of one of `fns`.
    pub fn names(m: &str, fns: &[Option<&'static str>]) -> bool {
        fns.contains(&Some(m))
    }
}

/// What a count counts, and the locals whose statements it removes.
struct Event {
    /// One occurrence (before counting) is a call of this method on this local.
    call: (Local, &'static str),
    /// The locals a statement that touches is removed (the output's, the accumulator).
    touched: Vec<Local>,
    /// The local counted into.
    counter: Local,
}

impl Event {
    /// `counter += 1`.
    fn counted(&self) -> Stmt {
        Stmt::Assign(ir::var(self.counter), Assign::Add, Expr::Usize(1))
    }

    /// Whether `s` is one occurrence (before counting).
    fn is(&self, s: &Stmt) -> bool {
        matches!(s, Stmt::Expr(Expr::Call(r, m, _)) if *m == self.call.1 && is(r, self.call.0))
    }

    /// Whether `body` holds an occurrence (before counting) or counts one (after).
    fn in_block(&self, body: &[Stmt]) -> bool {
        let mut found = false;
        ir::visit_stmts(body, &mut |s| {
            found |= self.is(s) || self.counts(s);
        });
        found
    }

    /// Whether `s` is `counter += 1`.
    fn counts(&self, s: &Stmt) -> bool {
        matches!(s, Stmt::Assign(Expr::Var(l), ..) if *l == self.counter)
    }
}

/// The statements counting the adds of one row of `row_body` (the body of a loop over the
/// rows that sums each into [`Local::Workspace`] and appends to `level` and `vals`) into
/// [`Local::Adds`], which they start at 0; `None` unless every coordinate the row appends
/// to `level` is a key of the accumulator (`level.append_coords(workspace.keys())`), or if
/// a statement kept reads a local that a removed statement set, or if the row adds nothing.
pub fn row_adds(
    row_body: &[Stmt],
    level: Local,
    vals: Local,
    fns: &AppendFns,
) -> Option<Vec<Stmt>> {
    if !appends_keys_only(row_body, level, fns) {
        return None;
    }
    // The accumulator's own method (the runtime's `DenseAccumulator`), not a level's.
    let adds = Event {
        call: (Local::Workspace, "add_unchecked"),
        touched: vec![level, vals, Local::Workspace],
        counter: Local::Adds,
    };
    count(row_body, &adds)
}

/// The statements counting the appends to `level` of one iteration of `body` (the body of a
/// loop over a root's positions appending to `level` and `vals`) into [`Local::Appends`],
/// which they start at 0: a bound of the entries the iteration appends. `None` unless every
/// coordinate is appended alone (`level.append_coord(j)`), or if a statement kept reads a
/// local that a removed statement set, or if the iteration appends nothing.
pub fn position_appends(
    body: &[Stmt],
    level: Local,
    vals: Local,
    fns: &AppendFns,
) -> Option<Vec<Stmt>> {
    let alone = !ir::any_expr(body, &mut |e| match e {
        Expr::Call(r, m, _) if is(r, level) => {
            !AppendFns::names(m, &[fns.len, fns.coord, fns.edges])
        }
        _ => false,
    });
    let appends = Event {
        call: (level, fns.coord?),
        touched: vec![level, vals],
        counter: Local::Appends,
    };
    alone.then(|| count(body, &appends))?
}

/// `body`'s statements counting `event`, from 0 (see [`count_block`]); `None` if a kept
/// statement reads a local a removed one set, or nothing is counted.
fn count(body: &[Stmt], event: &Event) -> Option<Vec<Stmt>> {
    let mut removed = HashSet::new();
    let counted = count_block(body, event, &mut removed)?;
    let mut reads_removed = false;
    ir::visit_stmts(&counted, &mut |s| {
        ir::shallow_reads(s, &mut |l| reads_removed |= removed.contains(&l));
    });
    if reads_removed || !event.in_block(&counted) {
        return None;
    }
    // What is left of the loops binds coordinates the count no longer reads.
    let start = Stmt::Let(event.counter, true, Expr::Usize(0));
    Some(ir::prune_unused_lets(
        [start].into_iter().chain(counted).collect(),
    ))
}

/// `body` with each event made `count += 1`, every other statement that touches
/// `event.touched` removed, and every compound statement left without an event removed (the
/// locals removed statements bind or assign go into `removed`); `None` if a statement the
/// count needs cannot be kept (a loop whose bounds read the accumulator or the output, or
/// a nested parallel statement). A condition that reads what was removed, around branches
/// that only count, is dropped: counting them always only loosens the bound (`if some {
/// append }` after a sum the count no longer computes).
fn count_block(body: &[Stmt], event: &Event, removed: &mut HashSet<Local>) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    for s in body {
        let touches = |e: &Expr| event.touched.iter().any(|&l| ir::expr_uses(e, l));
        let kept = match s {
            s if event.is(s) => Some(event.counted()),
            Stmt::For(l, lo, hi, b) if !touches(lo) && !touches(hi) => {
                let b = count_block(b, event, removed)?;
                event
                    .in_block(&b)
                    .then(|| Stmt::For(*l, lo.clone(), hi.clone(), b))
            }
            Stmt::While(c, b) if !touches(c) => {
                let b = count_block(b, event, removed)?;
                event.in_block(&b).then(|| Stmt::While(c.clone(), b))
            }
            Stmt::If(c, t, e) => {
                let (t, e) = (
                    count_block(t, event, removed)?,
                    count_block(e, event, removed)?,
                );
                let only_counts = t.iter().chain(&e).all(|s| event.counts(s));
                let unknown = touches(c) || removed.iter().any(|&l| ir::expr_uses(c, l));
                match (event.in_block(&t) || event.in_block(&e), unknown) {
                    (false, _) => None,
                    (true, true) if only_counts => {
                        out.extend(t.into_iter().chain(e));
                        continue;
                    }
                    // A condition on the accumulator or the output around an event.
                    (true, true) if touches(c) => return None,
                    (true, _) => Some(Stmt::If(c.clone(), t, e)),
                }
            }
            Stmt::Block(n, b) => {
                let b = count_block(b, event, removed)?;
                event.in_block(&b).then_some(Stmt::Block(*n, b))
            }
            Stmt::Rows(..) | Stmt::Fold(..) => return None,
            // A loop whose header reads the accumulator or the output holds no event the
            // count could keep without it.
            Stmt::For(..) | Stmt::While(..) if event.in_block(std::slice::from_ref(s)) => {
                return None;
            }
            s if event
                .touched
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

/// Whether every coordinate `row_body` appends to `level` is a key of the accumulator: its
/// only appends are `level.append_coords(workspace.keys())`.
fn appends_keys_only(row_body: &[Stmt], level: Local, fns: &AppendFns) -> bool {
    let keys = |args: &[Expr]| matches!(args, [Expr::Call(w, "keys", a)] if a.is_empty() && is(w, Local::Workspace));
    !ir::any_expr(row_body, &mut |e| match e {
        Expr::Call(r, m, args) if is(r, level) && fns.coords == Some(*m) => !keys(args),
        Expr::Call(r, m, _) if is(r, level) => !AppendFns::names(m, &[fns.len, fns.edges]),
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

    /// The append functions of a CSR output's last level.
    fn fns() -> AppendFns {
        AppendFns::of(&crate::level::COMPRESSED)
    }

    /// `let (p, end) = level.pos_bounds_unchecked(parent); for p in p..end { body }`, as
    /// access `a` iterates a level.
    fn positions(a: usize, level: Local, parent: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        positions_of(a, 1, level, parent, body)
    }

    /// [`positions`] of level `k` of access `a`.
    fn positions_of(a: usize, k: usize, level: Local, parent: Expr, body: Vec<Stmt>) -> Vec<Stmt> {
        let (p, end) = (Local::Pos(a, k), Local::End(a, k));
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
            record_segment(),
            Stmt::Expr(call(var(Local::Workspace), "clear", vec![])),
        ]
    }

    /// `if end > begin { c.append_edges(i, begin, end) }`: row `i`'s segment recorded.
    fn record_segment() -> Stmt {
        let (begin, end) = (Local::SegBegin(0, 1), Local::SegEnd(0, 1));
        Stmt::If(
            ir::bin(ir::Op::Gt, var(end), var(begin)),
            vec![Stmt::Expr(call(
                var(C),
                "append_edges",
                vec![var(Local::Index(0)), var(begin), var(end)],
            ))],
            vec![],
        )
    }

    #[test]
    fn a_gustavson_row_counts_its_products() {
        let counted = row_adds(&gustavson(copy_keys()), C, VALS, &fns()).expect("a bound");
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
        assert!(row_adds(&gustavson(rest), C, VALS, &fns()).is_none());
        // Coordinates appended from elsewhere than the keys.
        let rest = vec![Stmt::Expr(call(
            var(C),
            "append_coords",
            vec![call(var(A), "coords", vec![])],
        ))];
        assert!(row_adds(&gustavson(rest), C, VALS, &fns()).is_none());
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
        assert!(row_adds(&body, C, VALS, &fns()).is_none());
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
        assert!(row_adds(&body, C, VALS, &fns()).is_none());
        // A row that adds nothing.
        assert!(row_adds(&copy_keys(), C, VALS, &fns()).is_none());
    }

    /// One position of TTV's loop over a CSF root (`b` access 1, levels `A` and `B`):
    /// for each `(i, j)` position a sum over `k` into `t` with a flag `some`, then the entry
    /// appended if some product was summed, then the row's segment. `guarded` is what the
    /// flag guards.
    fn ttv_position(guarded: Vec<Stmt>) -> Vec<Stmt> {
        let (t, some) = (Local::Temp(0), Local::TempSome(0));
        let (begin, end) = (Local::SegBegin(0, 1), Local::SegEnd(0, 1));
        let sum = vec![
            Stmt::Let(
                Local::Index(2),
                false,
                call(var(B), "pos_access_unchecked", vec![var(Local::Pos(1, 2))]),
            ),
            Stmt::Assign(var(t), Assign::Add, Expr::Usize(1)),
            Stmt::Assign(var(some), Assign::Set, Expr::Bool(true)),
        ];
        let fiber = [
            Stmt::Let(
                Local::Index(1),
                false,
                call(var(A), "pos_access_unchecked", vec![var(Local::Pos(1, 1))]),
            ),
            Stmt::Let(t, true, Expr::Usize(0)),
            Stmt::Let(some, true, Expr::Bool(false)),
        ]
        .into_iter()
        .chain(positions_of(1, 2, B, var(Local::Pos(1, 1)), sum))
        .chain([Stmt::If(var(some), guarded, vec![])])
        .collect();
        [Stmt::Let(begin, false, call(var(C), "len", vec![]))]
            .into_iter()
            .chain(positions_of(1, 1, A, var(Local::Pos(1, 0)), fiber))
            .chain([
                Stmt::Let(end, false, call(var(C), "len", vec![])),
                record_segment(),
            ])
            .collect()
    }

    /// `c.append_coord(j); vals.push(t)`.
    fn append_entry() -> Vec<Stmt> {
        vec![
            Stmt::Expr(call(var(C), "append_coord", vec![var(Local::Index(1))])),
            Stmt::Expr(call(var(VALS), "push", vec![var(Local::Temp(0))])),
        ]
    }

    #[test]
    fn calls_are_recognized_by_the_declared_names() {
        let body = ttv_position(append_entry());
        // A level declaring its coordinate append under another name appends nothing here.
        let renamed = AppendFns {
            coord: Some("push_coordinate"),
            ..fns()
        };
        assert!(position_appends(&body, C, VALS, &renamed).is_none());
        let undeclared = AppendFns {
            coord: None,
            ..fns()
        };
        assert!(position_appends(&body, C, VALS, &undeclared).is_none());
        assert!(position_appends(&body, C, VALS, &fns()).is_some());
    }

    #[test]
    fn a_ttv_position_counts_its_fibers() {
        let counted =
            position_appends(&ttv_position(append_entry()), C, VALS, &fns()).expect("a bound");
        // `let mut appends = 0; let (p, end) = a.pos_bounds(..); for p in p..end { appends += 1 }`:
        // the flag's condition dropped, the sum and everything of the output gone.
        assert!(matches!(
            &counted[0],
            Stmt::Let(Local::Appends, true, Expr::Usize(0))
        ));
        let mut loops = 0;
        ir::visit_stmts(&counted, &mut |s| {
            loops += usize::from(matches!(s, Stmt::For(..)))
        });
        assert_eq!((counted.len(), loops), (3, 1), "{counted:?}");
        match &counted[2] {
            Stmt::For(_, _, _, b) => assert!(matches!(
                &b[..],
                [Stmt::Assign(
                    Expr::Var(Local::Appends),
                    Assign::Add,
                    Expr::Usize(1)
                )]
            )),
            s => panic!("{s:?}"),
        }
        for gone in [
            C,
            VALS,
            B,
            Local::Temp(0),
            Local::TempSome(0),
            Local::Index(1),
        ] {
            assert!(!block_uses(&counted, gone), "{gone:?}");
        }
    }

    #[test]
    fn a_condition_around_more_than_counts_is_kept_or_refused() {
        // The flag guards the append and an assignment the count would keep: the condition
        // cannot be dropped, and it reads what the removed sum set.
        let mut guarded = append_entry();
        guarded.push(Stmt::Assign(
            var(Local::Flag(0)),
            Assign::Set,
            Expr::Bool(true),
        ));
        assert!(position_appends(&ttv_position(guarded), C, VALS, &fns()).is_none());
        // Coordinates appended more than one at a time.
        let many = vec![Stmt::Expr(call(
            var(C),
            "append_coords",
            vec![call(var(A), "coords", vec![])],
        ))];
        assert!(position_appends(&ttv_position(many), C, VALS, &fns()).is_none());
        // No append at all.
        assert!(position_appends(&ttv_position(vec![]), C, VALS, &fns()).is_none());
    }
}
