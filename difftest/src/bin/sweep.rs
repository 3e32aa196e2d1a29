//! The long sweep: generates kernels in batches, asks the compiler which it accepts, builds the
//! accepted ones into a scratch crate under `target/difftest/` with the `difftest` profile
//! (debug assertions and overflow checks on, `opt-level = 0` unless `--opt-level`), runs them
//! in a child process, and summarizes.
//!
//! ```text
//! cargo run --release -p sparse-difftest --bin sweep -- --kernels 50000
//! ```
//!
//! Options: `--kernels N` (default 50000), `--start SEED` (default 1000000), `--batch B`
//! (default 400), `--out DIR` (default `target/difftest`), `--resume` (continue the sweep whose
//! state is in `DIR`), `--seeds A,B,..` (exactly these kernels), `--ci` (the CI subset, compared
//! with `difftest/known_failures.txt`), `--timeout SECS` (per kernel, default 120), `--formats
//! F,G,..` (only kernels with an input of one of these aliases, e.g. `Bcsr,Csb`: seeds are
//! scanned from `--start` until `--kernels` of them are found), `--workspace` (likewise, only
//! kernels that carry a schedule or that the compiler or the oracle computes through a
//! workspace), `--conversion` (likewise, only kernels the oracle says convert an operand,
//! rule (e)), `--sequences` (likewise, only kernels of several statements), `--functions`
//! (likewise, only kernels of sparse array programming: fill values, calls, reductions).

use sparse_difftest::gen::classify::{self, Compiled, Verdict};
use sparse_difftest::gen::kernel::Kernel;
use sparse_difftest::gen::semantics::{self, Limitation};
use sparse_difftest::gen::{self as gen, generate};
use sparse_difftest::{defect_class, from_one_line, kernel_module, Class, WorkspaceTally};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const WORKSPACE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

struct Options {
    kernels: u64,
    start: u64,
    batch: usize,
    out: PathBuf,
    resume: bool,
    seeds: Option<Vec<u64>>,
    ci: bool,
    write_known: bool,
    timeout: Duration,
    formats: Option<Vec<String>>,
    workspace: bool,
    conversion: bool,
    sequences: bool,
    functions: bool,
    opt_level: u64,
}

fn usage(msg: &str) -> ! {
    eprintln!("sweep: {msg}");
    eprintln!(
        "usage: sweep [--kernels N] [--start SEED] [--batch B] [--out DIR] [--resume] \
         [--seeds A,B,..] [--ci] [--timeout SECS] [--formats F,G,..] [--workspace] [--conversion] \
         [--sequences] [--functions] [--opt-level 0|1|2|3]"
    );
    std::process::exit(2)
}

fn options() -> Options {
    let mut o = Options {
        kernels: 50_000,
        start: 1_000_000,
        batch: 400,
        out: Path::new(WORKSPACE).join("target/difftest"),
        resume: false,
        seeds: None,
        ci: false,
        write_known: false,
        timeout: Duration::from_secs(120),
        formats: None,
        workspace: false,
        conversion: false,
        sequences: false,
        functions: false,
        opt_level: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        let num = |s: String| -> u64 {
            s.parse()
                .unwrap_or_else(|_| usage(&format!("bad number {s}")))
        };
        match a.as_str() {
            "--kernels" => o.kernels = num(value()),
            "--start" => o.start = num(value()),
            "--batch" => o.batch = num(value()).max(1) as usize,
            "--out" => o.out = PathBuf::from(value()),
            "--resume" => o.resume = true,
            "--ci" => o.ci = true,
            "--write-known-failures" => o.write_known = true,
            "--workspace" => o.workspace = true,
            "--conversion" => o.conversion = true,
            "--sequences" => o.sequences = true,
            "--functions" => o.functions = true,
            "--opt-level" => o.opt_level = num(value()).min(3),
            "--timeout" => o.timeout = Duration::from_secs(num(value())),
            "--formats" => {
                let names: Vec<String> = value().split(',').map(|s| s.trim().to_string()).collect();
                for n in &names {
                    if !gen::format::ALIASES.iter().any(|a| a.0 == n) {
                        usage(&format!("--formats: unknown alias {n}"));
                    }
                }
                o.formats = Some(names);
            }
            "--seeds" => {
                o.seeds = Some(
                    value()
                        .split(',')
                        .map(|s| num(s.trim().to_string()))
                        .collect(),
                )
            }
            "-h" | "--help" => usage("help"),
            other => usage(&format!("unknown option {other}")),
        }
    }
    o
}

