//! A small imperative IR between lowering and Rust emission: loops, merges, cases and calls of
//! level functions. It prints as Rust-like pseudo-code for debugging and review.

use std::fmt;

/// Operators of index and value arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `<`
    Lt,
    /// `==`
    Eq,
    /// `>`
    Gt,
    /// `&&`
    And,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Add => "+",
            Op::Sub => "-",
            Op::Mul => "*",
            Op::Div => "/",
            Op::Lt => "<",
            Op::Eq => "==",
            Op::Gt => ">",
            Op::And => "&&",
        }
    }
}

/// An IR expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A local variable of the generated code.
    Var(String),
    /// A parameter of the kernel (emitted with the user's span).
    Param(proc_macro2::Ident),
    /// An index constant.
    Usize(usize),
    /// A value-typed constant, already typed (`2f64`), or zero.
    Value(ValueConst),
    /// `a op b`
    Binary(Op, Box<Expr>, Box<Expr>),
    /// `-a`
    Neg(Box<Expr>),
    /// `recv.method(args)`: a level function or slice method.
    Call(Box<Expr>, &'static str, Vec<Expr>),
    /// Element `index` of slice `base` (bounds guaranteed by validated invariants).
    Index(Box<Expr>, Box<Expr>),
    /// `min(a, b)`
    Min(Box<Expr>, Box<Expr>),
    /// `*a` (the scalar output).
    Deref(Box<Expr>),
    /// `a?` (an assembly step that can fail).
    Try(Box<Expr>),
    /// `if cond { a } else { b }`
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// Value constants.
#[derive(Clone, Debug)]
pub enum ValueConst {
    /// The additive identity of the value type.
    Zero,
    /// A literal written by the user.
    Literal(syn::Lit),
}

/// How an assignment combines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assign {
    /// `=`
    Set,
    /// `+=`
    Add,
}

/// An IR statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name = value;`
    Let(String, bool, Expr),
    /// `let (a, b) = value;` with `a` optionally mutable.
    LetPair(String, String, bool, Expr),
    /// `target = value;` or `target += value;`
    Assign(Expr, Assign, Expr),
    /// `for var in lo..hi { body }`
    For(String, Expr, Expr, Vec<Stmt>),
    /// `while cond { body }`
    While(Expr, Vec<Stmt>),
    /// `if cond { then } else { otherwise }`
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// An expression evaluated for its effect (an assembly call).
    Expr(Expr),
}

/// Shorthands used by lowering.
pub fn var(name: impl Into<String>) -> Expr {
    Expr::Var(name.into())
}

/// `a op b`
pub fn bin(op: Op, a: Expr, b: Expr) -> Expr {
    Expr::Binary(op, Box::new(a), Box::new(b))
}

/// `recv.method(args)`
pub fn call(recv: Expr, method: &'static str, args: Vec<Expr>) -> Expr {
    Expr::Call(Box::new(recv), method, args)
}

/// `base[index]`
pub fn index(base: Expr, i: Expr) -> Expr {
    Expr::Index(Box::new(base), Box::new(i))
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Var(v) => write!(f, "{v}"),
            Expr::Param(p) => write!(f, "{p}"),
            Expr::Usize(n) => write!(f, "{n}"),
            Expr::Value(ValueConst::Zero) => write!(f, "0"),
            Expr::Value(ValueConst::Literal(l)) => {
                write!(f, "{}", quote::ToTokens::to_token_stream(l))
            }
            Expr::Binary(op, a, b) => write!(f, "({a} {} {b})", op.symbol()),
            Expr::Neg(a) => write!(f, "-{a}"),
            Expr::Call(r, m, args) => {
                write!(f, "{r}.{m}(")?;
                for (n, a) in args.iter().enumerate() {
                    if n > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{a}")?;
                }
                write!(f, ")")
            }
            Expr::Index(b, i) => write!(f, "{b}[{i}]"),
            Expr::Min(a, b) => write!(f, "min({a}, {b})"),
            Expr::Deref(a) => write!(f, "*{a}"),
            Expr::Try(a) => write!(f, "{a}?"),
            Expr::Select(c, a, b) => write!(f, "if {c} {{ {a} }} else {{ {b} }}"),
        }
    }
}

/// Prints a block with indentation.
pub struct Block<'a>(pub &'a [Stmt]);

impl fmt::Display for Block<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_block(f, self.0, 0)
    }
}

fn write_block(f: &mut fmt::Formatter<'_>, stmts: &[Stmt], depth: usize) -> fmt::Result {
    for s in stmts {
        write_stmt(f, s, depth)?;
    }
    Ok(())
}

