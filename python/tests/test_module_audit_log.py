"""The audit log from a real amplifier-core 2.0.2 session: the hook-bridge module puts every hook run
and every event's outcome on the record, as ``hookbridge run`` does, with ``amplifier`` as the host.
"""

from __future__ import annotations

import json
import shutil

import pytest

from support.harness import Project, command_hook, group, run_session, tool_call

pytestmark = pytest.mark.skipif(not shutil.which("bash"), reason="the hook scripts need bash")

DENY_RM = r"""#!/bin/bash
case "$(cat)" in
  *"rm -rf"*) echo "no rm -rf here" >&2; exit 2 ;;
esac
exit 0
"""


def audit_lines(project: Project) -> list[dict]:
    path = project.home / ".amplifier" / "hookbridge" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


async def test_a_blocked_tool_call_is_on_the_record_with_the_amplifier_host(project: Project) -> None:
    project.plugin("guard", {"PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/deny.sh"), matcher="Bash")]},
                   {"deny.sh": DENY_RM})

    run = await run_session(project, "clean up", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="rm -rf build")]},
        {"text": "done"},
    ])

    assert run.tool_calls.get("bash", []) == [], "denied"
    lines = [line for line in audit_lines(project) if line["event"] == "PreToolUse"]
    hooks = [line for line in lines if line["kind"] == "hook"]
    events = [line for line in lines if line["kind"] == "event"]
    assert len(hooks) == 1 and len(events) == 1, lines
    hook, event = hooks[0], events[0]
    assert hook["host"] == "amplifier"
    assert hook["tool"] == "Bash"
    assert hook["hook"]["plugin"] == "guard"
    assert hook["hook"]["label"] == "bash ${CLAUDE_PLUGIN_ROOT}/deny.sh"
    assert (hook["ran"], hook["status"], hook["code"], hook["decision"]) == ("spawned", "exited", 2, "deny")
    assert hook["reason"] == "no rm -rf here"
    assert (event["outcome"], event["reason"], event["hooks"]) == ("denied", "no rm -rf here", 1)
    # One chain: each line's seq follows the one before.
    seqs = [line["seq"] for line in audit_lines(project)]
    assert seqs == list(range(len(seqs)))