/// Counts of the summary line.
#[derive(Clone, Debug, Default)]
struct Tally {
    kernels: u64,
    accepted: u64,
    refused: BTreeMap<Limitation, u64>,
    verdicts: BTreeMap<&'static str, u64>,
    failing: BTreeMap<Class, u64>,
    cases: u64,
    next: u64,
    build_secs: f64,
    run_secs: f64,
    classify_secs: f64,
    /// Per structured alias (`format::STRUCTURED`): kernels with an input of it, and how many
    /// of those the compiler accepted.
    uses: BTreeMap<String, (u64, u64)>,
    /// Accepted kernels computed through a workspace.
    workspaces: WorkspaceTally,
}

const VERDICT_KEYS: [&str; 6] = [
    "refused outside limitations",
    "accepted beyond rules",
    "refused for the wrong reason",
    "internal errors",
    "compiler panics",
    "accepted through another workspace",
];

fn verdict_key(v: &Verdict) -> Option<&'static str> {
    Some(match v {
        Verdict::RefusedOutsideLimitations(_) => VERDICT_KEYS[0],
        Verdict::AcceptedBeyondRules(_) => VERDICT_KEYS[1],
        Verdict::RefusedForWrongReason(..) => VERDICT_KEYS[2],
        Verdict::InternalError(_) => VERDICT_KEYS[3],
        Verdict::CompilerPanic(_) => VERDICT_KEYS[4],
        Verdict::OtherWorkspace(..) => VERDICT_KEYS[5],
        Verdict::Accepted | Verdict::RefusedAsExpected(_) => return None,
    })
}

impl Tally {
    fn summary(&self) -> String {
        let refused: u64 = self.refused.values().sum();
        let lims: Vec<String> = Limitation::ALL
            .iter()
            .map(|l| format!("{} {}", l.name(), self.refused.get(l).copied().unwrap_or(0)))
            .collect();
        let v = |k: &str| self.verdicts.get(k).copied().unwrap_or(0);
        let f = |c: Class| self.failing.get(&c).copied().unwrap_or(0);
        format!(
            "difftest: {} kernels, {} accepted, {} refused [{}], {} refused outside limitations, \
             {} accepted beyond rules, {} refused for the wrong reason, {} internal errors, \
             {} compiler panics, {} accepted through another workspace, {} wrong, {} panics, \
             {} aborts, {} expansions that fail to compile, {} invalid outputs, {} invalid \
             inputs",
            self.kernels,
            self.accepted,
            refused,
            lims.join(", "),
            v(VERDICT_KEYS[0]),
            v(VERDICT_KEYS[1]),
            v(VERDICT_KEYS[2]),
            v(VERDICT_KEYS[3]),
            v(VERDICT_KEYS[4]),
            v(VERDICT_KEYS[5]),
            f(Class::Wrong),
            f(Class::Panic),
            f(Class::Abort),
            f(Class::Compile),
            f(Class::InvalidOutput),
            f(Class::InvalidInput),
        )
    }

    /// Kernels per structured input format.
    fn uses_line(&self) -> String {
        let per: Vec<String> = gen::format::STRUCTURED
            .iter()
            .map(|n| {
                let (all, acc) = self.uses.get(*n).copied().unwrap_or((0, 0));
                format!("{n} {all} ({acc} accepted)")
            })
            .collect();
        format!("difftest: kernels with an input of {}", per.join(", "))
    }

    /// Kernels of several statements (counted in `uses` under `sequences`).
    fn sequences_line(&self) -> String {
        let (all, acc) = self.uses.get("sequences").copied().unwrap_or((0, 0));
        let failing = self.uses.get("sequences-failing").map_or(0, |u| u.0);
        format!(
            "difftest: {all} kernels of several statements, {acc} accepted, {failing} with a failure"
        )
    }

    /// Kernels of sparse array programming (counted in `uses` under `functions`), and the
    /// failing kernels per guessed defect class (`class:NAME`).
    fn functions_line(&self) -> String {
        let (all, acc) = self.uses.get("functions").copied().unwrap_or((0, 0));
        let failing = self.uses.get("functions-failing").map_or(0, |u| u.0);
        let classes: Vec<String> = self
            .uses
            .iter()
            .filter_map(|(k, v)| k.strip_prefix("class:").map(|c| format!("{c} {}", v.0)))
            .collect();
        format!(
            "difftest: {all} kernels of sparse array programming, {acc} accepted, {failing} with a failure; failing kernels by guessed class: [{}]",
            classes.join(", ")
        )
    }

