//! Statement splitting (a sequence of loop nests in concrete index notation): a sum at the root
//! of a dense or scalar output's right side may run outside the output's loops, the output
//! accumulating across its iterations. When a statement has several additive terms, each with
//! its own sum, no single loop order may give every term that freedom; then the terms are
//! grouped into loop nests that each have an order, computed one after the other: the first
//! group writes the output (`=` or `+=`), every later group adds to it. This is sound because
//! the output is linear in its terms and a dense output can accumulate.
//!
//! Splitting only moves reductions: every nest must visit the output variables in the same
//! relative order, so a statement whose operands disagree about the output's own order (such
//! as `b(i,j) + c(j,i)` with both CSR) stays a loop-order error with a format suggestion.
//! Example: `r(i) = b(i) - A(i,j) * x(j)` with `A` in CSC walks `b` by rows, then `A` by
//! columns.

use crate::diagnostic::Diagnostics;
use crate::iteration_graph::loop_order;
use crate::notation::{AssignOp, BinOp, Expr, Kernel, Output, VarId};

/// One loop nest of the kernel: the statement it computes and its loop order.
pub struct Part {
    /// The kernel with this part's right side and assignment.
    pub kernel: Kernel,
    /// Index variables in loop order.
    pub order: Vec<VarId>,
}

/// The loop nests that compute `kernel`: one when an order exists, else groups of its terms.
/// Reports the single-nest diagnostic when no split helps.
pub fn parts(kernel: &Kernel, diags: &mut Diagnostics) -> Option<Vec<Part>> {
    let mut scratch = Diagnostics::default();
    if let Some(order) = loop_order(kernel, &mut scratch) {
        return Some(vec![Part {
            kernel: kernel.clone(),
            order,
        }]);
    }
    let splittable = match kernel.output {
        Output::Scalar(_) => true,
        Output::Tensor(a) => kernel.format_of(a).is_all_dense(),
    };
    let groups = if splittable {
        group_terms(kernel).filter(|parts| same_output_order(kernel, parts))
    } else {
        None
    };
    if groups.is_none() {
        loop_order(kernel, diags);
    }
    groups
}

/// Whether every nest visits the output variables in the same relative order.
fn same_output_order(kernel: &Kernel, parts: &[Part]) -> bool {
    let out = kernel.output_vars();
    let project = |order: &[VarId]| -> Vec<VarId> {
        order.iter().copied().filter(|v| out.contains(v)).collect()
    };
    parts
        .windows(2)
        .all(|w| project(&w[0].order) == project(&w[1].order))
}

/// Greedily groups consecutive terms while one order still traverses the whole group.
fn group_terms(kernel: &Kernel) -> Option<Vec<Part>> {
    let mut terms = Vec::new();
    flatten(kernel.rhs.clone(), false, &mut terms);
    if terms.len() < 2 {
        return None;
    }
    let mut parts: Vec<Part> = Vec::new();
    let mut group: Option<Expr> = None;
    for term in terms {
        let grown = match &group {
            Some(g) => Expr::binary(BinOp::Add, g.clone(), term.clone()),
            None => term.clone(),
        };
        if ordered(kernel, &grown).is_some() {
            group = Some(grown);
            continue;
        }
        let done = group.replace(term)?;
        parts.push(part(kernel, done, parts.is_empty())?);
    }
    let last = group?;
    let first = parts.is_empty();
    parts.push(part(kernel, last, first)?);
    Some(parts)
}

fn ordered(kernel: &Kernel, rhs: &Expr) -> Option<Vec<VarId>> {
    let mut k = kernel.clone();
    k.rhs = rhs.clone();
    loop_order(&k, &mut Diagnostics::default())
}

fn part(kernel: &Kernel, rhs: Expr, first: bool) -> Option<Part> {
    let mut k = kernel.clone();
    k.rhs = rhs;
    if !first {
        k.op = AssignOp::AddAssign;
    }
    let order = loop_order(&k, &mut Diagnostics::default())?;
    Some(Part { kernel: k, order })
}

/// The additive terms of `e`, negated where they are subtracted.
fn flatten(e: Expr, negated: bool, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary(BinOp::Add, l, r) => {
            flatten(*l, negated, out);
            flatten(*r, negated, out);
        }
        Expr::Binary(BinOp::Sub, l, r) => {
            flatten(*l, negated, out);
            flatten(*r, !negated, out);
        }
        Expr::Neg(inner) => flatten(*inner, !negated, out),
        term if negated => out.push(negate(term)),
        term => out.push(term),
    }
}

/// `-e`, with the negation moved inside a sum so that the sum stays at the root of its term
/// (and may run outside the output's loops).
fn negate(e: Expr) -> Expr {
    match e {
        Expr::Sum(vars, body) => Expr::Sum(vars, Box::new(negate(*body))),
        other => Expr::Neg(Box::new(other)),
    }
}
