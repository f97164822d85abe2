#!/usr/bin/env python3
"""Warm Python hooks against spawned ones, side by side in one run (issue 15).

    python3 scripts/bench-warm.py HOOKBRIDGE_BINARY [ROUNDS]

A Python hook that reads its payload with `json` (and answers nothing) runs on a PreToolUse event:

  * `hookbridge run` with HOOKBRIDGE_WARM=always (its service started before timing) against the
    hook spawned as Claude Code spawns it (`/bin/sh -c COMMAND`, payload on stdin), and against
    `hookbridge run` with warm runs off — for `python3` as PATH finds it (a pyenv shim where pyenv
    is installed) and for the absolute interpreter;
  * K = 8 such hooks on one event, warm against warm off.

Each pair runs alternately, in a random order per round, so load from other work hits both alike.
Prints a Markdown table (medians, 10th–90th percentiles, the ratio with a bootstrap 95 % interval).
A benchmark, not a test: it fails only if a run does not exit 0 or a warm run did not run warm.
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

HB = os.path.abspath(sys.argv[1])
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
random.seed(15)

# Run through a pyenv shim, this script sees the PATH `pyenv exec` gave it (the chosen version's
# bin directory first): put the user's PATH back, so `python3` means what it means to a hook.
_pyenv_root = os.environ.get("PYENV_ROOT")
if _pyenv_root:
    _parts = os.environ.get("PATH", "").split(":")
    if _parts and _parts[0].startswith(os.path.join(_pyenv_root, "versions", "")):
        os.environ["PATH"] = ":".join(_parts[1:])

work = tempfile.mkdtemp(prefix="hookbridge-bench-warm-")
runtime = os.path.join(work, "runtime")
os.makedirs(runtime, mode=0o700)
base_env = dict(os.environ)
home = os.path.join(work, "home")  # its own: the developer's trust records are left alone
os.makedirs(home)
base_env.update({
    "HOME": home,
    "HOOKBRIDGE_LOG": os.path.join(work, "diagnostics.log"),
    "XDG_RUNTIME_DIR": runtime,
    "HOOKBRIDGE_WARM_IDLE": "120",
})
base_env["HOOKBRIDGE_WARM"] = "0"
warm_env = dict(base_env, HOOKBRIDGE_WARM="always")

HOOK = "import json, sys\npayload = json.load(sys.stdin)\nif payload.get('tool_name') == 'Never':\n    print('no')\n"
ABSOLUTE = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                          capture_output=True, text=True, check=True).stdout.strip()
PATH_PYTHON3 = shutil.which("python3")


def project(name, commands):
    root = os.path.join(work, name)
    hooks = os.path.join(root, ".amplifier", "hooks")
    os.makedirs(hooks)
    with open(os.path.join(root, "hook.py"), "w") as f:
        f.write(HOOK)
    with open(os.path.join(hooks, "hooks.json"), "w") as f:
        json.dump({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": c} for c in commands]}]}}, f)
    body = {"session_id": "bench-warm", "transcript_path": "/tmp/t.jsonl", "cwd": root,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}
    payload = os.path.join(work, name + ".json")
    with open(payload, "w") as f:
        f.write(json.dumps(body) + "\n")
    # The user's one-time step: untrusted, the project's hooks would be held, not run (docs/trust.md).
    subprocess.run([HB, "trust", "--yes", root], env=base_env, capture_output=True, check=True)
    return root, payload


def spawn(argv, stdin_path, cwd, env):
    actions = [(os.POSIX_SPAWN_OPEN, 0, stdin_path, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    os.chdir(cwd)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    elapsed = time.perf_counter_ns() - t0
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        sys.exit(f"bench-warm: {argv} exited {code}")
    return elapsed / 1000


def hookbridge(root):
    return [HB, "run", "--event", "PreToolUse", "--project-dir", root]


def check_warm(root, payload, hooks):
    with open(payload, "rb") as f:
        r = subprocess.run(hookbridge(root) + ["--format", "report"], stdin=f, capture_output=True,
                           env=warm_env, cwd=root, check=True)
    report = json.loads(r.stdout)
    warm = [h.get("warm") for h in report["hooks"]]
    if warm != ["ran"] * hooks:
        sys.exit(f"bench-warm: expected {hooks} warm runs, the report says {warm}")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def paired(a, b, cwd, payload):
    """a and b are (argv, env). Medians in µs and the ratio a/b with a bootstrap 95 % interval."""
    for _ in range(max(10, ROUNDS // 10)):
        spawn(a[0], payload, cwd, a[1])
        spawn(b[0], payload, cwd, b[1])
    xa, xb = [], []
    for _ in range(ROUNDS):
        order = [(a, xa), (b, xb)]
        random.shuffle(order)
        for (argv, env), out in order:
            out.append(spawn(argv, payload, cwd, env))
    med = statistics.median
    boot = sorted(med(random.choices(xa, k=len(xa))) / med(random.choices(xb, k=len(xb)))
                  for _ in range(1000))
    return med(xa), (pct(xa, .1), pct(xa, .9)), med(xb), (pct(xb, .1), pct(xb, .9)), med(xa) / med(xb), boot[25], boot[974]


def ms(x):
    return f"{x / 1000:.2f} ms"


rows = []


def row(name, a_name, b_name, result):
    a, a_spread, b, b_spread, ratio, lo, hi = result
    rows.append(f"| {name} | {a_name}: {ms(a)} ({ms(a_spread[0])}–{ms(a_spread[1])}) | "
                f"{b_name}: {ms(b)} ({ms(b_spread[0])}–{ms(b_spread[1])}) | **{ratio:.2f}×** ({lo:.2f}–{hi:.2f}) |")


INTERPRETERS = [("`python3` from PATH" + (f" ({PATH_PYTHON3})" if PATH_PYTHON3 else ""), "python3"),
                (f"absolute `{ABSOLUTE}`", ABSOLUTE)]
if os.path.exists("/usr/bin/python3") and os.path.realpath("/usr/bin/python3") != os.path.realpath(ABSOLUTE):
    INTERPRETERS.append(("the system's `/usr/bin/python3`", "/usr/bin/python3"))
for label, interpreter in INTERPRETERS:
    command = f"{interpreter} hook.py"
    root, payload = project("k1-" + str(len(rows)), [command])
    # Start the service (and, for a pyenv shim, learn its choice) before timing.
    check_warm(root, payload, 1)
    sh = ["/bin/sh", "-c", command]
    row(f"K=1, {label}", "hookbridge warm", "spawned by /bin/sh -c",
        paired((hookbridge(root), warm_env), (sh, base_env), root, payload))
    row(f"K=1, {label}", "hookbridge warm", "hookbridge, warm off",
        paired((hookbridge(root), warm_env), (hookbridge(root), base_env), root, payload))

root, payload = project("k8", [f"python3 hook.py {i}" for i in range(8)])
check_warm(root, payload, 8)
row("K=8 in parallel, `python3` from PATH", "hookbridge warm", "hookbridge, warm off",
    paired((hookbridge(root), warm_env), (hookbridge(root), base_env), root, payload))

subprocess.run([HB, "serve", "--stop"], env=warm_env, capture_output=True)
print(f"Warm Python hooks, {ROUNDS} interleaved rounds per row · Python {ABSOLUTE} · "
      f"{os.cpu_count()} CPUs · load {open('/proc/loadavg').read().split()[0]}\n")
print("| scenario | measured | baseline | ratio (95 % CI) |")
print("|---|---|---|---|")
print("\n".join(rows))
shutil.rmtree(work, ignore_errors=True)
