//! Prints generated kernels with the oracle's and the compiler's verdicts:
//! `cargo run -p sparse-difftest-gen --example show -- SEED [COUNT]`.

use sparse_difftest_gen::{classify, generate, semantics};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let start = args.first().copied().unwrap_or(0);
    let count = args.get(1).copied().unwrap_or(1);
    for seed in start..start + count {
        let k = generate(seed);
        let compiled = classify::compile(&k);
        let verdict = classify::judge(&k, &compiled);
        println!("// kernel {seed} [{}]: {}", k.template, verdict.describe());
        for step in k.steps() {
            println!("//   placed: {}", semantics::place(&step).show(&step));
        }
        if let classify::Compiled::Accepted(steps) = compiled {
            for (s, w) in steps.iter().enumerate() {
                if let Some(w) = w {
                    println!("//   the compiler appends the output of statement {s} through a {w}");
                }
            }
        }
        if semantics::has_loop_order(&k) && !semantics::has_loop_order_with(&k, true) {
            println!("//   (no loop order if the terms must share the output's order)");
        }
        println!("{}\n", k.invocation());
    }
}
