"""Warm Python hooks in the library path the Amplifier module uses (issue 15): hook-bridge mounted in
amplifier-core's real registry, a `tool:pre` of `bash` reaching one Python hook that reads its payload
with `json`, timed with warm runs on (HOOKBRIDGE_WARM=always, the service started before timing) and
off, alternately in one process (the switch is read at every hook start), K = 1 and K = 8.

Usage: .venv/bin/python scripts/bench-amplifier-warm.py [ROUNDS]   (with the release
binding first on PYTHONPATH, as bench.sh runs it: a debug build measures the debug engine). Prints one
Markdown table. A benchmark, not a test."""
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HOOK = "import json, sys\npayload = json.load(sys.stdin)\n"


async def measure(k, rounds):
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hook_bridge import mount

    tmp = Path(tempfile.mkdtemp(prefix="hb-amp-warm-"))
    hooks = tmp / ".amplifier" / "hooks"
    hooks.mkdir(parents=True)
    (tmp / "hook.py").write_text(HOOK)
    python = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    commands = [f"{python} {tmp / 'hook.py'} {i}" for i in range(k)]
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": c} for c in commands]}]}}))
    coordinator = MockCoordinator()
    await mount(coordinator, {"project_dir": str(tmp)})
    data = {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s"}

    async def once(mode):
        os.environ["HOOKBRIDGE_WARM"] = mode
        t0 = time.perf_counter()
        await coordinator.hooks.emit("tool:pre", dict(data))
        return (time.perf_counter() - t0) * 1000

    for _ in range(5):
        await once("always")
        await once("0")
    warm, cold = [], []
    for _ in range(rounds):
        order = [("always", warm), ("0", cold)]
        random.shuffle(order)
        for mode, out in order:
            out.append(await once(mode))
    shutil.rmtree(tmp, ignore_errors=True)
    return statistics.median(warm), statistics.median(cold)


async def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    runtime = tempfile.mkdtemp(prefix="hb-amp-warm-rt-")
    os.chmod(runtime, 0o700)
    os.environ["XDG_RUNTIME_DIR"] = runtime
    os.environ["HOOKBRIDGE_WARM_IDLE"] = "60"
    random.seed(15)
    print(f"Amplifier module (hook-bridge in amplifier-core's registry), {rounds} interleaved rounds\n")
    print("| hooks on the event | warm | spawned | ratio |")
    print("|---|---|---|---|")
    for k in (1, 8):
        warm, cold = await measure(k, rounds)
        print(f"| K={k} | {warm:.2f} ms | {cold:.2f} ms | **{warm / cold:.2f}×** |")
    hb = shutil.which("hookbridge")
    if hb:
        subprocess.run([hb, "serve", "--stop"], capture_output=True)
    shutil.rmtree(runtime, ignore_errors=True)


asyncio.run(main())
