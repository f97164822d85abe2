"""The seed's "Enhanced Hooks System" dialect in a real Amplifier session: hooks written inline in
the bundle's YAML (the seed's shape, under the seed's module id ``hooks-claude-code-bridge``), and
the same hooks as ``hooks.yaml`` and as ``hooks.json`` giving identical ``HookResult``s.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from support.harness import Project, run_session, tool_call

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("bash", "python3")),
    reason="the hook scripts need bash and python3",
)

# Seed 000's bundle snippet, with hooks written in the bundle itself in seed 004's shape.
BUNDLE = """
hooks:
  - module: hooks-claude-code-bridge
    config:
      enabled: true
      allow_user_hooks: true       # Allow .amplifier/hooks/
      allow_project_hooks: true    # Allow project-specific hooks
      default_timeout: 30          # Default timeout in seconds
      max_timeout: 300             # Maximum allowed timeout
      hooks:
        PreToolUse:
          - type: matcher
            match:
              tool: "Bash"
              args:
                command: "rm *"
            action: "block"
            message: "Destructive rm commands require confirmation"
          - type: command
            command: 'cat >> "$AMPLIFIER_PROJECT_DIR/seen.jsonl"'
            timeout_ms: 10000
"""


def test_the_seeds_module_id_is_an_entry_point_of_the_same_module() -> None:
    from importlib.metadata import entry_points

    by_name = {ep.name: ep.value for ep in entry_points(group="amplifier.modules")}
    assert by_name["hooks-claude-code-bridge"] == by_name["hook-bridge"] == "amplifier_module_hook_bridge:mount"


async def test_inline_yaml_hooks_in_the_bundle_block_tool_calls_and_get_the_seeds_fields(project: Project) -> None:
    bundle = yaml.safe_load(BUNDLE)
    entry = bundle["hooks"][0]
    config = dict(entry["config"])
    precious = project.root / "precious"
    precious.mkdir()
    (precious / "data.txt").write_text("keep me")

    run = await run_session(project, "clean up", [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="rm -rf ./precious")]},
        {"text": "", "tool_calls": [tool_call("c2", "bash", command="ls")]},
        {"text": "done"},
    ], hook_config=config, module_id=entry["module"])

    assert (precious / "data.txt").read_text() == "keep me", "the rule blocked the rm"
    results = run.tool_results()
    assert results[0] == "Denied by hook: Destructive rm commands require confirmation"
    assert run.tool_calls["bash"] == [{"command": "ls"}], "only the harmless command ran"
    assert run.replies == ["done"]
    # The command hook, written in the seed's shape, got the seed's fields beside Claude Code's.
    seen = [json.loads(line) for line in (project.root / "seen.jsonl").read_text().splitlines()]
    assert [(s["event"], s["tool"], s["args"]["command"]) for s in seen] == [
        ("PreToolUse", "Bash", "rm -rf ./precious"), ("PreToolUse", "Bash", "ls")]
    assert all(s["hook_event_name"] == "PreToolUse" and s["timestamp"] for s in seen)
    assert any(n.startswith("hook-bridge:") for names in run.hook_handlers.values() for n in names)


SAME_YAML = """
hooks:
  PreToolUse:
    - type: matcher
      match: {tool: Bash, args: {command: "rm *"}}
      action: block
      message: no rm
    - matcher: Bash
      hooks:
        - type: command
          command: |-
            printf '%s' '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "from a group"}}'
    - type: command
      command: |-
        printf '%s' '{"action": "allow", "message": "seen"}'
  PromptSubmit:
    - type: command
      command: |-
        printf '%s' '{"action": "modify", "modified_args": {"prompt": "rewritten prompt"}}'
  ResponseComplete:
    - type: command
      command: |-
        printf '%s' '{"action": "block", "message": "not yet"}'
