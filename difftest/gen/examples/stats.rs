//! Generator statistics without the compiler: shapes, value types, outputs and the oracle's
//! limitation rates, kernels per structured input format, schedules and the workspaces the
//! oracle expects, over a seed range:
//! `cargo run --release -p sparse-difftest-gen --example stats -- START COUNT`.

use sparse_difftest_gen::format::{Format, Kind, Spelling, STRUCTURED};
use sparse_difftest_gen::functions::Fill;
use sparse_difftest_gen::generate;
use sparse_difftest_gen::kernel::{Expr, Kernel};
use sparse_difftest_gen::kernel::{ParamKind, ValTy};
use sparse_difftest_gen::semantics::{has_loop_order, has_loop_order_with, limitations, workspace};
use std::collections::BTreeMap;

/// Counts of a kernel of sparse array programming: its shape, value type, the functions it
/// calls and reduces by, the fill values of its inputs and output, the oracle's verdict.
fn feature(k: &Kernel, bump: &mut impl FnMut(String)) {
    bump("feature kernel".into());
    bump(format!("feature value type {}", k.vt.name()));
    if limitations(k).is_empty() {
        bump("feature kernel, oracle accepted".into());
    }
    let mut seen = std::collections::BTreeSet::new();
    k.rhs.visit(&mut |e| match e {
        Expr::Call { func, .. } => {
            seen.insert(format!("feature calls {}", func.name()));
        }
        Expr::Reduce { by, .. } => {
            seen.insert(format!("feature reduces by {}", by.name()));
        }
        _ => {}
    });
    for s in seen {
        bump(s);
    }
    let mut filled = false;
    for p in &k.params {
        if let (Some(f), ParamKind::Input(_)) = (&p.fill, &p.kind) {
            let v = match f.value {
                Fill::Inf => "inf".to_string(),
                Fill::NegInf => "-inf".to_string(),
                Fill::Num(x) => format!("{x}"),
            };
            bump(format!("feature input fill {v}"));
            filled |= f.value != Fill::ZERO;
        }
        if let (Some(_), ParamKind::Output(_)) = (&p.fill, &p.kind) {
            bump("feature output declares its fill".into());
        }
    }
    if filled {
        bump("feature kernel with a nonzero fill".into());
    }
}

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let start = args.first().copied().unwrap_or(0);
    let count = args.get(1).copied().unwrap_or(10_000);
    let mut tally: BTreeMap<String, u64> = BTreeMap::new();
    let mut bump = |k: String| *tally.entry(k).or_insert(0) += 1;
    for seed in start..start + count {
        let k = generate(seed);
        bump(format!("template {}", k.template));
        if k.is_sequence() {
            bump(format!("statements {}", k.statements.len()));
            bump(format!("temporaries {}", k.temporaries.len()));
            let src = k.source();
            bump(format!("sequence with -= {}", src.contains(" -= ")));
            bump(format!("sequence with += {}", src.contains(" += ")));
            let outputs = k
                .params
                .iter()
                .filter(|p| matches!(p.kind, ParamKind::Output(_) | ParamKind::ScalarOut))
                .count();
            bump(format!("sequence outputs {outputs}"));
            let scheduled = k.statements.iter().filter(|s| s.schedule.is_some()).count();
            bump(format!("sequence scheduled statements {scheduled}"));
            if limitations(&k).is_empty() {
                bump("sequence, oracle accepted".into());
            }
        } else {
            bump(format!("single statement with -= {}", k.subtract));
        }
        bump(format!("value type {}", k.vt.name()));
        bump(format!("output order {}", k.out_vars.len()));
        let out = match k.out_format() {
            None => "scalar",
            Some(f) if f.all_dense() => "dense",
            Some(f) if f.inserts_everywhere() => "hash",
            Some(_) => "sparse",
        };
        let hashed_input = k
            .params
            .iter()
            .any(|p| matches!(&p.kind, ParamKind::Input(f) if f.kinds.contains(&Kind::Hashed)));
        if hashed_input {
            bump("hashed input".into());
            if limitations(&k).is_empty() {
                bump("hashed input, oracle accepted".into());
            }
        }
        let inputs: Vec<&Format> = k
            .params
            .iter()
            .filter_map(|p| match &p.kind {
                ParamKind::Input(f) => Some(f),
                _ => None,
            })
            .collect();
        let remapped = inputs.iter().any(|f| f.remapped());
        let padded = inputs
            .iter()
            .any(|f| !f.remapped() && f.kinds.contains(&Kind::SingletonPadded));
        // Kernels with an input of each structured alias, and the spellings drawn.
        for &name in STRUCTURED {
            if inputs.iter().any(|f| f.alias_name() == Some(name)) {
                bump(format!("input {name}"));
                if limitations(&k).is_empty() {
                    bump(format!("input {name}, oracle accepted"));
                }
            }
        }
        for f in &inputs {
            if let Spelling::Alias {
                name: name @ ("Bcsr" | "Csb"),
                index,
                consts,
            } = &f.spelling
            {
                let index = index.map_or("not written", |i| i.name());
                bump(format!("{name} operands, index type {index}"));
                if let [r, c] = consts[..] {
                    bump(format!("{name} operands, block {r}x{c}"));
                }
            }
        }
        if let Some(h) = inputs.iter().map(|f| f.hidden).max().filter(|&h| h > 0) {
            bump(format!("remapped input, most hidden modes {h}"));
        }
        let slotted = k
            .params
            .iter()
            .any(|p| matches!(&p.kind, ParamKind::Input(f) if f.kinds.contains(&Kind::Slotted)));
        if slotted {
            bump("slotted input (Ell or explicit)".into());
            if limitations(&k).is_empty() {
                bump("slotted input, oracle accepted".into());
            }
        }
        let unordered = k.params.iter().any(|p| {
            matches!(&p.kind, ParamKind::Input(f) if f.kinds.contains(&Kind::CompressedUnordered))
        });
        if unordered {
            bump("unordered input".into());
            if limitations(&k).is_empty() {
                bump("unordered input, oracle accepted".into());
            }
        }
        if remapped {
            bump("remapped input (Dia, Bcsr, Csb)".into());
            if limitations(&k).is_empty() {
                bump("remapped input, oracle accepted".into());
            }
        }
        if padded {
            bump("padded singleton input (explicit)".into());
        }
        bump(format!("output {out}"));
        bump(format!("accumulate {}", k.accumulate));
        bump(format!("raw names {}", k.source().contains("r#")));
        bump(format!("divisor {}", k.source().contains(" / ")));
        bump(format!("vars {}", k.rhs.vars().len()));
        if has_loop_order(&k) && !has_loop_order_with(&k, true) {
            bump("order only without a shared output order".into());
        }
        let lims = limitations(&k);
        if lims.is_empty() {
            bump("oracle accepted".into());
            if let Some(w) = workspace(&k) {
                bump(format!("oracle accepted, {} workspace", w.kind.name()));
            }
        }
        if let Some(s) = &k.schedule {
            bump(format!("schedule on a {out} output"));
            if lims.is_empty() {
                bump("schedule, oracle accepted".into());
            }
            if s.kind.is_none() {
                bump("schedule without a kind".into());
            }
        }
        for l in lims {
            bump(format!("oracle limitation {l}"));
        }
        if k.vt == ValTy::I64 && k.source().contains('.') {
            bump("BUG: float literal in an i64 kernel".into());
        }
        if k.feature {
            feature(&k, &mut bump);
        }
    }
    for (k, n) in tally {
        println!("{k:40} {n:7} {:6.2}%", 100.0 * n as f64 / count as f64);
    }
}
