"""``type: "agent"`` hooks in a real amplifier-core 2.0.2 session, answered by the session's own
mounted provider (as prompt hooks are): the engine's agent job holds the tool loop and asks the
module for each turn, which the module puts to ``provider.complete`` with the hook's tools (Read,
Grep, Glob) as ToolSpecs and the earlier turns as assistant tool calls and tool messages. The tools
run in the project; ``ok: false`` denies the tool call, as in Claude Code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.harness import Project, group, run_session, tool_call


pytestmark = pytest.mark.usefixtures("no_model_env")


def verifier(project: Project) -> None:
    (project.root / "CONVENTIONS.md").write_text("Deploys: NEVER-ON-FRIDAY.\n")
    project.plugin("deploy-verifier", {
        "PreToolUse": [group({"type": "agent", "prompt": "Do the conventions allow this? $ARGUMENTS"},
                             matcher="Bash")],
    })


def script(verdict: dict, structured: bool = False) -> list[dict]:
    """The main turn, then the agent hook's turns: read the conventions, then the verdict (as the
    input of the StructuredOutput tool, as Claude Code's agent gives it, or as a reply)."""
    answer = ({"text": "", "tool_calls": [tool_call("a2", "StructuredOutput", **verdict)]} if structured
              else {"text": json.dumps(verdict)})
    return [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran")]},
        {"text": "Reading the conventions.", "tool_calls": [tool_call("a1", "Read", file_path="CONVENTIONS.md")]},
        answer,
        {"text": "done"},
    ]


async def test_the_sessions_provider_runs_the_agents_tool_loop_and_ok_false_denies(project: Project) -> None:
    verifier(project)

    run = await run_session(project, "deploy it", script({"ok": False, "reason": "CONVENTIONS-SAY-NO"}))

    assert not (project.root / "deploy-ran").exists(), "the tool was denied"
    assert run.tool_calls.get("bash", []) == []
    assert "CONVENTIONS-SAY-NO" in run.tool_results()[0]
    # The main request, the agent's two turns, and the turn going on after the denial (an agent
    # hook's `ok: false` denies the call without ending the turn, unlike a prompt hook's).
    assert len(run.requests) == 4
    assert run.replies == ["done"]
    first, second = run.requests[1], run.requests[2]
    assert [t.name for t in first.tools] == ["StructuredOutput", "Read", "Grep", "Glob"]
    assert first.tools[1].parameters["required"] == ["file_path"]
    assert first.messages[0].role == "system" and "Read, Grep and Glob" in first.messages[0].content
    assert first.messages[1].role == "user"
    assert first.messages[1].content.startswith("Do the conventions allow this? {")
    # The second turn carries the first: the assistant's call, then the tool's result — the file,
    # read by the engine in the project.
    assistant, tool = second.messages[2], second.messages[3]
    assert assistant.role == "assistant"
    assert [b.type for b in assistant.content] == ["text", "tool_call"]
    assert assistant.content[1].name == "Read" and assistant.content[1].input == {"file_path": "CONVENTIONS.md"}
    assert tool.role == "tool" and tool.tool_call_id == "a1"
    assert "NEVER-ON-FRIDAY" in tool.content


async def test_ok_true_lets_the_tool_run(project: Project) -> None:
    verifier(project)

    run = await run_session(project, "deploy it", script({"ok": True, "reason": "not a Friday"}, structured=True))

    assert (project.root / "deploy-ran").exists()
    assert run.replies == ["done"]


async def test_a_path_outside_the_project_is_refused_to_the_model(project: Project, tmp_path: Path) -> None:
    verifier(project)
    (tmp_path / "secret.txt").write_text("TOP-SECRET\n")

    run = await run_session(project, "deploy it", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran")]},
        {"text": "", "tool_calls": [tool_call("a1", "Read", file_path=str(tmp_path / "secret.txt"))]},
        {"text": json.dumps({"ok": True, "reason": "fine"})},
        {"text": "done"},
    ])

    tool = run.requests[2].messages[3]
    assert tool.role == "tool" and tool.content.startswith("Error: ")
    assert "TOP-SECRET" not in tool.content
    assert (project.root / "deploy-ran").exists()
