#!/usr/bin/env bash
# The main job on the bundled example project: build hookbridge, dispatch every event payload of
# examples/project/payloads through `hookbridge run` against the example project, show what comes
# back, then `hookbridge list` and `hookbridge validate` for the project, and what the audit log
# recorded: `hookbridge stats`, `log --verify`, and `report --html` (target/hookbridge-demo-report.html).
#
# Usage: bash scripts/demo.sh            (from any directory)
#   HOOKBRIDGE_BIN=path/to/hookbridge   use that binary instead of building the release one
#
# The project's hooks are held until it is trusted: the demo shows that first, then trusts the
# scratch copy with `hookbridge trust --yes` (in a scratch HOME and state directory).
# The hooks have side effects (the formatter rewrites the written file, SessionStart writes an env
# file), so events are dispatched against a scratch copy of the project; the repository is never
# changed. Exits non-zero if anything is not as expected (e.g. `rm -rf /` is not blocked).
set -euo pipefail

ROOT=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
EXAMPLE="$ROOT/examples/project"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    BOLD=$'\e[1m' DIM=$'\e[2m' RED=$'\e[31m' GREEN=$'\e[32m' YELLOW=$'\e[33m' RESET=$'\e[0m'
else
    BOLD="" DIM="" RED="" GREEN="" YELLOW="" RESET=""
fi
say() { printf '%s\n' "$*"; }
header() { printf '\n%s━━ %s %s\n' "$BOLD" "$*" "$RESET"; }
die() {
    printf '%sdemo: %s%s\n' "$RED" "$*" "$RESET" >&2
    exit 1
}

# --- tools --------------------------------------------------------------------------------------
ensure_jq() {
    command -v jq >/dev/null 2>&1 && return 0
    say "jq is not installed: installing it with apt-get (the bash hooks read their payload with jq)"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "jq is missing and this is not root; install jq and run again"
        sudo=sudo
    fi
    $sudo apt-get update -qq </dev/null || die "apt-get update failed; install jq and run again"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq jq </dev/null || die "apt-get install jq failed"
    command -v jq >/dev/null 2>&1 || die "jq still not found after installing it"
}

header "Tools"
ensure_jq
for tool in bash python3 node; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required by the example hooks and was not found"
done
say "jq: $(jq --version)   python3: $(python3 --version 2>&1 | cut -d' ' -f2)   node: $(node --version)   bash: ${BASH_VERSION}"

if [ -n "${HOOKBRIDGE_BIN:-}" ]; then
    BIN=$(cd -P -- "$(dirname -- "$HOOKBRIDGE_BIN")" && pwd)/$(basename -- "$HOOKBRIDGE_BIN")
    [ -x "$BIN" ] || die "HOOKBRIDGE_BIN=$HOOKBRIDGE_BIN is not an executable file"
    say "hookbridge: $BIN (from HOOKBRIDGE_BIN; not rebuilt)"
else
    command -v cargo >/dev/null 2>&1 || die "cargo (the Rust toolchain) is required to build hookbridge"
    header "Building hookbridge (release)"
    BIN=$(bash "$ROOT/scripts/build-release.sh" | tail -n 1) || die "the release build failed"
fi
[ -x "$BIN" ] || die "no hookbridge binary at $BIN"

