"""The Amplifier path's own cost for an event no hook matches (a `tool:pre` of `read_file` when the
hooks are for Bash), in amplifier-core's real registry, interleaved rounds, medians:

- hook-bridge mounted;
- the bare registry (no handler at all);
- a Python handler that does nothing (the floor for any hook module: amplifier-core's cost of
  calling a Python handler).

Usage: .venv/bin/python scripts/bench-amplifier-no-match.py [ROUNDS]   (with the release
binding first on PYTHONPATH, as bench.sh runs it: a debug build measures the debug engine)."""
import asyncio, json, os, statistics, sys, tempfile, time
from pathlib import Path

async def main():
    from amplifier_core.testing import MockCoordinator
    from amplifier_module_hook_bridge import mount
    tmp = Path(tempfile.mkdtemp())
    hooks = tmp / ".amplifier" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}))
    os.environ["HOME"] = str(tmp)
    # Trusted, as a user would have (docs/trust.md): an untrusted project's hooks are held, and the
    # figure would be of a hook set with nothing in it.
    from hookbridge._native import trust_project
    trust_project(str(tmp), user_home=str(tmp))
    bridged = MockCoordinator()
    await mount(bridged, {"project_dir": str(tmp)})
    bare = MockCoordinator()
    trivial = MockCoordinator()
    from amplifier_core.models import HookResult
    async def noop(event, data):
        return HookResult()
    trivial.hooks.register("tool:pre", noop, priority=20, name="noop")
    data = {"tool_name": "read_file", "tool_input": {"file_path": str(tmp / "x")}, "session_id": "s"}
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    for c in (bridged, bare, trivial):
        for _ in range(50):
            await c.hooks.emit("tool:pre", dict(data))
    ratios, b_times, r_times = [], [], []
    for _ in range(n):
        t0 = time.perf_counter(); await bridged.hooks.emit("tool:pre", dict(data)); t1 = time.perf_counter()
        await bare.hooks.emit("tool:pre", dict(data)); t2 = time.perf_counter()
        await trivial.hooks.emit("tool:pre", dict(data)); t3 = time.perf_counter()
        b_times.append(t1 - t0); r_times.append(t2 - t1); ratios.append(t3 - t2)
    print(f"no-match tool:pre: hook-bridge {statistics.median(b_times)*1e6:.1f} us, bare registry {statistics.median(r_times)*1e6:.1f} us, a handler that does nothing {statistics.median(ratios)*1e6:.1f} us")

asyncio.run(main())
