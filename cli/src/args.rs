//! The command line: options in any order, each value after its option (`-f A:csr`) or joined
//! to it (`-fA:csr`, `--format=A:csr`).

use std::fmt::Write;

/// Where the kernel comes from.
pub enum Input {
    /// One statement of index notation; the CLI writes the function around it.
    Statement(String),
    /// Whole kernel source (`fn` items, as inside `sparse_kernel! { ... }`), and where it was
    /// read from, for messages.
    Source { text: String, origin: String },
}

/// What to print.
#[derive(Default, Clone, Copy)]
pub struct Prints {
    /// The generated Rust.
    pub code: bool,
    /// The iteration graph and loop order of each loop nest.
    pub graph: bool,
    /// The merge lattice of each loop.
    pub lattice: bool,
    /// The loop IR.
    pub ir: bool,
    /// The kernel source the CLI built.
    pub source: bool,
}

/// Everything the command line asked for.
pub struct Options {
    /// The statement or the kernel source.
    pub input: Input,
    /// `(tensor, format)` as given with `-f`, in order.
    pub formats: Vec<(String, String)>,
    /// `(tensor, mode order)` as given with `--order`.
    pub orders: Vec<(String, Vec<usize>)>,
    /// The value type (`--value`, `f64` by default).
    pub value: String,
    /// The index type of sparse levels (`--index`), if not the default.
    pub index: Option<String>,
    /// The function's name (`--name`, `kernel` by default).
    pub name: String,
    /// The directives of a `#[schedule(..)]` on the function (`--schedule`).
    pub schedule: Option<String>,
    /// What to print.
    pub prints: Prints,
}

/// What the command line means: run, or print help or the version.
pub enum Command {
    Run(Box<Options>),
    Help,
    Version,
}

/// Reads the arguments (without the program name). An error is a usage message.
pub fn parse(args: Vec<String>) -> Result<Command, String> {
    let mut statement = None;
    let mut source = None;
    let mut formats = Vec::new();
    let mut orders = Vec::new();
    let mut value = None;
    let mut index = None;
    let mut name = None;
    let mut schedule = None;
    let mut prints = Prints::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (flag, joined) = split_flag(&arg);
        let mut take = |what: &str| -> Result<String, String> {
            match &joined {
                Some(v) => Ok(v.clone()),
                None => args
                    .next()
                    .ok_or_else(|| format!("`{flag}` needs a value: {flag} {what}")),
            }
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "-V" | "--version" => return Ok(Command::Version),
            "-f" | "--format" => {
                let spec = take("NAME:FORMAT")?;
                let (tensor, format) = named(&spec, "-f", "NAME:FORMAT", "A:csr")?;
                if formats.iter().any(|(t, _)| *t == tensor) {
                    return Err(format!("`-f` gives the format of `{tensor}` twice"));
                }
                formats.push((tensor, format));
            }
            "-o" | "--order" => {
                let spec = take("NAME:MODES")?;
                let (tensor, modes) = named(&spec, "--order", "NAME:MODES", "A:1,0")?;
                let modes = modes
                    .split(',')
                    .map(|m| m.trim().parse::<usize>())
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|_| {
                        format!("`--order {spec}`: the modes are numbers separated by commas, e.g. `--order {tensor}:1,0`")
                    })?;
                if orders.iter().any(|(t, _)| *t == tensor) {
                    return Err(format!("`--order` gives the mode order of `{tensor}` twice"));
                }
                orders.push((tensor, modes));
            }
            "--value" => value = Some(once(value, "--value", take("TYPE")?)?),
            "--index" => index = Some(once(index, "--index", take("TYPE")?)?),
            "--name" => name = Some(once(name, "--name", take("NAME")?)?),
            "--schedule" => schedule = Some(once(schedule, "--schedule", take("DIRECTIVES")?)?),
            "--fn" => {
                let text = take("'fn name(params) { statement }'")?;
                source = Some(once(source, "--fn or --file", (text, "--fn".to_string()))?);
            }
            "--file" => {
                let path = take("PATH")?;
                let text = read(&path)?;
                let origin = if path == "-" { "<stdin>".to_string() } else { path };
                source = Some(once(source, "--fn or --file", (text, origin))?);
            }
            "--code" => prints.code = true,
            "--graph" => prints.graph = true,
            "--lattice" => prints.lattice = true,
            "--ir" => prints.ir = true,
            "--source" => prints.source = true,
            _ if arg.starts_with('-') && arg.len() > 1 => {
                return Err(format!("unknown option `{flag}`"));
            }
            _ if statement.is_none() => statement = Some(arg),
            _ => {
                return Err(format!(
                    "one statement only, and `{arg}` is a second one (quote the statement: 'y(i) = A(i,j) * x(j)')"
                ))
            }
        }
    }
    if !(prints.graph || prints.lattice || prints.ir || prints.source) {
        prints.code = true;
    }
    let input =
        match (statement, source) {
            (Some(s), None) => Input::Statement(s),
            (None, Some((text, origin))) => Input::Source { text, origin },
            (Some(_), Some(_)) => {
                return Err("give a statement or a kernel source (--fn, --file), not both".into())
            }
            (None, None) => return Err(
                "no statement: sparse-kernel 'y(i) = A(i,j) * x(j)' -f A:csr -f x:dense -f y:dense"
                    .into(),
            ),
        };
    if let Input::Source { .. } = input {
        let statement_only = [
            (!formats.is_empty(), "-f"),
            (!orders.is_empty(), "--order"),
            (value.is_some(), "--value"),
            (index.is_some(), "--index"),
            (name.is_some(), "--name"),
            (schedule.is_some(), "--schedule"),
        ];
        if let Some((_, flag)) = statement_only.iter().find(|(given, _)| *given) {
            return Err(format!(
                "`{flag}` describes the function built around a statement; a kernel source (--fn, --file) spells its signature itself"
            ));
        }
    }
    Ok(Command::Run(Box::new(Options {
        input,
        formats,
        orders,
        value: value.unwrap_or_else(|| "f64".to_string()),
        index,
        name: name.unwrap_or_else(|| "kernel".to_string()),
        schedule,
        prints,
    })))
}