    /// Workspaces.
    fn workspace_line(&self) -> String {
        format!("difftest: {}", self.workspaces.line(self.accepted))
    }

    fn save(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "next {}", self.next);
        let _ = writeln!(s, "kernels {}", self.kernels);
        let _ = writeln!(s, "accepted {}", self.accepted);
        let _ = writeln!(s, "cases {}", self.cases);
        let _ = writeln!(s, "build_secs {}", self.build_secs);
        let _ = writeln!(s, "run_secs {}", self.run_secs);
        let _ = writeln!(s, "classify_secs {}", self.classify_secs);
        for (l, n) in &self.refused {
            let _ = writeln!(s, "refused {} {n}", l.name());
        }
        for (k, n) in &self.verdicts {
            let _ = writeln!(s, "verdict {} {n}", k.replace(' ', "_"));
        }
        for (c, n) in &self.failing {
            let _ = writeln!(s, "failing {c} {n}");
        }
        for (f, (all, acc)) in &self.uses {
            let _ = writeln!(s, "uses {f} {all} {acc}");
        }
        s += &self.workspaces.save();
        s
    }

    fn load(text: &str) -> Tally {
        let mut t = Tally::default();
        for line in text.lines() {
            let w: Vec<&str> = line.split_whitespace().collect();
            let num = |s: &str| s.parse::<u64>().unwrap_or(0);
            let secs = |s: &str| s.parse::<f64>().unwrap_or(0.0);
            match w.as_slice() {
                ["next", n] => t.next = num(n),
                ["kernels", n] => t.kernels = num(n),
                ["accepted", n] => t.accepted = num(n),
                ["cases", n] => t.cases = num(n),
                ["build_secs", n] => t.build_secs = secs(n),
                ["run_secs", n] => t.run_secs = secs(n),
                ["classify_secs", n] => t.classify_secs = secs(n),
                ["refused", l, n] => {
                    if let Some(l) = Limitation::ALL.iter().find(|x| x.name() == *l) {
                        t.refused.insert(*l, num(n));
                    }
                }
                ["verdict", k, n] => {
                    if let Some(k) = VERDICT_KEYS.iter().find(|x| x.replace(' ', "_") == *k) {
                        t.verdicts.insert(k, num(n));
                    }
                }
                ["failing", c, n] => {
                    if let Some(c) = Class::parse(c) {
                        t.failing.insert(c, num(n));
                    }
                }
                ["uses", f, all, acc] => {
                    t.uses.insert(f.to_string(), (num(all), num(acc)));
                }
                ["workspaces", ..] => {
                    t.workspaces = WorkspaceTally::load(line).unwrap_or_default();
                }
                _ => {}
            }
        }
        t
    }
}

/// Failures of one kernel, gathered across the pipeline.
#[derive(Default)]
struct KernelFindings {
    verdict: Option<Verdict>,
    failures: Vec<(Class, Option<String>, String)>,
}

impl KernelFindings {
    fn defect_class(&self, k: &Kernel) -> &'static str {
        let failures: Vec<(Class, String)> =
            self.failures.iter().map(|f| (f.0, f.2.clone())).collect();
        defect_class(k, self.verdict.as_ref(), &failures)
    }
}

