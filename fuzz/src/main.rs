//! The fuzzer's command line. The parent process splits the inputs between worker processes
//! (this binary with `--worker`), reads what each input did from their stdout, restarts a
//! worker after a crash (abort, stack overflow, memory cap, watchdog) from the next input,
//! records the crashing input by `seed:index`, saves every failing input and prints a summary.
//! Run `--help` for the options; `FUZZING.md` at the workspace root describes the long run.

use sparse_fuzz::exec::{self, Outcome};
use sparse_fuzz::known::Known;
use sparse_fuzz::{alloc, generate, Generator};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const HELP: &str = "\
sparse-fuzz: runs sparse_core::expand on generated inputs in worker processes.

  --execs N         inputs to generate (default 100000); skipped ones are not run
  --seed S          seed of the run (default 1); input i is regenerated from (S, i)
  --start I         first input index (default 0)
  --workers W       worker processes (default 2)
  --hang-ms T       an input that computes longer than this (CPU time) is a hang (default 1000)
  --timeout-ms T    the watchdog aborts a worker after this much CPU time (or ten times
                    this much wall time) on one input (default 10000)
  --mem-mb M        an input whose peak exceeds this is a memory failure (default 1024)
  --cap-mb M        allocation fails past this much live memory per worker (default 4096)
  --out DIR         where failing inputs and the summary go (default target/fuzz-out)
  --known FILE      known failures to skip (default fuzz/known_failures.txt)
  --no-skip-known   run the known failures too
  --save-max N      failing inputs saved per failure class (default 20)
  --max-bytes N     skip inputs longer than N bytes (default: no limit)
  --replay PATH...  run these files (or every .rs file of these directories) instead
  --print I         print input I of the seed (the exact text given to expand) and exit
";

#[derive(Clone, Debug)]
struct Config {
    seed: u64,
    start: u64,
    execs: u64,
    workers: u64,
    hang: Duration,
    timeout: Duration,
    mem_limit: usize,
    mem_cap: usize,
    out: PathBuf,
    known: PathBuf,
    skip_known: bool,
    save_max: usize,
    max_bytes: usize,
    replay: Vec<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
        Config {
            seed: 1,
            start: 0,
            execs: 100_000,
            workers: 2,
            hang: Duration::from_millis(1000),
            timeout: Duration::from_millis(10_000),
            mem_limit: 1024 << 20,
            mem_cap: 4096 << 20,
            out: manifest.join("../target/fuzz-out"),
            known: manifest.join("known_failures.txt"),
            skip_known: true,
            save_max: 20,
            max_bytes: usize::MAX,
            replay: Vec::new(),
        }
    }
}

enum Mode {
    Parent,
    Worker { first: u64, stride: u64 },
    Print(u64),
}

fn parse_args() -> Result<(Config, Mode), String> {
    let mut c = Config::default();
    let mut mode = Mode::Parent;
    let mut worker = None;
    let mut args = std::env::args().skip(1).peekable();
    fn num<T: std::str::FromStr>(v: Option<String>, name: &str) -> Result<T, String> {
        v.as_deref()
            .and_then(|s| s.replace('_', "").parse().ok())
            .ok_or_else(|| format!("{name} needs a number"))
    }
    while let Some(a) = args.next() {
        match a.as_str() {
            "--execs" => c.execs = num(args.next(), &a)?,
            "--seed" => c.seed = num(args.next(), &a)?,
            "--start" => c.start = num(args.next(), &a)?,
            "--workers" => c.workers = num::<u64>(args.next(), &a)?.max(1),
            "--hang-ms" => c.hang = Duration::from_millis(num(args.next(), &a)?),
            "--timeout-ms" => c.timeout = Duration::from_millis(num(args.next(), &a)?),
            "--mem-mb" => c.mem_limit = num::<usize>(args.next(), &a)? << 20,
            "--cap-mb" => c.mem_cap = num::<usize>(args.next(), &a)? << 20,
            "--out" => c.out = args.next().ok_or("--out needs a directory")?.into(),
            "--known" => c.known = args.next().ok_or("--known needs a file")?.into(),
            "--no-skip-known" => c.skip_known = false,
            "--save-max" => c.save_max = num(args.next(), &a)?,
            "--max-bytes" => c.max_bytes = num(args.next(), &a)?,
            "--print" => mode = Mode::Print(num(args.next(), &a)?),
            "--replay" => {
                while let Some(p) = args.next_if(|p| !p.starts_with("--")) {
                    c.replay.push(p.into());
                }
            }
            "--worker" => {
                let first = num(args.next(), &a)?;
                let stride = num(args.next(), &a)?;
                worker = Some((first, stride));
            }
            "--help" | "-h" => return Err(HELP.to_string()),
            other => return Err(format!("unknown argument `{other}`\n\n{HELP}")),
        }
    }
    if let Some((first, stride)) = worker {
        mode = Mode::Worker { first, stride };
    }
    c.replay = expand_replay(&c.replay)?;
    Ok((c, mode))
}

