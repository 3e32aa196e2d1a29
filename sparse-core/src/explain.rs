//! What the compiler decided for a kernel, as text for people: the statement with its sums
//! made explicit, the iteration graph and loop order of each loop nest, the merge lattice of
//! each index variable, and the loop IR. The `sparse-kernel` command-line tool prints these
//! (`--graph`, `--lattice`, `--ir`); each function works on a [`Compiled`] kernel.
//!
//! A level is named `a.1`: level 1 (0 is the outermost, in storage order) of tensor `a`, and
//! `a#2.1` for the second access of a tensor the statement reads twice.
//!
//! ```
//! let item: syn::ItemFn = syn::parse_quote! {
//!     fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
//! };
//! let compiled = sparse_core::compile(&item).map_err(|e| e.to_string())?;
//! assert_eq!(sparse_core::explain::statement(&compiled.kernel), "y(i) = sum_j(a(i, j) * x(j))");
//! assert!(sparse_core::explain::graph(&compiled).contains("i (Dense) -> j (Compressed)"));
//! # Ok::<(), String>(())
//! ```

use crate::diagnostic::Diagnostics;
use crate::ir::Listing;
use crate::iteration_graph::path_edges;
use crate::lattice::{Iter, LevelInfo, MergeLattice, Strategy};
use crate::lower::LoopLevels;
use crate::lower::{MAX_CASE_COPIES, MAX_LATTICE_ITERATORS};
use crate::names::plain;
use crate::notation::{AccessId, AssignOp, BinOp, Expr, Kernel, Output, VarId};
use crate::split::{self, Part};
use crate::Compiled;
use std::fmt::Write;

/// The statement of `kernel` in index notation with every reduction an explicit `sum_v(..)`:
/// `y(i) = sum_j(a(i, j) * x(j))`.
pub fn statement(kernel: &Kernel) -> String {
    let lhs = match &kernel.output {
        Output::Tensor(a) => access(kernel, *a),
        Output::Scalar(name) => plain(name),
    };
    let op = match kernel.op {
        AssignOp::Assign => "=",
        AssignOp::AddAssign => "+=",
    };
    format!("{lhs} {op} {}", expression(kernel, &kernel.rhs))
}

/// An expression of `kernel` in index notation, parenthesized only where precedence needs it.
pub fn expression(kernel: &Kernel, expr: &Expr) -> String {
    match expr {
        Expr::Access(a) => access(kernel, *a),
        Expr::Scalar(s) => plain(&kernel.scalars[*s].name),
        Expr::Literal(l) => quote::ToTokens::to_token_stream(&l.lit).to_string(),
        Expr::Neg(e) => format!("-{}", operand(kernel, e, 3, false)),
        Expr::Binary(op, l, r) => {
            let (symbol, prec) = match op {
                BinOp::Add => ("+", 1),
                BinOp::Sub => ("-", 1),
                BinOp::Mul => ("*", 2),
                BinOp::Div => ("/", 2),
            };
            // `a - (b - c)` and `a / (b * c)` keep their parentheses; `a + (b + c)` need not.
            let right_strict = matches!(op, BinOp::Sub | BinOp::Div);
            format!(
                "{} {symbol} {}",
                operand(kernel, l, prec, false),
                operand(kernel, r, prec, right_strict)
            )
        }
        Expr::Sum(vars, body) => {
            let names: Vec<String> = vars.iter().map(|&v| var(kernel, v)).collect();
            let sub = match names.as_slice() {
                [one] => one.clone(),
                _ => format!("{{{}}}", names.join(", ")),
            };
            format!("sum_{sub}({})", expression(kernel, body))
        }
        Expr::Reduce(f, vars, body) => {
            let names: Vec<String> = vars.iter().map(|&v| var(kernel, v)).collect();
            format!(
                "{}[{}]({})",
                kernel.functions[*f].name,
                names.join("]["),
                expression(kernel, body)
            )
        }
        Expr::Call(f, args) => {
            let args: Vec<String> = args.iter().map(|a| expression(kernel, a)).collect();
            format!("{}({})", kernel.functions[*f].name, args.join(", "))
        }
        Expr::Const(c) => c.to_string(),
    }
}