# --- a scratch copy of the example project ----------------------------------------------------------
SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/hookbridge-demo.XXXXXX")
trap '[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$SCRATCH"' EXIT
PROJECT="$SCRATCH/project"
cp -R "$EXAMPLE" "$PROJECT"
mkdir -p "$SCRATCH/home" # a clean HOME: no user hooks of this machine leak into the demo
export HOOKBRIDGE_LOG="$SCRATCH/diagnostics.log"
# Trust records live in the state directory: the scratch HOME's, not this machine's.
export XDG_STATE_HOME="$SCRATCH/home/.local/state"
# Every hook run goes on the record (the audit log): this run's own, read back at the end.
export HOOKBRIDGE_AUDIT_LOG="$SCRATCH/audit.jsonl"
REPORT="${CARGO_TARGET_DIR:-$ROOT/target}/hookbridge-demo-report.html"
case "$REPORT" in /*) ;; *) REPORT="$ROOT/$REPORT" ;; esac

render() { # $1: payload, $2: where to write it with $PROJECT and $HOME filled in
    jq --arg project "$PROJECT" --arg home "$SCRATCH/home" \
        'walk(if type != "string" then .
              elif startswith("$PROJECT") then $project + .[8:]
              elif startswith("$HOME") then $home + .[5:]
              else . end)' \
        "$1" >"$2" || die "$(basename "$1") is not valid JSON"
}

# --- trust ----------------------------------------------------------------------------------------
# A project's own hooks are held until its user trusts the project (docs/trust.md): a freshly
# cloned repository runs nothing. Show that, then trust the example project the way a user would.
header "A project nobody trusted yet: its hooks are held"
render "$PROJECT/payloads/06-pre-tool-use-bash-rm-rf-root.json" "$SCRATCH/held.json"
say "command: hookbridge run --event PreToolUse --project-dir <project> < 06-pre-tool-use-bash-rm-rf-root.json"
set +e
HOME="$SCRATCH/home" "$BIN" run --event PreToolUse --project-dir "$PROJECT" \
    <"$SCRATCH/held.json" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
rc=$?
set -e
say "  exit code: $rc"
show_stream() { # $1: label, $2: file
    if [ ! -s "$2" ]; then
        say "  $1: ${DIM}(empty)${RESET}"
        return
    fi
    say "  $1:"
    if jq -e . "$2" >/dev/null 2>&1; then
        jq . "$2" | sed 's/^/    │ /'
    else
        # (an answer need not end with a newline; the display does)
        { cat "$2"; [ -z "$(tail -c 1 "$2")" ] || echo; } | sed 's/^/    │ /'
    fi
}
show_stream stdout "$SCRATCH/stdout"
[ "$rc" -eq 0 ] && jq -e '.systemMessage | test("held: the project is not trusted")' "$SCRATCH/stdout" >/dev/null 2>&1 ||
    die "an untrusted project's hooks were not held (exit $rc)"
say "  ${GREEN}✓ held: nothing of the project ran, and the user is told how to review it${RESET}"

header "hookbridge trust --yes <project>"
HOME="$SCRATCH/home" "$BIN" trust --yes "$PROJECT" | sed 's/^/  /' || die "hookbridge trust failed"

header "Dispatching examples/project/payloads/*.json"
say "project: $PROJECT  ${DIM}(a scratch copy of examples/project)${RESET}"
say "command: hookbridge run --event <hook_event_name> --project-dir <project> < payload"

# What each bundled payload must produce: exit code, text that must appear in stdout+stderr
# ("" = none required), a jq test the JSON answer on stdout must pass ("" = none), and whether the
# answer must be empty.
expectation() {
    want_rc=0 want_text="" want_jq="" want_silent=0
    case "$1" in
    01-session-start-startup.json) want_text="Session context (startup session" ;;
    02-session-start-clear.json) want_silent=1 ;;
    03-user-prompt-submit.json) want_text="Open TODO/FIXME markers in the source: 3" ;;
    04-user-prompt-submit-aws-key.json) want_jq='.decision == "block" and (.reason | test("AWS access key"))' ;;
    05-pre-tool-use-bash-safe.json) want_silent=1 ;;
    06-pre-tool-use-bash-rm-rf-root.json) want_rc=2 want_text='Blocked by bash-validator: `rm -rf /`' ;;
    07-pre-tool-use-bash-curl-pipe-sh.json) want_rc=2 want_text='Blocked by bash-validator: `curl … | sh`' ;;
    08-post-tool-use-write-py-syntax-error.json)
        want_jq='(.hookSpecificOutput.additionalContext | test("src/stats.py:5:[0-9]+: SyntaxError"))
                 and (.systemMessage | test("removed trailing whitespace"))'
        ;;
    *) return 1 ;;
    esac
}

summary_of() { # one line saying what the payload is about
    jq -r '
      def cut: if length > 90 then .[:87] + "…" else . end;
      [ .hook_event_name,
        (if .tool_name then "tool=\(.tool_name)" else empty end),
        (if .tool_input.command then "command=\(.tool_input.command | cut)" else empty end),
        (if .tool_input.file_path then "file_path=\(.tool_input.file_path)" else empty end),
        (if .source then "source=\(.source)" else empty end),
        (if .prompt then "prompt=\(.prompt | cut)" else empty end)
      ] | join("  ")' "$1"
}

answer_meaning() { # what Claude Code makes of an exit-0 answer on stdout
    if [ ! -s "$1" ]; then
        echo "proceed"
    elif jq -e 'type == "object"' "$1" >/dev/null 2>&1; then
        jq -r '
          if .continue == false then "stop: continue=false"
          elif .decision == "block" then "blocked by the JSON answer: decision=block"
          elif .hookSpecificOutput.permissionDecision then "permissionDecision=\(.hookSpecificOutput.permissionDecision)"
          elif .hookSpecificOutput.additionalContext then "proceed, with context added for the model"
          else "proceed" end' "$1"
    else
        echo "proceed; plain stdout is added as context on SessionStart and UserPromptSubmit"
    fi
}

failures=()
count=0
shopt -s nullglob
payloads=("$PROJECT"/payloads/*.json)
[ ${#payloads[@]} -gt 0 ] || die "no payloads in examples/project/payloads"
for payload in "${payloads[@]}"; do
    name=$(basename "$payload")
    count=$((count + 1))
    rendered="$SCRATCH/$name"
    render "$payload" "$rendered"
    event=$(jq -r '.hook_event_name // empty' "$rendered")
    [ -n "$event" ] || die "$name has no hook_event_name"

    printf '\n%s[%d] %s%s\n' "$BOLD" "$count" "$name" "$RESET"
    say "  payload: $(summary_of "$rendered")"

    # A PostToolUse hook fires after the tool ran: do what the Write tool would have done.
    if [ "$event" = PostToolUse ] && [ "$(jq -r '.tool_name' "$rendered")" = Write ]; then
        target=$(jq -r '.tool_input.file_path' "$rendered")
        mkdir -p "$(dirname "$target")"
        jq -j '.tool_input.content' "$rendered" >"$target"
        say "  ${DIM}(the Write tool's effect, simulated: wrote ${target#"$PROJECT"/})${RESET}"
    fi
    env_file=""
    if [ "$event" = SessionStart ]; then
        env_file="$SCRATCH/session-env-${name%.json}.sh"
        : >"$env_file"
    fi

    set +e
    HOME="$SCRATCH/home" CLAUDE_ENV_FILE="$env_file" \
        "$BIN" run --event "$event" --project-dir "$PROJECT" <"$rendered" >"$SCRATCH/stdout" 2>"$SCRATCH/stderr"
    rc=$?
    set -e

    case "$rc" in
    0) meaning=$(answer_meaning "$SCRATCH/stdout") ;;
    2) meaning="blocking: Claude Code blocks and shows stderr" ;;
    *) meaning="non-blocking error" ;;
    esac
    say "  exit code: $rc ($meaning)"
    show_stream stdout "$SCRATCH/stdout"
    show_stream stderr "$SCRATCH/stderr"

    problems=()
    if expectation "$name"; then
        [ "$rc" -eq "$want_rc" ] || problems+=("exit code $rc, expected $want_rc")
        if [ -n "$want_text" ] && ! cat "$SCRATCH/stdout" "$SCRATCH/stderr" | grep -qF -- "$want_text"; then
            problems+=("the answer does not contain: $want_text")
        fi
        # (jq 1.6 -e passes on empty input: check that there is an answer first)
        if [ -n "$want_jq" ] && { [ ! -s "$SCRATCH/stdout" ] || ! jq -e "$want_jq" "$SCRATCH/stdout" >/dev/null 2>&1; }; then
            problems+=("the JSON answer does not pass: $(printf '%s' "$want_jq" | tr -s ' \n' ' ')")
        fi
        if [ "$want_silent" -eq 1 ] && { [ -s "$SCRATCH/stdout" ] || [ -s "$SCRATCH/stderr" ]; }; then
            problems+=("expected no output at all")
        fi
    else
        say "  ${YELLOW}(no expectation recorded for this payload in scripts/demo.sh)${RESET}"
        case "$rc" in 0 | 2) ;; *) problems+=("exit code $rc") ;; esac
    fi
    case "$name" in
    01-session-start-startup.json)
        say "  CLAUDE_ENV_FILE afterwards: $(tr '\n' ' ' <"$env_file")"
        grep -qx 'export PROJECT_STAGE=dev' "$env_file" || problems+=("CLAUDE_ENV_FILE does not export PROJECT_STAGE=dev")
        ;;
    08-post-tool-use-write-py-syntax-error.json)
        if grep -q '[[:blank:]]$' "$PROJECT/src/stats.py"; then
            problems+=("src/stats.py still has trailing whitespace")
        else
            say "  src/stats.py afterwards: no trailing whitespace left"
        fi
        ;;
    esac
    if [ ${#problems[@]} -eq 0 ]; then
        say "  ${GREEN}✓ as expected${RESET}"
    else
        for p in "${problems[@]}"; do
            say "  ${RED}✗ $p${RESET}"
            failures+=("$name: $p")
        done
    fi
done

if [ -s "$HOOKBRIDGE_LOG" ]; then
    header "Diagnostics log (\$HOOKBRIDGE_LOG)"
    sed 's/^/  /' "$HOOKBRIDGE_LOG"
fi

header "hookbridge list --project-dir examples/project"
(cd "$ROOT" && HOME="$SCRATCH/home" "$BIN" list --project-dir examples/project) || failures+=("hookbridge list failed")

header "hookbridge validate --project-dir examples/project"
if (cd "$ROOT" && HOME="$SCRATCH/home" "$BIN" validate --project-dir examples/project); then
    say "${GREEN}✓ valid${RESET}"
else
    failures+=("hookbridge validate reported errors in examples/project")
fi

header "hookbridge stats (this run's audit log)"
"$BIN" stats || failures+=("hookbridge stats failed")
"$BIN" log --verify | sed 's/^/  /' || failures+=("hookbridge log --verify found the record broken")

header "hookbridge report --html"
mkdir -p "$(dirname "$REPORT")"
if "$BIN" report --html -o "$REPORT" 2>&1 | sed 's/^/  /' && [ -s "$REPORT" ]; then
    say "  open it in a browser: the session's timeline, each hook's latency, the table above"
else
    failures+=("hookbridge report --html failed")
fi

header "Summary"
if [ ${#failures[@]} -eq 0 ]; then
    say "${GREEN}demo: all $count payloads answered as expected; list, validate, stats and report OK${RESET}"
else
    for f in "${failures[@]}"; do say "${RED}✗ $f${RESET}"; done
    die "${#failures[@]} unexpected result(s)"
fi
