//! The compiler's verdicts against the oracle's over a seed range, without building or running
//! anything (verdict failures only: refusals outside the limitations or for the wrong reason,
//! acceptance beyond the rules, other workspaces, internal errors, panics):
//! `cargo run --release -p sparse-difftest-gen --example verdicts -- START COUNT [--functions] [--windows]`.

use sparse_difftest_gen::{classify, generate};
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let start: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(0);
    let count: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(300);
    let functions = args.iter().any(|a| a == "--functions");
    let windows = args.iter().any(|a| a == "--windows");
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let (mut seed, mut done) = (start, 0);
    while done < count {
        let k = generate(seed);
        seed += 1;
        if functions && !k.feature || windows && k.windows.is_empty() {
            continue;
        }
        done += 1;
        let verdict = classify::judge(&k, &classify::compile(&k));
        let key = match &verdict {
            classify::Verdict::Accepted => "accepted".to_string(),
            classify::Verdict::RefusedAsExpected(l) => format!("refused {l}"),
            v => {
                println!("{}: {}", k.id, v.describe());
                v.describe().split(':').next().unwrap_or("").to_string()
            }
        };
        *counts.entry(key).or_default() += 1;
    }
    for (k, n) in counts {
        println!("{n:6} {k}");
    }
}