/// `expr` as an operand of an operator of precedence `prec` (1 additive, 2 multiplicative,
/// 3 unary), in parentheses when it binds less tightly (or equally, if `strict`).
fn operand(kernel: &Kernel, expr: &Expr, prec: u8, strict: bool) -> String {
    let own = match expr {
        Expr::Binary(BinOp::Add | BinOp::Sub, ..) => 1,
        Expr::Binary(BinOp::Mul | BinOp::Div, ..) => 2,
        Expr::Neg(_) => 3,
        _ => 4,
    };
    let text = expression(kernel, expr);
    if own < prec || (strict && own == prec) {
        format!("({text})")
    } else {
        text
    }
}

/// An access as written, its logical index variables first and a remapped format's hidden
/// ones after a bar: `a(i, j)`, `d(i, j | diagonal)`.
fn access(kernel: &Kernel, a: AccessId) -> String {
    let acc = &kernel.accesses[a];
    let logical = kernel.format_of(a).logical_order().min(acc.vars.len());
    let shown: Vec<String> = acc.vars[..logical]
        .iter()
        .map(|&v| var(kernel, v))
        .collect();
    let hidden: Vec<String> = acc.vars[logical..]
        .iter()
        .map(|&v| var(kernel, v))
        .collect();
    let tensor = plain(&kernel.tensors[acc.tensor].name);
    if hidden.is_empty() {
        format!("{tensor}({})", shown.join(", "))
    } else {
        format!("{tensor}({} | {})", shown.join(", "), hidden.join(", "))
    }
}

fn var(kernel: &Kernel, v: VarId) -> String {
    plain(&kernel.vars[v].name)
}

/// The name of level `level` of access `a`: `a.1`, or `a#2.1` for the second access of a
/// tensor read more than once.
pub fn level_name(kernel: &Kernel, a: AccessId, level: usize) -> String {
    let tensor = kernel.accesses[a].tensor;
    let same: Vec<AccessId> = (0..kernel.accesses.len())
        .filter(|&b| kernel.accesses[b].tensor == tensor)
        .collect();
    let name = plain(&kernel.tensors[tensor].name);
    match same.iter().position(|&b| b == a) {
        Some(n) if same.len() > 1 => format!("{name}#{}.{level}", n + 1),
        _ => format!("{name}.{level}"),
    }
}

/// The loop nests of a compiled kernel as lowering sees them: each nest's statement (a part of
/// the kernel's, when it is split into several nests; below a workspace's outer loops, the
/// statement computed into the workspace) and its loop order, outermost first.
pub fn nests(compiled: &Compiled) -> Vec<Part> {
    let mut ignored = Diagnostics::default();
    let found = match &compiled.workspace {
        Some(w) => split::parts_after(&w.inner, &w.outer, &mut ignored),
        None => split::parts(&compiled.kernel, &mut ignored),
    };
    found
        .filter(|parts| parts.len() == compiled.orders.len())
        .unwrap_or_else(|| {
            compiled
                .orders
                .iter()
                .map(|order| Part {
                    kernel: compiled.kernel.clone(),
                    order: order.clone(),
                })
                .collect()
        })
}

/// The header every explanation starts with: the kernel's statement, the conversions it makes
/// on entry and the workspace its output is appended through.
fn header(compiled: &Compiled) -> String {
    let k = &compiled.kernel;
    let mut out = format!("kernel `{}`: {}\n", plain(&k.name), statement(k));
    for c in &k.conversions {
        let t = &k.tensors[c.tensor];
        let _ = writeln!(
            out,
            "converts `{}` on entry from {} into {}",
            plain(&t.name),
            c.from.written,
            crate::conversion::spelled(&t.format)
        );
    }
    if let Some(w) = &compiled.workspace {
        let vars = |vs: &[VarId]| vs.iter().map(|&v| var(k, v)).collect::<Vec<_>>().join(", ");
        let outer = if w.outer.is_empty() {
            "the whole output".to_string()
        } else {
            format!("for each {}", vars(&w.outer))
        };
        let _ = writeln!(
            out,
            "workspace: {outer}, output levels {}.. ({}) accumulate in a {} workspace, then are appended in order",
            w.level,
            vars(&w.vars),
            w.kind.name()
        );
    }
    out
}

