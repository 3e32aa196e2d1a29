//! `sparse-kernel`: prints the Rust code `sparse_kernel!` generates for a statement of tensor
//! index notation (or a whole kernel), formatted, and on request what the compiler decided:
//! the iteration graph of each loop nest, the merge lattice of each loop and the loop IR.
//! A thin shell over `sparse_core` (`compile`, `expand`, `explain`); `--help` has the details.

mod args;
mod formats;
mod report;
mod statement;

use args::{Command, Input, Options};
use proc_macro2::{TokenStream, TokenTree};
use report::{render, Diagnostic, View};
use std::process::ExitCode;

/// Why a run failed: the text for standard error and the exit status.
struct Failure {
    status: u8,
    text: String,
}

impl Failure {
    /// A usage error: status 2.
    fn usage(message: impl std::fmt::Display) -> Failure {
        Failure {
            status: 2,
            text: format!(
                "error: {message}\n\nFor usage and examples, run `sparse-kernel --help`.\n"
            ),
        }
    }

    /// Errors in the kernel: status 1.
    fn kernel(diagnostics: &[Diagnostic], parsed: &str, views: &[View]) -> Failure {
        let rendered: Vec<String> = diagnostics
            .iter()
            .map(|d| render(d, parsed, views))
            .collect();
        let count = match diagnostics.len() {
            1 => "1 error".to_string(),
            n => format!("{n} errors"),
        };
        Failure {
            status: 1,
            text: format!("{}\naborting: {count}\n", rendered.join("\n")),
        }
    }
}

fn main() -> ExitCode {
    let args: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    let command = match args {
        Ok(args) => args::parse(args).map_err(Failure::usage),
        Err(bad) => Err(Failure::usage(format!(
            "the argument {bad:?} is not valid UTF-8"
        ))),
    };
    let result = command.and_then(|command| match command {
        Command::Help => Ok(args::help()),
        Command::Version => Ok(format!("sparse-kernel {}\n", env!("CARGO_PKG_VERSION"))),
        Command::Run(options) => run(&options),
    });
    // Written, not `print!`ed: a closed pipe (`sparse-kernel ... | head`) is no reason to
    // panic.
    use std::io::Write;
    match result {
        Ok(text) => {
            let _ = std::io::stdout().write_all(text.as_bytes());
            ExitCode::SUCCESS
        }
        Err(failure) => {
            let _ = std::io::stderr().write_all(failure.text.as_bytes());
            ExitCode::from(failure.status)
        }
    }
}

/// What a run prints on success.
fn run(options: &Options) -> Result<String, Failure> {
    match &options.input {
        Input::Statement(text) => {
            let source = kernel_source(options, text)?;
            let lines = text.lines().count().max(1);
            let first = statement::STATEMENT_LINE;
            let views = [
                View {
                    origin: "<statement>",
                    lines: (first, first + lines - 1),
                    offset: first - 1,
                },
                View {
                    origin: "<the signature built from the options, see --source>",
                    lines: (1, first - 1),
                    offset: 0,
                },
            ];
            compile_and_print(&source, &views, options)
        }
        Input::Source { text, origin } => {
            let views = [View {
                origin,
                lines: (1, usize::MAX),
                offset: 0,
            }];
            compile_and_print(text, &views, options)
        }
    }
}