fn main() {
    let o = options();
    std::fs::create_dir_all(&o.out).expect("create the output directory");
    let state_path = o.out.join("state.txt");
    let findings_path = o.out.join("findings.md");
    let target = Path::new(WORKSPACE).join("target");

    // Which seeds to run.
    let state_text = std::fs::read_to_string(&state_path).unwrap_or_default();
    let formats: Option<Vec<String>> = o.formats.clone().or_else(|| {
        // A resumed sweep keeps its format filter.
        o.resume
            .then(|| state_text.lines().find_map(|l| l.strip_prefix("formats ")))
            .flatten()
            .map(|f| f.split(',').map(str::to_string).collect())
    });
    // A resumed sweep keeps its workspace filter.
    let workspace_only =
        o.workspace || (o.resume && state_text.lines().any(|l| l == "workspace-only"));
    // A resumed sweep keeps its conversion filter.
    let conversion_only =
        o.conversion || (o.resume && state_text.lines().any(|l| l == "conversion-only"));
    // A resumed sweep keeps its sequence filter.
    let sequences_only =
        o.sequences || (o.resume && state_text.lines().any(|l| l == "sequences-only"));
    // A resumed sweep keeps its feature filter.
    let functions_only =
        o.functions || (o.resume && state_text.lines().any(|l| l == "functions-only"));
    let wanted = |id: u64| {
        let k = generate(id);
        formats.as_ref().is_none_or(|f| uses_formats(&k, f))
            && (!workspace_only || through_workspace(&k))
            && (!conversion_only || semantics::conversion_applies(&k))
            && (!sequences_only || k.is_sequence())
            && (!functions_only || k.feature)
    };
    let (mut tally, seeds): (Tally, Vec<u64>) = if let Some(s) = &o.seeds {
        (Tally::default(), s.clone())
    } else if o.ci {
        (Tally::default(), gen::CI_KERNELS.collect())
    } else if o.resume {
        if state_text.is_empty() {
            usage("--resume: no state.txt in the output directory");
        }
        let text = &state_text;
        let t = Tally::load(text);
        let end = text
            .lines()
            .find_map(|l| l.strip_prefix("end "))
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(t.next + o.kernels);
        let next = t.next;
        (t, (next..end).filter(|&id| wanted(id)).collect())
    } else if formats.is_some()
        || workspace_only
        || conversion_only
        || sequences_only
        || functions_only
    {
        eprintln!(
            "sweep: scanning seeds from {} for {} kernels that pass the filter",
            o.start, o.kernels
        );
        let seeds = (o.start..)
            .filter(|&id| wanted(id))
            .take(o.kernels as usize)
            .collect();
        (Tally::default(), seeds)
    } else {
        (Tally::default(), (o.start..o.start + o.kernels).collect())
    };
    let end = seeds.last().map_or(0, |s| s + 1);
    if !o.resume {
        std::fs::write(
            &findings_path,
            "# Differential tester findings\n\nEach entry: the kernel, what failed, the data case, the difference.\n\n",
        )
        .expect("write findings");
    }
    eprintln!(
        "sweep: {} kernels ({}..{}), batches of {}, output in {}",
        seeds.len(),
        seeds.first().copied().unwrap_or(0),
        end,
        o.batch,
        o.out.display()
    );

    let scratch = o.out.join("scratch");
    let profile = profile_name(o.opt_level);
    let name = setup_scratch(&scratch, o.opt_level);
    // The scratch crate must build without kernels, or every kernel would be blamed.
    write_batch(&scratch, &[]);
    if let Err(errors) = cargo_build(&scratch, &target, &profile) {
        eprintln!("sweep: the scratch crate does not build even without kernels:");
        for line in errors.iter().take(30) {
            eprintln!("  {line}");
        }
        std::process::exit(1);
    }
    let started = Instant::now();
    let mut all_failing: BTreeMap<u64, &'static str> = BTreeMap::new();
    for (b, chunk) in seeds.chunks(o.batch).enumerate() {
        let t0 = Instant::now();
        let mut findings: BTreeMap<u64, KernelFindings> = BTreeMap::new();
        let mut to_run: Vec<Kernel> = Vec::new();
        for &id in chunk {
            let k = generate(id);
            let compiled = classify::compile(&k);
            let verdict = classify::judge(&k, &compiled);
            tally.kernels += 1;
            let runs = verdict.runs() && !matches!(compiled, Compiled::Panicked(_));
            let workspace = match &compiled {
                Compiled::Accepted(w) => w.iter().flatten().next().copied(),
                _ => None,
            };
            tally.workspaces.count(&k, runs, workspace);
            for name in gen::format::STRUCTURED {
                if uses_formats(&k, &[name.to_string()]) {
                    let u = tally.uses.entry(name.to_string()).or_default();
                    u.0 += 1;
                    u.1 += u64::from(verdict.runs());
                }
            }
            if k.is_sequence() {
                let u = tally.uses.entry("sequences".to_string()).or_default();
                u.0 += 1;
                u.1 += u64::from(verdict.runs());
            }
            if k.feature {
                let u = tally.uses.entry("functions".to_string()).or_default();
                u.0 += 1;
                u.1 += u64::from(verdict.runs());
            }
            if let Verdict::RefusedAsExpected(l) = verdict {
                *tally.refused.entry(l).or_insert(0) += 1;
            }
            if let Some(key) = verdict_key(&verdict) {
                *tally.verdicts.entry(key).or_insert(0) += 1;
                findings.entry(id).or_default().verdict = Some(verdict.clone());
            }
            if runs {
                tally.accepted += 1;
                to_run.push(k);
            }
        }
        tally.classify_secs += t0.elapsed().as_secs_f64();

        let t1 = Instant::now();
        let built = build_batch(&scratch, &target, &profile, to_run, &mut findings);
        tally.build_secs += t1.elapsed().as_secs_f64();

        let t2 = Instant::now();
        let binary = target.join(&profile).join(&name);
        let ids: Vec<u64> = built.iter().map(|k| k.id).collect();
        if !ids.is_empty() && older(&binary, &scratch.join("src/main.rs")) {
            eprintln!(
                "sweep: {} is older than the batch's source: cargo did not rebuild it",
                binary.display()
            );
            std::process::exit(1);
        }
        tally.cases += run_batch(&binary, &ids, o.timeout, &o.out, &mut findings);
        tally.run_secs += t2.elapsed().as_secs_f64();

        // Tally failing kernels per class, and write the findings.
        let mut text = String::new();
        for (id, f) in &findings {
            let classes: BTreeSet<Class> = f.failures.iter().map(|x| x.0).collect();
            for c in &classes {
                *tally.failing.entry(*c).or_insert(0) += 1;
            }
            if f.verdict.is_some() || !classes.is_empty() {
                if generate(*id).is_sequence() {
                    tally
                        .uses
                        .entry("sequences-failing".to_string())
                        .or_default()
                        .0 += 1;
                }
                let class = f.defect_class(&generate(*id));
                if generate(*id).feature {
                    tally
                        .uses
                        .entry("functions-failing".to_string())
                        .or_default()
                        .0 += 1;
                }
                tally.uses.entry(format!("class:{class}")).or_default().0 += 1;
                all_failing.insert(*id, class);
                text += &describe_finding(*id, f);
            }
        }
        append(&findings_path, &text);
        tally.next = chunk.last().map_or(tally.next, |s| s + 1);
        let mut state = tally.save();
        let _ = writeln!(state, "end {end}");
        if let Some(f) = &formats {
            let _ = writeln!(state, "formats {}", f.join(","));
        }
        if workspace_only {
            let _ = writeln!(state, "workspace-only");
        }
        if conversion_only {
            let _ = writeln!(state, "conversion-only");
        }
        if sequences_only {
            let _ = writeln!(state, "sequences-only");
        }
        if functions_only {
            let _ = writeln!(state, "functions-only");
        }
        std::fs::write(&state_path, state).expect("write state");
        let minutes = started.elapsed().as_secs_f64() / 60.0;
        eprintln!(
            "sweep: batch {} ({}..={}) done in {:.0}s; {} kernels so far, {:.0} kernels/minute",
            b + 1,
            chunk[0],
            chunk[chunk.len() - 1],
            t0.elapsed().as_secs_f64(),
            tally.kernels,
            (chunk.len() * (b + 1)) as f64 / minutes.max(1e-9)
        );
        eprintln!("{}", tally.summary());
        eprintln!("{}", tally.uses_line());
        eprintln!("{}", tally.workspace_line());
        eprintln!("{}", tally.sequences_line());
        eprintln!("{}", tally.functions_line());
    }

    if o.ci {
        compare_with_known_failures(&all_failing);
        if o.write_known {
            write_known_failures(&all_failing);
        }
    }
    eprintln!(
        "sweep: time: classify {:.0}s, build {:.0}s, run {:.0}s; {} cases run; findings in {}",
        tally.classify_secs,
        tally.build_secs,
        tally.run_secs,
        tally.cases,
        findings_path.display()
    );
    println!("{}", tally.summary());
    println!("{}", tally.uses_line());
    println!("{}", tally.workspace_line());
    println!("{}", tally.sequences_line());
    println!("{}", tally.functions_line());
}

