"""hook-bridge under concurrent and cancelled events (issue 31), in a real amplifier-core 2.0.2
session: the module mounted on the session's coordinator, events emitted through the kernel's own
``coordinator.hooks.emit`` (and, where the kernel's behaviour could hide the module's, through the
module's ``handle`` directly), real bash+jq hooks loaded from the project's ``.amplifier/hooks/``.

- Several events at once on one mounted module: each gets its own answer (a block with its own
  reason, the others going on), and the hooks really overlap — proved with files each hook waits
  for, never with timings.
- A cancelled event: the ``CancelledError`` reaches the caller; the hook's process and its children
  are gone within seconds, not at the hook's timeout; the session still answers the next events;
  and a cancelled event never answers ``continue`` in place of the block its hook would have given.

Waits are on files and processes, each with a generous bound ("within N seconds") that only a
broken behaviour reaches.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from amplifier_module_hook_bridge import HookBridge, mount
from support.harness import Project, command_hook, group, session_config

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("bash", "jq")), reason="the hook scripts need bash and jq"
)

#: How long a hook waits for the files of the other events' hooks: long enough that hooks run one
#: after the other (the last one would start only after the first gave up) fail the test.
OVERLAP_WAIT = 20
#: The bound for "promptly": a cancelled event's caller, and a killed hook's processes.
PROMPTLY = 5.0
#: The slow hook's own timeout: far past PROMPTLY, so that only a cancellation can stop it in time.
SLOW_HOOK_TIMEOUT = 120


# --- hook scripts -------------------------------------------------------------------------------

# Each event's hook announces itself in gate/, then waits until the hooks of all `expected` events
# have: every hook is running at once, or none gets past the wait and each says it ran alone.
GATE = r"""#!/bin/bash
input=$(cat)
what=$(printf '%s' "$input" | jq -r '.tool_input.command // .tool_input.file_path')
gate="$CLAUDE_PROJECT_DIR/gate"
mkdir -p "$gate"
touch "$gate/$(printf '%s' "$what" | tr -c 'a-zA-Z0-9' '_')"
for _ in $(seq $((OVERLAP_WAIT * 10))); do
    [ "$(ls "$gate" | wc -l)" -ge EXPECTED ] && break
    sleep 0.1
done
if [ "$(ls "$gate" | wc -l)" -lt EXPECTED ]; then
    echo "ran alone: $what" >&2
    exit 2
fi
case "$what" in
    *deny*) echo "blocked: $what" >&2; exit 2 ;;
esac
jq -n --arg what "$what" '{hookSpecificOutput: {hookEventName: "PreToolUse", additionalContext: ("checked " + $what)}}'
"""

# `slow …` commands: a long run with a child process, both pids recorded, that would end in a
# block; `wait-for-go …`: blocks once the test says go; `rm …`: blocked at once; the rest pass.
SLOW = r"""#!/bin/bash
input=$(cat)
command=$(printf '%s' "$input" | jq -r '.tool_input.command')
dir="$CLAUDE_PROJECT_DIR"
case "$command" in
    slow*)
        sleep 300 &
        echo "$$ $!" > "$dir/slow.pids.tmp"
        mv "$dir/slow.pids.tmp" "$dir/slow.pids"
        wait
        echo "blocked after the long run: $command" >&2
        exit 2 ;;
    wait-for-go*)
        touch "$dir/waiting"
        while [ ! -e "$dir/go" ]; do sleep 0.05; done
        echo "blocked: $command" >&2
        exit 2 ;;
    rm*)
        echo "blocked: $command" >&2
        exit 2 ;;
