//! The fixed-seed smoke run: a few tens of thousands of inputs through the real fuzzer binary
//! (worker processes, watchdog, memory cap), in whatever profile the tests are built with.
//! Inputs listed in `fuzz/known_failures.txt` are skipped.
//!
//! No timing threshold: an input counts as a hang here only when the watchdog aborts it after
//! two minutes, which no loaded machine turns into a false failure.

use std::path::Path;
use std::process::Command;

const SEED: &str = "1";
const EXECS: &str = "15000";

fn fuzzer(args: &[&str], out: &str) -> (bool, String) {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(out);
    let output = Command::new(env!("CARGO_BIN_EXE_sparse-fuzz"))
        .args(args)
        .arg("--known")
        .arg(manifest.join("known_failures.txt"))
        .arg("--out")
        .arg(&out_dir)
        .args(["--hang-ms", "120000", "--timeout-ms", "120000"])
        .output()
        .expect("the fuzzer binary runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    (
        output.status.success(),
        format!(
            "{stdout}\n{stderr}\n(failing inputs under {})",
            out_dir.display()
        ),
    )
}

/// The numbers of the summary line `fuzz: N executions (...), P panics, H hangs ..., M inputs
/// over ..., C crashes; ...`.
fn counts(report: &str) -> Vec<u64> {
    let line = report
        .lines()
        .find(|l| l.starts_with("fuzz: ") && l.contains(" executions ("))
        .unwrap_or_else(|| panic!("no summary line in:\n{report}"));
    let before_slowest = line.split("; slowest").next().unwrap_or("");
    before_slowest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect()
}

#[test]
fn smoke_run_finds_nothing_new() {
    let (ok, report) = fuzzer(&["--seed", SEED, "--execs", EXECS], "smoke");
    let c = counts(&report);
    // N, g1, g2, g3, P, H, (hang seconds), M, (GB), C
    let (execs, g1, g2, g3) = (c[0], c[1], c[2], c[3]);
    assert_eq!(g1 + g2 + g3, execs, "{report}");
    assert!(g1 > 0 && g2 > 0 && g3 > 0, "every generator ran:\n{report}");
    assert!(execs > 10_000, "most inputs ran:\n{report}");
    assert_eq!(c[4], 0, "panics:\n{report}");
    assert_eq!(c[5], 0, "hangs (watchdog, 2 min):\n{report}");
    assert_eq!(c[7], 0, "inputs over 1 GB:\n{report}");
    assert_eq!(c[9], 0, "crashes:\n{report}");
    assert!(report.contains("0 bad outputs"), "{report}");
    assert!(ok, "{report}");
}

#[test]
fn saved_regressions_expand_cleanly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let (ok, report) = fuzzer(&["--replay", dir.to_str().unwrap()], "regressions");
    let c = counts(&report);
    assert_eq!(c[4] + c[5] + c[7] + c[9], 0, "{report}");
    assert!(ok, "{report}");
}
