"""``Engine.selects``: the selection the module decides on the event loop before it hops to a
worker thread. It must agree with ``dispatch``: true exactly when dispatching would run or report
a hook, so the shortcut never loses a hook and never costs a hop for nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookbridge._native import Engine


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    hooks = tmp_path / ".amplifier" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "hooks.json").write_text(json.dumps({"allowedHttpHookUrls": [], "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}],
        "PostToolUseFailure": [{"hooks": [{"type": "command", "command": "true"}]}],
        # Blocked by the http policy: not run, but reported.
        "UserPromptSubmit": [{"hooks": [{"type": "http", "url": "http://127.0.0.1:9/hook"}]}],
    }}))
    from hookbridge._native import trust_project

    trust_project(str(tmp_path), user_home=str(tmp_path / "home"))
    return Engine(str(tmp_path), user_home=str(tmp_path / "home"))


CASES = [
    ("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}}, True),
    ("tool:pre", {"tool_name": "read_file", "tool_input": {"file_path": "x"}}, False),
    ("tool:post", {"tool_name": "bash", "tool_input": {"command": "ls"}, "result": {"success": True}}, False),
    ("tool:post", {"tool_name": "bash", "tool_input": {"command": "ls"}, "result": {"success": False, "error": "x"}}, True),
    # A hook that cannot run here is still reported by dispatch: selected.
    ("prompt:submit", {"prompt": "hi"}, True),
    ("session:end", {}, False),
    ("no:such:event", {}, False),
]


@pytest.mark.parametrize("event, data, expected", CASES)
def test_selects_agrees_with_dispatch(engine: Engine, event: str, data: dict, expected: bool) -> None:
    data = dict(data, session_id="s1")
    assert engine.selects(event, json.dumps(data), session_id="s1") is expected
    out = engine.dispatch(event, data, session_id="s1")
    ran_or_reported = any(r["hooks"] or r["skipped"] for r in out["reports"])
    assert ran_or_reported is expected, out


def test_unreadable_data_is_left_to_dispatch(engine: Engine) -> None:
    assert engine.selects("tool:pre", "{not json") is True


@pytest.mark.parametrize("event, data, expected", CASES)
def test_may_select_tool_never_drops_what_selects_keeps(engine: Engine, event: str, data: dict, expected: bool) -> None:
    """The module's first test, from the tool's name alone: ``False`` only where ``selects`` is
    false too."""
    tool = data.get("tool_name")
    if tool is None:
        assert engine.may_select_tool(event, "bash") is True  # not a tool event: left to `selects`
        return
    may = engine.may_select_tool(event, tool)
    assert may or not expected
    # read_file names no PreToolUse matcher: decided without the data.
    assert may is not (event == "tool:pre" and tool == "read_file")
