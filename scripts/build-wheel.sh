#!/usr/bin/env bash
# The Python wheel with both halves of hookbridge: the Amplifier module and the `hookbridge` command.
#
#   bash scripts/build-wheel.sh            # release: the static binary of scripts/build-release.sh
#   bash scripts/build-wheel.sh --debug    # quicker, for tests: the debug binary and extension
#   WHEEL_OUT=dir                          # where the wheel goes (default target/wheels)
#
# It builds the `hookbridge` executable, puts it in python/hookbridge/bin/ (ignored by git; the
# package's `hookbridge` console script, python/hookbridge/_cli.py, execs it), builds the wheel with
# maturin from the project venv (scripts/python-env.sh makes it), and takes the executable out of the
# source tree again. `pip install <wheel>` then gives the module and the command.
set -euo pipefail

ROOT=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${WHEEL_OUT:-$TARGET_DIR/wheels}"
MATURIN="${MATURIN:-$ROOT/.venv/bin/maturin}"
[ -x "$MATURIN" ] || { echo "build-wheel.sh: no maturin at $MATURIN (run scripts/python-env.sh)" >&2; exit 1; }

profile=release
[ "${1:-}" = "--debug" ] && profile=debug
if [ "$profile" = release ]; then
    binary=$(bash scripts/build-release.sh | tail -n 1)
else
    cargo build --quiet -p hookbridge-cli
    binary="$TARGET_DIR/debug/hookbridge"
fi
[ -x "$binary" ] || { echo "build-wheel.sh: no executable at $binary" >&2; exit 1; }

bin_dir="$ROOT/python/hookbridge/bin"
trap 'rm -rf "$bin_dir"' EXIT
mkdir -p "$bin_dir"
cp "$binary" "$bin_dir/hookbridge"
[ "$profile" = release ] && strip "$bin_dir/hookbridge" 2>/dev/null || true
args=(build --out "$OUT")
[ "$profile" = release ] && args+=(--release)
(cd "$ROOT/python" && "$MATURIN" "${args[@]}")