"""


async def _results(project: Project, events: list[tuple[str, dict]]) -> list[dict]:
    from amplifier_core.testing import MockCoordinator

    from amplifier_module_hook_bridge import mount

    coordinator = MockCoordinator()
    project.trust()
    cleanup = await mount(coordinator, {"project_dir": str(project.root)})
    try:
        out = []
        for event, data in events:
            result = (await coordinator.hooks.emit(event, dict(data))).model_dump()
            if isinstance(result.get("data"), dict):
                result["data"].pop("timestamp", None)  # the kernel's clock, different on each emit
            out.append(result)
        return out
    finally:
        cleanup()


async def test_the_same_hooks_in_yaml_and_json_give_identical_hook_results(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    as_yaml = Project(root=(tmp_path / "yaml").resolve(), home=tmp_path)
    as_json = Project(root=(tmp_path / "json").resolve(), home=tmp_path)
    for p in (as_yaml, as_json):
        p.hooks_dir().mkdir(parents=True)
    (as_yaml.hooks_dir() / "hooks.yaml").write_text(SAME_YAML)
    (as_json.hooks_dir() / "hooks.json").write_text(json.dumps(yaml.safe_load(SAME_YAML), indent=2))
    events = [
        ("tool:pre", {"tool_name": "bash", "tool_input": {"command": "rm -rf /"}, "session_id": "s1"}),
        ("tool:pre", {"tool_name": "bash", "tool_input": {"command": "ls"}, "session_id": "s1"}),
        ("prompt:submit", {"prompt": "hello", "session_id": "s1"}),
        ("orchestrator:complete", {"status": "success", "session_id": "s1"}),
    ]
    from_yaml = await _results(as_yaml, events)
    from_json = await _results(as_json, events)
    assert from_yaml == from_json
    # And they are the answers the hooks gave.
    assert from_yaml[0]["action"] == "deny" and "no rm" in from_yaml[0]["reason"]
    assert "from a group" in json.dumps(from_yaml[1])
    assert "seen" in json.dumps(from_yaml[1])
    assert from_yaml[2]["data"]["prompt"] == "rewritten prompt", "the registry chains the modified data"
    assert "not yet" in json.dumps(from_yaml[3])


LLM_HOOKS = {"PreToolUse": [{
    "type": "llm",
    "prompt": "Evaluate if this tool use is safe:\nTool: {{tool}}\nArgs: {{args}}\n\nRespond with JSON: {\"safe\": true/false, \"reason\": \"...\"}",
    "max_tokens": 100,
}]}


def _llm_script(answer: str) -> list[dict]:
    return [
        {"text": "", "tool_calls": [tool_call("c1", "bash", command="touch ran")]},
        {"text": answer},  # the llm hook's request, answered by the session's own provider
        {"text": "done"},
    ]


async def test_an_llm_hook_asks_the_sessions_provider_and_safe_false_denies(project: Project) -> None:
    run = await run_session(project, "go", _llm_script('{"safe": false, "reason": "not on my watch"}'),
                            hook_config={"hooks": LLM_HOOKS})

    assert not (project.root / "ran").exists(), "the tool was denied"
    assert run.tool_results()[0] == "Denied by hook: not on my watch"
    judge = run.requests[1]
    user = judge.messages[1].content
    assert user.startswith('Evaluate if this tool use is safe:\nTool: Bash\nArgs: {"command":"touch ran"}'), user
    assert judge.max_output_tokens == 100
    assert judge.response_format is None, "the hook's own prompt says the answer's shape"


async def test_an_llm_hooks_unreadable_answer_follows_on_failure(project: Project) -> None:
    hooks = {"PreToolUse": [dict(LLM_HOOKS["PreToolUse"][0], on_failure="block")]}
    run = await run_session(project, "go", _llm_script("I am not sure."), hook_config={"hooks": hooks})
    assert not (project.root / "ran").exists(), "on_failure: block"
    assert "no JSON object" in run.tool_results()[0], run.tool_results()

    run = await run_session(project, "go", _llm_script("I am not sure."), hook_config={"hooks": LLM_HOOKS})
    assert (project.root / "ran").exists(), "on_failure: warn lets the tool run"
    assert any("no JSON object" in w for w in run.display.at("warning")), run.display.messages


async def test_the_llm_cache_never_replays_one_models_answer_for_another(project: Project, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """`cache: true` with the session's provider: the key holds which model answers (the provider
    and the model asked), so a verdict cached from one model is not replayed for another; the same
    model asked again is answered from the cache."""
    monkeypatch.setenv("HOOKBRIDGE_CACHE_DIR", str(tmp_path / "cache"))
    hooks = {"PreToolUse": [dict(LLM_HOOKS["PreToolUse"][0], cache=True)]}

    def session(model: str, answer: str):
        (project.root / "ran").unlink(missing_ok=True)
        return run_session(project, "go", _llm_script(answer),
                           hook_config={"hooks": hooks, "prompt_hooks": {"model": model}})

    run = await session("model-a", '{"safe": false, "reason": "model-a says no"}')
    assert not (project.root / "ran").exists() and "model-a says no" in run.tool_results()[0]

    run = await session("model-b", '{"safe": true, "reason": "fine"}')
    assert (project.root / "ran").exists(), f"model-a's cached deny was replayed for model-b: {run.tool_results()}"
    assert run.requests[1].model == "model-b", "model-b was asked"

    # The same model again: answered from the cache (the provider's next scripted turn would allow).
    run = await session("model-a", '{"safe": true, "reason": "fine"}')
    assert not (project.root / "ran").exists() and "model-a says no" in run.tool_results()[0], run.tool_results()
