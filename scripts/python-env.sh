#!/usr/bin/env bash
# Creates (or refreshes) .venv at the repository root for the Python side of hookbridge:
#   - the pinned tools: maturin, pytest, pytest-asyncio, pytest-timeout, hypothesis, jsonschema,
#     with every dependency pinned by scripts/pip-constraints.txt;
#   - amplifier-core==2.0.2, the reference the differential tests compare against (binary-only:
#     2.0.x ships no sdist, so pip must not try to build it);
#   - the hookbridge package itself (python/, Rust binding crates/hookbridge-python), installed
#     in editable mode by `maturin develop`, so Python edits need no reinstall (Rust edits do:
#     rerun this script).
# Needs only python3 (>= 3.11, with venv and pip), cargo, and PyPI. Exits non-zero on any failure.
#
# Usage: scripts/python-env.sh [--release]      then: .venv/bin/pytest python/tests
# Env:   PYTHON=python3.12 to pick the interpreter that creates the venv.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
python="${PYTHON:-python3}"

profile_args=()
for arg in "$@"; do
    case "$arg" in
        --release) profile_args=(--release) ;;
        *) echo "python-env.sh: unknown argument '$arg' (expected --release)" >&2; exit 2 ;;
    esac
done

# Pinned versions (bump deliberately; amplifier-core is the measured reference and stays 2.0.2).
MATURIN="maturin==1.16.0"
PYTEST="pytest==9.2.0"
PYTEST_ASYNCIO="pytest-asyncio==1.5.0"
HYPOTHESIS="hypothesis==6.170.15"
# Checks `hookbridge schema` against the parser (tests/examples/test_schema.py).
JSONSCHEMA="jsonschema==4.26.0"
# A per-test time limit for every pytest run of scripts/test.sh (--timeout).
PYTEST_TIMEOUT="pytest-timeout==2.4.0"
AMPLIFIER_CORE="amplifier-core==2.0.2"
# Every package pip installs here, dependencies included, at the version tested with.
CONSTRAINTS="$root/scripts/pip-constraints.txt"

step() { printf '==> %s\n' "$*"; }

command -v "$python" >/dev/null || { echo "python-env.sh: '$python' not found" >&2; exit 1; }
command -v cargo >/dev/null || { echo "python-env.sh: cargo not found (needed to build the binding)" >&2; exit 1; }
"$python" - <<'EOF' || { echo "python-env.sh: Python >= 3.11 is required (set PYTHON=...)" >&2; exit 1; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
EOF

if [[ -x "$venv/bin/python" ]] && ! "$venv/bin/python" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    step "existing .venv is older than Python 3.11: recreating it"
    rm -rf "$venv"
fi
if [[ ! -x "$venv/bin/python" ]]; then
    step "creating $venv with $("$python" --version 2>&1)"
    "$python" -m venv "$venv"
fi

pip=("$venv/bin/python" -m pip --disable-pip-version-check)
step "pip as pinned in scripts/pip-constraints.txt"
"${pip[@]}" install --quiet --upgrade pip -c "$CONSTRAINTS"
step "installing $AMPLIFIER_CORE (wheels only)"
"${pip[@]}" install --quiet --only-binary=:all: "$AMPLIFIER_CORE" -c "$CONSTRAINTS"
step "installing $MATURIN $PYTEST $PYTEST_ASYNCIO $PYTEST_TIMEOUT $HYPOTHESIS $JSONSCHEMA"
"${pip[@]}" install --quiet "$MATURIN" "$PYTEST" "$PYTEST_ASYNCIO" "$PYTEST_TIMEOUT" "$HYPOTHESIS" "$JSONSCHEMA" -c "$CONSTRAINTS"

step "building and installing hookbridge (maturin develop ${profile_args[*]:-})"
cd "$root/python"
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --quiet "${profile_args[@]}"

"$venv/bin/python" -c 'import hookbridge, amplifier_core; print("hookbridge", hookbridge.__version__, "| amplifier-core", amplifier_core.__version__)'
step "done: run .venv/bin/pytest python/tests"
