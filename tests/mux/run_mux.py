#!/usr/bin/env python3
"""The Claude Code differential, as the test suite runs it: `../shared/oracle/mux_diff.py`'s own
functions (`mux_case`, `run_oracle`, `hook_commands`, `view`), with what the suite needs around them.

    python3 run_mux.py [options] HOOKBRIDGE_BIN CASE_DIR...

Each case runs through the real Claude Code twice, exactly as mux_diff.py runs it (the hooks
registered directly; the same hooks behind `hookbridge run` as Claude Code's only hook), and the two
views are compared key by key (prelude, shown, files, contents, ending). On top of mux_diff.py:

- **Pinned gaps.** A case hookbridge knowingly does not pass has a file `gaps/<case>.json`:
  `{"why": "...", "differences": {key: {"claude": ..., "mux": ...}}}`, every view key that differs
  and what each side shows there. The case passes only when it differs exactly so; any other
  difference fails, and so does a gap that has closed (identical now: delete the file).
  `--pin CASE...` (re)writes the pinned differences of those cases from a run, keeping their "why".
- **Pinned Claude Code.** Before any case runs, `claude --version` (the oracle's binary: `CLAUDE_BIN`
  or its own install) must be the version the oracle measures (`claude_oracle.VERSION`) and the
  version `tests/npm/claude-code/package.json` pins (with `HOOKBRIDGE_CLAUDE_PACKAGE=claude-code-next`
  and `ORACLE_CLAUDE_VERSION` set to its version: the next release, for `tests/conformance/next/`).
- **Bounded.** After `--max-errors` consecutive oracle errors (Claude Code not starting or giving
  no result, a run past the oracle's own time limit) the rest is not run and the run fails. A run
  with no case to compare fails. (mux_diff.py compares two empty views as identical when Claude
  Code does not run at all; here a run without Claude Code's result event is an error.)
- **Direct runs kept.** With `HOOKBRIDGE_DIRECT_RUNS` set, Claude Code's run of a case with its
  hooks registered directly (which hookbridge plays no part in) is kept for the later checks of
  the same test run (`direct_runs.py`).
- **Sandboxed.** With `--sandboxed`, the hookbridge run of every case has the user's own sandbox
  floor (`sandboxHooks: all` in its HOME's `~/.amplifier/hooks/hooks.yaml`): every command hook runs
  in the default sandbox, and the case must still end as Claude Code's direct run does. A case
  whose hooks reach past a default sandbox's rights (write outside the project and TMPDIR) pins that
  difference in `gaps-sandboxed/<case>.json`; otherwise the case's ordinary pin, if any, holds.
  A case whose hooks need more than the default sandbox says so in its `case.json`
  (`"sandbox": {"network": true}` for a hook that serves http on loopback): the hookbridge side's
  command hooks then declare that sandbox, as a user would. Before each run,
  `hookbridge list --json` must show every command hook of the case sandboxed.
- **Two workers.** `--workers N` cases at a time; order-sensitive cases (a hook that sleeps:
  which hook finishes first, or whether one times out, is what the case measures) run after all
  the others, `--sensitive-workers N` at a time (default 2), never beside a case that does not
  sleep. On a 2-core machine two runs at a time each have a core, as one alone had; an
  order-sensitive case's hooks are apart by a second or more of sleep, and its runs spend most of
  their time asleep (50 such cases held about 420 s of the stage run one at a time).

The last line is `mux conformance: N/M identical` as mux_diff.py prints it; exit 0 only if every
compared case is identical or differs exactly as pinned.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
ORACLE_DIR = os.environ.get("HOOKBRIDGE_ORACLE_DIR") or os.path.join(ROOT, "..", "shared", "oracle")
sys.path.insert(0, ORACLE_DIR)
sys.path.insert(0, HERE)
import claude_oracle  # noqa: E402  (the pinned version and the binary it runs)
import mux_diff  # noqa: E402
from direct_runs import checked, direct_run  # noqa: E402  (the direct run, kept for the other checks)
from wall_clock import DATE_CHANGED, only_the_notice  # noqa: E402  (Claude Code's date-change notice)
from middle_cut import runs, same_share  # noqa: E402  (Claude Code's middle cut of a long hook message)

KEYS = ("prelude", "shown", "files", "contents", "ending")
GAPS = os.path.join(HERE, "gaps")
# The pins of the sandboxed run (`--sandboxed`), read before GAPS.
SANDBOXED_GAPS = os.path.join(HERE, "gaps-sandboxed")
# The user's own floor under every hook's sandbox (docs/sandbox.md), for `--sandboxed`.
SANDBOX_FLOOR = "sandboxHooks: all\n"
# The pinned Claude Code: tests/npm/claude-code/, or another folder of tests/npm/ named by
# HOOKBRIDGE_CLAUDE_PACKAGE (claude-code-next, with ORACLE_CLAUDE_VERSION set to its version).
PACKAGE = os.path.join(ROOT, "tests", "npm", os.environ.get("HOOKBRIDGE_CLAUDE_PACKAGE") or "claude-code", "package.json")


# What Claude Code writes of the machine it runs on into text the model sees (its environment block,
# such as a subagent's system prompt): the same on both sides of a run, but not from one machine to
# the next, so a pinned difference holding it would not hold on another machine.
MACHINE = [(re.compile(r"(?m)^( - OS Version: ).*$"), r"\1$OS_VERSION"),
           (re.compile(r"(?m)^( - Shell: ).*$"), r"\1$SHELL")]


def steady(value):
    """`value` with what names the machine (MACHINE) replaced, the wall clock's notice left out
    (`wall_clock.py`), a middle cut keeping the same share of a hook's output on both sides and long
    runs of one character written with their count (`middle_cut.py`), in every string it holds."""
    if isinstance(value, str):
        for pattern, replacement in MACHINE:
            value = pattern.sub(replacement, value)
        return runs(same_share(DATE_CHANGED.sub("", value)))
    if isinstance(value, (list, tuple)):
        return [steady(item) for item in value if not only_the_notice(item)]
    if isinstance(value, dict):
        return {key: steady(item) for key, item in value.items()}
    return value


def plain(value):
    """`value` as JSON reads it back (the views hold tuples; a pinned file holds lists)."""
    return json.loads(json.dumps(value))


def check_claude_version():
    """The Claude Code the oracle runs is the pinned one, or the reason it is not."""
    with open(PACKAGE) as f:
        pinned = json.load(f)["dependencies"]["@anthropic-ai/claude-code"]
    if pinned != claude_oracle.VERSION:
        return f"{os.path.relpath(PACKAGE, ROOT)} pins Claude Code {pinned}, the oracle measures {claude_oracle.VERSION}"
    binary = claude_oracle.claude_bin(None)
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        return f"{binary} --version: {e}"
    version = (out.stdout.split() or ["?"])[0]
    if version != pinned:
        return f"{binary} --version is {out.stdout.strip()!r}, not the pinned {pinned}"
    print(f"Claude Code {version} ({binary}), as pinned")
    return None


def order_sensitive(spec):
    """A hook of the case sleeps: the case measures which hook finishes first, or a time limit."""
    return any("sleep" in command for command in mux_diff.hook_commands(spec))


def differences(a, b):
    """`{key: {"claude": ..., "mux": ...}}` for every view key where the two runs differ."""
    a, b = ({key: steady(plain(view[key])) for key in KEYS} for view in (a, b))
    return {key: {"claude": a[key], "mux": b[key]} for key in KEYS if a[key] != b[key]}


def declare_sandbox(node, sandbox):
    """Every command hook beneath `node` (a hooks file's JSON) declares `sandbox`."""
    if isinstance(node, dict):
        if node.get("type") == "command":
            node["sandbox"] = sandbox
        for value in node.values():
            declare_sandbox(value, sandbox)
    elif isinstance(node, list):
        for item in node:
            declare_sandbox(item, sandbox)


def sandbox_every_hook(hookbridge, tmp, spec):
    """Puts the user's own sandbox floor into the case's HOME (and the sandbox the case says its
    hooks need into the hookbridge side's hooks files), and checks that `list` shows every command
    hook of the case sandboxed (raises what is not)."""
    if spec.get("sandbox") is not None:
        for hooks_file in (os.path.join(tmp, "files", ".amplifier", "hooks", "hooks.json"),
                           os.path.join(tmp, "home", ".amplifier", "hooks", "hooks.json")):
            if os.path.exists(hooks_file):
                with open(hooks_file) as f:
                    hooks = json.load(f)
                declare_sandbox(hooks, spec["sandbox"])
                with open(hooks_file, "w") as f:
                    json.dump(hooks, f, indent=2)
    hooks_dir = os.path.join(tmp, "home", ".amplifier", "hooks")
    os.makedirs(hooks_dir, exist_ok=True)
    floor = os.path.join(hooks_dir, "hooks.yaml")
    if os.path.exists(floor):
        raise RuntimeError(f"the case has a {floor} of its own: the sandbox floor cannot be added")
    with open(floor, "w") as f:
        f.write(SANDBOX_FLOOR)
    env = dict(os.environ, HOME=os.path.join(tmp, "home"))
    out = subprocess.run([hookbridge, "list", "--json", "--project-dir", os.path.join(tmp, "files")],
                         capture_output=True, text=True, env=env, timeout=60, stdin=subprocess.DEVNULL)
    if out.returncode != 0:
        raise RuntimeError(f"hookbridge list --json: {out.stderr[-500:]}")
    listed = json.loads(out.stdout)
    bare = [h.get("label") for h in listed.get("hooks", [])
            if h.get("type") == "command" and not h.get("sandbox")]
    if bare:
        raise RuntimeError(f"under sandboxHooks: all, hooks still unsandboxed: {bare}")


def compare(case_dir, hookbridge, prepare, sandboxed=False):
    """Runs one case both ways; returns its differences (or raises what kept it from running)."""
    with open(os.path.join(case_dir, "case.json")) as f:
        spec = json.load(f)
    ignore = spec.get("mux_contents_ignore", [])
    tmp = tempfile.mkdtemp(prefix="mux-")
    try:
        mux_diff.mux_case(case_dir, hookbridge, tmp)
        if sandboxed:
            sandbox_every_hook(hookbridge, tmp, spec)
        with open(os.path.join(tmp, "case.json")) as f:
            mux_commands = mux_diff.hook_commands(json.load(f))
        a = mux_diff.view(direct_run(case_dir), mux_diff.hook_commands(spec), ignore)
        b = mux_diff.view(checked(mux_diff.run_oracle(tmp, prepare), "hookbridge"), mux_commands, ignore)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return differences(a, b)


def gap_path(name, sandboxed=False):
    """The file that pins `name`'s differences: in a sandboxed run, its sandboxed pin if it has one."""
    if sandboxed and os.path.exists(os.path.join(SANDBOXED_GAPS, f"{name}.json")):
        return os.path.join(SANDBOXED_GAPS, f"{name}.json")
    return os.path.join(GAPS, f"{name}.json")


def read_gap(name, sandboxed=False):
    path = gap_path(name, sandboxed)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def verdict(name, found, gap, where=None):
    """(passed, the lines to print) for a case's differences against its pinned gap, if any."""
    where = where or f"tests/mux/gaps/{name}.json"
    def shown(diffs):
        return [f"      {key}: {side:6}={json.dumps(d[side])[:400]}" for key, d in diffs.items() for side in ("claude", "mux")]

    if gap is None:
        if not found:
            return True, [f"same  {name}"]
        return False, [f"DIFF  {name}"] + shown(found)
    pinned = gap.get("differences", {})  # a "why" not pinned yet: every difference is new
    if not found:
        return False, [f"CLOSED {name}: identical now; delete {where}"]
    if found == pinned:
        return True, [f"gap   {name} (differs exactly as pinned in {where}: "
                      f"{', '.join(sorted(found))})"]
    lines = [f"DIFF  {name}: a known gap, but it differs otherwise than {where} pins"]
    for key in sorted(set(found) | set(pinned)):
        if found.get(key) == pinned.get(key):
            continue
        lines.append(f"      {key}: pinned {json.dumps(pinned.get(key))[:400]}")
        lines.append(f"      {key}: now    {json.dumps(found.get(key))[:400]}")
    return False, lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hookbridge")
    ap.add_argument("cases", nargs="+")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--sensitive-workers", type=int, default=2,
                    help="order-sensitive cases (a hook sleeps) at a time, after all the others")
    ap.add_argument("--max-errors", type=int, default=3, help="consecutive oracle errors before the run stops")
    ap.add_argument("--pin", nargs="*", default=None, metavar="CASE",
                    help="write these cases' differences to tests/mux/gaps/ (with --sandboxed: "
                         "gaps-sandboxed/; their `why` is kept)")
    ap.add_argument("--sandboxed", action="store_true",
                    help="every hook of the hookbridge runs in the default sandbox (sandboxHooks: all)")
    opts = ap.parse_args()
    hookbridge = os.path.abspath(opts.hookbridge)
    prepare = os.environ.get("MUX_PREPARE", "").replace("{hookbridge}", mux_diff.shlex.quote(hookbridge)) or None

    problem = check_claude_version()
    if problem:
        print(f"ERROR Claude Code is not the pinned version: {problem}")
        print("mux conformance: 0/0 identical (not run)")
        sys.exit(1)

    sensitive, together, skipped = [], [], []
    for case_dir in opts.cases:
        name = os.path.basename(os.path.normpath(case_dir))
        with open(os.path.join(case_dir, "case.json")) as f:
            spec = json.load(f)
        if spec.get("mux") is False:
            skipped.append(name)
            continue
        (sensitive if order_sensitive(spec) else together).append((name, case_dir))
    for name in skipped:
        print(f"skip  {name}")
    compared = len(sensitive) + len(together)
    if compared == 0:
        print("ERROR no case to compare: the case list is empty (or every case is \"mux\": false)")
        print("mux conformance: 0/0 identical")
        sys.exit(1)
    print(f"{compared} cases: {len(together)} on {opts.workers} workers, then {len(sensitive)} order-sensitive "
          f"ones on {opts.sensitive_workers}" + (f"; {len(skipped)} \"mux\": false skipped" if skipped else ""), flush=True)

    lock = threading.Lock()
    state = {"same": 0, "gaps": 0, "failed": [], "errors_in_a_row": 0, "stopped": None, "pinned": {}}

    def one(item):
        name, case_dir = item
        with lock:
            if state["stopped"]:
                return
        started = time.monotonic()
        try:
            found = compare(case_dir, hookbridge, prepare, opts.sandboxed)
        except Exception as e:  # a failure to run is a failure, not a crash
            with lock:
                state["failed"].append(name)
                state["errors_in_a_row"] += 1
                print(f"ERROR {name}: {str(e)[-1500:]}", flush=True)
                if state["errors_in_a_row"] >= opts.max_errors and not state["stopped"]:
                    state["stopped"] = (f"stopped after {state['errors_in_a_row']} consecutive oracle errors: "
                                        f"the oracle itself is failing, not one case")
                    print(f"ERROR {state['stopped']}", flush=True)
            return
        seconds = time.monotonic() - started
        with lock:
            state["errors_in_a_row"] = 0
            if opts.pin is not None and name in opts.pin:
                state["pinned"][name] = found
            gap = read_gap(name, opts.sandboxed)
            ok, lines = verdict(name, found, gap, os.path.relpath(gap_path(name, opts.sandboxed), ROOT))
            if ok and gap is not None:
                state["gaps"] += 1
            elif ok:
                state["same"] += 1
            else:
                state["failed"].append(name)
            lines[0] += f" ({seconds:.0f} s)"
            print("\n".join(lines), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        list(pool.map(one, together))
    with ThreadPoolExecutor(max_workers=max(1, opts.sensitive_workers)) as pool:
        list(pool.map(one, sensitive))

    pins = SANDBOXED_GAPS if opts.sandboxed else GAPS
    for name, found in state["pinned"].items():
        path = os.path.join(pins, f"{name}.json")
        old = {}
        if os.path.exists(path):
            with open(path) as f:
                old = json.load(f)
        os.makedirs(pins, exist_ok=True)
        with open(path, "w") as f:
            json.dump({"why": old.get("why", "TODO: why hookbridge cannot match this case"), "differences": found},
                      f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        print(f"pinned {name}: {', '.join(sorted(found)) or 'no difference'} -> {os.path.relpath(path, ROOT)}")

    not_run = compared - state["same"] - state["gaps"] - len(state["failed"])
    note = f" ({state['gaps']} known gap(s) differ as pinned)" if state["gaps"] else ""
    if not_run:
        note += f" ({not_run} not run: {state['stopped']})"
    print(f"mux conformance: {state['same']}/{compared} identical{note}")
    sys.exit(0 if state["same"] + state["gaps"] == compared else 1)


if __name__ == "__main__":
    main()
