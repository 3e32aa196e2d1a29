//! A statement of index notation into a kernel's source: the function the CLI writes around
//! it, one parameter per name the statement uses.

use crate::report::Diagnostic;
use proc_macro2::{Span, TokenStream};
use syn::parse::Parser;

/// How the statement uses a name.
pub struct Name {
    pub ident: String,
    /// Its arity if it is called (a tensor), else `None` (a scalar).
    pub arity: Option<usize>,
    /// Whether the statement writes it (on the left of `=` or `+=`).
    pub written: bool,
    /// Where it first appears, for diagnostics.
    pub span: Span,
}

/// The names of a statement's parameters, in order of first appearance (the left side first).
pub fn names(statement: &str) -> Result<Vec<Name>, Vec<Diagnostic>> {
    let tokens: TokenStream = statement.parse().map_err(|e: proc_macro2::LexError| {
        vec![Diagnostic::new(
            e.span(),
            format!("the statement does not tokenize: {e}"),
        )]
    })?;
    sparse_core::limits::check_nesting(&tokens).map_err(Diagnostic::from_syn)?;
    let stmts = syn::Block::parse_within
        .parse2(tokens)
        .map_err(Diagnostic::from_parse)?;
    let mut walk = Walk::default();
    for stmt in &stmts {
        match stmt {
            syn::Stmt::Local(local) => {
                walk.bind(&local.pat);
                if let Some(init) = &local.init {
                    walk.expr(&init.expr);
                }
            }
            syn::Stmt::Expr(e, _) => walk.expr(e),
            syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {}
        }
    }
    let Walk { mut names, locals } = walk;
    names.retain(|n| !locals.contains(&n.ident));
    Ok(names)
}

#[derive(Default)]
struct Walk {
    names: Vec<Name>,
    /// Names a `let` binds: temporaries of the kernel, not parameters.
    locals: Vec<String>,
}

impl Walk {
    fn expr(&mut self, e: &syn::Expr) {
        use syn::Expr;
        match e {
            Expr::Assign(a) => {
                self.target(&a.left);
                self.expr(&a.right);
            }
            Expr::Binary(b) if is_compound(&b.op) => {
                self.target(&b.left);
                self.expr(&b.right);
            }
            Expr::Binary(b) => {
                self.expr(&b.left);
                self.expr(&b.right);
            }
            Expr::Unary(u) => self.expr(&u.expr),
            Expr::Paren(p) => self.expr(&p.expr),
            Expr::Group(g) => self.expr(&g.expr),
            Expr::Call(c) => {
                if let Some(ident) = single_ident(&c.func) {
                    self.note(ident, Some(c.args.len()), false);
                }
            }
            Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    self.note(ident, None, false);
                }
            }
            // Anything else is for the compiler to judge, and report.
            _ => {}
        }
    }

    /// The left side of an assignment: the output.
    fn target(&mut self, e: &syn::Expr) {
        match e {
            syn::Expr::Call(c) => {
                if let Some(ident) = single_ident(&c.func) {
                    self.note(ident, Some(c.args.len()), true);
                }
            }
            syn::Expr::Path(p) => {
                if let Some(ident) = p.path.get_ident() {
                    self.note(ident, None, true);
                }
            }
            syn::Expr::Paren(p) => self.target(&p.expr),
            _ => {}
        }
    }

    fn bind(&mut self, pat: &syn::Pat) {
        let ident = match pat {
            syn::Pat::Ident(p) => Some(&p.ident),
            syn::Pat::TupleStruct(p) => p.path.get_ident(),
            syn::Pat::Type(t) => return self.bind(&t.pat),
            _ => None,
        };
        if let Some(ident) = ident {
            self.locals.push(ident.to_string());
        }
    }

    fn note(&mut self, ident: &syn::Ident, arity: Option<usize>, written: bool) {
        let text = ident.to_string();
        match self.names.iter_mut().find(|n| n.ident == text) {
            Some(n) => {
                n.written |= written;
                n.arity = n.arity.or(arity);
            }
            None => self.names.push(Name {
                ident: text,
                arity,
                written,
                span: ident.span(),
            }),
        }
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

fn single_ident(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// The kernel source around `statement`: `fn NAME(params) {`, then the statement verbatim from
/// the start of line 2 (so its line `n` is the source's line `n + 1`, columns unchanged), then
/// `}`. `params` are `name: type` in order.
pub fn source(
    name: &str,
    schedule: Option<&str>,
    params: &[(String, String)],
    statement: &str,
) -> String {
    let params: Vec<String> = params.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    let schedule = schedule
        .map(|s| format!("#[schedule({s})] "))
        .unwrap_or_default();
    format!(
        "{schedule}fn {name}({}) {{\n{statement}\n}}\n",
        params.join(", ")
    )
}

/// The first line of the statement inside [`source`]'s text.
pub const STATEMENT_LINE: usize = 2;
