//! Running one input: `expand` under `catch_unwind`, its wall time, CPU time and peak memory
//! measured, its output checked to parse as Rust items, and a watchdog that aborts the process
//! when one input computes far too long (the parent process then records a hang).

use crate::alloc;
use proc_macro2::TokenStream;
use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The stack of the thread that runs inputs: what rustc gives a proc macro on its main thread.
pub const STACK_SIZE: usize = 8 << 20;

/// What running an input showed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// `expand` returned tokens that parse as Rust items; `true` when they hold no
    /// `compile_error!` (every kernel of the input was accepted).
    Ok(bool),
    /// `expand` panicked: the message and its location.
    Panic(String),
    /// `expand` returned tokens that do not parse as Rust items: the parse error and the text.
    BadOutput(String),
}

/// An input's outcome and measurements.
#[derive(Clone, Debug)]
pub struct Measured {
    /// What happened.
    pub outcome: Outcome,
    /// Wall time of `expand`.
    pub time: Duration,
    /// CPU time the running thread spent in `expand`: the macro's own cost, which a loaded
    /// machine does not inflate (wall time where the platform has no thread clock).
    pub cpu: Duration,
    /// Peak bytes allocated by `expand` beyond what was live when it started.
    pub peak: usize,
}

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static IN_EXPAND: Cell<bool> = const { Cell::new(false) };
}

/// Installs a panic hook that records the message and location of a panic inside `expand`
/// (instead of printing it) and prints any other panic as usual.
pub fn install_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !IN_EXPAND.with(Cell::get) {
            default(info);
            return;
        }
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "<non-string panic payload>".to_string());
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_else(|| "<unknown location>".to_string());
        LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{msg} (at {location})")));
    }));
}

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

const IDLE: u64 = u64::MAX;
static RUNNING: AtomicU64 = AtomicU64::new(IDLE);
static STARTED_MS: AtomicU64 = AtomicU64::new(0);
static STARTED_CPU_US: AtomicU64 = AtomicU64::new(0);

/// A hang is judged by CPU time; wall time only backs it up, this many times the limit, for an
/// input that would block without computing (nothing in `expand` can, but the watchdog should
/// not rely on it).
const WALL_FACTOR: u64 = 10;

/// Starts a thread that aborts the process when one input has computed longer than `limit`
/// (the worker's CPU time: one input runs at a time, and this thread only sleeps), or has run
/// for [`WALL_FACTOR`] times `limit` of wall time, after printing `fuzz-watchdog: input N ran
/// over T ms` to stderr. Judging by CPU time keeps a worker starved by other work on the
/// machine (a `nice`d run beside a build) from being charged with a hang.
pub fn start_watchdog(limit: Duration) {
    epoch();
    let limit_ms = limit.as_millis() as u64;
    std::thread::Builder::new()
        .name("fuzz-watchdog".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(25));
            let running = RUNNING.load(Ordering::SeqCst);
            if running == IDLE {
                continue;
            }
            let wall_ms = now_ms().saturating_sub(STARTED_MS.load(Ordering::SeqCst));
            let cpu_ms = process_cpu_us()
                .map(|now| now.saturating_sub(STARTED_CPU_US.load(Ordering::SeqCst)) / 1000)
                .unwrap_or(wall_ms);
            let over = cpu_ms > limit_ms || wall_ms > limit_ms.saturating_mul(WALL_FACTOR);
            if over && RUNNING.load(Ordering::SeqCst) == running {
                eprintln!(
                    "fuzz-watchdog: input {running} ran over {limit_ms} ms \
                     ({cpu_ms} ms of CPU time, {wall_ms} ms of wall time)"
                );
                std::process::abort();
            }
        })
        .expect("the watchdog thread starts");
}

fn now_ms() -> u64 {
    epoch().elapsed().as_millis() as u64
}

/// Lexes `text` and runs `expand` on it; `None` when the text does not lex. `id` names the
/// input for the watchdog. Must run on a thread with [`STACK_SIZE`] of stack.
pub fn run(id: u64, text: &str) -> Option<Measured> {
    Some(run_tokens(id, text.parse().ok()?))
}

