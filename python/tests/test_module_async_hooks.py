"""``async: true`` hooks in a real amplifier-core session deliver their answers as Claude Code does
(shared case 81, measured): a hook's ``systemMessage`` and ``additionalContext``, one per line, reach
the model once, as a system message on the first model request after the hook finished; an async
exit 2 is not delivered; the tool never waits for the hook.
"""

from __future__ import annotations

import shutil

import pytest

from support.harness import Project, command_hook, group, run_session, tool_call

pytestmark = pytest.mark.skipif(not shutil.which("bash"), reason="the hooks are shell commands")

ASYNC_JSON = ("sleep 1; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", "
              "\"additionalContext\": \"ASYNC-CTX\"}, \"systemMessage\": \"ASYNC-SYSMSG\"}'")
ASYNC_EXIT2 = "sleep 1; echo async-exit2-feedback >&2; exit 2"


def async_hook(command: str) -> dict:
    return dict(command_hook(command), **{"async": True})


async def test_async_hook_answers_reach_the_model_once_on_a_later_request(project: Project) -> None:
    # Shared case 81's hooks; the first call starts them, the second (`sleep 2`) outlasts them.
    project.plugin("async", {"PostToolUse": [
        group(async_hook(ASYNC_EXIT2), matcher="Bash"),
        group(async_hook(ASYNC_JSON), matcher="Bash"),
        group(command_hook("true 'sync'"), matcher="Bash"),
    ]})
    run = await run_session(project, "go", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch ran_bash")]},
        {"text": "", "tool_calls": [tool_call("c2", "bash", command="sleep 2.5")]},
        {"text": "", "tool_calls": [tool_call("c3", "bash", command="true")]},
        {"text": "fin"},
    ])
    assert run.replies == ["fin"]
    delivered = [i for i in range(len(run.requests)) if any("ASYNC-SYSMSG\nASYNC-CTX" == t for t in run.request_texts(i))]
    # Not before the hooks could finish (request 1 follows the first call at once); from then on,
    # in the conversation: one system message, kept.
    assert delivered and delivered[0] >= 2, delivered
    assert delivered == list(range(delivered[0], len(run.requests))), delivered
    systems = [m["content"] for m in run.system_messages() if "ASYNC" in m["content"]]
    assert systems == ["ASYNC-SYSMSG\nASYNC-CTX"], systems
    # The second async hook's `async-exit2-feedback` is never shown; the first call did not wait.
    assert not any("async-exit2-feedback" in t for i in range(len(run.requests)) for t in run.request_texts(i))
    assert (project.root / "ran_bash").exists()