fn write_stmt(f: &mut fmt::Formatter<'_>, s: &Stmt, depth: usize) -> fmt::Result {
    let pad = "  ".repeat(depth);
    match s {
        Stmt::Let(n, m, v) => writeln!(f, "{pad}let {}{n} = {v}", if *m { "mut " } else { "" }),
        Stmt::LetPair(a, b, m, v) => {
            writeln!(
                f,
                "{pad}let ({}{a}, {b}) = {v}",
                if *m { "mut " } else { "" }
            )
        }
        Stmt::Assign(t, op, v) => {
            let op = if *op == Assign::Add { "+=" } else { "=" };
            writeln!(f, "{pad}{t} {op} {v}")
        }
        Stmt::For(v, lo, hi, body) => {
            writeln!(f, "{pad}for {v} in {lo}..{hi} {{")?;
            write_block(f, body, depth + 1)?;
            writeln!(f, "{pad}}}")
        }
        Stmt::While(c, body) => {
            writeln!(f, "{pad}while {c} {{")?;
            write_block(f, body, depth + 1)?;
            writeln!(f, "{pad}}}")
        }
        Stmt::If(c, then, otherwise) => {
            writeln!(f, "{pad}if {c} {{")?;
            write_block(f, then, depth + 1)?;
            if !otherwise.is_empty() {
                writeln!(f, "{pad}}} else {{")?;
                write_block(f, otherwise, depth + 1)?;
            }
            writeln!(f, "{pad}}}")
        }
        Stmt::Expr(e) => writeln!(f, "{pad}{e}"),
    }
}

/// `e?`
pub fn try_(e: Expr) -> Expr {
    Expr::Try(Box::new(e))
}

/// Removes `let` bindings (of pure expressions) whose names are never read, so generated code
/// compiles without unused-variable warnings; in a pair the unused name becomes `_`.
pub fn prune_unused_lets(stmts: Vec<Stmt>) -> Vec<Stmt> {
    // Walk backwards so that uses in later statements are known before each binding.
    let mut kept_rev: Vec<Stmt> = Vec::new();
    for stmt in stmts.into_iter().rev() {
        let stmt = prune_inside(stmt);
        let used = |name: &str| kept_rev.iter().any(|s| stmt_uses(s, name));
        match stmt {
            Stmt::Let(name, m, value) => {
                if used(&name) {
                    kept_rev.push(Stmt::Let(name, m, value));
                }
            }
            Stmt::LetPair(a, b, m, value) => {
                let (ua, ub) = (used(&a), used(&b));
                if ua || ub {
                    let a = if ua { a } else { "_".to_string() };
                    let b = if ub { b } else { "_".to_string() };
                    kept_rev.push(Stmt::LetPair(a, b, m && ua, value));
                }
            }
            other => kept_rev.push(other),
        }
    }
    kept_rev.reverse();
    kept_rev
}

fn prune_inside(stmt: Stmt) -> Stmt {
    match stmt {
        Stmt::For(v, lo, hi, body) => Stmt::For(v, lo, hi, prune_unused_lets(body)),
        Stmt::While(c, body) => Stmt::While(c, prune_unused_lets(body)),
        Stmt::If(c, t, e) => Stmt::If(c, prune_unused_lets(t), prune_unused_lets(e)),
        other => other,
    }
}

fn stmt_uses(stmt: &Stmt, name: &str) -> bool {
    match stmt {
        Stmt::Let(_, _, v) | Stmt::LetPair(_, _, _, v) | Stmt::Expr(v) => expr_uses(v, name),
        Stmt::Assign(t, _, v) => expr_uses(t, name) || expr_uses(v, name),
        Stmt::For(_, lo, hi, body) => {
            expr_uses(lo, name) || expr_uses(hi, name) || body.iter().any(|s| stmt_uses(s, name))
        }
        Stmt::While(c, body) => expr_uses(c, name) || body.iter().any(|s| stmt_uses(s, name)),
        Stmt::If(c, t, e) => expr_uses(c, name) || t.iter().chain(e).any(|s| stmt_uses(s, name)),
    }
}

/// Whether `e` reads local `name`.
pub fn expr_uses(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Var(v) => v == name,
        Expr::Param(_) | Expr::Usize(_) | Expr::Value(_) => false,
        Expr::Binary(_, a, b) | Expr::Index(a, b) | Expr::Min(a, b) => {
            expr_uses(a, name) || expr_uses(b, name)
        }
        Expr::Neg(a) | Expr::Deref(a) | Expr::Try(a) => expr_uses(a, name),
        Expr::Call(r, _, args) => expr_uses(r, name) || args.iter().any(|a| expr_uses(a, name)),
        Expr::Select(c, a, b) => [c, a, b].iter().any(|e| expr_uses(e, name)),
    }
}

/// Every local a block reads, for emitting only the bindings it needs.
pub fn block_uses(stmts: &[Stmt], name: &str) -> bool {
    stmts.iter().any(|s| stmt_uses(s, name))
}
