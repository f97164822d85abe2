"""Soak: thousands of events through hook-bridge in one real amplifier-core session, with hooks
that block, pass, time out and leave background children — and no growth in file descriptors,
threads, zombie children or memory after warm-up.

The events run in a child Python process (this file writes its script), so the measurements are of
a process that does nothing else; the test asserts on what the child reports. Bounds are counts
with a margin for a loaded machine, never times.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from support.harness import MODULES_DIR

SOAK_SCRIPT = textwrap.dedent(r'''
    import asyncio, json, os, sys
    sys.path.insert(0, sys.argv[3])
    from support.harness import Project, command_hook, group, session_config
    from amplifier_core import AmplifierSession
    from pathlib import Path

    root, events = Path(sys.argv[1]), int(sys.argv[2])
    project = Project(root=root / "project", home=root / "home")
    project.root.mkdir(); project.home.mkdir()
    os.environ["HOME"] = str(project.home)
    project.plugin("soak", {"PreToolUse": [
        group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/block.sh"), matcher="Bash"),
        group(command_hook("echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"additionalContext\": \"ok\"}}'"), matcher="Bash|Read"),
        group(command_hook("(sleep 0.3 &); exit 0"), matcher="Glob"),
        group(command_hook("sleep 5", timeout=0.2), matcher="Slow"),
    ]}, {"block.sh": "#!/bin/bash\ncase \"$(cat)\" in *rm*) echo no >&2; exit 2;; esac\n"})
    project.trust()

    def fds():
        return len(os.listdir("/proc/self/fd"))
    def threads():
        return len(os.listdir("/proc/self/task"))
    def rss_kib():
        for line in open("/proc/self/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    def zombies():
        me, n = os.getpid(), 0
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    stat = open(f"/proc/{pid}/stat").read()
                except OSError:
                    continue
                fields = stat[stat.rfind(")") + 2:].split()
                if fields[0] == "Z" and int(fields[1]) == me:
                    n += 1
        return n
    def sample():
        return {"fds": fds(), "threads": threads(), "rss_kib": rss_kib(), "zombies": zombies()}

    async def main():
        config = session_config(project, [])
        session = AmplifierSession(config)
        os.chdir(project.root)
        await session.initialize()
        hooks = session.coordinator.hooks
        outcomes = {"deny": 0, "other": 0}
        samples = {}
        for i in range(events):
            kind = i % 10
            if kind < 4:
                data = {"tool_name": "bash", "tool_input": {"command": "rm -rf x" if kind < 2 else "ls"}, "tool_call_id": f"c{i}"}
            elif kind < 8:
                data = {"tool_name": "read_file", "tool_input": {"file_path": "a.txt"}, "tool_call_id": f"c{i}"}
            elif kind == 8:
                # A hook that leaves a background child holding its output.
                data = {"tool_name": "glob", "tool_input": {"pattern": "*.txt"}, "tool_call_id": f"c{i}"}
            else:
                data = {"tool_name": "Slow", "tool_input": {}, "tool_call_id": f"c{i}"} if i % 100 == 9 else \
                       {"tool_name": "bash", "tool_input": {"command": "true"}, "tool_call_id": f"c{i}"}
            result = await hooks.emit("tool:pre", data)
            outcomes["deny" if result.action == "deny" else "other"] += 1
            if i + 1 == events // 5:
                await asyncio.sleep(0.5)  # let the background sleeps of the warm-up end
                samples["warm"] = sample()
        await asyncio.sleep(0.5)
        samples["end"] = sample()
        await session.cleanup()
        print(json.dumps({"outcomes": outcomes, **samples}))

    asyncio.run(main())
''')


def test_thousands_of_events_leave_no_growth_in_fds_threads_zombies_or_memory(tmp_path: Path) -> None:
    events = 2000
    script = tmp_path / "soak.py"
    script.write_text(SOAK_SCRIPT)
    tests_dir = Path(__file__).resolve().parent
    done = subprocess.run([sys.executable, str(script), str(tmp_path), str(events), str(tests_dir)],
                          capture_output=True, text=True, timeout=900,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([str(tests_dir), str(MODULES_DIR)])})
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # Every blocking event was blocked (2 in 10), the rest went on.
    assert report["outcomes"] == {"deny": events // 5, "other": events - events // 5}, report
    warm, end = report["warm"], report["end"]
    assert end["fds"] <= warm["fds"] + 4, report
    assert end["threads"] <= warm["threads"] + 2, report
    assert end["zombies"] <= 1, report
    # 1,600 more events after warm-up: a leak of even 10 KiB per event would show as 16 MiB.
    assert end["rss_kib"] <= warm["rss_kib"] + 12 * 1024, report
