//! The CI subset of the differential tester: the kernels of `CI_KERNELS`, generated and
//! classified by the compiler at build time (`build.rs`), checked here against the acceptance
//! oracle and, when accepted, run against the dense reference on every data case.
//!
//! Kernels listed in `difftest/known_failures.txt` may fail; a listed kernel that passes fails
//! this test so that the list shrinks as the compiler is fixed.

use sparse_difftest::gen::classify::{judge, Compiled};
use sparse_difftest::gen::kernel::Accumulator;
use sparse_difftest::gen::semantics::Placement;
use sparse_difftest::gen::{self, generate, CI_KERNELS, NOT_BUILT};
use sparse_difftest::{run_kernel, Class, WorkspaceTally};
use std::collections::BTreeMap;

mod ci {
    include!(concat!(env!("OUT_DIR"), "/ci_kernels.rs"));
}

#[test]
fn ci_kernels_match_the_language_definition() {
    let known: BTreeMap<u64, String> = gen::known_failures(include_str!("../known_failures.txt"))
        .into_iter()
        .collect();
    let built: BTreeMap<u64, sparse_difftest::CallFn> = ci::BUILT.iter().copied().collect();
    let mut unexpected = Vec::new();
    let mut stale = Vec::new();
    let (mut accepted, mut refused, mut cases, mut known_seen) = (0, 0, 0, 0);
    let mut workspaces = WorkspaceTally::default();
    assert_eq!(ci::COMPILER.len() as u64, CI_KERNELS.end - CI_KERNELS.start);
    let (mut sequences, mut sequences_accepted) = (0, 0);
    let (mut features, mut features_accepted) = (0, 0);
    for &(id, tag, steps, msgs) in ci::COMPILER {
        let k = generate(id);
        let steps: Vec<Option<Placement>> = steps
            .iter()
            .map(|w| {
                w.map(|(level, kind)| Placement {
                    level,
                    kind: match kind {
                        "dense" => Accumulator::Dense,
                        _ => Accumulator::Hash,
                    },
                })
            })
            .collect();
        let workspace = steps.iter().flatten().next().copied();
        let compiled = match tag {
            0 => Compiled::Accepted(steps),
            1 => Compiled::Refused(msgs.iter().map(|m| m.to_string()).collect()),
            _ => Compiled::Panicked(msgs.first().copied().unwrap_or("").to_string()),
        };
        let verdict = judge(&k, &compiled);
        let mut problems: Vec<String> = Vec::new();
        if verdict.is_failure() {
            problems.push(format!("{}: {}", Class::Verdict, verdict.describe()));
        }
        if verdict.runs() {
            accepted += 1;
        } else {
            refused += 1;
        }
        if k.is_sequence() {
            sequences += 1;
            sequences_accepted += u64::from(verdict.runs());
        }
        if k.feature {
            features += 1;
            features_accepted += u64::from(verdict.runs());
        }
        workspaces.count(&k, verdict.runs(), workspace);
        if let Some(&call) = built.get(&id) {
            let report = run_kernel(id, call);
            cases += report.cases;
            for f in report.failures.iter().take(3) {
                problems.push(format!(
                    "{} in {}: {}",
                    f.class,
                    f.case.as_deref().unwrap_or("-"),
                    f.detail
                ));
            }
        }
        match known.get(&id) {
            Some(class) => {
                known_seen += 1;
                let checked = built.contains_key(&id) || !verdict.runs();
                if problems.is_empty() && checked && !NOT_BUILT.contains(&class.as_str()) {
                    stale.push(format!("kernel {id} ({class}) passes now"));
                }
            }
            None if !problems.is_empty() => unexpected.push(format!(
                "kernel {id}:\n{}\n  {}",
                k.invocation(),
                problems.join("\n  ")
            )),
            None => {}
        }
    }
    println!(
        "difftest CI: {} kernels, {accepted} accepted, {refused} refused, {cases} cases run, \
         {known_seen} known failures, {} unexpected failures, {} stale known failures",
        ci::COMPILER.len(),
        unexpected.len(),
        stale.len()
    );
    println!("difftest CI: {}", workspaces.line(accepted));
    println!(
        "difftest CI: {sequences} kernels of several statements, {sequences_accepted} of them accepted"
    );
    println!(
        "difftest CI: {features} kernels of sparse array programming (fill values, calls, reductions), \
         {features_accepted} of them accepted"
    );
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "\n{}\n{}\n(see TESTING.md: add a known failure to difftest/known_failures.txt only \
         with its defect class; remove the lines of kernels that pass)",
        unexpected.join("\n\n"),
        stale.join("\n")
    );
}