fn nest_title(out: &mut String, n: usize, count: usize, part: &Part) {
    let order: Vec<String> = part.order.iter().map(|&v| var(&part.kernel, v)).collect();
    let _ = writeln!(
        out,
        "loop nest {} of {count}: {}\n  loop order: {}",
        n + 1,
        statement(&part.kernel),
        if order.is_empty() {
            "(no loops)".to_string()
        } else {
            order.join(", ")
        }
    );
}

/// The iteration graph of each loop nest: its loop order, any order a schedule forces, and
/// each tensor's path through the index variables in storage order. `->` joins a level that
/// must be visited after its parent (it cannot be located, or it is appended); `~>` one that
/// could be located in any order, whose edge the order follows where it closes no cycle.
pub fn graph(compiled: &Compiled) -> String {
    let mut out = header(compiled);
    let parts = nests(compiled);
    for (n, part) in parts.iter().enumerate() {
        nest_title(&mut out, n, parts.len(), part);
        let k = &part.kernel;
        if !k.forced_order.is_empty() {
            let forced: Vec<String> = k.forced_order.iter().map(|&v| var(k, v)).collect();
            let _ = writeln!(out, "  scheduled order: {}", forced.join(", "));
        }
        let mut rows = Vec::new();
        for a in path_accesses(k) {
            let format = k.format_of(a);
            let (hard, _) = path_edges(k, a);
            let mut path = String::new();
            for (level, lf) in format.levels.iter().enumerate() {
                let v = k.accesses[a].level_var(format, level);
                if level > 0 {
                    let parent = k.accesses[a].level_var(format, level - 1);
                    path.push_str(if hard.contains(&(parent, v)) {
                        " -> "
                    } else {
                        " ~> "
                    });
                }
                let _ = write!(path, "{} ({})", var(k, v), lf.type_name());
            }
            let name = level_name(k, a, 0);
            let name = name.strip_suffix(".0").unwrap_or(&name).to_string();
            rows.push((name, format_column(compiled, k, a), path));
        }
        let wide = |f: fn(&(String, String, String)) -> usize| rows.iter().map(f).max();
        let (w0, w1) = (wide(|r| r.0.len()), wide(|r| r.1.len()));
        for (name, format, path) in &rows {
            let _ = writeln!(
                out,
                "  {name:w0$}  {format:w1$}  {path}",
                w0 = w0.unwrap_or(0),
                w1 = w1.unwrap_or(0)
            );
        }
    }
    out
}

/// How the graph names the format of access `a` of a nest's kernel: as written, unless the
/// kernel converts the tensor on entry or computes it in a workspace (whose levels the nest
/// writes in place).
fn format_column(compiled: &Compiled, k: &Kernel, a: AccessId) -> String {
    let t = k.accesses[a].tensor;
    let format = &k.tensors[t].format;
    if let Some(c) = k.conversions.iter().find(|c| c.tensor == t) {
        format!(
            "{}, converted from {}",
            crate::conversion::spelled(format),
            c.from.written
        )
    } else if compiled.workspace.is_some() && k.output_access() == Some(a) {
        format!("workspace of {}", format.written)
    } else {
        format.written.clone()
    }
}

/// The output's access (if a tensor), then every access of the right side, left to right.
fn path_accesses(kernel: &Kernel) -> Vec<AccessId> {
    let mut rhs = Vec::new();
    kernel.rhs.accesses(&mut rhs);
    let mut all: Vec<AccessId> = kernel.output_access().into_iter().collect();
    for a in rhs {
        if !all.contains(&a) {
            all.push(a);
        }
    }
    all
}

/// The merge lattice of each loop of each loop nest, as lowering builds it (Kjolstad 2017,
/// section 5): for each index variable in loop order, the expression its loop computes and
/// the lattice points, each with the level iterators it merges and what it computes there;
/// then how the loop runs: which iterators drive it by position, which are located, and
/// whether it counts every coordinate. A loop merging more iterators than a lattice handles
/// (or below such a loop) is lowered as one compact merge over their union instead, and says
/// so.
pub fn lattices(compiled: &Compiled) -> String {
    let mut out = header(compiled);
    let parts = nests(compiled);
    for (n, part) in parts.iter().enumerate() {
        nest_title(&mut out, n, parts.len(), part);
        nest_lattices(&mut out, part);
    }
    out
}