/// The kernel's source, built around the statement from its names and the options.
fn kernel_source(options: &Options, text: &str) -> Result<String, Failure> {
    let statement_view = [View {
        origin: "<statement>",
        lines: (1, usize::MAX),
        offset: 0,
    }];
    let names = statement::names(text).map_err(|d| Failure::kernel(&d, text, &statement_view))?;
    for (flag, tensor) in options
        .formats
        .iter()
        .map(|(t, _)| ("-f", t))
        .chain(options.orders.iter().map(|(t, _)| ("--order", t)))
    {
        match names.iter().find(|n| n.ident == *tensor) {
            None => {
                return Err(Failure::usage(format!(
                    "`{flag} {tensor}:..`: the statement has no tensor `{tensor}`"
                )))
            }
            Some(n) if n.arity.is_none() => {
                return Err(Failure::usage(format!(
                    "`{flag} {tensor}:..`: `{tensor}` is a scalar in the statement (it has no indices), so it takes no format"
                )))
            }
            Some(_) if flag == "--order" && !options.formats.iter().any(|(t, _)| t == tensor) => {
                return Err(Failure::usage(format!(
                    "`--order {tensor}:..` needs a format for `{tensor}`: add `-f {tensor}:FORMAT`"
                )))
            }
            Some(_) => {}
        }
    }
    for (flag, ty) in [
        ("--value", Some(&options.value)),
        ("--index", options.index.as_ref()),
    ] {
        if let Some(ty) = ty {
            let parsed = ty.parse::<TokenStream>().ok().filter(|t| {
                sparse_core::limits::check_nesting(t).is_ok()
                    && syn::parse2::<syn::Type>(t.clone()).is_ok()
            });
            if parsed.is_none() {
                return Err(Failure::usage(format!("`{flag} {ty}` is not a Rust type")));
            }
        }
    }
    if syn::parse_str::<syn::Ident>(&options.name).is_err() {
        return Err(Failure::usage(format!(
            "`--name {}` is not an identifier",
            options.name
        )));
    }
    let missing: Vec<Diagnostic> = names
        .iter()
        .filter(|n| n.arity.is_some() && !options.formats.iter().any(|(t, _)| *t == n.ident))
        .map(|n| {
            let example = if n.arity == Some(1) { "dense" } else { "csr" };
            Diagnostic::new(
                n.span,
                format!(
                    "no format for tensor `{}`\nhelp: add `-f {}:FORMAT`, e.g. `-f {}:{example}` (`sparse-kernel --help` lists the formats)",
                    n.ident, n.ident, n.ident
                ),
            )
        })
        .collect();
    if !missing.is_empty() {
        let mut failure = Failure::kernel(&missing, text, &statement_view);
        failure.status = 2;
        return Err(failure);
    }
    let mut params = Vec::new();
    for n in &names {
        let ty = match n.arity {
            Some(arity) => {
                let spec = options
                    .formats
                    .iter()
                    .find(|(t, _)| *t == n.ident)
                    .map(|(_, f)| f.as_str())
                    .unwrap_or("dense");
                let order = options
                    .orders
                    .iter()
                    .find(|(t, _)| *t == n.ident)
                    .map(|(_, o)| o.as_slice());
                let cx = formats::Context {
                    tensor: &n.ident,
                    arity,
                    order,
                    value: &options.value,
                    index: options.index.as_deref(),
                };
                formats::rust_type(spec, &cx).map_err(Failure::usage)?
            }
            None => options.value.clone(),
        };
        let reference = match (n.arity, n.written) {
            (_, true) => "&mut ",
            (Some(_), false) => "&",
            (None, false) => "",
        };
        params.push((n.ident.clone(), format!("{reference}{ty}")));
    }
    Ok(statement::source(
        &options.name,
        options.schedule.as_deref(),
        &params,
        text,
    ))
}

