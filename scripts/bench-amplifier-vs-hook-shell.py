"""hook-bridge against the seed's Python bridge (microsoft/amplifier-module-hook-shell), both mounted
in amplifier-core's real registry on the same `.amplifier/hooks/`, one `tool:pre` emitted to each in
turn (interleaved rounds), medians and ratios from the same run:

- no-match: a `read_file` call when the hooks are for Bash (plus the bare registry, the floor);
- K=1: one `true` hook matches;
- K=8: eight `true` hooks match (hook-bridge runs them in parallel, hook-shell in turn);
- python: one Python hook that reads the payload with `json`.

hook-shell is not on PyPI and is not vendored: pass a checkout of it
(`git clone https://github.com/microsoft/amplifier-module-hook-shell`).

Usage: .venv/bin/python scripts/bench-amplifier-vs-hook-shell.py HOOK_SHELL_DIR [ROUNDS]
(with the release binding first on PYTHONPATH, as bench.sh runs it: a debug build measures the
debug engine)."""
import asyncio
import json
import os
import statistics
import shutil
import sys
import tempfile
import time
from pathlib import Path

PYTHON_HOOK = "import json, sys\npayload = json.load(sys.stdin)\nsys.exit(0)\n"


# Everything this benchmark makes lies beneath one folder, removed at the end.
WORK = Path(tempfile.mkdtemp(prefix="bench-vs-hook-shell-"))


def project(hooks):
    root = Path(tempfile.mkdtemp(prefix="project-", dir=WORK))
    (root / ".amplifier" / "hooks").mkdir(parents=True)
    (root / "hook.py").write_text(PYTHON_HOOK)
    groups = [{"matcher": "Bash", "hooks": [{"type": "command", "command": c.replace("{root}", str(root))}]}
              for c in hooks]
    (root / ".amplifier" / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": groups}}))
    # The user's one-time step (docs/trust.md): untrusted, hook-bridge would hold the project's
    # hooks (hook-shell has no trust step and runs them), and the comparison would be of nothing.
    from hookbridge._native import trust_project
    trust_project(str(root), user_home=os.environ["HOME"])
    return root


async def mounted(root):
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hook_bridge import mount as mount_bridge
    from amplifier_module_hook_shell import mount as mount_shell
    bridge, shell, bare = MockCoordinator(), MockCoordinator(), MockCoordinator()
    await mount_bridge(bridge, {"project_dir": str(root), "allow_user_hooks": False})
    os.chdir(root)  # hook-shell reads `.amplifier/hooks/` of the current directory
    await mount_shell(shell, {})
    return bridge, shell, bare


async def measure(name, hooks, tool, rounds):
    root = project(hooks)
    bridge, shell, bare = await mounted(root)
    data = {"tool_name": tool, "tool_input": {"command": "ls", "file_path": str(root / "x")}, "session_id": "s"}
    for c in (bridge, shell, bare):
        for _ in range(max(3, rounds // 20)):
            await c.hooks.emit("tool:pre", dict(data))
    times = {"hook-bridge": [], "hook-shell": [], "bare registry": []}
    for _ in range(rounds):
        for label, c in (("hook-bridge", bridge), ("hook-shell", shell), ("bare registry", bare)):
            t0 = time.perf_counter()
            await c.hooks.emit("tool:pre", dict(data))
            times[label].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    line = (f"{name:9} hook-bridge {med['hook-bridge'] * 1e3:8.3f} ms   hook-shell {med['hook-shell'] * 1e3:8.3f} ms"
            f"   ratio {med['hook-bridge'] / med['hook-shell']:5.2f}x")
    if name == "no-match":
        line += (f"   bare registry {med['bare registry'] * 1e3:.3f} ms "
                 f"(hook-bridge +{(med['hook-bridge'] - med['bare registry']) * 1e3:.3f} ms)")
    print(line, flush=True)


async def main():
    sys.path.insert(0, os.path.abspath(sys.argv[1]))
    os.environ["HOME"] = tempfile.mkdtemp(prefix="home-", dir=WORK)  # no user hooks, own trust records
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    print(f"{rounds} interleaved rounds, medians (python {sys.version.split()[0]})")
    await measure("no-match", ["true"], "read_file", rounds * 10)
    await measure("K=1", ["true"], "bash", rounds)
    await measure("K=8", ["true"] * 8, "bash", max(20, rounds // 4))
    await measure("python", ["python3 {root}/hook.py"], "bash", max(20, rounds // 4))


try:
    asyncio.run(main())
finally:
    shutil.rmtree(WORK, ignore_errors=True)
