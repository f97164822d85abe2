"""Issue 10: a process using ``hookbridge._native`` must exit cleanly when one of its threads is
inside the engine while the interpreter finalizes.

Before Python 3.14, a thread that asks for the GIL during finalization is ended with
``pthread_exit``, a forced unwind. Through Rust frames that is fatal: pyo3's ``catch_unwind``
swallows it (glibc: "FATAL: exception not rethrown"), or an attach guard releases a thread state
that is no longer current ("Fatal Python error: PyGILState_Release"). A daemon thread inside
``Engine.dispatch`` reaches that point in three places, one scenario each:

- ``dumps``: running Python code that Rust called — ``json.dumps(data, default=str)`` calls an
  object's ``__str__``;
- ``loads``: the same for the ``json.loads`` of the answer;
- ``detach``: re-attaching after the hooks ran (the end of ``Python::detach``).

Each scenario runs in a fresh interpreter, several times, and must end with exit code 0 and no
fatal error. The Python code in the first two waits until the interpreter is finalizing and then
releases the GIL (``time.sleep``), so it asks for it back during finalization every time; the
third makes finalization last long enough (objects whose ``__del__`` does work) for the hook to
end during it. Nothing is timed: the only bound is the subprocess timeout of a hang.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = textwrap.dedent(r'''
    import json, os, sys, threading, time
    from pathlib import Path
    from hookbridge._native import Engine, trust_project

    mode, root = sys.argv[1], Path(sys.argv[2])
    hooks = root / ".amplifier" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    command = "sleep 0.3" if mode == "detach" else "true"
    (hooks / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}]}}))
    home = root / "home"
    home.mkdir(exist_ok=True)
    trust_project(str(root), user_home=str(home))
    engine = Engine(str(root), include_user_hooks=False, user_home=str(home))
    assert engine.hook_count == 1, engine.diagnostics

    def until_finalizing(_finalizing=sys.is_finalizing, _sleep=time.sleep):
        """Spins (holding the GIL between switches) until the interpreter finalizes, then gives
        the GIL up and asks for it back: during finalization, the thread is ended there."""
        inside.set()
        while not _finalizing():
            pass
        _sleep(0.01)

    class StrAtExit:
        def __str__(self):
            until_finalizing()
            return "x"

    real_loads = json.loads
    def loads_at_exit(text, **kw):
        until_finalizing()
        return real_loads(text, **kw)

    class SlowDel:
        """Keeps finalization busy (and handing the GIL over) for a while."""
        def __del__(self):
            s = 0
            for i in range(20_000):
                s += i

    def work():
        data = {"tool_name": "bash", "tool_input": {"command": "ls"}}
        if mode == "dumps":
            data["tool_input"]["command"] = StrAtExit()
        elif mode == "loads":
            json.loads = loads_at_exit
        engine.dispatch("tool:pre", data if mode == "dumps" else json.dumps(data))
        os.write(2, b"the engine returned into Python during finalization\n")

    inside = threading.Event()  # the daemon thread is in Python code called by the engine
    def forever():
        while True:
            work()
    threading.Thread(target=forever, daemon=True).start()
    if mode in ("dumps", "loads"):
        inside.wait()
    else:
        sys.modules["slow_finalization"] = type(sys)("slow_finalization")
        sys.modules["slow_finalization"].objects = [SlowDel() for _ in range(2000)]
        time.sleep(0.1)  # the hook is running: the thread is inside detach
    print("main thread exits", flush=True)
''')


@pytest.mark.parametrize("mode", ["dumps", "loads", "detach"])
def test_the_interpreter_exits_cleanly_while_a_daemon_thread_is_inside_the_engine(tmp_path: Path, mode: str) -> None:
    script = tmp_path / "exit.py"
    script.write_text(SCRIPT)
    for attempt in range(5):
        root = tmp_path / f"run{attempt}"
        root.mkdir()
        done = subprocess.run([sys.executable, str(script), mode, str(root)],
                              capture_output=True, text=True, timeout=120, env=dict(os.environ))
        assert "main thread exits" in done.stdout, (attempt, done.returncode, done.stdout, done.stderr[-3000:])
        assert "Fatal Python error" not in done.stderr, (attempt, done.stderr[-3000:])
        assert "FATAL" not in done.stderr, (attempt, done.stderr[-3000:])
        assert done.returncode == 0, (attempt, done.returncode, done.stderr[-3000:])