/// `--flag=value` and `-fvalue` into the flag and its value.
fn split_flag(arg: &str) -> (String, Option<String>) {
    if let Some(long) = arg.strip_prefix("--") {
        if let Some((flag, value)) = long.split_once('=') {
            return (format!("--{flag}"), Some(value.to_string()));
        }
    } else if let Some(rest) = arg.strip_prefix('-') {
        let mut chars = rest.chars();
        if let (Some(c @ ('f' | 'o')), rest) = (chars.next(), chars.as_str()) {
            if !rest.is_empty() {
                return (format!("-{c}"), Some(rest.to_string()));
            }
        }
    }
    (arg.to_string(), None)
}

/// `NAME:REST` into its parts.
fn named(spec: &str, flag: &str, shape: &str, example: &str) -> Result<(String, String), String> {
    match spec.split_once(':') {
        Some((name, rest)) if is_identifier(name.trim()) && !rest.trim().is_empty() => {
            Ok((name.trim().to_string(), rest.trim().to_string()))
        }
        _ => Err(format!(
            "`{flag} {spec}`: expected {shape}, e.g. `{flag} {example}`"
        )),
    }
}

fn is_identifier(s: &str) -> bool {
    let s = s.strip_prefix("r#").unwrap_or(s);
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && s != "_"
}

fn once<T>(previous: Option<T>, flag: &str, value: T) -> Result<T, String> {
    match previous {
        Some(_) => Err(format!("`{flag}` is given twice")),
        None => Ok(value),
    }
}

fn read(path: &str) -> Result<String, String> {
    let result = if path == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map(|_| text)
    } else {
        std::fs::read_to_string(path)
    };
    result.map_err(|e| format!("cannot read `{path}`: {e}"))
}

