#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for a bounded time, starting from the corpus in the repo;
# fails on the first crash (the input is left in fuzz/artifacts/<target>/).
#
#   bash scripts/fuzz.sh                  # each target for FUZZ_SECONDS (default 20) seconds
#   FUZZ_SECONDS=300 bash scripts/fuzz.sh payload
#
# cargo-fuzz needs nightly-only compiler flags (sanitizers); the machines here have stable Rust
# only, so RUSTC_BOOTSTRAP=1 lets stable accept them. cargo-fuzz is installed if missing. New
# corpus entries found during a run go to a scratch folder, so the repo's corpus stays as reviewed.
set -euo pipefail
ROOT=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT/fuzz"
SECONDS_EACH=${FUZZ_SECONDS:-20}
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(payload config matcher hook_output)
export RUSTC_BOOTSTRAP=1
export CARGO_TARGET_DIR=${FUZZ_TARGET_DIR:-${CARGO_TARGET_DIR:-$ROOT/target}/fuzz}

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz --locked"
    cargo install cargo-fuzz --locked </dev/null
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for target in "${TARGETS[@]}"; do
    echo "==> fuzz $target for ${SECONDS_EACH}s"
    mkdir -p "$scratch/$target"
    # --dev: an unoptimised build with debug assertions (quick to build, checks overflow); -s none: the
    # code is safe Rust, where a panic (what fails a run) is the bug to find, not a memory error.
    cargo fuzz run --sanitizer none --dev "$target" "$scratch/$target" "corpus/$target" -- \
        -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 </dev/null
done
echo "fuzz: ${#TARGETS[@]} target(s), no crash"
