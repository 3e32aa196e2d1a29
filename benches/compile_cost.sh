#!/usr/bin/env bash
# The compile-time cost of sparse_kernel! (benches/README.md, "Compile-time cost"):
#
#   1. expansion time and generated lines per kernel, over the 100 kernels of
#      benches/src/bin/compile_cost.rs, with sparse-core optimized and at opt-level 0 (cargo
#      builds proc macros at opt-level 0 in every profile unless told otherwise);
#   2. a clean build of sparse-runtime and its dependencies, debug and release, as a user's crate
#      builds it (a generated crate with no kernel, depending on sparse-runtime by path);
#   3. the same crate with the 100 kernels (a `sparse_kernel!` block each): the crate's own
#      build, with how much of it is the front end (expansion, type and borrow check: the time
#      to its metadata) from `cargo build --timings`;
#   4. the rebuild after editing one kernel's body (incremental in debug).
#
# Usage: benches/compile_cost.sh [WORKDIR]   (default: a new temporary directory; the crate and
# its own target directory go there, so nothing in the workspace's target is reused.)
# Runs offline: every dependency comes from the workspace's Cargo.lock and the local cache.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d -t compile_cost.XXXXXX)}"
crate="$work/kernels100"
target="$crate/target"
mkdir -p "$work"

now() { date +%s.%N; }
# Other cargo processes running (this script runs none between its steps), and the load.
machine() {
    echo "    [other cargo processes: $(pgrep -x cargo | wc -l), load average: $(cut -d' ' -f1-3 /proc/loadavg)]"
}
# timed LABEL COMMAND...: runs the command quietly, prints the wall time.
timed() {
    local label="$1"
    shift
    machine
    local start
    start=$(now)
    if ! "$@" >"$work/last.log" 2>&1; then
        cat "$work/last.log"
        exit 1
    fi
    awk -v s="$start" -v e="$(now)" -v l="$label" 'BEGIN { printf "%-58s %7.1f s\n", l, e - s }'
}
# The units of the last `cargo build --timings` that were built: total time, and the front end
# (expansion, type and borrow check) and code generation where cargo reports them.
units() {
    python3 - "${1:-$target/cargo-timings/cargo-timing.html}" <<'EOF' || echo "      (the timings report was not understood)"
import json, re, sys
html = open(sys.argv[1]).read()
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);", html, re.S).group(1))
units = sorted((u for u in units if u["duration"] > 0.05), key=lambda u: -u["duration"])
for u in units[:6]:
    parts = ", ".join(f"{name} {t['end'] - t['start']:.1f} s" for name, t in u.get("sections") or [])
    target = u["target"].strip() or "lib"
    print(f"      {u['name']:<16} {target:<20} {u['duration']:6.1f} s  {parts}")
EOF
}
# compile_cost PROFILE ARGS...: runs the program built with cargo's profile PROFILE.
compile_cost() {
    local profile="$1"
    shift
    (cd "$root" && cargo run -q --offline --profile "$profile" -p sparse-benches \
        --features compile-cost --bin compile_cost -- "$@")
}
# write_crate N [edit]
write_crate() { compile_cost release crate "$crate" "$@"; }

echo "== machine: $(nproc) cores, $(uptime)"
echo "== sparse-core $(cd "$root" && git rev-parse --short HEAD), $(rustc --version)"
echo
echo "== 1. expansion (sparse_core::expand) and generated lines (prettyplease), per kernel"
compile_cost release expand
echo
compile_cost dev expand
echo

for profile in debug release; do
    flag=""
    if [ "$profile" = release ]; then flag="--release"; fi
    echo "== $profile"
    write_crate 0
    cp "$root/Cargo.lock" "$crate/Cargo.lock"
    timed "2. sparse-runtime and dependencies, clean ($profile)" \
        cargo build --offline $flag --timings --manifest-path "$crate/Cargo.toml" --target-dir "$target"
    units
    write_crate 100
    timed "3. the crate with 100 kernels ($profile)" \
        cargo build --offline $flag --timings --manifest-path "$crate/Cargo.toml" --target-dir "$target"
    units
    write_crate 100 edit
    timed "4. rebuild after editing one kernel ($profile)" \
        cargo build --offline $flag --manifest-path "$crate/Cargo.toml" --target-dir "$target"
    echo "    generated crate: $(wc -l <"$crate/src/lib.rs") lines of source"
    echo
done
machine
echo "== the crate and its target directory: $crate"