/// How the loop over one index variable merged: compactly, or as a lattice of `cases` cases.
#[derive(Clone, Copy)]
struct Merged {
    compact: bool,
    cases: usize,
}

fn nest_lattices(out: &mut String, part: &Part) {
    let k = &part.kernel;
    let loops = loop_expressions(k);
    let mut merged: Vec<Option<Merged>> = vec![None; k.vars.len()];
    for (position, &v) in part.order.iter().enumerate() {
        let Some((expr, enclosing)) = loops.iter().find(|l| l.0 == v).map(|l| (&l.1, &l.2)) else {
            continue;
        };
        let bound: Vec<VarId> = part.order[..position]
            .iter()
            .copied()
            .filter(|u| enclosing.contains(u))
            .collect();
        let expr = bound
            .iter()
            .chain([&v])
            .fold(expr.clone(), |e, &u| open(&e, u));
        let expr = &expr;
        let info = loop_levels(k, &bound, v);
        let lattice = MergeLattice::build(expr, k, &info);
        let mut ids = Vec::new();
        expr.accesses(&mut ids);
        let iterators = ids.iter().filter(|&&a| info.level_of(a).is_some()).count();
        let below_compact = bound.iter().any(|&u| merged[u].is_some_and(|m| m.compact));
        let copies = bound
            .iter()
            .filter_map(|&u| merged[u].filter(|m| !m.compact))
            .fold(1usize, |c, m| c.saturating_mul(m.cases));
        let over_budget = copies.saturating_mul(lattice.cases()) > MAX_CASE_COPIES;
        let compact = below_compact || iterators > MAX_LATTICE_ITERATORS || over_budget;
        merged[v] = Some(Merged {
            compact,
            cases: lattice.cases(),
        });
        let inside: Vec<String> = bound.iter().map(|&u| var(k, u)).collect();
        let _ = writeln!(
            out,
            "  loop over {}{}: {}",
            var(k, v),
            if inside.is_empty() {
                String::new()
            } else {
                format!(" (inside {})", inside.join(", "))
            },
            expression(k, expr)
        );
        describe_lattice(out, k, &lattice, &info);
        if compact {
            let why = if below_compact {
                "below a compact merge".to_string()
            } else if iterators > MAX_LATTICE_ITERATORS {
                format!("{iterators} iterators, more than {MAX_LATTICE_ITERATORS}")
            } else {
                format!("its cases would copy the code below more than {MAX_CASE_COPIES} times")
            };
            let _ = writeln!(
                out,
                "    lowered as one compact merge over the union of its iterators ({why})"
            );
        }
    }
}

