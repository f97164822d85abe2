#!/usr/bin/env bash
# Regenerate scripts/hot-symbols.txt: the functions a `hookbridge run` executes, which the release
# link places first (scripts/build-release.sh makes an ordering file of them for the linker's
# `--symbol-ordering-file`, scripts/hot-symbols.py).
#
#   bash scripts/hot-symbols.sh [HOOKBRIDGE_BINARY]    # default: builds the release binary
#
# Why: `run` starts once per agent event and executes only about 330,000 instructions; what it
# costs is the page faults of a fresh process, one per 64 KiB window of the 7 MB binary that the
# run's code touches (the kernel maps 16 pages around each fault). Scattered over the binary, the
# few hundred functions of a run touched about 70 windows; placed together they touch about 30, and
# a nothing-to-run event took 22 % less time in an interleaved comparison (docs/performance.md).
#
# How: each scenario below (a matching hook, eight, nothing to run, no hooks at all, hooks held in an
# untrusted project, a prompt event, a blocking answer) runs once under valgrind's callgrind, which
# names every function executed; the names (mangled, as the linker sees them, without the hash Rust
# appends, which changes with build settings) are listed once each. A function renamed or added
# later is simply not placed; the release stage of scripts/test.sh checks that most of the list is
# still found in the binary and that the link placed it together.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
command -v valgrind >/dev/null || { echo "hot-symbols.sh: needs valgrind (apt-get install -y valgrind)" >&2; exit 1; }
HB="${1:-}"
if [ -z "$HB" ]; then
    HB="$(bash scripts/build-release.sh | tail -n 1)"
fi
HB="$(cd "$(dirname "$HB")" && pwd)/$(basename "$HB")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" HOOKBRIDGE_LOG="$work/diagnostics.log" HOOKBRIDGE_WARM=0
mkdir -p "$HOME"

# project NAME HOOKS_JSON [untrusted]
project() {
    mkdir -p "$work/$1/.amplifier/hooks"
    printf '%s\n' "$2" > "$work/$1/.amplifier/hooks/hooks.json"
    if [ "${3:-}" != untrusted ]; then
        "$HB" trust --yes "$work/$1" >/dev/null
    fi
}
# scenario NAME EVENT PAYLOAD_FIELDS
scenario() {
    local dir="$work/$1" event="$2" fields="$3"
    printf '{"session_id":"hot","transcript_path":"%s/t.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"%s",%s}\n' \
        "$work" "$dir" "$event" "$fields" > "$work/$1.json"
    (cd "$dir" && valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$1.$event.cg" \
        "$HB" run --event "$event" --project-dir "$dir" < "$work/$1.json" >/dev/null 2>&1) || true
}
BASH_CALL='"tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"t1"'
pre() { printf '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[%s]}]}}' "$1"; }

project one "$(pre '{"type":"command","command":"true"}')"
project eight "$(pre "$(for i in 1 2 3 4 5 6 7 8; do printf '{"type":"command","command":"true %s"},' "$i"; done | sed 's/,$//')")"
project none '{"hooks":{"PreToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command","command":"./lint.sh"}]}],"UserPromptSubmit":[{"hooks":[{"type":"command","command":"echo context"}]}]}}'
project block "$(pre '{"type":"command","command":"echo no >&2; exit 2"}')"
project held "$(pre '{"type":"command","command":"true"}')" untrusted
mkdir -p "$work/empty"

scenario one PreToolUse "$BASH_CALL"
scenario eight PreToolUse "$BASH_CALL"
scenario none PreToolUse "$BASH_CALL"
scenario none UserPromptSubmit '"prompt":"hello"'
scenario block PreToolUse "$BASH_CALL"
scenario held PreToolUse "$BASH_CALL"
scenario empty PreToolUse "$BASH_CALL"

out="$ROOT/scripts/hot-symbols.txt"
# Callgrind names a function once per file, as `fn=(id) name` or `cfn=(id) name`; first seen first.
# LLVM's numbers on a local copy (`.llvm.<n>`, `.<n>`) and then Rust's hash are dropped, as
# hot-symbols.py reads names: both change with any change to the program.
cat "$work"/*.cg | sed -n 's/^c\{0,1\}fn=([0-9]*) //p' | sed -e "s/'[0-9]*$//" \
    -e 's/\(\.llvm\.[0-9][0-9]*\|\.[0-9][0-9]*\)*$//' -e 's/17h[0-9a-f]\{16\}E$//' \
    | grep -v -e '^(' -e '^0x' | awk 'NF && !seen[$0]++' > "$out"
echo "hot-symbols.sh: $(wc -l < "$out") functions written to $out" >&2
