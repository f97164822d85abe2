#!/usr/bin/env bash
# THE test command: everything hookbridge is checked with, on a fresh machine or a developer's.
#
#   bash scripts/test.sh                      (from any directory)
#
# Stages, in order (each prints a header and a result; all run, and the script fails if any failed):
#   tools      jq and strace (installed with apt-get if missing), python3, node/npm, git, cargo, cargo-nextest
#              (installed with `cargo install cargo-nextest --locked` if missing)
#   pyenv      the Python venv (.venv) from scripts/python-env.sh
#   build      cargo build -p hookbridge-cli (the binary the later stages run)
#   install    the install story holds: `cargo install --path crates/hookbridge-cli` into a temporary
#              root gives a working `hookbridge --version`, and `cargo package --workspace` packages
#              the publishable crates (debug profile, sharing the build's artifacts); the wheel of
#              scripts/build-wheel.sh --debug, installed into a fresh venv, gives the module and a
#              working `hookbridge` command
#   rust       cargo nextest run --workspace
#   fuzz       scripts/fuzz.sh: every cargo-fuzz target for 15 s from the corpus in fuzz/corpus
#              (cargo-fuzz is installed with `cargo install` if missing)
#   python     .venv/bin/pytest python/tests (when python/ exists)
#   examples   pytest tests/examples: the example project's hooks through `hookbridge run`
#   demo       scripts/demo.sh with the debug binary (the README's first command, minus the release build)
#   mux        ../shared/oracle/mux_diff.py: every conformance case through the real Claude Code twice,
#              hooks registered directly vs. `hookbridge run` as the only hook; any DIFF fails. The pinned
#              Claude Code is installed with npm on first use. Outside CI, when npm's registry is
#              unreachable, this stage is skipped and the summary says so; with CI=true it fails.
#              Known gaps (cases hookbridge does not pass yet) are listed in MUX_KNOWN_GAPS below. Then
#              tests/install_into/check_with_claude.py: a spread of cases with the settings
#              `hookbridge install-into claude` writes (every event registered), compared the same way.
#   hosts      tests/hosts/check_host.py: every measured case of the other agents hookbridge serves, run
#              through the real Codex CLI and Gemini CLI (pinned, installed with npm on first use)
#              against a scripted fake model on loopback, twice: the hooks registered in the agent
#              directly vs. Claude Code hooks through `hookbridge install-into <agent>`; any
#              difference, or a direct run that no longer matches the case's measured.json, fails.
#   warm       the Amplifier module's tests, the example hooks and the Claude Code differential on every
#              case with a Python hook, again with every eligible hook forced warm
#              (HOOKBRIDGE_WARM=always); each must pass and must have run hooks warm.
#
# Quick local runs: HOOKBRIDGE_TEST_SKIP_<STAGE>=1 skips a stage (RUST, FUZZ, PYTHON, EXAMPLES, DEMO, MUX, HOSTS, WARM),
# e.g. HOOKBRIDGE_TEST_SKIP_MUX=1 bash scripts/test.sh. With CI=true these are ignored: CI runs everything.
set -euo pipefail

