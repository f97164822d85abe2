"""hookbridge as Codex CLI's hook engine, checked against the real Codex CLI.

For each case (see codex_oracle.py), Codex runs twice in fresh projects: with the hooks registered
in Codex directly, and with hookbridge registered by `install-into codex` and the same hooks in
`.amplifier/hooks/`. The two views (what the model saw, what Codex printed, its exit code, the
files left, and the payloads the hooks were given) must be identical. The direct view must also
equal the case's `measured.json`, the view recorded when the case was measured: a change there
means Codex's own behaviour changed (or the case is not deterministic), and is reported as such.

Usage: python3 check_codex.py [--record] HOOKBRIDGE_BIN CASE_DIR...
  --record   (re)write each case's measured.json from the direct run instead of comparing to it
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import codex_oracle  # noqa: E402


def differences(a, b, path=""):
    """Where two views differ, as `path: a != b` lines."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {json.dumps(a)[:300]}\n      != {json.dumps(b)[:300]}"]


def main():
    args = sys.argv[1:]
    record = args[:1] == ["--record"]
    if record:
        args = args[1:]
    hookbridge, cases = os.path.abspath(args[0]), args[1:]
    codex_oracle.codex_binary()  # install once, before the first case
    same = 0
    for case in cases:
        name = os.path.basename(os.path.normpath(case))
        measured_file = os.path.join(case, "measured.json")
        try:
            direct = codex_oracle.run_case(case, "direct")
            bridge = codex_oracle.run_case(case, "bridge", hookbridge)
        except Exception as e:  # a failure to run is a failure, not a crash
            print(f"ERROR {name}: {e}")
            continue
        problems = []
        if record:
            with open(measured_file, "w") as f:
                json.dump(direct, f, indent=1, sort_keys=True)
                f.write("\n")
        else:
            with open(measured_file) as f:
                measured = json.load(f)
            drift = differences(measured, direct)
            if drift:
                problems.append("Codex itself no longer gives the measured view (measured != now):")
                problems += [f"  {d}" for d in drift]
        gaps = differences(direct, bridge)
        if gaps:
            problems.append("hookbridge differs from the hooks registered in Codex (direct != bridge):")
            problems += [f"  {d}" for d in gaps]
        if problems:
            print(f"DIFF  {name}")
            for p in problems:
                print(f"      {p}")
        else:
            same += 1
            print(f"same  {name}")
    print(f"codex conformance: {same}/{len(cases)} identical (Codex CLI {codex_oracle.CODEX_VERSION})")
    sys.exit(0 if cases and same == len(cases) else 1)


if __name__ == "__main__":
    main()