/// The `--help` text. The lists of formats and levels come from the compiler's own tables.
pub fn help() -> String {
    let aliases: Vec<String> = sparse_core::format::ALIASES
        .iter()
        .map(|a| a.name.to_lowercase())
        .collect();
    let levels: Vec<String> = sparse_core::format::level_type_names()
        .iter()
        .map(|l| l.to_string())
        .collect();
    let mut out = String::new();
    let _ = write!(
        out,
        r#"sparse-kernel: prints the Rust code sparse_kernel! generates for a statement of tensor index
notation, and what the compiler decided (loop orders, merge lattices, loop IR).

USAGE:
    sparse-kernel [OPTIONS] 'STATEMENT' -f NAME:FORMAT ...
    sparse-kernel [OPTIONS] --fn 'fn name(params) {{ statement }}'
    sparse-kernel [OPTIONS] --file PATH          (PATH `-` reads standard input)

THE STATEMENT
    As in a sparse_kernel! body: `y(i) = A(i,j) * x(j)`, `C(i,j) += A(i,k) * B(k,j)`, or
    several statements separated by `;` with `let` temporaries
    (`let rho = r(i) * r(i); y(i) = rho * x(i)`). The CLI writes the function around it:
    a tensor on the left is a `&mut` output, every other tensor a `&` input, in the order
    they appear; a bare identifier on the right is a scalar parameter (`alpha: f64`), one on
    the left a scalar output (`out: &mut f64`). --graph, --lattice and --ir explain each
    statement in turn.

OPTIONS
    -f, --format NAME:FORMAT   the format of tensor NAME; one per tensor of the statement
    -o, --order NAME:M,M,...   the mode order of NAME's levels: level k stores mode M_k
                               (`-f A:dense,compressed --order A:1,0` is CSC)
        --value TYPE           the value type: f64 (default), f32, i8..i128, u8..u128, ...
        --index TYPE           the index type of sparse levels: u32 (default), u64, usize
        --name NAME            the function's name (default: kernel)
        --schedule DIRECTIVES  a #[schedule(...)] on the function, e.g. 'workspace(k, hash)'
        --fn SOURCE            a whole kernel instead of a statement: one or more `fn` items
                               as written inside sparse_kernel! {{ ... }} (the wrapper may stay)
        --file PATH            the same, read from a file

FORMATS (any case)
    by alias:        {aliases}
                     and the families: dense (Dense1, Dense2, Dense3 by the tensor's arity),
                     sparse or csf (every level Compressed: SparseVec, Dcsr, Csf3, Csf4),
                     coo (Coo, Coo3), hash (HashVec, HashMat); bcsr takes its block size:
                     bcsr<2,2>
    by level list:   levels outermost first, separated by commas, with --order for a mode
                     order other than the identity: dense,compressed (CSR),
                     compressed,compressed (DCSR), compressed-nonunique,singleton (COO).
                     The levels (any case, `-` and `_` ignored):
                     {levels}
    by Rust type:    as written in a signature: 'Csr<f64, u64>', 'Bcsr<f64, 2, 2>',
                     'Tensor<f64, (Dense, Compressed), Modes<1, 0>>'

WHAT IT PRINTS (the generated code unless another is asked for)
        --code       the generated Rust, formatted (with another option: print it too)
        --graph      the iteration graph of each loop nest: its loop order and each tensor's
                     path through the index variables (`->` must be walked in order, `~>`
                     may be located in any order)
        --lattice    the merge lattice of each loop: its points, the level iterators each
                     co-iterates and what it computes, which levels drive it and which are
                     located
        --ir         the loop IR the Rust is emitted from
        --source     the kernel source built from the statement and the options
    -h, --help       this text
    -V, --version    the version

Errors are the macro's diagnostics, the offending part underlined. Exit status: 0 on success,
1 when the kernel has errors, 2 on a usage error.

EXAMPLES
    sparse-kernel 'y(i) = A(i,j) * x(j)' -f A:csr -f x:dense -f y:dense
    sparse-kernel 'y(i) = alpha * A(i,j) * x(j) + y(i)' -f A:csc -f x:dense -f y:dense --value f32
    sparse-kernel 'C(i,j) = A(i,k) * B(k,j)' -f A:csr -f B:csr -f C:csr --graph --lattice
    sparse-kernel 'y(i) = A(i,j) * x(j)' -f A:dense,compressed --order A:1,0 -f x:dense -f y:dense --ir
    sparse-kernel 'out = a(i) * b(i)' -f a:sparse -f 'b:HashVec<f64, u64>'
    sparse-kernel --fn 'fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) {{ y(i) = a(i, j) * x(j) }}'
"#,
        aliases = wrap(&aliases, 21, 92),
        levels = wrap(&levels, 21, 92),
    );
    out
}

/// `items` separated by commas, wrapped at `width` columns, continuation lines indented by
/// `indent`.
fn wrap(items: &[String], indent: usize, width: usize) -> String {
    let mut out = String::new();
    let mut column = indent;
    for (n, item) in items.iter().enumerate() {
        let piece = if n + 1 < items.len() {
            format!("{item},")
        } else {
            item.clone()
        };
        if n > 0 {
            if column + 1 + piece.len() > width {
                out.push('\n');
                out.push_str(&" ".repeat(indent));
                column = indent;
            } else {
                out.push(' ');
                column += 1;
            }
        }
        out.push_str(&piece);
        column += piece.len();
    }
    out
}
