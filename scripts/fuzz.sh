#!/usr/bin/env bash
# Runs every cargo-fuzz target of fuzz/ for a bounded time, starting from the corpus in the repo;
# fails on the first crash (the input is left in fuzz/artifacts/<target>/). Real, coverage-guided
# fuzzing, run by hand: scripts/test.sh does not run it (its fuzz stage replays the corpus through
# the same target functions, fuzz/targets.rs, in crates/hookbridge-core/tests/fuzz_corpus.rs). An
# input worth keeping (a crash, once fixed) goes into fuzz/corpus/<target>/, which every test run
# then replays.
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

CARGO_FUZZ_VERSION=0.13.2 # pinned: installed at this version if another or none is there
if [ "$(cargo fuzz --version 2>/dev/null | awk '{print $2}')" != "$CARGO_FUZZ_VERSION" ]; then
    echo "cargo-fuzz $CARGO_FUZZ_VERSION is missing: cargo install cargo-fuzz --locked --version $CARGO_FUZZ_VERSION"
    cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION" </dev/null
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
