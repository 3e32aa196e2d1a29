//! Skipping inputs of a known, not yet fixed defect class so that a long run measures
//! everything else: `--avoid-lattice N` skips an input when some kernel's statement has a
//! merge-lattice cost estimate above `N`.
//!
//! The estimate is computed from the syntax alone. Its base is the number of lattice points
//! taco's construction (section 5) makes: an access is one point, `l * r` and `l / r` pair every
//! point (`l·r`), `l + r` and `l - r` add both sides to the pairs (`l·r + l + r`); a literal or
//! scalar adds one point (the whole dimension) to a sum it takes part in. A sum of `n` accesses
//! gives `2^n - 1` points. Lowering then emits, for each loop, every point with an if-chain over
//! its sub-points, nested once per index variable, so the estimate is `points ^ loops` with
//! `loops` the number of distinct index variables of the statement. Today's compiler needs seconds and
//! gigabytes above a few thousand (see FUZZING.md).

use crate::tok::{self, Delim, Tok};

/// The largest cost estimate of the statements in `text` (0 if it does not lex). Works on
/// tokens (a statement is what follows the first `=` of a `{}` group), so it costs a fraction
/// of a parse.
pub fn lattice_cost(text: &str) -> u64 {
    tok::parse(text).map_or(0, |toks| lattice_cost_of(&toks))
}

/// [`lattice_cost`] of lexed tokens.
pub fn lattice_cost_of(toks: &[Tok]) -> u64 {
    cost_in(toks)
}

fn cost_in(toks: &[Tok]) -> u64 {
    let mut best = 0;
    for t in toks {
        if let Tok::Group(d, inner) = t {
            if *d == Delim::Brace {
                best = best.max(statement_cost(inner));
            }
            best = best.max(cost_in(inner));
        }
    }
    best
}

fn statement_cost(body: &[Tok]) -> u64 {
    let Some(eq) = body.iter().position(|t| matches!(t, Tok::Punct('=', _))) else {
        return 0;
    };
    let rhs = &body[eq + 1..];
    let end = rhs
        .iter()
        .position(|t| matches!(t, Tok::Punct(';', _)))
        .unwrap_or(rhs.len());
    let e = sum(&rhs[..end]);
    let mut vars = Vec::new();
    index_vars(&body[..eq + 1 + end], &mut vars);
    match vars.len() {
        0 => e.points,
        loops => e.points.saturating_pow(loops.min(64) as u32),
    }
}

/// The distinct identifiers used as indices (`name(i, j)`): one loop each.
fn index_vars<'a>(toks: &'a [Tok], out: &mut Vec<&'a str>) {
    for (k, t) in toks.iter().enumerate() {
        if let Tok::Group(_, inner) = t {
            if k > 0 && matches!(toks[k - 1], Tok::Ident(_)) {
                for arg in inner {
                    if let Tok::Ident(v) = arg {
                        if !out.contains(&v.as_str()) {
                            out.push(v);
                        }
                    }
                }
            }
            index_vars(inner, out);
        }
    }
}

/// The estimate of a subexpression: points with an iterator, and whether it has a constant
/// part.
#[derive(Clone, Copy)]
struct Est {
    points: u64,
    constant: bool,
}

fn add(l: Est, r: Est) -> Est {
    let n = l
        .points
        .saturating_mul(r.points)
        .saturating_add(l.points)
        .saturating_add(r.points);
    let constant = l.constant || r.constant;
    // A constant part makes every point walk the whole dimension: one more point.
    let extra = u64::from(constant && n > 0);
    Est {
        points: n.saturating_add(extra),
        constant,
    }
}

fn mul(l: Est, r: Est) -> Est {
    let points = match (l.points, r.points) {
        (0, p) | (p, 0) => p,
        (a, b) => a.saturating_mul(b),
    };
    Est {
        points,
        constant: l.constant && r.constant,
    }
}

fn is_op(t: &Tok, ops: &[char]) -> bool {
    matches!(t, Tok::Punct(c, _) if ops.contains(c))
}

/// Splits `toks` at binary operators among `ops` (an operator is binary when an operand
/// precedes it), calling `f` on each operand with the operator before it.
fn split<'a>(toks: &'a [Tok], ops: &[char], mut f: impl FnMut(Option<char>, &'a [Tok])) {
    let mut start = 0;
    let mut op = None;
    let mut after_operand = false;
    for (k, t) in toks.iter().enumerate() {
        if after_operand && is_op(t, ops) {
            f(op, &toks[start..k]);
            op = match t {
                Tok::Punct(c, _) => Some(*c),
                _ => None,
            };
            start = k + 1;
            after_operand = false;
        } else {
            after_operand = !matches!(t, Tok::Punct(..));
        }
    }
    f(op, &toks[start..]);
}

fn sum(toks: &[Tok]) -> Est {
    let mut acc: Option<Est> = None;
    split(toks, &['+', '-'], |_, term| {
        let e = product(term);
        acc = Some(acc.map_or(e, |a| add(a, e)));
    });
    acc.unwrap_or(Est {
        points: 0,
        constant: false,
    })
}

fn product(toks: &[Tok]) -> Est {
    let mut acc: Option<Est> = None;
    split(toks, &['*', '/'], |_, factor_toks| {
        let e = factor(factor_toks);
        acc = Some(acc.map_or(e, |a| mul(a, e)));
    });
    acc.unwrap_or(Est {
        points: 0,
        constant: true,
    })
}

fn factor(toks: &[Tok]) -> Est {
    let toks = match toks.iter().position(|t| !is_op(t, &['-'])) {
        Some(k) => &toks[k..],
        None => &[],
    };
    match toks {
        [Tok::Ident(_), Tok::Group(Delim::Paren, _), ..] => Est {
            points: 1,
            constant: false,
        },
        [Tok::Group(Delim::Paren, inner), ..] => sum(inner),
        _ => Est {
            points: 0,
            constant: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(rhs: &str) -> String {
        format!("fn f(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {{ y(i) = {rhs} }}")
    }

    #[test]
    fn sums_double_products_multiply_loops_nest() {
        // One loop (`i`): the estimate is the number of points.
        assert_eq!(lattice_cost(&kernel("a(i) * x(i)")), 1);
        assert_eq!(lattice_cost(&kernel("x(i) + x(i)")), 3);
        assert_eq!(lattice_cost(&kernel("x(i) + x(i) - x(i)")), 7);
        assert_eq!(lattice_cost(&kernel("(x(i) + x(i)) * (x(i) + x(i))")), 9);
        assert_eq!(lattice_cost(&kernel("x(i) + 1.0")), 2);
        assert_eq!(lattice_cost(&kernel("-x(i) - -x(i)")), 3);
        // Two loops (`i`, `j`): squared.
        assert_eq!(lattice_cost(&kernel("a(i, j) * x(j)")), 1);
        assert_eq!(lattice_cost(&kernel("a(i, j) + x(j)")), 9);
        assert_eq!(lattice_cost(&kernel("1.0 + 2.0 * alpha")), 0);
        let wide = vec!["x(i)"; 70].join(" + ");
        assert_eq!(lattice_cost(&kernel(&wide)), u64::MAX);
        assert_eq!(lattice_cost("not a kernel"), 0);
        assert_eq!(lattice_cost("fn f() { y(i) += x(i) + x(i); }"), 3);
    }
}