fn describe_lattice(out: &mut String, k: &Kernel, lattice: &MergeLattice, info: &LoopLevels) {
    let strategy = Strategy::of(lattice, k, info);
    let iter_name = |it: &Iter| match *it {
        Iter::Level { access, level } => format!(
            "{} ({})",
            level_name(k, access, level),
            k.format_of(access).levels[level].type_name()
        ),
        Iter::Universe => "every coordinate".to_string(),
    };
    for (p, point) in lattice.points.iter().enumerate() {
        let iters: Vec<String> = point.iters.iter().map(iter_name).collect();
        let _ = writeln!(
            out,
            "    point {}: {}\n      computes {}",
            p + 1,
            if iters.is_empty() {
                "(no iterator)".to_string()
            } else {
                iters.join(", ")
            },
            if point.omit {
                format!(
                    "nothing (an omitter: {} is at its fill value here)",
                    expression(k, &point.expr)
                )
            } else {
                expression(k, &point.expr)
            }
        );
        let drivers = strategy.drivers(p);
        let driven: Vec<String> = drivers
            .iter()
            .map(|&(access, level)| level_name(k, access, level))
            .collect();
        let located: Vec<String> = point
            .iters
            .iter()
            .filter_map(|it| match *it {
                Iter::Level { access, level } if !drivers.contains(&(access, level)) => {
                    info.has_locate(*it).then(|| level_name(k, access, level))
                }
                _ => None,
            })
            .collect();
        let mut how = Vec::new();
        if strategy.counting {
            how.push("counts every coordinate".to_string());
        }
        if !driven.is_empty() {
            how.push(format!("iterates {} by position", driven.join(", ")));
        }
        if !located.is_empty() {
            how.push(format!("locates {}", located.join(", ")));
        }
        for &(access, level) in drivers {
            let lf = &k.format_of(access).levels[level];
            let name = level_name(k, access, level);
            if !lf.is_unique() {
                how.push(format!(
                    "{name} is not unique: visited by runs of equal coordinates, or fused"
                ));
            }
            if !lf.is_ordered() && drivers.len() > 1 {
                how.push(format!(
                    "{name} is unordered: merged through a sorted copy of its segment"
                ));
            } else if !lf.is_ordered() && appends_along(k, info.var()) {
                how.push(format!(
                    "{name} is unordered: visited through a sorted copy of its segment, as the output is appended in order"
                ));
            }
        }
        if !how.is_empty() {
            let _ = writeln!(out, "      {}", how.join("; "));
        }
    }
    if strategy.exhausts {
        let _ = writeln!(out, "    the loops visit every coordinate of the dimension");
    }
}

/// Whether the loop over `v` appends a sparse output (in storage order).
fn appends_along(k: &Kernel, v: VarId) -> bool {
    k.output_access()
        .is_some_and(|a| !k.format_of(a).inserts_everywhere() && k.accesses[a].vars.contains(&v))
}

/// For every index variable of `kernel`: the expression its loop belongs to (the innermost sum
/// over it, else the whole right side; the loop computes it with the sums over the variables
/// bound so far opened) and the variables whose loops may enclose it (the
/// output's, the root sum's and those of every sum around its own).
fn loop_expressions(kernel: &Kernel) -> Vec<(VarId, Expr, Vec<VarId>)> {
    let mut root: Vec<VarId> = kernel.output_vars().to_vec();
    if let Expr::Sum(vars, _) = &kernel.rhs {
        root.extend(vars);
    }
    let mut out: Vec<(VarId, Expr, Vec<VarId>)> = root
        .iter()
        .map(|&v| (v, kernel.rhs.clone(), root.clone()))
        .collect();
    let body = match &kernel.rhs {
        Expr::Sum(_, body) => body.as_ref(),
        rhs => rhs,
    };
    inner_sums(body, &root, &mut out);
    out
}

/// `expr` inside a loop over `v`: a sum at its root no longer sums over `v`.
fn open(expr: &Expr, v: VarId) -> Expr {
    match expr {
        Expr::Sum(vars, body) if vars.contains(&v) => {
            let rest: Vec<VarId> = vars.iter().copied().filter(|&u| u != v).collect();
            if rest.is_empty() {
                body.as_ref().clone()
            } else {
                Expr::Sum(rest, body.clone())
            }
        }
        other => other.clone(),
    }
}

fn inner_sums(expr: &Expr, enclosing: &[VarId], out: &mut Vec<(VarId, Expr, Vec<VarId>)>) {
    match expr {
        Expr::Sum(vars, body) | Expr::Reduce(_, vars, body) => {
            let inner: Vec<VarId> = enclosing.iter().chain(vars).copied().collect();
            for &v in vars {
                out.push((v, expr.clone(), inner.clone()));
            }
            inner_sums(body, &inner, out);
        }
        other => other
            .children()
            .into_iter()
            .for_each(|c| inner_sums(c, enclosing, out)),
    }
}

/// The level facts of the loop over `v` inside loops binding `bound`, as lowering asks them
/// ([`LoopLevels`]): the levels of each access resolved around the loop are those whose
/// variables the enclosing loops bind, from the root down.
fn loop_levels<'a>(kernel: &'a Kernel, bound: &[VarId], v: VarId) -> LoopLevels<'a> {
    let resolved = (0..kernel.accesses.len())
        .map(|a| {
            let format = kernel.format_of(a);
            (0..format.order())
                .take_while(|&l| bound.contains(&kernel.accesses[a].level_var(format, l)))
                .count()
        })
        .collect();
    LoopLevels::new(kernel, resolved, v)
}

