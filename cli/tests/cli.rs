//! The `sparse-kernel` binary end to end: its code is the macro's expansion, every way of
//! naming a format gives the same code, each print option prints what `sparse_core::explain`
//! says, errors are underlined diagnostics, usage errors exit with 2, no input makes it panic,
//! and the checked-in expansion `tests/data/cli_spmv.rs` is what it prints today.

use std::path::PathBuf;
use std::process::Command;

/// What one run printed and how it ended.
struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_sparse-kernel"))
        .args(args)
        .output()
        .expect("the binary runs");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 output"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 errors"),
    }
}

/// A run that must succeed; its standard output.
fn ok(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.status, 0, "{args:?} failed:\n{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    r.stdout
}

const SPMV: &[&str] = &[
    "y(i) = a(i,j) * x(j)",
    "-f",
    "a:csr",
    "-f",
    "x:dense",
    "-f",
    "y:dense",
    "--name",
    "spmv",
];

const SPMV_SOURCE: &str =
    "fn spmv(y: &mut Dense1<f64>, a: &Csr<f64>, x: &Dense1<f64>) { y(i) = a(i, j) * x(j) }";

/// What `sparse_kernel!` expands `source` to, formatted as the CLI formats it.
fn expansion(source: &str) -> String {
    let tokens: proc_macro2::TokenStream = source.parse().unwrap();
    let file: syn::File = syn::parse2(sparse_core::expand(tokens)).unwrap();
    prettyplease::unparse(&file)
}

fn compiled(source: &str) -> sparse_core::Compiled {
    let item: syn::ItemFn = syn::parse_str(source).unwrap();
    sparse_core::compile(&item).unwrap_or_else(|e| panic!("{e}"))
}

/// `args` with the format of `tensor` replaced by `format` (plus `extra` arguments).
fn with_format<'a>(
    args: &[&'a str],
    tensor: &str,
    format: &'a str,
    extra: &[&'a str],
) -> Vec<&'a str> {
    let prefix = format!("{tensor}:");
    let mut out: Vec<&str> = args
        .iter()
        .map(|a| if a.starts_with(&prefix) { format } else { *a })
        .collect();
    out.extend(extra);
    out
}

#[test]
fn spmv_code_is_the_macro_expansion() {
    let expected = expansion(SPMV_SOURCE);
    assert_eq!(ok(SPMV), expected);
    assert_eq!(ok(&["--fn", SPMV_SOURCE]), expected);
    let wrapped = format!("sparse_kernel! {{ {SPMV_SOURCE} }}");
    assert_eq!(ok(&["--fn", &wrapped, "--code"]), expected);
    assert!(expected.contains("fn spmv("));
}

#[test]
fn alias_full_type_and_level_list_give_the_same_code() {
    let expected = ok(SPMV);
    for format in [
        "a:CSR",
        "a:Csr<f64>",
        "a:dense,compressed",
        "a:Dense, Compressed",
    ] {
        assert_eq!(
            ok(&with_format(SPMV, "a", format, &[])),
            expected,
            "{format}"
        );
    }
    let csc = ok(&with_format(SPMV, "a", "a:csc", &[]));
    assert_ne!(csc, expected);
    let orders = [
        with_format(SPMV, "a", "a:Csc<f64>", &[]),
        with_format(SPMV, "a", "a:dense,compressed", &["--order", "a:1,0"]),
        with_format(SPMV, "a", "a:csr", &["-o", "a:1,0"]),
    ];
    for args in &orders {
        assert_eq!(ok(args), csc, "{args:?}");
    }
    // The index type goes into every form.
    let wide = ok(&with_format(SPMV, "a", "a:Csr<f64, u64>", &[]));
    assert_eq!(
        ok(&with_format(SPMV, "a", "a:csr", &["--index", "u64"])),
        wide
    );
    assert_eq!(
        ok(&with_format(
            SPMV,
            "a",
            "a:dense,compressed",
            &["--index=u64"]
        )),
        wide
    );
    // The statement's arity picks the dense type.
    let dense = ok(&with_format(SPMV, "a", "a:dense", &[]));
    assert_eq!(dense, ok(&with_format(SPMV, "a", "a:Dense2<f64>", &[])));
}

