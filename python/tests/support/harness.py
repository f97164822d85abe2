"""Running real ``amplifier_core.AmplifierSession``s with hook-bridge and the test modules.

- :class:`Project` writes hook plugins (``hooks.json`` + executable scripts) into a project's
  ``.amplifier/hooks/`` or a user's ``~/.amplifier/hooks/``.
- :class:`Approvals` and :class:`Display` are the app-layer approval and display systems the kernel
  calls (``request_approval(prompt, options, timeout, default)``, ``show_message(message, level,
  source)``); both record what they were asked.
- :func:`run_session` mounts the scripted provider, the minimal orchestrator, the list context, the
  real tools and hook-bridge into a fresh session, runs prompts, and returns a :class:`Run` with
  everything a test checks: replies, context messages, the model's requests, tool calls, messages
  shown, approvals asked.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODULES_DIR = Path(__file__).resolve().parent / "modules"
if str(MODULES_DIR) not in sys.path:
    sys.path.insert(0, str(MODULES_DIR))


class Approvals:
    """The kernel's approval system: answers every request with ``answer``."""

    def __init__(self, answer: str = "Allow") -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    async def request_approval(self, prompt: str, options: list[str], timeout: float, default: str) -> str:
        self.requests.append({"prompt": prompt, "options": list(options), "timeout": timeout, "default": default})
        return self.answer


class Display:
    """The kernel's display system: keeps every message."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, str, str]] = []

    def show_message(self, message: str, level: str, source: str = "hook") -> None:
        self.messages.append((message, level, source))

    def at(self, level: str) -> list[str]:
        return [m for m, lvl, _ in self.messages if lvl == level]


@dataclass
class Project:
    """A project directory and a home directory, each with an ``.amplifier/hooks`` folder."""

    root: Path
    home: Path

    def trust(self) -> None:
        """Trust the project's hooks as they are now (``hookbridge trust --yes``), in this
        project's home."""
        from hookbridge._native import trust_project

        trust_project(str(self.root), user_home=str(self.home))

    def hooks_dir(self, scope: str = "project") -> Path:
        base = self.root if scope == "project" else self.home
        return base / ".amplifier" / "hooks"

    def plugin(self, name: str, hooks: dict[str, Any], scripts: dict[str, str] | None = None,
               scope: str = "project") -> Path:
        """Write plugin ``name``: ``hooks.json`` (``{"hooks": hooks}``) and executable scripts.
        Commands may use ``${CLAUDE_PLUGIN_ROOT}``."""
        folder = self.hooks_dir(scope) / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "hooks.json").write_text(json.dumps({"description": f"test plugin {name}", "hooks": hooks}, indent=2))
        for filename, text in (scripts or {}).items():
            path = folder / filename
            path.write_text(text)
            path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return folder


def command_hook(command: str, timeout: float | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return hook


def group(*hooks: dict[str, Any], matcher: str | None = None) -> dict[str, Any]:
    g: dict[str, Any] = {"hooks": list(hooks)}
    if matcher is not None:
        g["matcher"] = matcher
    return g


def tool_call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


@dataclass
class Run:
    replies: list[str]
    session_id: str
    messages: list[dict[str, Any]]
    requests: list[Any]
    tool_calls: dict[str, list[dict[str, Any]]]
    display: Display
    approvals: Approvals
    hook_handlers: dict[str, list[str]] = field(default_factory=dict)

    def request_texts(self, index: int) -> list[str]:
        """The text of every message of the model's request number ``index``."""
        out = []
        for m in self.requests[index].messages:
            content = m.content
            if isinstance(content, str):
                out.append(content)
            else:
                out.append("".join(getattr(b, "text", "") for b in content))
        return out

    def system_messages(self) -> list[dict[str, Any]]:
        return [m for m in self.messages if m.get("role") == "system"]

    def tool_results(self) -> list[str]:
        return [m["content"] for m in self.messages if m.get("role") == "tool"]


def session_config(project: Project, script: list[dict[str, Any]], hook_config: dict[str, Any] | None = None,
                   with_bridge: bool = True, module_id: str = "hook-bridge") -> dict[str, Any]:
    config: dict[str, Any] = {
        "session": {"orchestrator": "hbtest-orchestrator", "context": "hbtest-context"},
        "providers": [{"module": "hbtest-provider", "config": {"script": script}}],
        "tools": [{"module": "hbtest-tools", "config": {"working_dir": str(project.root)}}],
        "hooks": [],
    }
    if with_bridge:
        bridge = {"project_dir": str(project.root)}
        bridge.update(hook_config or {})
        config["hooks"].append({"module": module_id, "config": bridge})
    return config


async def run_session(project: Project, prompts: str | list[str], script: list[dict[str, Any]] | None = None,
                      hook_config: dict[str, Any] | None = None, approval: str = "Allow",
                      session_id: str | None = None, capabilities: dict[str, Any] | None = None,
                      module_id: str = "hook-bridge", trust: bool = True) -> Run:
    """Run ``prompts`` in one fresh session (cwd = the project) and collect what happened.
    ``capabilities`` are registered on the coordinator after ``initialize()`` (before the first
    prompt, which is when the kernel emits ``session:start``)."""
    from amplifier_core import AmplifierSession

    prompts = [prompts] if isinstance(prompts, str) else prompts
    # The project's hooks run only once its user trusts it: trusted here as they are now, as a
    # user would with `hookbridge trust` before starting the session (unless the test is about
    # an untrusted project).
    if trust:
        project.trust()
    approvals, display = Approvals(approval), Display()
    config = session_config(project, script or [], hook_config, module_id=module_id)
    session = AmplifierSession(config, session_id=session_id, approval_system=approvals, display_system=display)
    old_cwd = os.getcwd()
    os.chdir(project.root)
    try:
        await session.initialize()
        coordinator = session.coordinator
        for name, value in (capabilities or {}).items():
            coordinator.register_capability(name, value)
        handlers = coordinator.hooks.list_handlers()
        replies = [await session.execute(p) for p in prompts]
        context = coordinator.get("context")
        provider = coordinator.get("providers")["hbtest"]
        tools = coordinator.get("tools")
        run = Run(
            replies=replies,
            session_id=session.session_id,
            messages=list(context.messages),
            requests=list(provider.requests),
            tool_calls={name: list(t.calls) for name, t in tools.items()},
            display=display,
            approvals=approvals,
            hook_handlers={e: n for e, n in handlers.items() if n},
        )
    finally:
        try:
            await session.cleanup()
        finally:
            os.chdir(old_cwd)
    return run
