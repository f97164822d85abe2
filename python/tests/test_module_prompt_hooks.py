"""``type: "prompt"`` hooks in a real amplifier-core 2.0.2 session.

By default the judge is the session's own mounted provider (no second API key): the engine's prompt
job calls back into the module, which runs ``provider.complete`` on the session's event loop. With
``prompt_hooks: {provider: environment}`` the engine calls the API the environment configures
instead, as ``hookbridge run`` does. ``ok: false`` on PreToolUse denies the tool and ends the turn,
as in Claude Code (golden case 83); a judge that fails leaves the tool to run, with a warning.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from hookbridge._native import judge_system_prompt
from support.harness import Project, group, run_session, tool_call


pytestmark = pytest.mark.usefixtures("no_model_env")


PROMPT = "Is this deploy allowed? $ARGUMENTS"


def guarded(project: Project) -> None:
    project.plugin("deploy-judge", {
        "PreToolUse": [group({"type": "prompt", "prompt": PROMPT}, matcher="Bash")],
    })


def script(verdict: dict) -> list[dict]:
    return [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran")]},
        {"text": json.dumps(verdict)},  # the prompt hook's request
        {"text": "done"},
    ]


async def test_the_sessions_provider_judges_and_ok_false_denies_and_ends_the_turn(project: Project) -> None:
    guarded(project)

    run = await run_session(project, "deploy it", script({"ok": False, "reason": "NO-DEPLOYS-ON-FRIDAY"}))

    assert not (project.root / "deploy-ran").exists(), "the tool was denied"
    assert run.tool_calls.get("bash", []) == []
    assert run.tool_results()[0] == "Denied by hook: NO-DEPLOYS-ON-FRIDAY"
    assert len(run.requests) == 2, "the main request and the judge's; the turn ended after the denial"
    judge = run.requests[1]
    assert judge.messages[0].role == "system" and judge.messages[0].content == judge_system_prompt()
    user = judge.messages[1].content
    assert user.startswith("Is this deploy allowed? {")
    payload = json.loads(user.removeprefix("Is this deploy allowed? "))
    assert payload["hook_event_name"] == "PreToolUse"
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == "touch deploy-ran"
    assert judge.response_format is not None


async def test_ok_true_lets_the_tool_run_and_the_turn_go_on(project: Project) -> None:
    guarded(project)

    run = await run_session(project, "deploy it", script({"ok": True, "reason": "fine"}))

    assert (project.root / "deploy-ran").exists()
    assert run.replies == ["done"]
    assert len(run.requests) == 3


async def test_a_judge_that_fails_leaves_the_tool_to_run_with_a_warning(project: Project) -> None:
    guarded(project)

    run = await run_session(project, "deploy it", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran")]},
        {"text": "done"},
    ], hook_config={"prompt_hooks": {"name": "no-such-provider"}})

    assert (project.root / "deploy-ran").exists(), "fail-open, as Claude Code on a hook with no verdict"
    warnings = " ".join(run.display.at("warning"))
    assert "no-such-provider" in warnings, run.display.messages


class _FakeAnthropic(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).requests.append({"path": self.path, "key": self.headers.get("x-api-key"), "body": body})
        reply = json.dumps({"content": [{"type": "text", "text": '{"ok": false, "reason": "FROM-ENV-API"}'}],
                            "stop_reason": "end_turn"}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


async def test_the_environment_provider_is_used_when_configured(project: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded(project)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeAnthropic)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _FakeAnthropic.requests = []
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{server.server_address[1]}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    try:
        run = await run_session(project, "deploy it", [
            {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch deploy-ran")]},
            {"text": "never asked"},
        ], hook_config={"prompt_hooks": {"provider": "environment"}})
    finally:
        server.shutdown()

    assert not (project.root / "deploy-ran").exists()
    assert "FROM-ENV-API" in run.tool_results()[0]
    assert len(run.requests) == 1, "the session's provider was not asked to judge"
    assert [r["path"] for r in _FakeAnthropic.requests] == ["/v1/messages"]
    assert _FakeAnthropic.requests[0]["key"] == "sk-test"


@pytest.mark.parametrize("config, message", [
    ({"prompt_hooks": "session"}, "`prompt_hooks` must be a mapping"),
    ({"prompt_hooks": {"provider": "openai"}}, '`prompt_hooks.provider` must be "session" or "environment"'),
    ({"prompt_hooks": {"modle": "x"}}, "unknown key(s) in `prompt_hooks`: modle"),
    ({"prompt_hooks": {"model": 3}}, "`prompt_hooks.model` must be a string"),
])
async def test_bad_prompt_hook_config_is_refused(config: dict, message: str) -> None:
    from amplifier_core.testing import MockCoordinator

    from amplifier_module_hook_bridge import ConfigError, mount

    with pytest.raises(ConfigError) as info:
        await mount(MockCoordinator(), config)
    assert message in str(info.value)
