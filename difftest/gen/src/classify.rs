//! Asking the compiler whether it accepts a kernel (and with what messages), and comparing that
//! with the acceptance oracle. The compiler is used only as a black box here.

use crate::kernel::{Accumulator, Kernel};
use crate::semantics::{limitations, workspaces, Limitation, Placement};
use std::panic::{catch_unwind, AssertUnwindSafe};

/// What the compiler said about a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compiled {
    /// Accepted, and `expand` produced no `compile_error!`; with, per statement (one for a
    /// single-statement kernel), the workspace its output is appended through
    /// (`sparse_core::Compiled::workspace`), if any.
    Accepted(Vec<Option<Placement>>),
    /// Refused with these messages.
    Refused(Vec<String>),
    /// The compiler (or the parse of the generated source) panicked.
    Panicked(String),
}

/// Runs `sparse_core::compile` (then `sparse_core::expand`) on the kernel, catching panics.
pub fn compile(k: &Kernel) -> Compiled {
    let src = k.source();
    let item: syn::ItemFn = match syn::parse_str(&src) {
        Ok(item) => item,
        Err(e) => return Compiled::Refused(vec![format!("generated source does not parse: {e}")]),
    };
    let quiet = QuietPanics::new();
    let placement = |c: &sparse_core::Compiled| {
        c.workspace.as_ref().map(|w| Placement {
            level: w.level,
            kind: match w.kind {
                sparse_core::workspace::Kind::Dense => Accumulator::Dense,
                sparse_core::workspace::Kind::Hash => Accumulator::Hash,
            },
        })
    };
    let messages = |e: syn::Error| e.into_iter().map(|e| e.to_string()).collect::<Vec<_>>();
    let result = catch_unwind(AssertUnwindSafe(|| {
        // The functions the block declares, as the compiler reads them.
        let mut functions = Vec::new();
        let mut errors = Vec::new();
        for decl in k.declarations() {
            let item: syn::ItemFn = match syn::parse_str(&decl) {
                Ok(item) => item,
                Err(e) => return Err(vec![format!("a declaration does not parse: {e}")]),
            };
            let mut diags = sparse_core::diagnostic::Diagnostics::default();
            let (f, _) = sparse_core::algebra::declare(&item, &mut diags);
            match diags.into_error() {
                Some(e) => errors.extend(messages(e)),
                None => functions.extend(f),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if k.is_sequence() {
            match sparse_core::compile_sequence(&item, &functions) {
                Ok((_, steps)) => Ok(steps.iter().map(placement).collect()),
                Err(e) => Err(messages(e)),
            }
        } else {
            match sparse_core::compile_with(&item, &functions) {
                Ok(c) => Ok(vec![placement(&c)]),
                Err(e) => Err(messages(e)),
            }
        }
    }));
    let outcome = match result {
        Err(p) => return Compiled::Panicked(quiet.message(p)),
        Ok(Err(msgs)) => Compiled::Refused(msgs),
        Ok(Ok(workspace)) => Compiled::Accepted(workspace),
    };
    let tokens: proc_macro2::TokenStream = match k.block().parse() {
        Ok(t) => t,
        Err(e) => return Compiled::Panicked(format!("source does not lex: {e}")),
    };
    match catch_unwind(AssertUnwindSafe(|| sparse_core::expand(tokens))) {
        Err(p) => Compiled::Panicked(format!("in expand: {}", quiet.message(p))),
        Ok(_) => outcome,
    }
}

/// The kernel's compute-only pair ([`Kernel::compute_pair`]) if the compiler accepts it: the
/// harness then runs it beside the kernel. Whether to test the pair is the compiler's answer,
/// not the oracle's (the pair's refusals are UI tests); its values are checked against the
/// kernel's. A panic is reported on standard error and the pair left out.
pub fn accepted_compute_pair(k: &Kernel) -> Option<String> {
    let pair = k.compute_pair()?;
    let item: syn::ItemFn = syn::parse_str(&pair).ok()?;
    let quiet = QuietPanics::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let functions = declared(k)?;
        Some(sparse_core::compile_with(&item, &functions).is_ok())
    }));
    match result {
        Ok(Some(true)) => Some(pair),
        Ok(_) => None,
        Err(p) => {
            eprintln!(
                "difftest: the compiler panicked on the compute-only pair of {}: {}",
                k.fn_name(),
                quiet.message(p)
            );
            None
        }
    }
}

/// The functions the kernel's block declares, as the compiler reads them (`None` if a
/// declaration does not parse; a declaration's errors are left to [`compile`]).
fn declared(k: &Kernel) -> Option<Vec<sparse_core::algebra::Function>> {
    let mut functions = Vec::new();
    for decl in k.declarations() {
        let item: syn::ItemFn = syn::parse_str(&decl).ok()?;
        let mut diags = sparse_core::diagnostic::Diagnostics::default();
        functions.extend(sparse_core::algebra::declare(&item, &mut diags).0);
    }
    Some(functions)
}

/// The number of loop nests the compiler splits a single-statement kernel into (through a
/// workspace, those below its outer loops), or `None` if it refuses it (or the kernel is a
/// sequence). For triage only.
pub fn loop_nests(k: &Kernel) -> Option<usize> {
    if k.is_sequence() {
        return None;
    }
    let item: syn::ItemFn = syn::parse_str(&k.source()).ok()?;
    let quiet = QuietPanics::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let functions = declared(k)?;
        sparse_core::compile_with(&item, &functions)
            .ok()
            .map(|c| c.orders.len())
    }));
    drop(quiet);
    result.ok().flatten()
}