esac
exit 0
"""


def bash_call(call_id: str, command: str) -> dict[str, Any]:
    return {"tool_name": "bash", "tool_input": {"command": command}, "tool_call_id": call_id}


def read_call(call_id: str, path: str) -> dict[str, Any]:
    return {"tool_name": "read_file", "tool_input": {"file_path": path}, "tool_call_id": call_id}


# --- helpers ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def mounted(project: Project) -> AsyncIterator[tuple[Any, HookBridge]]:
    """A real session with hook-bridge mounted on its coordinator (as the kernel's loader mounts
    it), yielding the coordinator and the mounted bridge."""
    from amplifier_core import AmplifierSession

    project.trust()
    session = AmplifierSession(session_config(project, [], with_bridge=False))
    old_cwd = os.getcwd()
    os.chdir(project.root)
    try:
        await session.initialize()
        cleanup = await mount(session.coordinator, {"project_dir": str(project.root)})
        assert cleanup is not None
        try:
            yield session.coordinator, cleanup.__self__
        finally:
            cleanup()
    finally:
        try:
            await session.cleanup()
        finally:
            os.chdir(old_cwd)


async def eventually(condition: Callable[[], bool], within: float, what: str) -> None:
    """Waits until ``condition()`` holds, looking every 20 ms; fails after ``within`` seconds."""
    deadline = time.monotonic() + within
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {within} s: {what}")
        await asyncio.sleep(0.02)


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie, killed and not yet reaped, is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat[stat.rfind(")") + 2:].split()[0] not in ("Z", "X")


async def recorded_pids(path: Path) -> list[int]:
    await eventually(path.exists, 30, f"the slow hook wrote {path.name}")
    return [int(p) for p in path.read_text().split()]


@contextlib.contextmanager
def killed_afterwards(pids: list[int]):
    """Whatever the test finds, no hook process it started outlives it."""
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


def slow_plugin(project: Project) -> None:
    project.plugin("slow", {
        "PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/slow.sh", timeout=SLOW_HOOK_TIMEOUT),
                             matcher="Bash")],
    }, {"slow.sh": SLOW})


# --- concurrent events --------------------------------------------------------------------------


async def test_concurrent_events_each_get_their_own_answer_and_their_hooks_overlap(project: Project) -> None:
    events = [
        bash_call("c1", "deny-one --force"),
        bash_call("c2", "echo two"),
        read_call("c3", str(project.root / "notes" / "three.txt")),
        bash_call("c4", "deny-four now"),
    ]
    script = GATE.replace("OVERLAP_WAIT", str(OVERLAP_WAIT)).replace("EXPECTED", str(len(events)))
    project.plugin("gate", {
        "PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/gate.sh", timeout=OVERLAP_WAIT * 3),
                             matcher="Bash|Read")],
    }, {"gate.sh": script})

    async with mounted(project) as (coordinator, _bridge):
        results = await asyncio.gather(*(coordinator.hooks.emit("tool:pre", dict(e)) for e in events))

    what = [e["tool_input"].get("command") or e["tool_input"]["file_path"] for e in events]
    gate = sorted(p.name for p in (project.root / "gate").iterdir())
    assert gate == sorted(re.sub("[^a-zA-Z0-9]", "_", w) for w in what), "every event's hook ran"
    for text, result in zip(what, results):
        others = [w for w in what if w != text]
        if text.startswith("deny"):
            assert result.action == "deny", (text, result)
            assert result.reason == f"blocked: {text}", (text, result)
        else:
            assert result.action != "deny", (text, result)
            assert f"checked {text}" in (result.context_injection or ""), (text, result)
        answer = " ".join(filter(None, [result.reason, result.context_injection, result.user_message]))
        assert not any(other in answer for other in others), f"another event's answer reached {text!r}: {answer}"


async def test_cancelling_one_of_several_events_leaves_the_others_answers(project: Project) -> None:
    """One canceller per dispatch: stopping one event's hooks kills none of another's."""
    slow_plugin(project)
    async with mounted(project) as (coordinator, _bridge):
        slow = asyncio.ensure_future(coordinator.hooks.emit("tool:pre", bash_call("c1", "slow one")))
        other = asyncio.ensure_future(coordinator.hooks.emit("tool:pre", bash_call("c2", "wait-for-go two")))
        pids = await recorded_pids(project.root / "slow.pids")
        with killed_afterwards(pids):
            await eventually((project.root / "waiting").exists, 30, "the other event's hook started")
            slow.cancel()
            done, _ = await asyncio.wait({slow}, timeout=PROMPTLY)
            assert slow in done and slow.cancelled()
            await eventually(lambda: not any(map(running, pids)), PROMPTLY,
                             f"the cancelled event's hook processes {pids} are gone")
            assert not other.done(), "the other event is still waiting for its hook"
            (project.root / "go").touch()
            result = await asyncio.wait_for(other, 30)
    assert result.action == "deny", result
    assert result.reason == "blocked: wait-for-go two", result


# --- cancelled events ---------------------------------------------------------------------------


async def test_a_cancelled_event_raises_at_once_and_its_hook_processes_are_gone(project: Project) -> None:
    slow_plugin(project)
    async with mounted(project) as (coordinator, _bridge):
        task = asyncio.ensure_future(coordinator.hooks.emit("tool:pre", bash_call("c1", "slow sleeper")))
        pids = await recorded_pids(project.root / "slow.pids")
        assert len(pids) == 2 and all(map(running, pids)), "the hook and its child run"
        with killed_afterwards(pids):
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=PROMPTLY)
            assert task in done, "the cancellation reaches the caller promptly"
            with pytest.raises(asyncio.CancelledError):
                task.result()
            # Not at the hook's timeout (120 s): the hook and the child it started are killed.
            await eventually(lambda: not any(map(running, pids)), PROMPTLY,
                             f"the hook's processes {pids} are gone")

            # The session goes on: the next events run their hooks and get their answers.
            blocked = await asyncio.wait_for(coordinator.hooks.emit("tool:pre", bash_call("c2", "rm -rf build")), 30)
            assert blocked.action == "deny" and blocked.reason == "blocked: rm -rf build", blocked
            passed = await asyncio.wait_for(coordinator.hooks.emit("tool:pre", bash_call("c3", "ls")), 30)
            assert passed.action == "continue", passed


@pytest.mark.parametrize("odd", [float("inf"), [[[[[[[[]]]]]]]] * 1, "deep"], ids=["infinity", "list", "deep"])
async def test_a_tool_call_the_guards_cannot_be_given_is_refused(project: Project, odd: Any) -> None:
    """Red-team pass 14: a tool input the engine cannot read (a number JSON cannot hold, a list
    nested past what it reads: the model writes the tool's input) made the handler fail open —
    the guard never saw `rm -rf`, and the answer was ``continue``. It is refused, as the engine
    refuses an input it cannot read; an ordinary input still reaches the guard."""
    slow_plugin(project)
    if odd == "deep":
        for _ in range(300):
            odd = [odd]
    async with mounted(project) as (_coordinator, bridge):
        data = bash_call("c1", "rm -rf build")
        data["tool_input"]["extra"] = odd
        result = await asyncio.wait_for(bridge.handle("tool:pre", data), 30)
        if isinstance(odd, list) and len(str(odd)) < 40:
            assert result.action == "deny" and result.reason == "blocked: rm -rf build", result
        else:
            assert result.action == "deny", result
            assert "could not give this call to the hooks that guard it" in (result.reason or ""), result


async def test_cancelling_the_handler_raises_and_never_answers_continue_for_a_block(project: Project) -> None:
    """The module's own handler, awaited directly (the kernel's emit could hide what it returns):
    cancelled while a hook that would block is running, it raises ``CancelledError`` — a killed
    hook gives no answer, and that must not become the fail-open ``continue`` — and its hook's
    processes are already stopped when it does."""
    slow_plugin(project)
    async with mounted(project) as (_coordinator, bridge):
        task = asyncio.ensure_future(bridge.handle("tool:pre", bash_call("c1", "slow blocker")))
        pids = await recorded_pids(project.root / "slow.pids")
        with killed_afterwards(pids):
            task.cancel()
            done, _ = await asyncio.wait({task}, timeout=PROMPTLY)
            assert task in done, "the cancellation reaches the caller promptly"
            assert task.cancelled(), f"a cancelled event answered: {None if task.cancelled() else task.result()!r}"
            await eventually(lambda: not any(map(running, pids)), PROMPTLY,
                             f"the hook's processes {pids} are gone")

            # The same event again, not cancelled, still blocks: the module was not left broken.
            again = await asyncio.wait_for(bridge.handle("tool:pre", bash_call("c2", "rm -rf dist")), 30)
            assert again.action == "deny" and again.reason == "blocked: rm -rf dist", again