/// Whether the kernel carries a schedule, or the oracle or the compiler computes it through a
/// workspace (the `--workspace` filter).
fn through_workspace(k: &Kernel) -> bool {
    k.has_schedule()
        || semantics::workspaces(k).iter().any(Option::is_some)
        || matches!(classify::compile(k), Compiled::Accepted(w) if w.iter().any(Option::is_some))
}

/// Whether the kernel has an input of one of the aliases `formats`.
fn uses_formats(k: &Kernel, formats: &[String]) -> bool {
    k.params.iter().any(|p| {
        matches!(&p.kind, gen::kernel::ParamKind::Input(f)
            if f.alias_name().is_some_and(|n| formats.iter().any(|w| w == n)))
    })
}

fn write_known_failures(failing: &BTreeMap<u64, &'static str>) {
    let path = Path::new(WORKSPACE).join("difftest/known_failures.txt");
    let mut text = String::from(KNOWN_FAILURES_HEADER);
    for (id, class) in failing {
        let k = generate(*id);
        let _ = writeln!(text, "{id} {class} # {}", k.template);
    }
    std::fs::write(&path, text).expect("write known_failures.txt");
    eprintln!(
        "sweep --ci: wrote {} lines to {}",
        failing.len(),
        path.display()
    );
}

const KNOWN_FAILURES_HEADER: &str = "\
# Kernels of the CI subset (difftest/tests/ci.rs) that fail today because of known compiler or
# runtime defects: `id defect-class # generator shape`. Written by
#   cargo run --release -p sparse-difftest --bin sweep -- --ci --write-known-failures
# and checked by hand. Remove a line when its kernel passes (the CI test fails on a listed
# kernel that passes). Classes in NOT_BUILT (difftest/gen/src/lib.rs) are not compiled into the
# CI test because their expansion does not compile. See TESTING.md for the classes.
";