/// Runs `expand` on lexed input, as [`run`].
pub fn run_tokens(id: u64, input: TokenStream) -> Measured {
    STARTED_MS.store(now_ms(), Ordering::SeqCst);
    STARTED_CPU_US.store(process_cpu_us().unwrap_or(0), Ordering::SeqCst);
    RUNNING.store(id, Ordering::SeqCst);
    let base = alloc::start();
    IN_EXPAND.with(|f| f.set(true));
    let c0 = thread_cpu_time();
    let t0 = Instant::now();
    let result = panic::catch_unwind(AssertUnwindSafe(|| sparse_core::expand(input)));
    let time = t0.elapsed();
    let cpu = match (c0, thread_cpu_time()) {
        (Some(c0), Some(c1)) => c1.saturating_sub(c0),
        _ => time,
    };
    IN_EXPAND.with(|f| f.set(false));
    let peak = alloc::peak_since(base);
    let outcome = match result {
        Ok(output) => check_output(output),
        Err(_) => Outcome::Panic(
            LAST_PANIC
                .with(|p| p.borrow_mut().take())
                .unwrap_or_else(|| "<panic without message>".to_string()),
        ),
    };
    RUNNING.store(IDLE, Ordering::SeqCst);
    Measured {
        outcome,
        time,
        cpu,
        peak,
    }
}

/// CPU time consumed so far by the calling thread.
fn thread_cpu_time() -> Option<Duration> {
    #[cfg(unix)]
    return cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID);
    #[cfg(not(unix))]
    return None;
}

/// CPU time consumed so far by the whole process, in microseconds.
fn process_cpu_us() -> Option<u64> {
    #[cfg(unix)]
    return cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID).map(|d| d.as_micros() as u64);
    #[cfg(not(unix))]
    return None;
}

#[cfg(unix)]
fn cpu_clock(clock: libc::clockid_t) -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call, and both CPU
    // clocks used here exist on every supported unix; on failure the call returns nonzero and
    // leaves nothing borrowed.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    if rc != 0 {
        return None;
    }
    Some(Duration::new(
        u64::try_from(ts.tv_sec).ok()?,
        u32::try_from(ts.tv_nsec).ok()?,
    ))
}

/// Outputs nested deeper than this are checked on a thread with [`CHECK_STACK_SIZE`]: the
/// check is the fuzzer's oracle, and syn's recursive parser must not overflow the stack of the
/// input thread (a debug build needs about 8 KiB per nesting level).
const CHECK_INLINE_DEPTH: usize = 64;

/// The stack of the thread that checks deeply nested outputs.
const CHECK_STACK_SIZE: usize = 1 << 30;

fn depth(ts: &TokenStream) -> usize {
    ts.clone()
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + depth(&g.stream()),
            _ => 0,
        })
        .max()
        .unwrap_or(0)
}

fn parse_items(output: TokenStream) -> syn::Result<()> {
    let items = |input: syn::parse::ParseStream| -> syn::Result<()> {
        while !input.is_empty() {
            input.parse::<syn::Item>()?;
        }
        Ok(())
    };
    syn::parse::Parser::parse2(items, output)
}

/// The macro's output must be items (a kernel function, or errors plus a stub): what rustc
/// accepts where the macro is invoked, so no inner attributes either.
fn check_output(output: TokenStream) -> Outcome {
    let parsed = if depth(&output) <= CHECK_INLINE_DEPTH {
        parse_items(output.clone()).map_err(|e| e.to_string())
    } else {
        // Token streams are not `Send`: the checking thread lexes the text again.
        let text = output.to_string();
        std::thread::Builder::new()
            .name("fuzz-check".into())
            .stack_size(CHECK_STACK_SIZE)
            .spawn(move || match text.parse::<TokenStream>() {
                Ok(ts) => parse_items(ts).map_err(|e| e.to_string()),
                Err(e) => Err(format!("the output does not lex: {e}")),
            })
            .expect("the checking thread starts")
            .join()
            .unwrap_or_else(|e| panic::resume_unwind(e))
    };
    match parsed {
        Ok(_) => Outcome::Ok(!has_compile_error(&output)),
        Err(e) => {
            let mut text = output.to_string();
            if text.len() > 2000 {
                let mut cut = 2000;
                while !text.is_char_boundary(cut) {
                    cut -= 1;
                }
                text.truncate(cut);
                text.push_str(" ...");
            }
            Outcome::BadOutput(format!(
                "output does not parse as items: {e}; output: {text}"
            ))
        }
    }
}

/// Whether a top-level item of the output is a `compile_error!` invocation.
fn has_compile_error(output: &TokenStream) -> bool {
    output
        .clone()
        .into_iter()
        .any(|t| matches!(t, proc_macro2::TokenTree::Ident(i) if i == "compile_error"))
}

/// Runs `f` on a new thread with [`STACK_SIZE`] of stack and returns its result.
pub fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .name("fuzz-input".into())
        .stack_size(STACK_SIZE)
        .spawn(f)
        .expect("the input thread starts")
        .join()
        .unwrap_or_else(|e| panic::resume_unwind(e))
}