ROOT=$(cd -P -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
SELF="$ROOT/scripts/test.sh"
cd "$ROOT"
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
BIN="$TARGET_DIR/debug/hookbridge"
SHARED="$ROOT/../shared"
STATE="$TARGET_DIR/test-sh" # notes passed from the stages to the summary
EXAMPLES_VENV="$TARGET_DIR/examples-venv"

if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    BOLD=$'\e[1m' RED=$'\e[31m' GREEN=$'\e[32m' YELLOW=$'\e[33m' RESET=$'\e[0m'
else
    BOLD="" RED="" GREEN="" YELLOW="" RESET=""
fi
loud() { # a warning nobody should miss
    printf '%s\n' "${YELLOW}${BOLD}################################################################################${RESET}"
    printf '%s\n' "${YELLOW}${BOLD}# $*${RESET}"
    printf '%s\n' "${YELLOW}${BOLD}################################################################################${RESET}"
}
note() { # a note for the final summary
    mkdir -p "$STATE"
    printf '%s\n' "$*" >>"$STATE/notes"
}

# --- the stages; each runs in its own `bash -euo pipefail` process (see the end of the file) --------

stage_tools() {
    # jq: the bash hooks of the tests read their payload with it. strace: the rule-hook test counts
    # the processes `hookbridge run` starts (none).
    local packages=()
    for tool in jq strace; do
        command -v "$tool" >/dev/null 2>&1 || packages+=("$tool")
    done
    if [ ${#packages[@]} -gt 0 ]; then
        echo "${packages[*]} missing: installing with apt-get"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo=sudo
        $sudo apt-get update -qq </dev/null
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${packages[@]}" </dev/null
    fi
    local missing=()
    for tool in jq strace bash python3 node npm git cargo; do
        command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "${RED}missing: ${missing[*]}${RESET}" >&2
        return 1
    fi
    if ! cargo nextest --version >/dev/null 2>&1; then
        echo "cargo-nextest is missing: cargo install cargo-nextest --locked"
        if ! cargo install cargo-nextest --locked </dev/null; then
            loud "cargo-nextest could not be installed: the Rust tests will run with plain 'cargo test'"
            note "rust: cargo-nextest could not be installed; ran 'cargo test --workspace' instead"
        fi
    fi
    echo "jq $(jq --version | sed 's/^jq-//') · $(python3 --version) · node $(node --version) · npm $(npm --version)" \
        "· $(cargo --version) · $(cargo nextest --version 2>/dev/null | head -n 1 || echo 'no cargo-nextest')"
}

stage_pyenv() {
    if [ -f "$ROOT/scripts/python-env.sh" ]; then
        bash "$ROOT/scripts/python-env.sh" </dev/null
        if [ ! -x "$ROOT/.venv/bin/pytest" ]; then
            echo "${RED}scripts/python-env.sh succeeded but .venv/bin/pytest does not exist${RESET}" >&2
            return 1
        fi
        echo "venv: $ROOT/.venv"
    elif [ -d "$ROOT/python" ]; then
        echo "${RED}python/ exists but scripts/python-env.sh, which builds its venv, does not${RESET}" >&2
        return 1
    else
        echo "no python/ package yet: nothing to set up"
    fi
}

stage_build() {
    cargo build -p hookbridge-cli
    test -x "$BIN"
    echo "built $BIN"
}

stage_install() {
    local root="$STATE/install-root"
    rm -rf "$root"
    CARGO_TARGET_DIR="$TARGET_DIR" cargo install --debug --locked --path "$ROOT/crates/hookbridge-cli" --root "$root"
    local version
    version=$("$root/bin/hookbridge" --version)
    echo "installed: $version"
    case "$version" in "hookbridge "*) ;; *) echo "${RED}unexpected --version output: $version${RESET}" >&2; return 1 ;; esac
    cargo package --workspace --exclude hookbridge-python --no-verify --allow-dirty --quiet
    echo "cargo package --workspace: ok"
    # The wheel carries the command: built (debug, for speed) and installed into a fresh venv, it
    # must give `hookbridge --version`, the importable module, and an install-into that registers
    # the shipped executable itself, not the Python entry point.
    local wheels="$STATE/wheels" venv="$STATE/wheel-venv"
    rm -rf "$wheels" "$venv"
    CARGO_TARGET_DIR="$TARGET_DIR" WHEEL_OUT="$wheels" bash "$ROOT/scripts/build-wheel.sh" --debug </dev/null
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$wheels"/hookbridge-*.whl </dev/null
    version=$("$venv/bin/hookbridge" --version)
    echo "wheel: $version"
    case "$version" in "hookbridge "*) ;; *) echo "${RED}the wheel's hookbridge --version printed: $version${RESET}" >&2; return 1 ;; esac
    "$venv/bin/python" -c 'import hookbridge, amplifier_module_hook_bridge; print("wheel: import hookbridge", hookbridge.__version__)'
    local registered
    registered=$(cd "$STATE" && HOME="$STATE" PATH="$venv/bin:$PATH" "$venv/bin/hookbridge" install-into claude --dry-run --project-dir "$STATE" 2>/dev/null | grep -m 1 'run --event')
    case "$registered" in *"/site-packages/hookbridge/bin/hookbridge run --event"*) echo "wheel: install-into registers the shipped executable" ;;
        *) echo "${RED}the wheel's install-into registered: $registered${RESET}" >&2; return 1 ;; esac
}

