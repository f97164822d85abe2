"""``continue: false`` on a tool event, end to end in a real amplifier-core 2.0.2 session.

Claude Code (shared conformance cases 44 and 45) lets that tool run and ends the turn there: no
further tool, no further model request; with a deny as well (case 128) the tool does not run and
the turn still ends. hook-bridge asks the coordinator for a graceful cancel
(``request_cancel(False)``), which the published orchestrators (and the test orchestrator, made to
check cancellation where they do) honour after the current tool; the stop reason is shown.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from support.harness import Project, command_hook, group, run_session, tool_call

pytestmark = pytest.mark.skipif(not shutil.which("bash"), reason="the hook scripts need bash")

STOP_ON_DEPLOY = r"""#!/bin/bash
# Stops the turn when a deploy is attempted.
case "$(cat)" in
  *deploy*) echo '{"continue": false, "stopReason": "Build is red: stopping here"}' ;;
esac
exit 0
"""

DENY_AND_STOP_ON_DEPLOY = r"""#!/bin/bash
# Denies a deploy and stops the turn.
case "$(cat)" in
  *deploy*) echo '{"continue": false, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "deny-and-halt"}}' ;;
esac
exit 0
"""


SCRIPT = [
    {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran"),
                                tool_call("c2", "bash", command="touch second-ran")]},
    {"text": "this request must never be made"},
]


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse"])
async def test_continue_false_lets_the_tool_run_and_ends_the_turn(project: Project, event: str) -> None:
    project.plugin("stopper", {event: [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/stop.sh"), matcher="Bash")]},
                   {"stop.sh": STOP_ON_DEPLOY})

    run = await run_session(project, "deploy it", SCRIPT)

    assert (project.root / "deploy-ran").exists(), "the tool that got continue: false still runs"
    assert not (project.root / "second-ran").exists(), "no further tool runs"
    assert run.tool_calls["bash"] == [{"command": "touch deploy-ran"}]
    assert len(run.requests) == 1, "no further model request"
    assert any("Build is red: stopping here" in m for m in run.display.at("warning")), run.display.messages


async def test_continue_false_with_a_deny_skips_the_tool_and_still_ends_the_turn(project: Project) -> None:
    project.plugin("stopper", {"PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/stop.sh"), matcher="Bash")]},
                   {"stop.sh": DENY_AND_STOP_ON_DEPLOY})

    run = await run_session(project, "deploy it", SCRIPT)

    assert not (project.root / "deploy-ran").exists(), "denied"
    assert not (project.root / "second-ran").exists()
    assert run.tool_calls.get("bash", []) == []
    assert run.tool_results()[0] == "Denied by hook: deny-and-halt"
    assert len(run.requests) == 1


async def test_without_continue_false_the_turn_goes_on(project: Project) -> None:
    project.plugin("stopper", {"PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/stop.sh"), matcher="Bash")]},
                   {"stop.sh": STOP_ON_DEPLOY})

    run = await run_session(project, "build it", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch built"),
                                    tool_call("c2", "bash", command="touch tested")]},
        {"text": "done"},
    ])

    assert (project.root / "built").exists() and (project.root / "tested").exists()
    assert len(run.requests) == 2
    assert run.replies == ["done"]