/// Files of `--replay`, directories expanded to their `.rs` files, sorted.
fn expand_replay(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = fs::read_dir(p)
                .map_err(|e| format!("{}: {e}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| f.extension().is_some_and(|e| e == "rs"))
                .collect();
            files.sort();
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn main() -> ExitCode {
    let (config, mode) = match parse_args() {
        Ok(x) => x,
        Err(msg) => {
            eprintln!("{msg}");
            return ExitCode::from(2);
        }
    };
    match mode {
        Mode::Print(index) => {
            print!("{}", generate(config.seed, index).text);
            ExitCode::SUCCESS
        }
        Mode::Worker { first, stride } => {
            worker(config, first, stride);
            ExitCode::SUCCESS
        }
        Mode::Parent => parent(config),
    }
}

// ---------------------------------------------------------------------------------------------
// Worker: runs inputs `first, first + stride, ...` and reports each on stdout:
//   `b ID`                                  before input ID runs
//   `d ID GEN TIME_US PEAK_BYTES ok`        after it (`rejected`: a `compile_error!`), or
//                                           `... panic MSG` / `... bad MSG`
//   `x ID GEN`                              the input did not lex (not run)
//   `k ID`                                  a known failure, skipped
//   `l ID`                                  skipped by `--max-bytes`
//   `e`                                     all done
// ---------------------------------------------------------------------------------------------

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The number of items of the run: generated inputs, or replayed files.
fn item_count(c: &Config) -> u64 {
    if c.replay.is_empty() {
        c.start + c.execs
    } else {
        c.replay.len() as u64
    }
}

fn item_text(c: &Config, id: u64) -> (u8, String) {
    if c.replay.is_empty() {
        let input = generate(c.seed, id);
        (input.generator as u8, input.text)
    } else {
        let path = &c.replay[id as usize];
        let text = fs::read_to_string(path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        (0, text)
    }
}

fn is_known(c: &Config, known: &Known, id: u64) -> bool {
    if !c.skip_known {
        return false;
    }
    if c.replay.is_empty() {
        known.has_input(c.seed, id)
    } else {
        c.replay[id as usize]
            .file_name()
            .is_some_and(|n| known.has_file(&n.to_string_lossy()))
    }
}

fn worker(c: Config, first: u64, stride: u64) {
    alloc::set_cap(c.mem_cap);
    exec::install_panic_hook();
    exec::start_watchdog(c.timeout);
    let known = Known::load(&c.known);
    exec::on_big_stack(move || {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        let mut pending = String::new();
        // Time spent generating, lexing and in the lattice filter, running (expand, check, drop)
        // and in `expand` alone: printed with FUZZ_STAGES=1.
        let mut stages = [Duration::ZERO; 4];
        let end = item_count(&c);
        let mut id = if c.replay.is_empty() {
            c.start + first
        } else {
            first
        };
        while id < end {
            if is_known(&c, &known, id) {
                pending.push_str(&format!("k {id}\n"));
            } else {
                pending.push_str(&format!("b {id}\n"));
                out.write_all(pending.as_bytes()).expect("the parent reads");
                out.flush().expect("the parent reads");
                pending.clear();
                let t0 = Instant::now();
                let (generator, text) = item_text(&c, id);
                let t1 = Instant::now();
                stages[0] += t1 - t0;
                if text.len() > c.max_bytes {
                    pending.push_str(&format!("l {id}\n"));
                    id += stride;
                    continue;
                }
                let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
                    pending.push_str(&format!("x {id} {generator}\n"));
                    id += stride;
                    continue;
                };
                let t2 = Instant::now();
                stages[1] += t2 - t1;
                let m = exec::run_tokens(id, tokens);
                stages[2] += t2.elapsed();
                stages[3] += m.time;
                let outcome = match &m.outcome {
                    Outcome::Ok(true) => "ok".to_string(),
                    Outcome::Ok(false) => "rejected".to_string(),
                    Outcome::Panic(msg) => format!("panic {}", escape(msg)),
                    Outcome::BadOutput(msg) => format!("bad {}", escape(msg)),
                };
                pending.push_str(&format!(
                    "d {id} {generator} {} {} {} {outcome}\n",
                    m.time.as_micros(),
                    m.cpu.as_micros(),
                    m.peak
                ));
            }
            id += stride;
        }
        if std::env::var_os("FUZZ_STAGES").is_some() {
            eprintln!(
                "fuzz-stages: generate {:?}, filter {:?}, run {:?} (expand {:?})",
                stages[0], stages[1], stages[2], stages[3]
            );
        }
        pending.push_str("e\n");
        out.write_all(pending.as_bytes()).expect("the parent reads");
        out.flush().expect("the parent reads");
    });
}

// ---------------------------------------------------------------------------------------------
// Parent.
// ---------------------------------------------------------------------------------------------

/// The kinds of failure the summary counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Panic,
    Hang,
    Memory,
    Crash,
    BadOutput,
}

#[derive(Default)]
struct Class {
    kind: Option<Kind>,
    count: u64,
    examples: Vec<u64>,
    message: String,
}

/// The time one input spent in `expand`.
#[derive(Clone, Copy)]
struct Times {
    wall: Duration,
    /// The hang criterion: the expanding thread's CPU time.
    cpu: Duration,
}

#[derive(Default)]
struct Stats {
    execs: u64,
    by_gen: [u64; 4],
    accepted: [u64; 4],
    unlexable: u64,
    skipped: u64,
    too_large: u64,
    panics: u64,
    hangs: u64,
    memory: u64,
    crashes: u64,
    bad: u64,
    /// The input with the most CPU time in `expand`, and the one with the most wall time.
    slowest: (Duration, u64),
    slowest_wall: (Duration, u64),
    /// Inputs over the hang limit in wall time but not in CPU time: the machine was busy.
    wall_only: u64,
    peak: (usize, u64),
    classes: BTreeMap<String, Class>,
}

struct Shared {
    config: Config,
    stats: Mutex<Stats>,
}

fn item_name(c: &Config, id: u64) -> String {
    if c.replay.is_empty() {
        format!("{}:{id}", c.seed)
    } else {
        c.replay[id as usize].display().to_string()
    }
}

fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    out.trim_matches('-').chars().take(80).collect()
}

impl Shared {
    /// Records one failure of input `id`: counts it under its class and saves the input.
    fn fail(&self, kind: Kind, class: String, id: u64, detail: &str) {
        let c = &self.config;
        let save = {
            let mut s = self.stats.lock().expect("stats lock");
            match kind {
                Kind::Panic => s.panics += 1,
                Kind::Hang => s.hangs += 1,
                Kind::Memory => s.memory += 1,
                Kind::Crash => s.crashes += 1,
                Kind::BadOutput => s.bad += 1,
            }
            let entry = s.classes.entry(class.clone()).or_default();
            entry.kind = Some(kind);
            entry.count += 1;
            if entry.message.is_empty() {
                entry.message = detail.chars().take(600).collect();
            }
            let save = entry.examples.len() < c.save_max;
            if save {
                entry.examples.push(id);
            }
            save
        };
        if !save {
            return;
        }
        let dir = c.out.join("failures").join(slug(&class));
        if fs::create_dir_all(&dir).is_err() {
            return;
        }
        let (generator, text) = item_text(c, id);
        let stem = if c.replay.is_empty() {
            format!("{}-{id}", c.seed)
        } else {
            format!("replay-{id}")
        };
        let _ = fs::write(dir.join(format!("{stem}.rs")), &text);
        let reproduce = if c.replay.is_empty() {
            format!(
                "cargo run --profile fuzz -p sparse-fuzz -- --seed {} --print {id}",
                c.seed
            )
        } else {
            format!("the file {}", item_name(c, id))
        };
        let _ = fs::write(
            dir.join(format!("{stem}.txt")),
            format!(
                "class: {class}\ninput: {} (generator {generator}, {} bytes)\nregenerate: {reproduce}\n\n{detail}\n",
                item_name(c, id),
                text.len()
            ),
        );
    }

    fn done(&self, id: u64, generator: usize, time: Times, peak: usize, outcome: &str) {
        let c = &self.config;
        {
            let mut s = self.stats.lock().expect("stats lock");
            s.execs += 1;
            s.by_gen[generator.min(3)] += 1;
            if outcome == "ok" {
                s.accepted[generator.min(3)] += 1;
            }
            if time.cpu > s.slowest.0 {
                s.slowest = (time.cpu, id);
            }
            if time.wall > s.slowest_wall.0 {
                s.slowest_wall = (time.wall, id);
            }
            if time.wall > c.hang && time.cpu <= c.hang {
                s.wall_only += 1;
            }
            if peak > s.peak.0 {
                s.peak = (peak, id);
            }
        }
        let measured = format!(
            "CPU time {:.3} ms, wall time {:.3} ms, peak memory {:.1} MB",
            time.cpu.as_secs_f64() * 1e3,
            time.wall.as_secs_f64() * 1e3,
            peak as f64 / (1 << 20) as f64
        );
        if let Some(msg) = outcome.strip_prefix("panic ") {
            let msg = unescape(msg);
            let location = msg
                .rsplit_once("(at ")
                .map(|(_, l)| l.trim_end_matches(')'))
                .unwrap_or("<unknown location>");
            // Group by file and line (the column differs between expansions of one macro).
            let location = match location.rsplit_once(':') {
                Some((file_line, _col)) => file_line,
                None => location,
            };
            self.fail(
                Kind::Panic,
                format!("panic at {location}"),
                id,
                &format!("panic: {msg}\n{measured}"),
            );
        } else if let Some(msg) = outcome.strip_prefix("bad ") {
            let msg = unescape(msg);
            let reason: String = msg
                .trim_start_matches("output does not parse as items: ")
                .split(';')
                .next()
                .unwrap_or("")
                .chars()
                .take(60)
                .collect();
            self.fail(
                Kind::BadOutput,
                format!("bad output: {reason}"),
                id,
                &format!("{msg}\n{measured}"),
            );
        }
        if time.cpu > c.hang {
            self.fail(
                Kind::Hang,
                format!("hang over {} ms", c.hang.as_millis()),
                id,
                &measured,
            );
        }
        if peak > c.mem_limit {
            self.fail(
                Kind::Memory,
                format!("memory over {} MB", c.mem_limit >> 20),
                id,
                &measured,
            );
        }
    }

    /// A worker died while running input `id`: classify from its exit status and stderr.
    fn crashed(&self, id: u64, status: std::process::ExitStatus, stderr: &str) {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal: Option<i32> = None;
        let last_line = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .to_string();
        let tail: String = {
            let lines: Vec<&str> = stderr.lines().collect();
            lines[lines.len().saturating_sub(20)..].join("\n")
        };
        let detail = format!("worker died: {status}\nstderr (last lines):\n{tail}");
        let (kind, class) = if stderr.contains("fuzz-watchdog:") {
            (
                Kind::Hang,
                format!(
                    "hang: watchdog after {} ms",
                    self.config.timeout.as_millis()
                ),
            )
        } else if stderr.contains("has overflowed its stack") {
            (Kind::Crash, "crash: stack overflow".to_string())
        } else if stderr.contains("memory allocation of") {
            (
                Kind::Memory,
                format!("memory: over the {} MB cap", self.config.mem_cap >> 20),
            )
        } else if signal == Some(9) {
            (
                Kind::Crash,
                "crash: killed (SIGKILL, out of memory?)".to_string(),
            )
        } else {
            let what: String = last_line.chars().take(80).collect();
            (Kind::Crash, format!("crash: {status}: {what}"))
        };
        {
            let mut s = self.stats.lock().expect("stats lock");
            s.execs += 1;
            let generator = if self.config.replay.is_empty() {
                generate(self.config.seed, id).generator as usize
            } else {
                0
            };
            s.by_gen[generator] += 1;
        }
        self.fail(kind, class, id, &detail);
    }
}

/// Runs one worker slot: spawns the worker, reads its reports, restarts it after a crash.
fn slot(shared: &Shared, first_offset: u64, stride: u64) -> Result<(), String> {
    let c = &shared.config;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let end = item_count(c);
    let base = if c.replay.is_empty() { c.start } else { 0 };
    let mut next = base + first_offset;
    let stderr_path = c.out.join(format!("worker-{first_offset}.stderr"));
    while next < end {
        let stderr_file = fs::File::create(&stderr_path).map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&exe);
        cmd.arg("--worker")
            .arg((next - base).to_string())
            .arg(stride.to_string())
            .arg("--seed")
            .arg(c.seed.to_string())
            .arg("--start")
            .arg(c.start.to_string())
            .arg("--execs")
            .arg(c.execs.to_string())
            .arg("--timeout-ms")
            .arg(c.timeout.as_millis().to_string())
            .arg("--cap-mb")
            .arg((c.mem_cap >> 20).to_string())
            .arg("--known")
            .arg(&c.known)
            .arg("--max-bytes")
            .arg(c.max_bytes.to_string());
        if !c.skip_known {
            cmd.arg("--no-skip-known");
        }
        if !c.replay.is_empty() {
            cmd.arg("--replay").args(&c.replay);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(stderr_file))
            .spawn()
            .map_err(|e| format!("cannot start a worker: {e}"))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let mut current: Option<u64> = None;
        let mut finished = false;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let mut parts = line.splitn(7, ' ');
            let tag = parts.next().unwrap_or("");
            let id: u64 = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
            match tag {
                "b" => current = Some(id),
                "k" => shared.stats.lock().expect("stats lock").skipped += 1,
                "l" => {
                    current = None;
                    shared.stats.lock().expect("stats lock").too_large += 1;
                }
                "x" => {
                    current = None;
                    shared.stats.lock().expect("stats lock").unlexable += 1;
                }
                "d" => {
                    current = None;
                    let generator: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                    let mut micros = || {
                        Duration::from_micros(
                            parts.next().and_then(|s| s.parse().ok()).unwrap_or(0),
                        )
                    };
                    let time = Times {
                        wall: micros(),
                        cpu: micros(),
                    };
                    let peak: usize = parts.next().and_then(|s| s.parse().ok()).unwrap_or(0);
                    let outcome = parts.next().unwrap_or("ok");
                    shared.done(id, generator, time, peak, outcome);
                }
                "e" => finished = true,
                _ => {}
            }
        }
        let status = child.wait().map_err(|e| e.to_string())?;
        if finished {
            return Ok(());
        }
        let stderr = fs::read_to_string(&stderr_path).unwrap_or_default();
        let Some(id) = current else {
            return Err(format!(
                "a worker died outside an input ({status}):\n{stderr}"
            ));
        };
        shared.crashed(id, status, &stderr);
        next = id + stride;
    }
    Ok(())
}

