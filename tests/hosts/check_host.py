"""hookbridge as another agent's hook engine, checked against that agent itself.

    python3 check_host.py [--record | --pin] codex|gemini HOOKBRIDGE_BIN CASE_DIR...

For each case, the host's oracle (`codex/codex_oracle.py`, `gemini/gemini_oracle.py`) runs the real
agent twice in fresh projects against a scripted fake model on loopback: with the case's hooks
registered in the agent directly, and with hookbridge registered by `install-into <host>` running
the case's Claude Code hooks from `.amplifier/hooks/`. The two views (what the model saw, what the
agent printed, its exit code, the files left) must be identical. The direct view must also equal
the case's `measured.json`, recorded when the case was measured: a change there means the agent's
own behaviour changed (or the case is not deterministic), and is reported as such.

A case hookbridge knowingly cannot match has a `known_gap.json`: `{"why": "...", "differences":
{path: {"direct": ..., "bridge": ...}}}`, every place of the view where the two runs differ and
what each shows there. The case passes only when it differs exactly so: any other difference fails,
and so does a gap that has closed (identical now: delete the file), as `tests/mux/gaps/` pins the
Claude Code differential's gaps.

After 3 consecutive cases the oracle could not run (the agent not starting, a run past its limit),
the rest is not run and the check fails: the oracle is failing, not one case.

  --record   (re)write each case's measured.json from the direct run instead of comparing to it
  --pin      (re)write the differences of each case that has a known_gap.json, keeping its why
"""

import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from host_oracle import differences  # noqa: E402

MAX_ERRORS_IN_A_ROW = 3


def leaves(a, b, path=""):
    """`{path: {"direct": a, "bridge": b}}` for every place two views differ (the places
    `differences` names, with what each side holds there in full)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = {}
        for key in sorted(set(a) | set(b)):
            out.update(leaves(a.get(key), b.get(key), f"{path}.{key}" if path else key))
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = {}
        for i, (x, y) in enumerate(zip(a, b)):
            out.update(leaves(x, y, f"{path}[{i}]"))
        return out
    return {} if a == b else {path: {"direct": a, "bridge": b}}


def read_gap(case):
    path = os.path.join(case, "known_gap.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main():
    args = sys.argv[1:]
    record = args[:1] == ["--record"]
    pin = args[:1] == ["--pin"]
    if record or pin:
        args = args[1:]
    host, hookbridge, cases = args[0], os.path.abspath(args[1]), args[2:]
    sys.path.insert(0, os.path.join(HERE, host))
    oracle = importlib.import_module(f"{host}_oracle")
    oracle.binary()  # install once, before the first case
    same = gaps = errors_in_a_row = 0
    stopped = None
    for case in cases:
        name = os.path.basename(os.path.normpath(case))
        if os.path.exists(os.path.join(case, "known_gap")):
            print(f"DIFF  {name}\n      a known_gap file without its pinned differences: "
                  f"write known_gap.json (check_host.py --pin) and delete known_gap")
            continue
        measured_file = os.path.join(case, "measured.json")
        try:
            direct = oracle.run_case(case, "direct")
            bridge = oracle.run_case(case, "bridge", hookbridge)
        except Exception as e:  # a failure to run is a failure, not a crash
            print(f"ERROR {name}: {e}", flush=True)
            errors_in_a_row += 1
            if errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
                stopped = f"stopped after {errors_in_a_row} consecutive errors of {oracle.NAME}: the oracle is failing"
                print(f"ERROR {stopped}")
                break
            continue
        errors_in_a_row = 0
        problems = []
        if record:
            with open(measured_file, "w") as f:
                json.dump(direct, f, indent=1, sort_keys=True)
                f.write("\n")
        elif not os.path.exists(measured_file):
            problems.append("no measured.json: record the case with --record first")
        else:
            with open(measured_file) as f:
                measured = json.load(f)
            drift = differences(measured, direct)
            if drift:
                problems.append(f"{oracle.NAME} itself no longer gives the measured view (measured != now):")
                problems += [f"  {d}" for d in drift]
        found = leaves(direct, bridge)
        gap = read_gap(case)
        if gap is not None and pin:
            gap["differences"] = found
            with open(os.path.join(case, "known_gap.json"), "w") as f:
                json.dump(gap, f, indent=1, sort_keys=True, ensure_ascii=False)
                f.write("\n")
            print(f"pinned {name}: {', '.join(found) or 'no difference'}")
        if gap is not None and not found:
            problems.append("a known gap (known_gap.json) but identical now: delete the file")
        elif gap is not None and found != gap["differences"]:
            problems.append(f"a known gap, but hookbridge differs from {oracle.NAME} otherwise than known_gap.json "
                            "pins (direct != bridge):")
            for path in sorted(set(found) | set(gap["differences"])):
                if found.get(path) != gap["differences"].get(path):
                    problems.append(f"  {path}: pinned {json.dumps(gap['differences'].get(path))[:300]}")
                    problems.append(f"  {path}: now    {json.dumps(found.get(path))[:300]}")
        elif gap is None and found:
            problems.append(f"hookbridge differs from the hooks registered in {oracle.NAME} (direct != bridge):")
            problems += [f"  {d}" for d in differences(direct, bridge)]
        if problems:
            print(f"DIFF  {name}")
            for p in problems:
                print(f"      {p}")
        elif gap is not None:
            gaps += 1
            print(f"gap   {name} (differs exactly as known_gap.json pins: {', '.join(found)}; "
                  f"{gap['why'].splitlines()[0][:160]})")
        else:
            same += 1
            print(f"same  {name}")
        sys.stdout.flush()
    note = f", {gaps} known gap(s) differ as pinned" if gaps else ""
    if stopped:
        note += f", {stopped}"
    print(f"{host} conformance: {same}/{len(cases)} identical{note} ({oracle.NAME} {oracle.VERSION})")
    sys.exit(0 if cases and same + gaps == len(cases) else 1)


if __name__ == "__main__":
    main()