#[test]
fn the_function_is_built_from_the_statement() {
    let source = ok(&[
        "y(i) = alpha * A(i,j) * x(j) + y(i)",
        "-f",
        "A:csc",
        "-fx:dense",
        "--format=y:dense",
        "--value",
        "f32",
        "--source",
    ]);
    assert_eq!(
        source,
        "fn kernel(y: &mut Dense1<f32>, alpha: f32, A: &Csc<f32>, x: &Dense1<f32>) {\ny(i) = alpha * A(i,j) * x(j) + y(i)\n}\n"
    );
    let dot = ok(&[
        "out += a(i) * b(i)",
        "-f",
        "a:sparse",
        "-f",
        "b:HashVec<f64, u64>",
        "--source",
    ]);
    assert_eq!(
        dot,
        "fn kernel(out: &mut f64, a: &SparseVec<f64>, b: &HashVec<f64, u64>) {\nout += a(i) * b(i)\n}\n"
    );
    let blocked = ok(&[
        "y(i) = A(i,j) * x(j)",
        "-f",
        "A:bcsr<2,3>",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
        "--schedule",
        "order(i, j)",
        "--source",
    ]);
    assert!(blocked.starts_with("#[schedule(order(i, j))] fn kernel(y: &mut Dense1<f64>, A: &Bcsr<f64, 2, 3>, x: &Dense1<f64>)"), "{blocked}");
    // What it prints compiles as that source does.
    let built = ok(&[
        "out += a(i) * b(i)",
        "-f",
        "a:sparse",
        "-f",
        "b:HashVec<f64, u64>",
    ]);
    assert_eq!(built, expansion(&dot));
}

#[test]
fn print_options_print_what_explain_says() {
    let c = compiled(SPMV_SOURCE);
    let graph = sparse_core::explain::graph(&c);
    let lattices = sparse_core::explain::lattices(&c);
    let ir = sparse_core::explain::ir(&c);
    let with = |option: &'static str| [SPMV, &[option]].concat();
    assert_eq!(ok(&with("--graph")), graph);
    assert_eq!(ok(&with("--lattice")), lattices);
    assert_eq!(ok(&with("--ir")), ir);
    assert!(graph.contains("loop order: i, j"), "{graph}");
    assert!(
        graph.contains("a  Csr<f64>     i (Dense) -> j (Compressed)"),
        "{graph}"
    );
    assert!(
        lattices.contains("point 1: a.1 (Compressed), x.0 (Dense)\n      computes a(i, j) * x(j)\n      iterates a.1 by position; locates x.0"),
        "{lattices}"
    );
    assert!(ir.contains("parallel rows 0..dim_i {"), "{ir}");
    assert!(ir.contains("for i in row_lo..row_hi {"), "{ir}");
    // Several at once: each under a title, in a fixed order; the code only when asked.
    let all = ok(&[SPMV, &["--ir", "--code", "--graph"]].concat());
    let code = expansion(SPMV_SOURCE);
    assert_eq!(
        all,
        format!("// ===== iteration graph =====\n{graph}\n// ===== loop IR =====\n{ir}\n// ===== generated code =====\n{code}")
    );
}

#[test]
fn kernel_errors_are_underlined() {
    let arity = run(&[
        "y(i) = A(i) * x(i)",
        "-f",
        "A:csr",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ]);
    assert_eq!(arity.status, 1);
    assert!(arity.stdout.is_empty());
    assert_eq!(
        arity.stderr,
        "error: `A` is a Csr<f64> of order 2 but is indexed with 1 index variable
 --> <statement>:1:8
  |
1 | y(i) = A(i) * x(i)
  |        ^^^^
  |
  = help: write `A(i, j)`

aborting: 1 error
"
    );
    let unknown = run(&[
        "--fn",
        "fn f(y: &mut Dense1<f64>, a: &Csr<f64>) {\n    y(i) = a(i, j) * b(j)\n}",
    ]);
    assert_eq!(unknown.status, 1);
    assert_eq!(
        unknown.stderr,
        "error: unknown tensor `b`
 --> --fn:2:22
  |
2 |     y(i) = a(i, j) * b(j)
  |                      ^
  |
  = help: the kernel's tensors are `y`, `a`; declare `b` as a parameter to use it

aborting: 1 error
"
    );
    // Every error of the kernel, each at its place; one in the signature the CLI built.
    let two = run(&[
        "y(i) = A(i,j) * x(k, k)",
        "-f",
        "A:Csr<f64, u16>",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ]);
    assert_eq!(two.status, 1);
    assert!(two.stderr.contains("aborting: 2 errors"), "{}", two.stderr);
    assert!(
        two.stderr.contains(" --> <the signature built from the options, see --source>:1:45\n  |\n1 | fn kernel(y: &mut Dense1<f64>, A: &Csr<f64, u16>, x: &Dense2<f64>) {\n  |                                             ^^^\n"),
        "{}",
        two.stderr
    );
    // A syntax error, and one at the end of the input.
    let syntax = run(&[
        "y(i) = A(i,j) * x(j) +",
        "-f",
        "A:csr",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ]);
    assert_eq!(syntax.status, 1);
    assert!(
        syntax
            .stderr
            .contains("1 | y(i) = A(i,j) * x(j) +\n  |                       ^\n"),
        "{}",
        syntax.stderr
    );
}