fn compare_with_known_failures(failing: &BTreeMap<u64, &'static str>) {
    let path = Path::new(WORKSPACE).join("difftest/known_failures.txt");
    let known = gen::known_failures(&std::fs::read_to_string(&path).unwrap_or_default());
    let listed: BTreeSet<u64> = known.iter().map(|k| k.0).collect();
    for (id, class) in &known {
        if !failing.contains_key(id) {
            eprintln!(
                "sweep --ci: kernel {id} ({class}) passes now: remove it from known_failures.txt"
            );
        }
    }
    for (id, class) in failing {
        if !listed.contains(id) {
            eprintln!("sweep --ci: kernel {id} ({class}) fails but is not in known_failures.txt");
        }
    }
}

fn append(path: &Path, text: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .expect("open findings");
    f.write_all(text.as_bytes()).expect("write findings");
}

fn describe_finding(id: u64, f: &KernelFindings) -> String {
    let k = generate(id);
    let mut s = String::new();
    let classes: BTreeSet<String> = f.failures.iter().map(|x| x.0.to_string()).collect();
    let mut what: Vec<String> = classes.into_iter().collect();
    if f.verdict.is_some() {
        what.insert(0, "verdict".into());
    }
    let _ = writeln!(s, "## kernel {id} [{}]: {}\n", k.template, what.join(", "));
    let _ = writeln!(s, "```rust\n{}\n```\n", k.invocation());
    for step in k.steps() {
        let _ = writeln!(
            s,
            "- sums placed: `{}`",
            semantics::place(&step).show(&step)
        );
    }
    let lims = semantics::limitations(&k);
    let _ = writeln!(
        s,
        "- oracle: {}",
        if lims.is_empty() {
            let steps: Vec<String> = semantics::workspaces(&k)
                .iter()
                .map(|w| w.map_or("directly".to_string(), |w| format!("through a {w}")))
                .collect();
            format!("accepted ({})", steps.join("; "))
        } else {
            lims.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ")
        }
    );
    for p in &k.params {
        if let Some(fmt) = p.format() {
            let _ = writeln!(s, "- `{}`: {}", p.name, fmt.describe());
        }
    }
    if let Some(v) = &f.verdict {
        let _ = writeln!(s, "- compiler: {}", v.describe());
    }
    let _ = writeln!(s, "- defect class (guessed): {}", f.defect_class(&k));
    // The most severe failures first (an abort matters more than a bad input in another case).
    let severity = |c: &Class| match c {
        Class::Abort => 0,
        Class::Panic => 1,
        Class::InvalidOutput => 2,
        Class::Wrong => 3,
        Class::Compile => 4,
        Class::InvalidInput => 5,
        Class::Verdict => 6,
    };
    let mut failures: Vec<&(Class, Option<String>, String)> = f.failures.iter().collect();
    failures.sort_by_key(|x| severity(&x.0));
    for (class, case, detail) in failures.into_iter().take(4) {
        let _ = writeln!(
            s,
            "- **{class}**{}",
            case.as_ref().map_or(String::new(), |c| format!(" in {c}"))
        );
        let _ = writeln!(s, "  - {}", detail.replace('\n', "\n    "));
    }
    if f.failures.len() > 4 {
        let _ = writeln!(s, "- ... {} failing cases in all", f.failures.len());
    }
    s.push('\n');
    s
}

