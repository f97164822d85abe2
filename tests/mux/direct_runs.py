"""Claude Code's run of a case with its hooks registered directly, kept for the rest of a test run.

That run does not involve hookbridge at all (the case as written, the pinned Claude Code), yet three
checks of `scripts/test.sh` start it for the same cases: the differential (`run_mux.py`), the
install-into and plugin checks (`tests/install_into/check_with_claude.py`) and the warm stage's
differential. With `HOOKBRIDGE_DIRECT_RUNS` naming a folder, the first run of a case is kept there
(under a digest of every file of the case folder and the Claude Code version) and the others read
it; without it, every call runs Claude Code, as `mux_diff.run_oracle` does. Either way a run in which
Claude Code gave no result is an error (`checked`), not a view.
"""

import hashlib
import json
import os
import sys

ORACLE_DIR = os.environ.get("HOOKBRIDGE_ORACLE_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE_DIR)
import claude_oracle  # noqa: E402
import mux_diff  # noqa: E402

VARIABLE = "HOOKBRIDGE_DIRECT_RUNS"


def digest(case_dir):
    """What the direct run depends on: the case folder's files (names and bytes), Claude Code's version."""
    h = hashlib.sha256(f"claude {claude_oracle.VERSION} {os.environ.get('CLAUDE_BIN', '')}\n".encode())
    for base, dirs, names in sorted(os.walk(case_dir)):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(base, name)
            h.update(os.path.relpath(path, case_dir).encode() + b"\0")
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()[:32]


def checked(report, which):
    """`report`, if Claude Code really ran: its stream ends with a result event (every recorded case
    has one). A Claude Code that does not start at all gives two empty runs, which would compare as
    identical: that is an oracle error instead."""
    if not report.get("result"):
        raise RuntimeError(f"Claude Code gave no result in the {which} run (exit {report.get('exit_code')}): "
                           f"{(report.get('claude_stderr') or '')[-800:]}")
    return report


def direct_run(case_dir):
    """`mux_diff.run_oracle(case_dir)`, kept in `$HOOKBRIDGE_DIRECT_RUNS` for later calls."""
    folder = os.environ.get(VARIABLE)
    if not folder:
        return checked(mux_diff.run_oracle(case_dir), "direct")
    path = os.path.join(folder, f"{os.path.basename(os.path.normpath(case_dir))}-{digest(case_dir)}.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        pass
    report = checked(mux_diff.run_oracle(case_dir), "direct")
    os.makedirs(folder, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(report, f)
    os.replace(path + ".tmp", path)
    return report