#[test]
fn a_missing_format_is_a_usage_error_at_the_tensor() {
    let r = run(&["y(i) = A(i,j) * x(j)", "-f", "A:csr", "-f", "y:dense"]);
    assert_eq!(r.status, 2);
    assert_eq!(
        r.stderr,
        "error: no format for tensor `x`
 --> <statement>:1:17
  |
1 | y(i) = A(i,j) * x(j)
  |                 ^
  |
  = help: add `-f x:FORMAT`, e.g. `-f x:dense` (`sparse-kernel --help` lists the formats)

aborting: 1 error
"
    );
}

#[test]
fn usage_errors_exit_with_2() {
    let cases: &[(&[&str], &str)] = &[
        (&[], "no statement"),
        (&["--bogus"], "unknown option `--bogus`"),
        (&["y(i) = x(i)", "-f"], "`-f` needs a value"),
        (&["y(i) = x(i)", "-f", "x"], "expected NAME:FORMAT"),
        (
            &[
                "y(i) = x(i)",
                "-f",
                "x:dense",
                "-f",
                "y:dense",
                "-f",
                "z:dense",
            ],
            "no tensor `z`",
        ),
        (
            &[
                "y(i) = s * x(i)",
                "-f",
                "x:dense",
                "-f",
                "y:dense",
                "-f",
                "s:dense",
            ],
            "`s` is a scalar",
        ),
        (
            &[
                "y(i) = x(i)",
                "-f",
                "x:dense",
                "-f",
                "y:dense",
                "-f",
                "x:csr",
            ],
            "format of `x` twice",
        ),
        (
            &["y(i) = x(i)", "-f", "x:blob", "-f", "y:dense"],
            "`blob` is neither a format nor a level",
        ),
        (
            &["y(i) = A(i,j)", "-f", "A:bcsr", "-f", "y:dense"],
            "needs its block size",
        ),
        (
            &[
                "y(i) = A(i,j)",
                "-f",
                "A:dense,compressed",
                "--order",
                "A:0,2",
                "-f",
                "y:dense",
            ],
            "each of the modes",
        ),
        (
            &[
                "y(i) = A(i,j)",
                "-f",
                "A:csr",
                "--order",
                "A:one",
                "-f",
                "y:dense",
            ],
            "numbers separated by commas",
        ),
        (
            &[
                "y(i) = A(i,j)",
                "-f",
                "A:dia",
                "--order",
                "A:1,0",
                "-f",
                "y:dense",
            ],
            "fixed layout",
        ),
        (
            &["y(i) = x(i)", "-f", "x:Dense1<f64", "-f", "y:dense"],
            "not a Rust type",
        ),
        (
            &[
                "y(i) = x(i)",
                "-f",
                "x:dense",
                "-f",
                "y:dense",
                "--value",
                "f64>",
            ],
            "not a Rust type",
        ),
        (
            &[
                "y(i) = x(i)",
                "-f",
                "x:dense",
                "-f",
                "y:dense",
                "--name",
                "1st",
            ],
            "not an identifier",
        ),
        (&["y(i) = x(i)", "z(i) = x(i)"], "one statement only"),
        (
            &["--fn", SPMV_SOURCE, "-f", "a:csr"],
            "spells its signature itself",
        ),
        (&["--fn", SPMV_SOURCE, "y(i) = x(i)"], "not both"),
        (
            &["--file", "/nonexistent/kernel.rs"],
            "cannot read `/nonexistent/kernel.rs`",
        ),
    ];
    for (args, expected) in cases {
        let r = run(args);
        assert_eq!(r.status, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains(expected), "{args:?}: {}", r.stderr);
        assert!(
            r.stderr.contains("sparse-kernel --help"),
            "{args:?}: {}",
            r.stderr
        );
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn help_and_version() {
    let help = ok(&["--help"]);
    for part in [
        "USAGE",
        "FORMATS",
        "EXAMPLES",
        "--order",
        "--graph",
        "--lattice",
        "--ir",
        "csr",
        "bcsr<2,2>",
        "CompressedNonUnique",
    ] {
        assert!(help.contains(part), "{part}");
    }
    assert_eq!(ok(&["-h"]), help);
    assert!(ok(&["-V"]).starts_with("sparse-kernel 0."));
    // Every example of the help runs.
    for line in help.lines().skip_while(|l| *l != "EXAMPLES") {
        if let Some(example) = line.trim().strip_prefix("sparse-kernel ") {
            let args = split_shell_words(example);
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            ok(&refs);
        }
    }
}

/// Splits a command line of single-quoted and bare words (the help's examples).
fn split_shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let (mut quoted, mut any) = (false, false);
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

#[test]
fn bad_input_never_panics() {
    let deep = format!("y(i) = {}x(i){}", "(".repeat(5000), ")".repeat(5000));
    let deep_type = format!("x:Dense1<{}f64{}>", "Vec<".repeat(3000), ">".repeat(3000));
    let long = format!("y(i) = {}x(i)", "x(i) + ".repeat(600));
    let statements: &[&str] = &[
        "",
        " ",
        "=",
        "y(i) =",
        "y(i) = x(i",
        "y(i) = x(i))",
        "y(i) = x(i) = x(i)",
        "y = 'c'",
        "y(i) = \"str\"",
        "y(i) = x(i) /* open comment",
        "é(i) = x(i)",
        "y(i) = x.foo(i)",
        "y[i] = x[i]",
        "fn f() {}",
        "let t(i) = x(i); y(i) = t(i)",
        "y(i, i) = x(i)",
        "y(i) += 1e400",
        &deep,
        &long,
    ];
    for s in statements {
        let r = run(&[s, "-f", "x:dense", "-f", "y:dense"]);
        assert!(
            matches!(r.status, 1 | 2),
            "{s:?}: {} {}",
            r.status,
            r.stderr
        );
        assert!(!r.stderr.contains("panicked"), "{s:?}: {}", r.stderr);
    }
    let sources: &[&str] = &[
        "",
        "}",
        "fn",
        "fn f(",
        "struct S;",
        "sparse_kernel! {}",
        &deep,
    ];
    for s in sources {
        let r = run(&["--fn", s]);
        assert_eq!(r.status, 1, "{s:?}: {}", r.stderr);
        assert!(!r.stderr.contains("panicked"), "{s:?}: {}", r.stderr);
    }
    let r = run(&["y(i) = x(i)", "-f", &deep_type, "-f", "y:dense"]);
    assert!(matches!(r.status, 1 | 2), "{}", r.stderr);
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
}

/// The checked-in CLI output that `tests/tests/cli_expansion.rs` compiles.
fn checked_in() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/cli_spmv.rs")
}

/// The header of `tests/data/cli_spmv.rs` (its `//` lines); the CLI's output follows it.
const HEADER: &str = "\
// What `sparse-kernel 'y(i) = a(i,j) * x(j)' -f a:csr -f x:dense -f y:dense --name spmv` prints
// (the CLI in cli/), checked in: tests/tests/cli_expansion.rs compiles it against sparse-runtime
// and compares it with the macro's kernel, and cli/tests/cli.rs fails when the CLI's output
// differs from it. Regenerate it with
// `UPDATE_CLI_SPMV=1 cargo test -p sparse-kernel-cli --test cli checked_in_expansion_is_current`.
";

#[test]
fn checked_in_expansion_is_current() {
    let expected = format!("{HEADER}{}", ok(SPMV));
    let path = checked_in();
    if std::env::var_os("UPDATE_CLI_SPMV").is_some() {
        std::fs::write(&path, &expected).expect("write tests/data/cli_spmv.rs");
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "tests/data/cli_spmv.rs is not what the CLI prints today (the code generator changed?).\n\
         Regenerate it with\n  UPDATE_CLI_SPMV=1 cargo test -p sparse-kernel-cli --test cli checked_in_expansion_is_current\n\
         and review the diff."
    );
}

#[test]
fn kernels_read_from_a_file_or_standard_input() {
    use std::io::Write;
    let source = format!(
        "sparse_kernel! {{\n    {SPMV_SOURCE}\n    fn dot(out: &mut f64, a: &SparseVec<f64>, b: &SparseVec<f64>) {{ out = a(i) * b(i) }}\n}}\n"
    );
    let inner = source
        .trim_start_matches("sparse_kernel! {")
        .trim_end()
        .trim_end_matches('}');
    let expected = expansion(inner);
    assert!(expected.contains("fn spmv(") && expected.contains("fn dot("));
    let path = std::env::temp_dir().join(format!("sparse-kernel-cli-{}.rs", std::process::id()));
    std::fs::write(&path, &source).unwrap();
    let from_file = ok(&["--file", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(from_file, expected);
    let mut child = Command::new(env!("CARGO_BIN_EXE_sparse-kernel"))
        .args(["--file", "-", "--graph"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(source.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let graph = String::from_utf8(out.stdout).unwrap();
    assert!(
        graph.contains("kernel `spmv`") && graph.contains("kernel `dot`"),
        "{graph}"
    );
}

#[test]
fn kernels_of_several_statements() {
    let args = [
        "let rho = r(i) * r(i); y(i) = rho * x(i)",
        "-f",
        "r:dense",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ];
    let source = ok(&[&args[..], &["--source"]].concat());
    assert_eq!(
        source,
        "fn kernel(r: &Dense1<f64>, y: &mut Dense1<f64>, x: &Dense1<f64>) {\nlet rho = r(i) * r(i); y(i) = rho * x(i)\n}\n"
    );
    assert_eq!(ok(&args), expansion(&source));
    let graph = ok(&[&args[..], &["--graph"]].concat());
    assert!(
        graph.starts_with(
            "statement 1 of 2 of `kernel`\nkernel `kernel`: rho = sum_i(r(i) * r(i))\n"
        ),
        "{graph}"
    );
    assert!(
        graph.contains("\nstatement 2 of 2 of `kernel`\nkernel `kernel`: y(i) = rho * x(i)\n"),
        "{graph}"
    );
    // The sequence's diagnostics, underlined; a `let` missing its `;` at the end.
    let early = run(&[
        "y(i) = rho * x(i); let rho = x(i) * x(i);",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ]);
    assert_eq!(early.status, 1);
    assert!(
        early.stderr.starts_with("error: the temporary `rho` is used before it is defined\n --> <statement>:1:8\n  |\n1 | y(i) = rho * x(i); let rho = x(i) * x(i);\n  |        ^^^\n"),
        "{}",
        early.stderr
    );
    let open = run(&[
        "y(i) = x(i); let rho = x(i) * x(i)",
        "-f",
        "x:dense",
        "-f",
        "y:dense",
    ]);
    assert_eq!(open.status, 1);
    assert!(
        open.stderr.starts_with("error: expected `;`\n --> <statement>:1:35\n  |\n1 | y(i) = x(i); let rho = x(i) * x(i)\n  |                                   ^\n"),
        "{}",
        open.stderr
    );
}

/// A block with a function declared for index notation: the kernels that call it compile
/// against it, and the lattice shows the omitter point of its explicit region.
#[test]
fn declared_functions_are_known_to_the_kernels_of_the_block() {
    let source = "sparse_kernel! {
    #[function(iterate(x & !m))]
    fn unless(x: u8, m: u8) -> u8 { if m != 0 { 0 } else { x } }
    fn step(next: &mut SparseVec<u8>, g: &Csr<u8>, f: &Dense1<u8>, seen: &SparseVec<u8>) {
        next(i) = unless(any[j](and(g(i, j), f(j))), seen(i))
    }
}
";
    let path = std::env::temp_dir().join(format!("sparse-kernel-cli-fn-{}.rs", std::process::id()));
    std::fs::write(&path, source).unwrap();
    let lattice = ok(&["--file", path.to_str().unwrap(), "--lattice"]);
    let code = ok(&["--file", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert!(
        lattice.contains("computes nothing (an omitter"),
        "{lattice}"
    );
    assert!(lattice.contains("any[j]"), "{lattice}");
    assert!(
        code.contains("fn step(") && code.contains("unless("),
        "{code}"
    );
}