/// Creates the scratch crate (its own workspace, sharing the target directory); returns its
/// package (and binary) name, `difftest-batch-` and a hash of its directory. Cargo does not hash
/// a workspace root's path into its build units, so two scratch crates of one name (sweeps
/// with different `--out`) would share one unit in the shared target directory, and the
/// second would find it fresh (its dep-info names the first one's `main.rs`) and never build
/// its own batches.
fn setup_scratch(dir: &Path, opt_level: u64) -> String {
    let profile = profile_name(opt_level);
    std::fs::create_dir_all(dir.join("src")).expect("create the scratch crate");
    let canonical = std::fs::canonicalize(dir).expect("the scratch directory");
    let hash = canonical
        .to_string_lossy()
        .bytes()
        .fold(0u64, |h, b| gen::rng::mix(h, u64::from(b)));
    let name = format!("difftest-batch-{:08x}", hash as u32);
    let ws = std::fs::canonicalize(WORKSPACE).expect("the workspace");
    let manifest = format!(
        r#"# Generated by the difftest sweep; rewritten on every run.
[package]
name = "{name}"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
sparse-runtime = {{ path = "{ws}/sparse-runtime" }}
sparse-difftest = {{ path = "{ws}/difftest" }}

[workspace]

# Kernels are checked with debug assertions and overflow checks on, so that the runtime's
# unchecked accessors assert their preconditions; not optimized by default (`--opt-level`):
# building dominates.
[profile.{profile}]
inherits = "dev"
opt-level = {opt_level}
debug = false
debug-assertions = true
overflow-checks = true
incremental = false

# The proc macro (and the compiler behind it) expands hundreds of kernels per batch.
[profile.{profile}.build-override]
opt-level = 3
"#,
        ws = ws.display()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("write the scratch manifest");
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        let _ = std::fs::copy(Path::new(WORKSPACE).join("Cargo.lock"), &lock);
    }
    name
}

/// Writes the batch's kernels as the scratch crate's `main.rs`; returns each kernel's line
/// range.
fn write_batch(dir: &Path, kernels: &[Kernel]) -> Vec<(usize, usize)> {
    let mut src = String::from(
        "// Generated by the difftest sweep.\n#![allow(warnings)]\n#![recursion_limit = \"256\"]\n\n",
    );
    let mut ranges = Vec::new();
    for k in kernels {
        let start = src.lines().count() + 1;
        src += &kernel_module(k, "::sparse_difftest");
        let end = src.lines().count();
        ranges.push((start, end));
        src.push('\n');
    }
    src += "static TABLE: &[(u64, ::sparse_difftest::CallFn)] = &[\n";
    for k in kernels {
        let _ = writeln!(src, "    ({}, {}::call),", k.id, k.fn_name());
    }
    src += "];\n\nfn main() {\n    ::sparse_difftest::child_main(TABLE);\n}\n";
    std::fs::write(dir.join("src/main.rs"), src).expect("write the batch");
    ranges
}

/// Runs `cargo build` on the scratch crate; returns Ok, or the error lines (short format).
/// The batch crate's profile: `difftest` (`opt-level = 0`, the default: building dominates a
/// sweep, and unoptimized batches build about seven times faster than at `opt-level = 1`),
/// or `difftest-oN` for another `--opt-level` (a profile of its own, so sweeps of both levels
/// share no build units).
fn profile_name(opt_level: u64) -> String {
    if opt_level == 0 {
        "difftest".to_string()
    } else {
        format!("difftest-o{opt_level}")
    }
}

fn cargo_build(dir: &Path, target: &Path, profile: &str) -> Result<(), Vec<String>> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .arg("build")
        .arg("--profile")
        .arg(profile)
        .arg("--message-format")
        .arg("short")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", target)
        .env_remove("RUSTFLAGS")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run cargo build");
    if out.status.success() {
        return Ok(());
    }
    let text = String::from_utf8_lossy(&out.stderr);
    Err(text.lines().map(str::to_string).collect())
}

