#!/usr/bin/env python3
"""What a new Claude Code release changed by itself: every case run with its hooks registered directly
(no hookbridge) under two Claude Code versions, and their views compared.

    python3 tests/mux/compare_versions.py [--workers N] OLD NEW CASE_DIR...

The first step of moving the project's reference version (docs/claude-code.md): a case whose
view differs between OLD and NEW is a change of Claude Code's own, to explain before anything else (a
new rule to build, or a difference of the test setup) — then the differential is run under NEW
(`run_mux.py` with `ORACLE_CLAUDE_VERSION=NEW`), where any remaining difference is hookbridge's.

Each version runs in its own oracle install (`ORACLE_CLAUDE_VERSION`, installed by the oracle with npm on
first use and checked by `--version`). The view is `mux_diff.view`: what the model was shown, the files
the hooks left and their contents, how the run ended. Prints one line per case
(`same`, `CHANGED` with the keys that differ and both sides, `ERROR`), then
`claude code OLD -> NEW: N/M cases the same`; exits 0 only when every case is the same.
"""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ORACLE_DIR = os.environ.get("HOOKBRIDGE_ORACLE_DIR") or os.path.join(ROOT, "..", "shared", "oracle")
sys.path.insert(0, ORACLE_DIR)
import mux_diff  # noqa: E402

KEYS = ("prelude", "shown", "files", "contents", "ending")


def direct_run(case_dir, version):
    """The oracle's run of the case as written, under Claude Code `version`."""
    env = {k: v for k, v in os.environ.items() if k not in ("ORACLE_PREPARE", "CLAUDE_BIN")}
    env["ORACLE_CLAUDE_VERSION"] = version
    out = subprocess.run([sys.executable, os.path.join(ORACLE_DIR, "claude_oracle.py"), case_dir, "--no-record"],
                         capture_output=True, text=True, timeout=600, env=env, stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise RuntimeError(f"oracle failed under {version}: {out.stderr[-1500:]}")
    report = json.loads(out.stdout)
    if not report.get("result"):
        raise RuntimeError(f"Claude Code {version} gave no result (exit {report.get('exit_code')}): "
                           f"{(report.get('claude_stderr') or '')[-800:]}")
    return report


def compare(case_dir, old, new):
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    commands = mux_diff.hook_commands(spec)
    ignore = spec.get("mux_contents_ignore", [])
    a = mux_diff.view(direct_run(case_dir, old), commands, ignore)
    b = mux_diff.view(direct_run(case_dir, new), commands, ignore)
    return {k: (a[k], b[k]) for k in KEYS if a[k] != b[k]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--workers", type=int, default=2)
    opts = ap.parse_args()

    def one(case_dir):
        name = os.path.basename(os.path.normpath(case_dir))
        try:
            return name, compare(case_dir, opts.old, opts.new), None
        except Exception as e:  # a run that failed is reported, not a crash
            return name, None, e

    same = 0
    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        for name, diff, error in pool.map(one, opts.cases):
            if error is not None:
                print(f"ERROR {name}: {error}", flush=True)
            elif not diff:
                same += 1
                print(f"same  {name}", flush=True)
            else:
                print(f"CHANGED {name}: {', '.join(diff)}", flush=True)
                for key, (a, b) in diff.items():
                    print(f"      {key}: {opts.old}={json.dumps(a)[:600]}")
                    print(f"      {key}: {opts.new}={json.dumps(b)[:600]}")
    print(f"claude code {opts.old} -> {opts.new}: {same}/{len(opts.cases)} cases the same")
    sys.exit(0 if same == len(opts.cases) else 1)


if __name__ == "__main__":
    main()