stage_rust() {
    if cargo nextest --version >/dev/null 2>&1; then
        cargo nextest run --workspace --no-fail-fast
    else
        loud "cargo-nextest is not available: running 'cargo test --workspace' instead"
        cargo test --workspace --no-fail-fast
    fi
}

stage_fuzz() {
    # The cargo-fuzz targets (fuzz/): payload parser, config reader, matcher compiler, hook-output
    # reading; each for a fixed time from the corpus in the repository; any crash fails.
    FUZZ_SECONDS="${FUZZ_SECONDS:-15}" bash "$ROOT/scripts/fuzz.sh" </dev/null
}

stage_python() {
    if [ ! -d "$ROOT/python" ]; then
        echo "no python/ directory: nothing to test"
        note "python: no python/ directory yet, nothing to test"
        return 0
    fi
    [ -d "$ROOT/python/tests" ] || {
        echo "${RED}python/ has no tests/ folder${RESET}" >&2
        return 1
    }
    "$ROOT/.venv/bin/pytest" -p no:cacheprovider "$ROOT/python/tests"
}

stage_examples() {
    # The example tests need pytest and jsonschema: the project venv's, else a small venv of their own.
    local pytest="$ROOT/.venv/bin/pytest"
    if [ ! -x "$pytest" ]; then
        pytest="$EXAMPLES_VENV/bin/pytest"
        if [ ! -x "$pytest" ]; then
            echo "no .venv/bin/pytest: making $EXAMPLES_VENV with pytest and jsonschema"
            python3 -m venv "$EXAMPLES_VENV"
            "$EXAMPLES_VENV/bin/pip" install --quiet --disable-pip-version-check pytest jsonschema </dev/null
        fi
    fi
    HOOKBRIDGE_BIN="$BIN" "$pytest" -p no:cacheprovider -q "$ROOT/tests/examples"
}

stage_demo() {
    HOOKBRIDGE_BIN="$BIN" bash "$ROOT/scripts/demo.sh" </dev/null
}