/// Compiles the kernel source `text` and prints what the options ask for, or its errors.
fn compile_and_print(text: &str, views: &[View], options: &Options) -> Result<String, Failure> {
    let kernels = |d: Vec<Diagnostic>| Failure::kernel(&d, text, views);
    let tokens: TokenStream = text.parse().map_err(|e: proc_macro2::LexError| {
        kernels(vec![Diagnostic::new(
            e.span(),
            format!("the kernel does not tokenize: {e}"),
        )])
    })?;
    let tokens = unwrap_macro(tokens);
    let (items, mut errors) = parse_kernels(tokens.clone()).map_err(kernels)?;
    // Functions declared for index notation (`#[function(..)]`), as the macro reads them:
    // every kernel of the block can call them.
    let (declarations, items): (Vec<syn::ItemFn>, Vec<syn::ItemFn>) = items
        .into_iter()
        .partition(|item| sparse_core::algebra::is_declaration(&item.attrs));
    let mut functions = Vec::new();
    for item in &declarations {
        let mut diags = sparse_core::diagnostic::Diagnostics::default();
        let (function, _) = sparse_core::algebra::declare(item, &mut diags);
        match diags.into_error() {
            Some(e) => errors.extend(Diagnostic::from_syn(e)),
            None => functions.extend(function),
        }
    }
    let mut compiled = Vec::new();
    for item in &items {
        // A kernel of several statements is compiled one statement at a time; each is
        // explained on its own.
        let result = if sparse_core::sequence::is_sequence(item) {
            sparse_core::compile_sequence(item, &functions).map(|(_, steps)| steps)
        } else {
            sparse_core::compile_with(item, &functions).map(|c| vec![c])
        };
        match result {
            Ok(steps) => {
                let count = steps.len();
                compiled.extend(steps.into_iter().enumerate().map(|(n, c)| {
                    let label = (count > 1).then(|| {
                        format!("statement {} of {count} of `{}`\n", n + 1, item.sig.ident)
                    });
                    (label, c)
                }))
            }
            Err(e) => errors.extend(Diagnostic::from_syn(e)),
        }
    }
    if !errors.is_empty() {
        return Err(kernels(errors));
    }
    let prints = options.prints;
    let explain = |f: fn(&sparse_core::Compiled) -> String| -> String {
        compiled
            .iter()
            .map(|(label, c)| format!("{}{}", label.as_deref().unwrap_or(""), f(c)))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut sections: Vec<(&str, String)> = Vec::new();
    if prints.source {
        sections.push(("kernel source", text.to_string()));
    }
    if prints.graph {
        sections.push(("iteration graph", explain(sparse_core::explain::graph)));
    }
    if prints.lattice {
        sections.push(("merge lattices", explain(sparse_core::explain::lattices)));
    }
    if prints.ir {
        sections.push(("loop IR", explain(sparse_core::explain::ir)));
    }
    if prints.code {
        sections.push(("generated code", generated_code(tokens)?));
    }
    Ok(match sections.as_slice() {
        [(_, only)] => only.clone(),
        _ => sections
            .iter()
            .map(|(title, body)| format!("// ===== {title} =====\n{body}"))
            .collect::<Vec<_>>()
            .join("\n"),
    })
}

/// The body of `sparse_kernel! { .. }` (under any path) if `tokens` is that invocation, else
/// `tokens`.
fn unwrap_macro(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let end = match trees.last() {
        Some(TokenTree::Punct(p)) if p.as_char() == ';' => trees.len() - 1,
        _ => trees.len(),
    };
    match &trees[..end] {
        [.., TokenTree::Ident(name), TokenTree::Punct(bang), TokenTree::Group(body)]
            if name == "sparse_kernel" && bang.as_char() == '!' =>
        {
            body.stream()
        }
        _ => tokens,
    }
}

/// The kernel functions of a `sparse_kernel!` body, and the errors of what is not a kernel or
/// is past the macro's size limits; an error if it does not parse.
fn parse_kernels(
    tokens: TokenStream,
) -> Result<(Vec<syn::ItemFn>, Vec<Diagnostic>), Vec<Diagnostic>> {
    use sparse_core::limits;
    limits::check_nesting(&tokens).map_err(Diagnostic::from_syn)?;
    let file: syn::File = syn::parse2(tokens).map_err(Diagnostic::from_parse)?;
    let mut items = Vec::new();
    let mut errors = Vec::new();
    for item in file.items {
        match item {
            syn::Item::Fn(f) => items.push(f),
            other => errors.push(Diagnostic::new(
                syn::spanned::Spanned::span(&other),
                "expected a kernel `fn`, as in a sparse_kernel! block",
            )),
        }
    }
    if items.is_empty() && errors.is_empty() {
        errors.push(Diagnostic::unplaced(
            "no kernel: expected `fn name(params) { statement }`",
            None,
        ));
    }
    if items.len() > limits::MAX_KERNELS {
        errors.push(Diagnostic::unplaced(
            format!(
                "one `sparse_kernel!` holds at most {} functions, this one {}",
                limits::MAX_KERNELS,
                items.len()
            ),
            Some("split them into several `sparse_kernel!` blocks".to_string()),
        ));
    }
    for item in &items {
        let tokens = block_tokens(&item.block);
        if tokens > limits::MAX_BODY_TOKENS {
            let mut body =
                proc_macro2::Group::new(proc_macro2::Delimiter::Brace, TokenStream::new());
            body.set_span(item.block.brace_token.span.join());
            errors.extend(Diagnostic::from_syn(limits::body_too_large(&body, tokens)));
        }
    }
    Ok((items, errors))
}

/// How many tokens the body of a kernel holds, counted as the macro counts them.
fn block_tokens(block: &syn::Block) -> usize {
    let mut body = TokenStream::new();
    for stmt in &block.stmts {
        quote::ToTokens::to_tokens(stmt, &mut body);
    }
    sparse_core::limits::count_tokens(&body)
}

/// The code `sparse_kernel!` expands `tokens` to, formatted.
fn generated_code(tokens: TokenStream) -> Result<String, Failure> {
    let expanded = sparse_core::expand(tokens);
    match syn::parse2::<syn::File>(expanded.clone()) {
        Ok(file) => Ok(prettyplease::unparse(&file)),
        // Not expected: the compiler emits items. Show the tokens rather than nothing.
        Err(_) => Ok(format!("{expanded}\n")),
    }
}