/// The loop IR of the kernel (`crate::ir`'s listing), and of its compute-only variant if a
/// schedule asks for one.
pub fn ir(compiled: &Compiled) -> String {
    let mut out = Listing {
        stmts: &compiled.body,
        names: &compiled.names,
    }
    .to_string();
    if let Some(v) = &compiled.compute {
        let _ = write!(
            out,
            "\n// the compute-only variant `{}`\n{}",
            plain(&v.name),
            Listing {
                stmts: &v.body,
                names: &v.names,
            }
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compiled(item: syn::ItemFn) -> Compiled {
        match crate::compile(&item) {
            Ok(c) => c,
            Err(e) => panic!("{e}"),
        }
    }

    fn spmv() -> Compiled {
        compiled(syn::parse_quote! {
            fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }
        })
    }

    #[test]
    fn statements_print_with_explicit_sums_and_needed_parentheses() {
        let c = compiled(syn::parse_quote! {
            fn f(out: &mut f64, a: &Dense1<f64>, b: &Dense1<f64>, c: &Dense1<f64>, s: f64) {
                out += -(a(i) - (b(i) - c(i))) * s / (a(i) * 2.0)
            }
        });
        assert_eq!(
            statement(&c.kernel),
            "out += sum_i(-(a(i) - (b(i) - c(i))) * s / (a(i) * 2.0))"
        );
        assert_eq!(statement(&spmv().kernel), "y(i) = sum_j(a(i, j) * x(j))");
    }

    #[test]
    fn repeated_tensors_get_numbered_level_names() {
        let c = compiled(syn::parse_quote! {
            fn f(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) + a(i, j) }
        });
        assert_eq!(level_name(&c.kernel, 1, 1), "a#1.1");
        assert_eq!(level_name(&c.kernel, 3, 1), "a#2.1");
        assert_eq!(level_name(&c.kernel, 2, 0), "x.0");
    }

    #[test]
    fn graph_shows_the_order_and_each_path() {
        let text = graph(&spmv());
        let expected = "kernel `spmv`: y(i) = sum_j(a(i, j) * x(j))
loop nest 1 of 1: y(i) = sum_j(a(i, j) * x(j))
  loop order: i, j
  y  Dense1<f64>  i (Dense)
  a  Csr<f64>     i (Dense) -> j (Compressed)
  x  Dense1<f64>  j (Dense)
";
        assert_eq!(text, expected);
    }

    #[test]
    fn graph_marks_locatable_levels_and_split_nests() {
        // `a` in CSC: the residual runs as two nests, `b` by rows, then `a` by columns.
        let c = compiled(syn::parse_quote! {
            fn r(r: &mut Dense1<f64>, b: &Dense1<f64>, a: &Csc<f64>, x: &Dense1<f64>) {
                r(i) = b(i) - a(i, j) * x(j)
            }
        });
        let text = graph(&c);
        assert!(text.contains("loop nest 1 of 2"), "{text}");
        assert!(text.contains("loop nest 2 of 2"), "{text}");
        assert!(text.contains("j (Dense) -> i (Compressed)"), "{text}");
        let dense = compiled(syn::parse_quote! {
            fn t(c: &mut Dense2<f64>, a: &Dense2<f64>) { c(i, j) = a(i, j) }
        });
        assert!(graph(&dense).contains("i (Dense) ~> j (Dense)"));
    }

    #[test]
    fn lattices_of_spmv() {
        let text = lattices(&spmv());
        assert!(
            text.contains("  loop over i: sum_j(a(i, j) * x(j))\n"),
            "{text}"
        );
        assert!(
            text.contains("  loop over j (inside i): a(i, j) * x(j)\n"),
            "{text}"
        );
        assert!(
            text.contains("    point 1: a.1 (Compressed), x.0 (Dense)\n      computes a(i, j) * x(j)\n      iterates a.1 by position; locates x.0\n"),
            "{text}"
        );
        assert!(text.contains("counts every coordinate"), "{text}");
    }

    #[test]
    fn lattices_of_a_union_have_three_points() {
        let c = compiled(syn::parse_quote! {
            fn add(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, j) = a(i, j) + b(i, j) }
        });
        let text = lattices(&c);
        assert!(
            text.contains("point 1: a.1 (Compressed), b.1 (Compressed)\n      computes a(i, j) + b(i, j)\n      iterates a.1, b.1 by position"),
            "{text}"
        );
        assert!(
            text.contains("point 2: a.1 (Compressed)\n      computes a(i, j)"),
            "{text}"
        );
        assert!(
            text.contains("point 3: b.1 (Compressed)\n      computes b(i, j)"),
            "{text}"
        );
        assert!(!text.contains("compact"), "{text}");
    }

    #[test]
    fn lattices_name_iterator_conversions() {
        let c = compiled(syn::parse_quote! {
            fn f(y: &mut Dense1<f64>, a: &Coo<f64>, x: &Dense1<f64>, z: &HashVec<f64>) {
                y(i) = a(i, j) * x(j) + z(i)
            }
        });
        let text = lattices(&c);
        assert!(
            text.contains("point 1: a.0 (CompressedNonUnique), z.0 (Hashed)"),
            "{text}"
        );
        assert!(
            text.contains("a.0 is not unique: visited by runs of equal coordinates, or fused"),
            "{text}"
        );
        assert!(
            text.contains("z.0 is unordered: merged through a sorted copy of its segment"),
            "{text}"
        );
        let c = compiled(syn::parse_quote! {
            fn f(y: &mut SparseVec<f64>, x: &HashVec<f64>, z: &HashVec<f64>) { y(i) = x(i) * z(i) }
        });
        let text = lattices(&c);
        assert!(
            text.contains("iterates x.0 by position; locates z.0; x.0 is unordered: visited through a sorted copy of its segment, as the output is appended in order"),
            "{text}"
        );
    }

    #[test]
    fn wide_unions_say_they_merge_compactly() {
        let c = compiled(syn::parse_quote! {
            fn add(y: &mut SparseVec<f64>, a: &SparseVec<f64>, b: &SparseVec<f64>, c: &SparseVec<f64>, d: &SparseVec<f64>) {
                y(i) = a(i) + b(i) + c(i) + d(i)
            }
        });
        let text = lattices(&c);
        assert!(
            text.contains("lowered as one compact merge over the union of its iterators (4 iterators, more than 3)"),
            "{text}"
        );
    }

    #[test]
    fn workspaces_and_conversions_are_named() {
        let c = compiled(syn::parse_quote! {
            fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }
        });
        let text = graph(&c);
        assert!(
            text.contains(
                "workspace: for each i, output levels 1.. (k) accumulate in a dense workspace"
            ),
            "{text}"
        );
        assert!(text.contains("loop order: i, j, k"), "{text}");
        assert!(
            text.contains("c  workspace of Csr<f64>  i (Dense) ~> k (Dense)"),
            "{text}"
        );
        let c = compiled(syn::parse_quote! {
            fn add(a: &mut Csr<f64>, b: &Csr<f64>, c: &Csr<f64>) { a(i, j) = b(i, j) + c(j, i) }
        });
        let text = graph(&c);
        assert!(
            text.contains("converts `c` on entry from Csr<f64> into Csc<_>"),
            "{text}"
        );
        assert!(
            text.contains("c  Csc<_>, converted from Csr<f64>  i (Dense) -> j (Compressed)"),
            "{text}"
        );
    }

    #[test]
    fn ir_lists_the_body_and_the_compute_variant() {
        let text = ir(&spmv());
        assert!(text.contains("parallel rows 0..dim_i {"), "{text}");
        assert!(text.contains("for i in row_lo..row_hi {"), "{text}");
        let c = compiled(syn::parse_quote! {
            #[schedule(compute(values))]
            fn spgemm(c: &mut Csr<f64>, a: &Csr<f64>, b: &Csr<f64>) { c(i, k) = a(i, j) * b(j, k) }
        });
        assert!(ir(&c).contains("// the compute-only variant `values`"));
    }
}