stage_mux() {
    local oracle="$SHARED/oracle"
    if [ ! -f "$oracle/mux_diff.py" ]; then
        echo "${RED}$oracle/mux_diff.py not found: the shared folder must be at ../shared${RESET}" >&2
        return 1
    fi
    # Install the pinned Claude Code the way the oracle does (it prints the binary's path).
    local claude install_err="$STATE/claude-install.err"
    mkdir -p "$STATE"
    if ! claude=$(cd "$oracle" && python3 -B -c 'import claude_oracle; print(claude_oracle.claude_bin(None))' </dev/null 2>"$install_err"); then
        echo "installing the pinned Claude Code with npm failed: $(grep -v '^ ' "$install_err" | tail -n 1)"
        if [ "${CI:-}" = true ]; then
            # The only check against the real Claude Code: in CI it must run, never be skipped.
            cat "$install_err" >&2
            echo "${RED}CI=true: the Claude Code differential check could not run (Claude Code not installable)${RESET}" >&2
            return 1
        fi
        if ! timeout 60 npm ping </dev/null >/dev/null 2>&1; then
            loud "SKIPPED the Claude Code differential check: npm's registry is unreachable, so the pinned Claude Code cannot be installed"
            note "mux: SKIPPED — npm registry unreachable, Claude Code could not be installed"
            return 0
        fi
        cat "$install_err" >&2
        echo "${RED}npm's registry answers, but installing the pinned Claude Code failed${RESET}" >&2
        return 1
    fi
    echo "Claude Code: $claude ($("$claude" --version 2>/dev/null || echo '?'))"
    local cases=()
    for dir in "$SHARED"/conformance/cases/*/ "$ROOT"/tests/conformance/cases/*/; do
        [ -f "$dir/case.json" ] && cases+=("${dir%/}")
    done
    [ ${#cases[@]} -gt 0 ] || {
        echo "${RED}no conformance cases found${RESET}" >&2
        return 1
    }
    echo "${#cases[@]} cases (those marked \"mux\": false are skipped by mux_diff.py)"
    local runner="$oracle/mux_diff.py"
    echo "running $runner"
    local log="$STATE/mux.log"
    mkdir -p "$STATE"
    set +e
    # Cases hookbridge knowingly does not pass yet, comma-separated, each with why in a comment.
    # mux_diff.py reports a listed case that differs as a gap and fails the run once it stops
    # differing, so this list stays true.
    #   201-prompt-hook-post-continue-on-block: Claude Code heads a PostToolUse block with the name
    #   of the hook it ran ("... blocking error from command: \"<name>\": ..."). Through hookbridge
    #   that hook is hookbridge, so the header names hookbridge's command where Claude Code names
    #   the prompt. mux_diff.py masks hook commands on both sides, not prompts, so the one header
    #   differs; the block itself ("[<prompt>]: <reason>") is identical. No single-hook answer can
    #   change the header Claude Code writes.
    #   208-async-rewake-exit2: Claude Code wakes the model with an `asyncRewake` hook's exit-2
    #   stderr on a later request ("... hook blocking error from command: ..."). It does so for hooks
    #   registered with asyncRewake; mux_diff registers hookbridge as one synchronous hook, and
    #   neither its `{"async": true}` answer nor its later output can ask for a rewake. What
    #   `install-into` writes registers a second, asyncRewake hookbridge for such events, and the
    #   case is identical that way (the install-into check below runs it).
    local known_gaps="201-prompt-hook-post-continue-on-block,208-async-rewake-exit2"
    echo "known gaps: ${known_gaps:-none}"
    MUX_KNOWN_GAPS="$known_gaps" HOOKBRIDGE_ORACLE_DIR="$oracle" python3 -B "$runner" "$BIN" "${cases[@]}" </dev/null 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    set -e
    note "mux: $(tail -n 1 "$log")"
    if grep -qE '^(DIFF|ERROR) ' "$log"; then
        echo "${RED}cases that differ from Claude Code:${RESET}"
        grep -E '^(DIFF|ERROR) ' "$log"
    fi
    # What `install-into claude` writes (hookbridge on every event, outer timeouts) over a spread of
    # cases, one without hooks among them: registering every event must change nothing by itself.
    local installed_log="$STATE/install-into.log" installed=()
    for name in 00-baseline-no-hooks 01-events-all-baseline 02-subagent-events 06-permission-denied-dontask \
        10-pre-exit2-stderr 20-sessionstart-ups-exit0-plain-stdout 43-stop-json-block-once 73-user-and-project-settings; do
        installed+=("$SHARED/conformance/cases/$name")
    done
    # The plugin registers one hookbridge per event whatever the hooks are, so only install-into
    # runs the background-hook cases (it registers an async and an asyncRewake hookbridge beside the
    # main one where an event has such hooks): a mixed sync/async event (81), a command both sync
    # and async (190), an asyncRewake exit 2 (208).
    local installed_only=("${installed[@]}" "$SHARED/conformance/cases/81-async-hook"
        "$ROOT/tests/conformance/cases/190-dedup-sync-then-async" "$ROOT/tests/conformance/cases/208-async-rewake-exit2")
    echo "running tests/install_into/check_with_claude.py on ${#installed_only[@]} cases"
    set +e
    HOOKBRIDGE_ORACLE_DIR="$oracle" python3 -B "$ROOT/tests/install_into/check_with_claude.py" "$BIN" "${installed_only[@]}" </dev/null 2>&1 | tee "$installed_log"
    local installed_rc=${PIPESTATUS[0]}
    # The same cases through the shipped Claude Code plugin (plugins/hookbridge, --plugin-dir).
    local plugin_log="$STATE/plugin.log"
    echo "running tests/install_into/check_with_claude.py --plugin plugins/hookbridge on ${#installed[@]} cases"
    HOOKBRIDGE_ORACLE_DIR="$oracle" python3 -B "$ROOT/tests/install_into/check_with_claude.py" --plugin "$ROOT/plugins/hookbridge" "$BIN" "${installed[@]}" </dev/null 2>&1 | tee "$plugin_log"
    local plugin_rc=${PIPESTATUS[0]}
    set -e
    note "mux: $(tail -n 1 "$installed_log")"
    note "mux: $(tail -n 1 "$plugin_log")"
    [ "$rc" -eq 0 ] || return "$rc"
    [ "$installed_rc" -eq 0 ] || return "$installed_rc"
    return "$plugin_rc"
}

stage_hosts() {
    local host rc=0
    for host in codex gemini; do
        local cases=() log="$STATE/$host.log"
        for dir in "$ROOT"/tests/hosts/"$host"/cases/*/; do
            cases+=("${dir%/}") # every case; one without measured.json fails in check_host.py
        done
        if [ ${#cases[@]} -eq 0 ]; then
            echo "${RED}no measured cases found in tests/hosts/$host/cases${RESET}" >&2
            rc=1
            continue
        fi
        echo "running tests/hosts/check_host.py $host on ${#cases[@]} cases"
        set +e
        python3 -B "$ROOT/tests/hosts/check_host.py" "$host" "$BIN" "${cases[@]}" </dev/null 2>&1 | tee "$log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
        set -e
        note "hosts: $(tail -n 1 "$log")"
    done
    return "$rc"
}

stage_warm() {
    # The suites that run real Python hooks, once more with every eligible hook forced warm
    # (HOOKBRIDGE_WARM=always, its own service directory): the Amplifier module's tests, the example
    # hooks, and the Claude Code differential on every case with a Python hook that can run warm.
    # Each part must also have run hooks warm (the services' run counts), so that it cannot pass
    # by spawning everything.
    local runtime="$STATE/warm-runtime" rc=0
    rm -rf "$runtime" && mkdir -m 700 -p "$runtime"
    export XDG_RUNTIME_DIR="$runtime" HOOKBRIDGE_WARM=always HOOKBRIDGE_WARM_IDLE=120
    warm_runs() { # total runs of every service so far
        "$BIN" serve --status | sed -n 's/.* runs \([0-9]*\) .*/\1/p' | awk '{n += $1} END {print n + 0}'
    }
    local before after
    set +e
    before=$(warm_runs)
    "$ROOT/.venv/bin/pytest" -p no:cacheprovider -q "$ROOT/python/tests" </dev/null || rc=1
    after=$(warm_runs)
    echo "Amplifier module tests: $((after - before)) warm runs"
    note "warm: python tests passed with $((after - before)) hooks run warm"
    before=$after
    HOOKBRIDGE_BIN="$BIN" "$ROOT/.venv/bin/pytest" -p no:cacheprovider -q "$ROOT/tests/examples" </dev/null || rc=1
    after=$(warm_runs)
    echo "example hooks: $((after - before)) warm runs"
    [ $((after - before)) -gt 0 ] || { echo "${RED}no example hook ran warm${RESET}" >&2; rc=1; }
    before=$after
    local cases=()
    for dir in "$SHARED"/conformance/cases/*/ "$ROOT"/tests/conformance/cases/*/; do
        # A Python hook that can run warm: python3 followed by a script, not by an option.
        grep -qE 'python3 (\\"|\$|[A-Za-z./])' "$dir/case.json" 2>/dev/null && cases+=("${dir%/}")
    done
    echo "Claude Code differential with warm hooks on ${#cases[@]} cases with Python hooks"
    MUX_KNOWN_GAPS="" HOOKBRIDGE_ORACLE_DIR="$SHARED/oracle" python3 -B "$SHARED/oracle/mux_diff.py" "$BIN" "${cases[@]}" </dev/null 2>&1 | tee "$STATE/mux-warm.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
    after=$(warm_runs)
    echo "differential: $((after - before)) warm runs"
    [ $((after - before)) -gt 0 ] || { echo "${RED}no hook of the differential ran warm${RESET}" >&2; rc=1; }
    note "warm: mux $(tail -n 1 "$STATE/mux-warm.log"), $((after - before)) hooks run warm"
    "$BIN" serve --stop >/dev/null
    set -e
    return "$rc"
}

