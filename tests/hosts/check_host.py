"""hookbridge as another agent's hook engine, checked against that agent itself.

    python3 check_host.py [--record] codex|gemini HOOKBRIDGE_BIN CASE_DIR...

For each case, the host's oracle (`codex/codex_oracle.py`, `gemini/gemini_oracle.py`) runs the real
agent twice in fresh projects against a scripted fake model on loopback: with the case's hooks
registered in the agent directly, and with hookbridge registered by `install-into <host>` running
the case's Claude Code hooks from `.amplifier/hooks/`. The two views (what the model saw, what the
agent printed, its exit code, the files left) must be identical. The direct view must also equal
the case's `measured.json`, recorded when the case was measured: a change there means the agent's
own behaviour changed (or the case is not deterministic), and is reported as such.

A case hookbridge knowingly cannot match has a `known_gap` file saying why: its difference is
reported as a gap, not a failure, and the run fails once it stops differing (so the list stays
true), as `MUX_KNOWN_GAPS` does for Claude Code.

  --record   (re)write each case's measured.json from the direct run instead of comparing to it
"""

import importlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from host_oracle import differences  # noqa: E402


def main():
    args = sys.argv[1:]
    record = args[:1] == ["--record"]
    if record:
        args = args[1:]
    host, hookbridge, cases = args[0], os.path.abspath(args[1]), args[2:]
    sys.path.insert(0, os.path.join(HERE, host))
    oracle = importlib.import_module(f"{host}_oracle")
    oracle.binary()  # install once, before the first case
    same = 0
    for case in cases:
        name = os.path.basename(os.path.normpath(case))
        measured_file = os.path.join(case, "measured.json")
        try:
            direct = oracle.run_case(case, "direct")
            bridge = oracle.run_case(case, "bridge", hookbridge)
        except Exception as e:  # a failure to run is a failure, not a crash
            print(f"ERROR {name}: {e}")
            continue
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
        gaps = differences(direct, bridge)
        known_gap = os.path.join(case, "known_gap")
        listed = os.path.exists(known_gap)
        if listed and not gaps:
            problems.append("listed as a known gap (known_gap) but identical now: remove the file")
        elif gaps:
            problems.append(f"hookbridge differs from the hooks registered in {oracle.NAME} (direct != bridge):")
            problems += [f"  {d}" for d in gaps]
        if listed and gaps and len(problems) == len(gaps) + 1:
            same += 1
            with open(known_gap) as f:
                print(f"gap   {name} (listed: {f.read().strip().splitlines()[0]})")
            for d in gaps:
                print(f"        {d}")
            continue
        if problems:
            print(f"DIFF  {name}")
            for p in problems:
                print(f"      {p}")
        else:
            same += 1
            print(f"same  {name}")
    listed = sum(os.path.exists(os.path.join(c, "known_gap")) for c in cases)
    print(f"{host} conformance: {same - listed}/{len(cases)} identical, {listed} listed gap(s) differ as listed "
          f"({oracle.NAME} {oracle.VERSION})" if listed else
          f"{host} conformance: {same}/{len(cases)} identical ({oracle.NAME} {oracle.VERSION})")
    sys.exit(0 if cases and same == len(cases) else 1)


if __name__ == "__main__":
    main()