/// Builds the kernels, dropping (and recording) the ones whose expansion does not compile.
/// Returns the kernels that were built.
fn build_batch(
    dir: &Path,
    target: &Path,
    profile: &str,
    mut kernels: Vec<Kernel>,
    findings: &mut BTreeMap<u64, KernelFindings>,
) -> Vec<Kernel> {
    // Kernels known to break the build are bisected out when errors cannot be mapped.
    let mut suspects: Vec<Kernel> = Vec::new();
    loop {
        let ranges = write_batch(dir, &kernels);
        let errors = match cargo_build(dir, target, profile) {
            Ok(()) => break,
            Err(e) => e,
        };
        let mut bad: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for line in errors.iter().filter(|l| l.contains("error")) {
            let Some(at) = line.find("main.rs:") else {
                continue;
            };
            let rest = &line[at + "main.rs:".len()..];
            let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) else {
                continue;
            };
            if let Some(k) = ranges.iter().position(|&(s, e)| s <= n && n <= e) {
                bad.entry(k).or_default().push(line.clone());
            }
        }
        if bad.is_empty() {
            // Unmapped errors: bisect.
            if kernels.len() <= 1 {
                for k in kernels.drain(..) {
                    findings.entry(k.id).or_default().failures.push((
                        Class::Compile,
                        None,
                        errors
                            .iter()
                            .take(12)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join("\n"),
                    ));
                }
                break;
            }
            let half = kernels.split_off(kernels.len() / 2);
            suspects.extend(half);
            continue;
        }
        for (&k, lines) in bad.iter().rev() {
            let kernel = kernels.remove(k);
            findings.entry(kernel.id).or_default().failures.push((
                Class::Compile,
                None,
                lines.iter().take(8).cloned().collect::<Vec<_>>().join("\n"),
            ));
        }
    }
    if !suspects.is_empty() {
        let mut rest = build_batch(dir, target, profile, suspects, findings);
        let mut all = kernels;
        all.append(&mut rest);
        // Rebuild everything that compiles together, for the run.
        if !all.is_empty() {
            write_batch(dir, &all);
            if cargo_build(dir, target, profile).is_err() {
                eprintln!("sweep: the kernels that built separately do not build together");
            }
        }
        return all;
    }
    kernels
}

/// Runs the batch binary on `ids`, restarting it after a crash or timeout. Returns the number of
/// cases run.
fn run_batch(
    binary: &Path,
    ids: &[u64],
    timeout: Duration,
    out: &Path,
    findings: &mut BTreeMap<u64, KernelFindings>,
) -> u64 {
    let mut remaining: Vec<u64> = ids.to_vec();
    let mut cases = 0;
    let stderr_path = out.join("batch-stderr.txt");
    while !remaining.is_empty() {
        let stderr = std::fs::File::create(&stderr_path).expect("create the stderr file");
        let mut child = Command::new(binary)
            .args(remaining.iter().map(|i| i.to_string()))
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("run the batch binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut current: Option<u64> = None;
        let mut done: BTreeSet<u64> = BTreeSet::new();
        let crash = loop {
            match rx.recv_timeout(timeout) {
                Ok(Ok(line)) => {
                    if let Some(id) = line.strip_prefix("START ") {
                        current = id.trim().parse().ok();
                    } else if let Some(rest) = line.strip_prefix("DONE ") {
                        let mut w = rest.split_whitespace();
                        let id: u64 = w.next().and_then(|x| x.parse().ok()).unwrap_or(0);
                        cases += w.next().and_then(|x| x.parse::<u64>().ok()).unwrap_or(0);
                        done.insert(id);
                        current = None;
                    } else if line.starts_with("FAIL\t") {
                        let f: Vec<&str> = line.splitn(5, '\t').collect();
                        if f.len() == 5 {
                            let id: u64 = f[1].parse().unwrap_or(0);
                            let class = Class::parse(f[2]).unwrap_or(Class::Wrong);
                            let case = Some(from_one_line(f[3])).filter(|c| !c.is_empty());
                            findings.entry(id).or_default().failures.push((
                                class,
                                case,
                                from_one_line(f[4]),
                            ));
                        }
                    }
                }
                Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait().ok();
                    break current.map(|id| {
                        let tail = tail(&stderr_path, 10);
                        (
                            id,
                            format!(
                                "the batch process died ({}) while running this kernel; stderr tail:\n{tail}",
                                status.map_or("unknown status".into(), |s| s.to_string())
                            ),
                        )
                    });
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break current.map(|id| {
                        (
                            id,
                            format!("no progress for {}s: killed (hang?)", timeout.as_secs()),
                        )
                    });
                }
            }
        };
        match crash {
            Some((id, detail)) => {
                findings
                    .entry(id)
                    .or_default()
                    .failures
                    .push((Class::Abort, None, detail));
                done.insert(id);
                remaining.retain(|r| !done.contains(r));
            }
            None => {
                // Finished (or died between kernels): anything not done is retried once more
                // only if progress was made.
                let before = remaining.len();
                remaining.retain(|r| !done.contains(r));
                if remaining.len() == before {
                    for id in remaining.drain(..) {
                        findings.entry(id).or_default().failures.push((
                            Class::Abort,
                            None,
                            "the batch process exited without running this kernel".into(),
                        ));
                    }
                }
            }
        }
    }
    cases
}

/// Whether file `a` was last modified before file `b` (or either is missing).
fn older(a: &Path, b: &Path) -> bool {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    match (modified(a), modified(b)) {
        (Some(a), Some(b)) => a < b,
        _ => true,
    }
}

fn tail(path: &Path, n: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}