# --- running one stage in a child process ------------------------------------------------------------
if [ "${1:-}" = "__stage" ]; then
    "stage_$2"
    exit $?
fi

# --- the driver ------------------------------------------------------------------------------------------
STAGES=(tools pyenv build install rust fuzz python examples demo mux hosts warm)
declare -A TITLE=(
    [tools]="Tools"
    [pyenv]="Python environment (scripts/python-env.sh)"
    [build]="Build (cargo build -p hookbridge-cli)"
    [install]="Install story (cargo install --path, cargo package, the wheel with the command)"
    [rust]="Rust tests (cargo nextest run --workspace)"
    [fuzz]="Fuzz targets (scripts/fuzz.sh, 15 s each)"
    [python]="Python tests (pytest python/tests)"
    [examples]="Example hooks (pytest tests/examples)"
    [demo]="Demo on the example project (scripts/demo.sh)"
    [mux]="Claude Code differential check (mux_diff.py)"
    [hosts]="Codex CLI and Gemini CLI differential checks (tests/hosts)"
    [warm]="Python hooks forced warm (HOOKBRIDGE_WARM=always): module, examples, differential"
)
declare -A NEEDS=([pyenv]=tools [build]=tools [install]="build pyenv" [rust]=tools [fuzz]=tools [python]=pyenv [examples]=build [demo]=build [mux]=build [hosts]=build [warm]="build pyenv")
declare -A RESULT=()