fn parent(config: Config) -> ExitCode {
    if let Err(e) = fs::create_dir_all(&config.out) {
        eprintln!("cannot create {}: {e}", config.out.display());
        return ExitCode::from(2);
    }
    let _ = fs::remove_dir_all(config.out.join("failures"));
    let workers = config.workers;
    let shared = Arc::new(Shared {
        config,
        stats: Mutex::new(Stats::default()),
    });
    let t0 = Instant::now();
    let progress = {
        let shared = Arc::clone(&shared);
        std::thread::spawn(move || progress(&shared, t0))
    };
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let shared = Arc::clone(&shared);
            std::thread::spawn(move || slot(&shared, w, workers))
        })
        .collect();
    let mut errors = Vec::new();
    for h in handles {
        match h.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => errors.push(e),
            Err(_) => errors.push("a worker slot panicked".to_string()),
        }
    }
    let elapsed = t0.elapsed();
    DONE.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = progress.join();
    let report = summary(&shared, elapsed);
    // A closed stdout (`| head`) must not turn a finished run into a panic.
    let _ = writeln!(std::io::stdout(), "{report}");
    let _ = fs::write(shared.config.out.join("summary.txt"), &report);
    for e in &errors {
        eprintln!("fuzz: error: {e}");
    }
    let s = shared.stats.lock().expect("stats lock");
    if !errors.is_empty() || s.panics + s.hangs + s.memory + s.crashes + s.bad > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

static DONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn progress(shared: &Shared, t0: Instant) {
    let mut last = Instant::now();
    while !DONE.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(200));
        if last.elapsed() < Duration::from_secs(30) {
            continue;
        }
        last = Instant::now();
        let s = shared.stats.lock().expect("stats lock");
        let secs = t0.elapsed().as_secs_f64();
        eprintln!(
            "fuzz: {} executions in {secs:.0} s ({:.0}/s), {} panics, {} hangs, {} over memory, {} crashes, {} bad outputs",
            s.execs,
            s.execs as f64 / secs,
            s.panics,
            s.hangs,
            s.memory,
            s.crashes,
            s.bad
        );
    }
}

fn summary(shared: &Shared, elapsed: Duration) -> String {
    let c = &shared.config;
    let s = shared.stats.lock().expect("stats lock");
    let mut out = format!(
        "fuzz: {} executions ({} token streams, {} mutations, {} grammar), {} panics, {} hangs over {} s, {} inputs over {} GB, {} crashes; slowest input {:.1} ms, peak memory {:.1} MB\n",
        s.execs,
        s.by_gen[Generator::Tokens as usize],
        s.by_gen[Generator::Mutation as usize],
        s.by_gen[Generator::Grammar as usize],
        s.panics,
        s.hangs,
        c.hang.as_secs_f64(),
        s.memory,
        c.mem_limit as f64 / (1u64 << 30) as f64,
        s.crashes,
        s.slowest.0.as_secs_f64() * 1e3,
        s.peak.0 as f64 / (1 << 20) as f64,
    );
    let run = if c.replay.is_empty() {
        format!("seed {}, inputs {}..{}", c.seed, c.start, c.start + c.execs)
    } else {
        format!("{} files replayed", c.replay.len())
    };
    out.push_str(&format!(
        "fuzz: slowest input by wall time {:.1} ms; {} inputs over {} s of wall time but not of CPU time (a busy machine, not a hang)\n",
        s.slowest_wall.0.as_secs_f64() * 1e3,
        s.wall_only,
        c.hang.as_secs_f64(),
    ));
    out.push_str(&format!(
        "fuzz: {} bad outputs, {} inputs did not lex, {} known failures skipped; {:.0} executions/s over {:.1} s with {} workers; {run}\n",
        s.bad,
        s.unlexable,
        s.skipped,
        s.execs as f64 / elapsed.as_secs_f64().max(1e-9),
        elapsed.as_secs_f64(),
        c.workers,
    ));
    let share =
        |g: Generator| 100.0 * s.accepted[g as usize] as f64 / s.by_gen[g as usize].max(1) as f64;
    out.push_str(&format!(
        "fuzz: inputs expanded without compile_error!: {:.1}% of token streams, {:.1}% of mutations, {:.1}% of grammar kernels\n",
        share(Generator::Tokens),
        share(Generator::Mutation),
        share(Generator::Grammar),
    ));
    if c.max_bytes < usize::MAX {
        out.push_str(&format!(
            "fuzz: {} inputs over --max-bytes {} skipped\n",
            s.too_large, c.max_bytes
        ));
    }
    out.push_str(&format!(
        "fuzz: slowest input {} (CPU), {} (wall), peak memory input {}\n",
        item_name(c, s.slowest.1),
        item_name(c, s.slowest_wall.1),
        item_name(c, s.peak.1)
    ));
    if !s.classes.is_empty() {
        out.push_str(&format!(
            "fuzz: failure classes (inputs saved under {}):\n",
            c.out.join("failures").display()
        ));
        let mut classes: Vec<(&String, &Class)> = s.classes.iter().collect();
        classes.sort_by_key(|(_, cl)| (cl.kind, std::cmp::Reverse(cl.count)));
        for (name, cl) in classes {
            let examples: Vec<String> = cl
                .examples
                .iter()
                .take(5)
                .map(|&id| item_name(c, id))
                .collect();
            let first_line = cl.message.lines().next().unwrap_or("");
            out.push_str(&format!(
                "  {:>8}  {name}\n            e.g. {}\n            {}\n",
                cl.count,
                examples.join(" "),
                first_line.chars().take(200).collect::<String>()
            ));
        }
    }
    out
}
