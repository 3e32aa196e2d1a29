//! Generates the CI subset: the kernels of `CI_KERNELS` that the compiler accepts (except known
//! failures whose expansion does not compile) become modules of `$OUT_DIR/ci_kernels.rs`, with
//! the compiler's build-time answer for every kernel, which `tests/ci.rs` checks against the
//! acceptance oracle.

use sparse_difftest_gen::classify::{self, Compiled};
use sparse_difftest_gen::testcode::kernel_module;
use sparse_difftest_gen::{generate, known_failures, CI_KERNELS, NOT_BUILT};
use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=known_failures.txt");
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let known = known_failures(
        &std::fs::read_to_string(dir.join("known_failures.txt")).unwrap_or_default(),
    );
    let mut modules = String::new();
    let mut answers = String::new();
    let mut built = String::new();
    for id in CI_KERNELS {
        let k = generate(id);
        let compiled = classify::compile(&k);
        let (tag, workspace, msgs) = match &compiled {
            Compiled::Accepted(w) => {
                let steps: Vec<String> = w
                    .iter()
                    .map(|w| {
                        w.map_or("None".to_string(), |p| {
                            format!("Some(({}, {:?}))", p.level, p.kind.name())
                        })
                    })
                    .collect();
                (0, format!("&[{}]", steps.join(", ")), Vec::new())
            }
            Compiled::Refused(m) => (1, "&[]".into(), m.clone()),
            Compiled::Panicked(m) => (2, "&[]".into(), vec![m.clone()]),
        };
        let msgs: Vec<String> = msgs.iter().map(|m| format!("{m:?}")).collect();
        let _ = writeln!(
            answers,
            "    ({id}, {tag}, {workspace}, &[{}]),",
            msgs.join(", ")
        );
        let not_built = known
            .iter()
            .any(|(kid, class)| *kid == id && NOT_BUILT.contains(&class.as_str()));
        if matches!(compiled, Compiled::Accepted(_)) && !not_built {
            modules += &kernel_module(&k, "::sparse_difftest");
            let _ = writeln!(built, "    ({id}, kernels::{}::call),", k.fn_name());
        }
    }
    let src = format!(
        "/// The kernels the compiler accepted at build time.\n\
         #[allow(warnings, clippy::all)]\n\
         pub mod kernels {{\n{modules}}}\n\n\
         /// The compiler's build-time answer per kernel: 0 accepted (with, per statement, the \
         output storage level and the kind of its workspace, if any), 1 refused (messages), 2 \
         panicked (message).\n\
         #[allow(clippy::type_complexity)]\n\
         pub static COMPILER: &[(u64, u8, &[Option<(usize, &str)>], &[&str])] = &[\n{answers}];\n\n\
         /// The kernels built into this test.\n\
         pub static BUILT: &[(u64, ::sparse_difftest::CallFn)] = &[\n{built}];\n"
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR")).join("ci_kernels.rs");
    std::fs::write(out, src).expect("write ci_kernels.rs");
}