rm -rf "$STATE"
mkdir -p "$STATE"
# Warm Python hooks are on by default: the services the suites start live in this run's own
# directory, exit after a minute without work, and are stopped when the run ends.
export XDG_RUNTIME_DIR="$STATE/runtime" HOOKBRIDGE_WARM_IDLE=60
mkdir -m 700 -p "$XDG_RUNTIME_DIR"
trap '[ -x "$BIN" ] && "$BIN" serve --stop >/dev/null 2>&1; XDG_RUNTIME_DIR="$STATE/warm-runtime" "$BIN" serve --stop >/dev/null 2>&1 || true' EXIT
started=$(date +%s)
if [ "${CI:-}" = true ] && [ -n "$(compgen -v HOOKBRIDGE_TEST_SKIP_ || true)" ]; then
    loud "CI=true: HOOKBRIDGE_TEST_SKIP_* ignored, every stage runs"
fi

n=0
for stage in "${STAGES[@]}"; do
    n=$((n + 1))
    printf '\n%s══════ [%d/%d] %s %s\n' "$BOLD" "$n" "${#STAGES[@]}" "${TITLE[$stage]}" "$RESET"
    skip_var="HOOKBRIDGE_TEST_SKIP_$(printf '%s' "$stage" | tr '[:lower:]' '[:upper:]')"
    if [ "${CI:-}" != true ] && [ -n "${!skip_var:-}" ] && [ "${!skip_var}" != 0 ]; then
        RESULT[$stage]=skipped
        loud "SKIPPED by $skip_var"
        continue
    fi
    blocked=""
    for need in ${NEEDS[$stage]:-}; do
        [ "${RESULT[$need]:-}" = passed ] || blocked="$need"
    done
    if [ -n "$blocked" ]; then
        RESULT[$stage]="not run"
        echo "${RED}not run: stage '$blocked' did not pass${RESET}"
        continue
    fi
    t0=$(date +%s)
    set +e
    bash -euo pipefail "$SELF" __stage "$stage"
    rc=$?
    set -e
    if [ $rc -eq 0 ] && [ "$stage" = mux ] && grep -q '^mux: SKIPPED' "$STATE/notes" 2>/dev/null; then
        RESULT[$stage]="SKIPPED (npm registry unreachable)"
        loud "${TITLE[$stage]}: SKIPPED, npm's registry is unreachable"
    elif [ $rc -eq 0 ]; then
        RESULT[$stage]=passed
        echo "${GREEN}✔ ${TITLE[$stage]}: passed ($(($(date +%s) - t0)) s)${RESET}"
    else
        RESULT[$stage]=FAILED
        echo "${RED}✘ ${TITLE[$stage]}: FAILED with exit code $rc ($(($(date +%s) - t0)) s)${RESET}"
    fi
done

printf '\n%s══════ Summary%s\n' "$BOLD" "$RESET"
[ -s "$STATE/notes" ] && sed 's/^/  note: /' "$STATE/notes"
failed=0
line=""
for stage in "${STAGES[@]}"; do
    line+="$stage ${RESULT[$stage]}, "
    case "${RESULT[$stage]}" in passed | skipped | SKIPPED*) ;; *) failed=1 ;; esac
done
elapsed=$(($(date +%s) - started))
if [ $failed -eq 0 ]; then
    echo "${GREEN}${BOLD}test.sh: PASS — ${line%, } ($((elapsed / 60))m$((elapsed % 60))s)${RESET}"
else
    echo "${RED}${BOLD}test.sh: FAIL — ${line%, } ($((elapsed / 60))m$((elapsed % 60))s)${RESET}"
    exit 1
fi
