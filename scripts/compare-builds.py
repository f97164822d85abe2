#!/usr/bin/env python3
"""Two `hookbridge` builds side by side: does a change cost start-up time?

    git worktree add /tmp/base <commit> && (cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target bash scripts/build-release.sh)
    bash scripts/build-release.sh
    python3 scripts/compare-builds.py /tmp/base-target/<triple>/release/hookbridge target/<triple>/release/hookbridge

For each scenario (a `true` hook that runs, hooks configured but none for the tool, 1,000 plugin
folders none of which matches) both binaries run `hookbridge run` on the same payload, alternately
in a random order per round, so load from other work hits both alike. It prints each build's
median wall time (process start to exit, as seen from this parent, so the parent's own spawn cost
is in both) and the ratio NEW/BASE: the ratio of the medians and the median of the per-round
ratios. `ROUNDS` (default 300) sets the rounds per scenario. A benchmark, not a test: it never fails
on a figure.
"""

import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def project(root, name, hooks, plugins=0):
    """A project with `hooks` in its hooks.json and `plugins` plugin folders like bench.sh's."""
    path = os.path.join(root, name)
    hooks_dir = os.path.join(path, ".amplifier", "hooks")
    os.makedirs(hooks_dir)
    with open(os.path.join(hooks_dir, "hooks.json"), "w") as f:
        json.dump({"hooks": hooks}, f)
    for i in range(plugins):
        plugin = os.path.join(hooks_dir, f"plugin-{i:04}")
        os.makedirs(plugin)
        matcher = ["Bash", "Write|Edit|MultiEdit", "WebFetch", f"mcp__server{i}__.*"][i % 4]
        with open(os.path.join(plugin, "hooks.json"), "w") as f:
            json.dump({"hooks": {
                "PreToolUse": [{"matcher": matcher, "hooks": [
                    {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/check.sh", "timeout": 10}]}],
                "PostToolUse": [{"matcher": "Write|Edit", "hooks": [
                    {"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/lint.py"}]}],
            }}, f)
    return path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, new = (os.path.abspath(p) for p in sys.argv[1:])
    rounds = int(os.environ.get("ROUNDS", "300"))
    root = tempfile.mkdtemp(prefix="hb-compare-")
    try:
        home = os.path.join(root, "home")
        os.makedirs(home)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home,
               "HOOKBRIDGE_LOG": os.path.join(root, "diagnostics.log")}
        scenarios = [
            ("1 matching `true` hook", project(root, "one", {"PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}), "Bash"),
            ("nothing to run (hooks configured)", project(root, "none", {"PreToolUse": [
                {"matcher": "Write", "hooks": [{"type": "command", "command": "true"}]}]}), "Bash"),
            ("1,000 plugin folders, none matching", project(root, "many", {}, plugins=1000), "Read"),
        ]
        print(f"base {base}\nnew  {new}\n{rounds} rounds per scenario, interleaved\n")
        print(f"| scenario | base | new | new/base (medians) | new/base (median of rounds) |\n|---|---|---|---|---|")
        for name, path, tool in scenarios:
            # The user's one-time step (docs/trust.md): untrusted, the hooks would be held, not run.
            subprocess.run([new, "trust", "--yes", path], env=env, capture_output=True, check=True)
            payload = os.path.join(root, f"{os.path.basename(path)}.json")
            with open(payload, "w") as f:
                json.dump({"session_id": "s", "transcript_path": os.path.join(root, "t.jsonl"), "cwd": path,
                           "hook_event_name": "PreToolUse", "tool_name": tool,
                           "tool_input": {"command": "ls", "file_path": "x"}}, f)
            times = {base: [], new: []}
            for r in range(rounds + 10):  # the first 10 rounds warm up
                order = [base, new]
                random.shuffle(order)
                for binary in order:
                    with open(payload) as stdin:
                        start = time.perf_counter()
                        subprocess.run([binary, "run", "--event", "PreToolUse", "--project-dir", path],
                                       stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       env=env, cwd=path, check=False)
                        elapsed = time.perf_counter() - start
                    if r >= 10:
                        times[binary].append(elapsed)
            b, n = statistics.median(times[base]), statistics.median(times[new])
            paired = statistics.median(x / y for y, x in zip(times[base], times[new]))
            print(f"| {name} | {b * 1e6:,.0f} µs | {n * 1e6:,.0f} µs | {n / b:.3f}× | {paired:.3f}× |")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