type Hook = Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Silences the default panic hook while the compiler runs (its panics are findings, reported
/// with their message), restoring it afterwards.
struct QuietPanics {
    previous: Option<Hook>,
}

thread_local! {
    static LAST_LOCATION: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

impl QuietPanics {
    fn new() -> Self {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(|info| {
            let loc = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            LAST_LOCATION.with(|s| *s.borrow_mut() = loc);
        }));
        QuietPanics {
            previous: Some(previous),
        }
    }

    fn message(&self, payload: Box<dyn std::any::Any + Send>) -> String {
        let msg = payload_message(&*payload);
        let loc = LAST_LOCATION.with(|s| s.borrow().clone());
        format!("{msg}{loc}")
    }
}

impl Drop for QuietPanics {
    fn drop(&mut self) {
        if let Some(p) = self.previous.take() {
            std::panic::set_hook(p);
        }
    }
}

/// The message of a panic payload.
pub fn payload_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(non-string panic payload)".to_string()
    }
}

/// How the compiler's verdict compares with the oracle's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both accept.
    Accepted,
    /// The oracle names limitations; the compiler refused with one of their phrases.
    RefusedAsExpected(Limitation),
    /// The oracle names limitations but the compiler accepted.
    AcceptedBeyondRules(Vec<Limitation>),
    /// The oracle accepts; the compiler refused.
    RefusedOutsideLimitations(String),
    /// Both refuse, but no message names an expected limitation.
    RefusedForWrongReason(Vec<Limitation>, String),
    /// A message says "internal error".
    InternalError(String),
    /// The compiler panicked.
    CompilerPanic(String),
    /// Both accept, but the compiler appends the output (of the first statement where they
    /// differ) through another workspace than the
    /// one the schedule asks for or its documented choice ([`crate::semantics::workspace`]), or through one
    /// where none is needed, or directly where a workspace is needed: (the oracle's, the
    /// compiler's).
    OtherWorkspace(Option<Placement>, Option<Placement>),
}

impl Verdict {
    /// A failure of the compiler (not a documented refusal or plain acceptance).
    pub fn is_failure(&self) -> bool {
        !matches!(self, Verdict::Accepted | Verdict::RefusedAsExpected(_))
    }

    /// The compiler accepted the kernel (so it must be run and checked).
    pub fn runs(&self) -> bool {
        matches!(
            self,
            Verdict::Accepted | Verdict::AcceptedBeyondRules(_) | Verdict::OtherWorkspace(..)
        )
    }

    /// One line for findings.
    pub fn describe(&self) -> String {
        let names = |l: &[Limitation]| l.iter().map(|l| l.name()).collect::<Vec<_>>().join(", ");
        match self {
            Verdict::Accepted => "accepted".into(),
            Verdict::RefusedAsExpected(l) => format!("refused ({l})"),
            Verdict::AcceptedBeyondRules(l) => {
                format!("accepted beyond the rules (oracle: {})", names(l))
            }
            Verdict::RefusedOutsideLimitations(m) => {
                format!("refused outside the limitations: {m}")
            }
            Verdict::RefusedForWrongReason(l, m) => {
                format!("refused for the wrong reason (oracle: {}): {m}", names(l))
            }
            Verdict::InternalError(m) => format!("internal error: {m}"),
            Verdict::CompilerPanic(m) => format!("the compiler panicked: {m}"),
            Verdict::OtherWorkspace(want, got) => {
                let show = |p: &Option<Placement>| {
                    p.map_or("appended directly".to_string(), |p| p.to_string())
                };
                format!(
                    "accepted through another workspace: expected {}, the compiler: {}",
                    show(want),
                    show(got)
                )
            }
        }
    }
}

/// Compares the compiler's answer with the oracle.
pub fn judge(k: &Kernel, compiled: &Compiled) -> Verdict {
    let expected = limitations(k);
    match compiled {
        Compiled::Panicked(m) => Verdict::CompilerPanic(m.clone()),
        Compiled::Accepted(got) if expected.is_empty() => {
            let want = workspaces(k);
            match want.iter().zip(got).find(|(w, g)| w != g) {
                None if want.len() == got.len() => Verdict::Accepted,
                Some((w, g)) => Verdict::OtherWorkspace(*w, *g),
                None => Verdict::InternalError(format!(
                    "the compiler compiled {} statements, the kernel has {}",
                    got.len(),
                    want.len()
                )),
            }
        }
        Compiled::Accepted(_) => Verdict::AcceptedBeyondRules(expected),
        Compiled::Refused(msgs) => {
            let all = msgs.join(" | ");
            if let Some(m) = msgs.iter().find(|m| m.contains("internal error")) {
                return Verdict::InternalError(m.clone());
            }
            if expected.is_empty() {
                return Verdict::RefusedOutsideLimitations(all);
            }
            match expected
                .iter()
                .find(|l| msgs.iter().any(|m| m.contains(l.phrase())))
            {
                Some(&l) => Verdict::RefusedAsExpected(l),
                None => Verdict::RefusedForWrongReason(expected, all),
            }
        }
    }
}
