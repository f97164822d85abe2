#!/usr/bin/env python3
"""Record the conformance cases again with a Claude Code release: the last step of moving the
project's reference version (docs/claude-code.md#claude-code-versions).

    python3 tests/conformance/record_reference.py [--version V] [CASE_NAME...]

Each case runs through the real Claude Code `V` (default: the version `tests/npm/claude-code/`
pins) with its hooks registered directly, by the shared catalog's own recorder
(`../shared/conformance/tools/run_case.py`, with `ORACLE_CLAUDE_VERSION=V`), and its `expected.json`
is written:

- a golden case (`tests/conformance/golden/`, the shared catalog's scenarios, byte for byte) to
  `tests/conformance/golden-V/<case>/expected.json`: the golden copy keeps the catalog's own
  recording, which the shared catalog made with 2.1.328;
- a measured case (`tests/conformance/cases/`) to its own folder.

Paths of this machine (the oracle's Claude Code binary, Claude Code's folders in the temporary
folder) are named `$CLAUDE_BIN` and `$TMPDIR` in a recording, as in the shared catalog's. The
recorder leaves out of a recording the paragraphs of Claude Code's context message that a run
without hooks has (its environment block, which names the machine's kernel): the paragraphs of
this machine and version are taken first from a run of `00-baseline-no-hooks`, in a copy of the
recorder, so the shared folder is never written. The harness reads the golden recordings from
`golden-<REFERENCE_VERSION>` (`crates/hookbridge-cli/tests/integration/common/golden.rs`); a check
there fails while `REFERENCE_VERSION` and the pinned version differ.

Prints one line per case that differs from its previous recording (the top-level keys that
differ), then how many were recorded. Claude Code's own changes between the two versions are
listed, and explained, by `tests/mux/compare_versions.py` first.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
SHARED = os.path.realpath(os.environ.get("HOOKBRIDGE_SHARED_DIR") or os.path.join(ROOT, "..", "shared"))
GOLDEN = os.path.join(HERE, "golden")
MEASURED = os.path.join(HERE, "cases")
BASELINE_CASE = "00-baseline-no-hooks"


def pinned_version():
    with open(os.path.join(ROOT, "tests", "npm", "claude-code", "package.json")) as f:
        return json.load(f)["dependencies"]["@anthropic-ai/claude-code"]


def case_folders(root):
    return sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "case.json")))


def without_context_block(expected):
    """`expected` without Claude Code's context-message paragraphs, for the summary only."""
    out = dict(expected)
    out["model_view"] = [m for m in expected.get("model_view") or []
                         if not any("context_message_extra_paragraphs" in b for b in m.get("blocks", []))]
    return out


def machine_independent(text):
    """`text` (a recording) with this machine's paths named as the shared catalog's recordings
    name them: the oracle's Claude Code binary as `$CLAUDE_BIN`, Claude Code's folders in the
    temporary folder under `$TMPDIR`."""
    text = re.sub(r"/[^\s\"]*/claude-oracle(-[0-9.]+)?/node_modules/\.bin/claude", "$CLAUDE_BIN", text)
    tmp = tempfile.gettempdir().rstrip("/")
    for folder in ("claude-0", "cc-socks"):
        text = text.replace(f"{tmp}/{folder}/", f"$TMPDIR/{folder}/")
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--version", default=None, help="the Claude Code release (default: the pinned one)")
    ap.add_argument("cases", nargs="*", help="case folder names (default: every golden and measured case)")
    opts = ap.parse_args()
    version = opts.version or pinned_version()
    env = dict(os.environ, ORACLE_CLAUDE_VERSION=version, ORACLE_DIR=os.path.join(SHARED, "oracle"))
    env.pop("CLAUDE_BIN", None)
    reference = os.path.join(HERE, f"golden-{version}")
    work = tempfile.mkdtemp(prefix="record-reference-")
    try:
        tools = os.path.join(work, "tools")
        shutil.copytree(os.path.join(SHARED, "conformance", "tools"), tools)
        recorder = os.path.join(tools, "run_case.py")
        todo = [("golden", GOLDEN, name) for name in case_folders(GOLDEN)]
        todo += [("measured", MEASURED, name) for name in case_folders(MEASURED)]
        if opts.cases:
            unknown = set(opts.cases) - {name for _, _, name in todo}
            if unknown:
                sys.exit(f"record_reference.py: no such case: {', '.join(sorted(unknown))}")
            todo = [t for t in todo if t[2] in opts.cases]
        # This machine's and this version's context paragraphs (the recorder's baseline).
        base = os.path.join(work, "baseline", BASELINE_CASE)
        shutil.copytree(os.path.join(GOLDEN, BASELINE_CASE), base)
        subprocess.run([sys.executable, recorder, "--baseline", base], env=env, check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        changed = 0
        for origin, root, name in todo:
            copy = os.path.join(work, origin, name)
            shutil.copytree(os.path.join(root, name), copy)
            subprocess.run([sys.executable, recorder, copy], env=env, check=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL)
            with open(os.path.join(copy, "expected.json")) as f:
                text = machine_independent(f.read())
            recorded = json.loads(text)
            target = os.path.join(reference, name) if origin == "golden" else os.path.join(root, name)
            os.makedirs(target, exist_ok=True)
            previous_path = os.path.join(target, "expected.json")
            if not os.path.exists(previous_path):
                previous_path = os.path.join(root, name, "expected.json")
            previous = None  # a new case has no recording yet
            if os.path.exists(previous_path):
                with open(previous_path) as f:
                    previous = without_context_block(json.load(f))
            now = without_context_block(recorded)
            keys = sorted(k for k in set(previous or {}) | set(now) if (previous or {}).get(k) != now.get(k))
            if previous is None:
                print(f"{origin}/{name}: recorded for the first time", flush=True)
            elif keys:
                changed += 1
                print(f"{origin}/{name}: differs from its previous recording in {', '.join(keys)}", flush=True)
            with open(os.path.join(target, "expected.json"), "w") as f:
                f.write(text)
            # A golden case's harness facts lie beside its recording: a new version's folder starts
            # with the pinned version's, to be checked against the new recording.
            carried = os.path.join(HERE, f"golden-{pinned_version()}", name, "harness.json")
            if origin == "golden" and os.path.exists(carried) and not os.path.exists(os.path.join(target, "harness.json")):
                shutil.copyfile(carried, os.path.join(target, "harness.json"))
                print(f"{origin}/{name}: harness.json carried over from {os.path.relpath(carried, HERE)}: check it against the new recording", flush=True)
        print(f"recorded {len(todo)} cases with Claude Code {version}; {changed} differ from their previous recording")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
