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


class _OtlpReceiver:
    """A loopback OTLP/HTTP receiver that decodes what it gets."""

    def __init__(self) -> None:
        import http.server
        import threading

        received: list[tuple[str, dict]] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                received.append((self.path, json.loads(body)))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.end_headers()
                self.wfile.write(b"{}")

            def log_message(self, *args) -> None:
                pass

        self.received = received
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, n: int) -> list[tuple[str, dict]]:
        import time

        until = time.monotonic() + 60  # a hang guard: the spans are posted from a thread
        while len(self.received) < n and time.monotonic() < until:
            time.sleep(0.02)
        return list(self.received)

    def close(self) -> None:
        self.server.shutdown()


async def test_the_spans_of_a_blocked_tool_call_reach_an_otlp_receiver(project: Project, monkeypatch) -> None:
    receiver = _OtlpReceiver()
    try:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
        project.plugin("guard", {"PreToolUse": [group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/deny.sh"),
                                                      matcher="Bash")]}, {"deny.sh": DENY_RM})
        run = await run_session(project, "clean up", [
            {"text": "", "tool_calls": [tool_call("c1", "bash", command="rm -rf build")]},
            {"text": "done"},
        ])
        assert run.tool_calls.get("bash", []) == [], "denied"
        got = receiver.wait_for(1)
    finally:
        receiver.close()
    pre = [body for path, body in got if path == "/v1/traces"
           and any(a["key"] == "hook_event" and a["value"]["stringValue"] == "PreToolUse"
                   for a in body["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["attributes"])]
    assert len(pre) == 1, got
    spans = pre[0]["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert [s["name"] for s in spans] == ["hookbridge.hook", "hookbridge.hook.run"]
    event = {a["key"]: a["value"] for a in spans[0]["attributes"]}
    hook = {a["key"]: a["value"] for a in spans[1]["attributes"]}
    assert event["hookbridge.host"] == {"stringValue": "amplifier"}
    assert event["hook_name"] == {"stringValue": "PreToolUse:Bash"}
    assert event["num_blocking"] == {"intValue": 1}
    assert hook["process.exit.code"] == {"intValue": 2}
    assert hook["hookbridge.decision"] == {"stringValue": "deny"}
    assert spans[1]["parentSpanId"] == spans[0]["spanId"]


async def test_a_guard_that_never_launched_is_named_to_the_user_once_at_the_end_of_a_turn(project: Project) -> None:
    project.plugin("guard", {"PreToolUse": [group(command_hook("no-such-guard-for-hookbridge"), matcher="Bash"),
                                            group(command_hook("bash ${CLAUDE_PLUGIN_ROOT}/deny.sh"), matcher="Bash")]},
                   {"deny.sh": DENY_RM})
    run = await run_session(project, ["list it", "and again"], [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="ls")]},
        {"text": "listed"},
        {"text": "", "tool_calls": [tool_call("c2", "bash", command="ls -a")]},
        {"text": "listed again"},
    ])
    assert len(run.tool_calls.get("bash", [])) == 2
    notices = [m for m in run.display.at("warning") if "failed in every run" in m]
    assert len(notices) == 1, run.display.messages
    notice = notices[0]
    assert "`no-such-guard-for-hookbridge`" in notice and "never launched in 1 run(s)" in notice, notice
    assert "deny.sh" not in notice, "the working guard is not named"
    assert f"hookbridge log --session {run.session_id} --failed" in notice
