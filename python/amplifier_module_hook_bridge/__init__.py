"""hook-bridge: Claude Code hooks in Amplifier sessions, run by hookbridge's Rust engine.

Mount it as an Amplifier hook module (module id ``hook-bridge``, or ``hooks-claude-code-bridge`` as
the seed's bundle YAML names it; entry point group ``amplifier.modules``, or importable as ``amplifier_module_hook_bridge`` for the filesystem
loader). At mount time it loads the hook configs once — ``<project>/.amplifier/hooks/`` (its
``hooks.json`` and plugin folders) and ``~/.amplifier/hooks/`` — and registers one handler, named
``hook-bridge:<event>``, on every Amplifier event that maps to a Claude Code event. Each handler
hands the event to the Rust engine on a worker thread (``asyncio.to_thread``; the engine releases
the GIL and supervises the hook processes from that thread), so the event loop never blocks while
hooks run, and returns the engine's answer as an ``amplifier_core.models.HookResult``. Several
events (parallel tool calls) dispatch at once, each on its own worker thread with its own answer.

A cancelled event (the task awaiting it was cancelled: the user interrupted the turn, a timeout
around the emit) stops its hooks: the worker thread cannot be interrupted, so the handler gives the
dispatch a ``Canceller`` and signals it; the engine kills the hooks still running with their
process groups and returns, the handler waits for that (milliseconds), and the ``CancelledError``
goes on to the caller. A cancelled event gets no answer — never a fail-open ``continue`` in place
of the block its hooks might have given.

Config (all optional)::

    enabled: true              # false: mount registers nothing
    allow_user_hooks: true     # load ~/.amplifier/hooks/
    allow_project_hooks: true  # load <project_dir>/.amplifier/hooks/
    default_timeout: 30        # seconds, for hooks that set no `timeout`
    max_timeout: 300           # seconds; no hook runs longer, whatever it asks for
    project_dir: null          # default: the session.working_dir capability, else the process cwd
    priority: 20               # handler priority (lower runs first), as hook-shell used
    prompt_hooks:              # who answers `type: "prompt"` and `"agent"` hooks (and seed `llm` ones)
      provider: session        # session: the session's own mounted provider (no second API key);
                               # environment: the Anthropic / OpenAI-compatible API configured by
                               # ANTHROPIC_* / OPENAI_* / HOOKBRIDGE_MODEL_PROVIDER (as `hookbridge run`)
      name: null               # with `session`: which mounted provider (default: the first)
      model: null              # a model for every prompt or agent hook that names none
    hooks: null                # hooks written in the bundle itself, in hooks.yaml's shape (the
                               # seed's `PreToolUse: [{type: matcher, ...}]` or Claude Code's
                               # matcher groups); loaded after the discovered files

Bad config (unknown keys, wrong types, non-positive timeouts, default_timeout > max_timeout, a
project_dir that is not a directory) raises :class:`ConfigError` from ``mount``.

What hooks get (Claude Code's stdin payload, built by the engine from the event data): ``session_id``
(the event's, else the coordinator's), ``cwd`` (the ``session.working_dir`` capability, else the
project dir), ``transcript_path`` when the session has one (the ``session.transcript_path``
capability, else amplifier-app-cli's ``~/.amplifier/projects/<slug>/sessions/<id>/transcript.jsonl``
when that file exists), and the environment ``AMPLIFIER_SESSION_ID``, ``AMPLIFIER_PROJECT_DIR``/
``CLAUDE_PROJECT_DIR``, ``AMPLIFIER_HOOKS_DIR``, plugin variables, and for SessionStart the env file
``AMPLIFIER_ENV_FILE``/``CLAUDE_ENV_FILE``. The ``export K=V`` lines SessionStart hooks write there
are read back and given to every later hook of the session *of the same side*: your hooks (user,
managed, the bundle's own) share one env file, the project's hooks another, so a project's exports
(a ``PATH``, an ``LD_PRELOAD``) never reach your hooks, nor yours the project's. Neither may set a
variable of the hook protocol (``CLAUDE_PROJECT_DIR``, ``CLAUDE_ENV_FILE``, …: ``PROTOCOL_VARS``),
and an env file is read up to ``ENV_FILE_CAP`` bytes.

How answers reach the user and the model, given amplifier-core 2.0.2's quirks:

- ``ask`` becomes ``ask_user``; the orchestrator's ``coordinator.process_hook_result`` asks the
  kernel's approval system, which allows or denies the operation.
- The kernel emits ``session:start``/``session:resume``/``session:fork`` itself and ignores what
  handlers return, so for those events the handler applies its own result with
  ``coordinator.process_hook_result``
  (the context lands in the context manager, messages on the display) and returns the consumed
  result.
- ``HookRegistry.emit`` drops ``user_message`` from ``continue``/``modify`` results, and
  ``process_hook_result`` does not show it on ``ask_user``. Messages riding on those actions
  (``systemMessage``), and the engine's warnings (a hook that timed out, failed, or could not start:
  the operation goes on, fail-open), are therefore shown by the handler itself, through
  ``coordinator.process_hook_result`` with a message-only ``continue`` result, which calls the
  session's ``display_system.show_message(message, level, "hook:<source>")`` (and only logs when the
  session has no display system). They are also logged on the ``amplifier_module_hook_bridge``
  logger. Messages on ``deny``/``inject_context`` stay in the returned result, where the
  orchestrator's ``process_hook_result`` shows them.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import math
import os
import shlex
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hookbridge._native import PROTOCOL_VARS, Canceller, Engine, amplifier_events

__amplifier_module_type__ = "hook"

__all__ = ["ConfigError", "HookBridge", "amplifier_events", "mount", "parse_config"]

logger = logging.getLogger(__name__)

MODULE_ID = "hook-bridge"

#: Events the kernel emits itself and whose results it discards (measured on 2.0.2): the handler
#: applies its own result for them.
SELF_APPLIED_EVENTS = frozenset({"session:start", "session:resume", "session:fork"})
# The end of a turn (Claude Code's Stop), where hooks that failed in every run are named.
TURN_END = "orchestrator:complete"

#: How long a cancelled event's handler waits for its dispatch to come back once signalled. The
#: engine kills the hooks rather than waiting for them, so it comes back in milliseconds; this only
#: bounds the wait should the worker thread be stuck elsewhere.
CANCEL_WAIT = 10.0

#: Bytes of a session env file read back: what its hooks write past this is ignored (and said).
ENV_FILE_CAP = 64 * 1024

DEFAULTS: dict[str, Any] = {
    "enabled": True,
    "allow_user_hooks": True,
    "allow_project_hooks": True,
    "default_timeout": 30,
    "max_timeout": 300,
    "project_dir": None,
    "priority": 20,
    "prompt_hooks": None,
    "hooks": None,
}

PROMPT_HOOK_DEFAULTS: dict[str, Any] = {"provider": "session", "name": None, "model": None}


class ConfigError(ValueError):
    """The module's config is invalid; the message names the key and what was expected."""


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def parse_config(config: dict[str, Any] | None) -> dict[str, Any]:
    """Validate ``config`` and fill defaults. Raises :class:`ConfigError` on the first problem."""
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ConfigError(f"hook-bridge: config must be a mapping, got {_type_name(config)}")
    unknown = [k for k in config if k not in DEFAULTS]
    if unknown:
        hints = []
        for key in unknown:
            close = difflib.get_close_matches(str(key), list(DEFAULTS), n=1)
            hints.append(f"`{key}`" + (f" (did you mean `{close[0]}`?)" if close else ""))
        raise ConfigError(
            f"hook-bridge: unknown config key{'s' if len(unknown) > 1 else ''} {', '.join(hints)}; "
            f"known keys: {', '.join(DEFAULTS)}"
        )
    out = {**DEFAULTS, **config}
    for key in ("enabled", "allow_user_hooks", "allow_project_hooks"):
        if not isinstance(out[key], bool):
            raise ConfigError(f"hook-bridge: `{key}` must be true or false, got {out[key]!r} ({_type_name(out[key])})")
    for key in ("default_timeout", "max_timeout"):
        value = out[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"hook-bridge: `{key}` must be a number of seconds, got {value!r} ({_type_name(value)})")
        if not math.isfinite(value) or value <= 0:
            raise ConfigError(f"hook-bridge: `{key}` must be a positive number of seconds, got {value!r}")
    if out["default_timeout"] > out["max_timeout"]:
        raise ConfigError(
            f"hook-bridge: `default_timeout` ({out['default_timeout']}) is larger than `max_timeout` "
            f"({out['max_timeout']}); no hook may run longer than max_timeout"
        )
    priority = out["priority"]
    if isinstance(priority, bool) or not isinstance(priority, int):
        raise ConfigError(f"hook-bridge: `priority` must be an integer, got {priority!r} ({_type_name(priority)})")
    project_dir = out["project_dir"]
    if project_dir is not None and not isinstance(project_dir, (str, os.PathLike)):
        raise ConfigError(f"hook-bridge: `project_dir` must be a path, got {project_dir!r} ({_type_name(project_dir)})")
    out["prompt_hooks"] = _parse_prompt_hooks(out["prompt_hooks"])
    hooks = out["hooks"]
    if hooks is not None and not isinstance(hooks, dict):
        raise ConfigError(
            f"hook-bridge: `hooks` must be a mapping of event to hooks (as in hooks.yaml), got {hooks!r} ({_type_name(hooks)})"
        )
    return out


def _parse_prompt_hooks(value: Any) -> dict[str, Any]:
    if value is None:
        return dict(PROMPT_HOOK_DEFAULTS)
    if not isinstance(value, dict):
        raise ConfigError(f"hook-bridge: `prompt_hooks` must be a mapping, got {value!r} ({_type_name(value)})")
    unknown = [k for k in value if k not in PROMPT_HOOK_DEFAULTS]
    if unknown:
        raise ConfigError(
            f"hook-bridge: unknown key(s) in `prompt_hooks`: {', '.join(map(str, unknown))}; "
            f"known keys: {', '.join(PROMPT_HOOK_DEFAULTS)}"
        )
    out = {**PROMPT_HOOK_DEFAULTS, **value}
    if out["provider"] not in ("session", "environment"):
        raise ConfigError(
            f"hook-bridge: `prompt_hooks.provider` must be \"session\" or \"environment\", got {out['provider']!r}"
        )
    for key in ("name", "model"):
        if out[key] is not None and not isinstance(out[key], str):
            raise ConfigError(f"hook-bridge: `prompt_hooks.{key}` must be a string, got {out[key]!r} ({_type_name(out[key])})")
    return out


def _hook_result_class() -> type:
    from amplifier_core.models import HookResult

    return HookResult


def _read_env_text(path: Path) -> str:
    """The first ``ENV_FILE_CAP`` bytes of the env file at ``path`` (whole lines), if it is a
    regular file: a hook may have swapped it for a FIFO or a symlink to ``/dev/zero``, which must
    neither hang nor flood the session."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        if not isinstance(e, FileNotFoundError):
            logger.warning("hook-bridge: env file %s not read: %s", path, e)
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            logger.warning("hook-bridge: env file %s is not a regular file: its exports are ignored", path)
            return ""
        data = os.read(fd, ENV_FILE_CAP + 1)
    except OSError as e:
        logger.warning("hook-bridge: env file %s not read: %s", path, e)
        return ""
    finally:
        os.close(fd)
    if len(data) > ENV_FILE_CAP:
        data = data[: data.rfind(b"\n", 0, ENV_FILE_CAP) + 1]
        logger.warning("hook-bridge: env file %s is longer than %d bytes: the lines past that are ignored",
                       path, ENV_FILE_CAP)
    return data.decode(errors="replace")


def _read_env_file(path: Path) -> dict[str, str]:
    """``export K=V`` (and ``K=V``) lines of a SessionStart env file, shell-quoting understood.
    A variable of the hook protocol (``PROTOCOL_VARS``) is never taken from it (said in the log)."""
    env: dict[str, str] = {}
    text = _read_env_text(path)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if words and words[0] == "export":
            words = words[1:]
        for word in words:
            name, sep, value = word.partition("=")
            if sep and name.isidentifier():
                if name in PROTOCOL_VARS:
                    logger.warning("hook-bridge: env file %s sets %s, which only hookbridge sets: ignored",
                                   path, name)
                else:
                    env[name] = value
    return env


class _ScopeEnv:
    """One side's env file (yours, or the project's) and what its hooks exported there."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.vars: dict[str, str] = {}
        self._stamp: tuple[int, int, int] | None = None

    def refresh(self) -> None:
        """Re-read the file if a hook changed it."""
        try:
            st = os.lstat(self.path)
        except OSError:
            st = None
        stamp = (st.st_ino, st.st_mtime_ns, st.st_size) if st is not None else None
        if stamp != self._stamp:
            self._stamp = stamp
            self.vars = _read_env_file(self.path) if st is not None else {}


def _log_abandoned_dispatch(worker: asyncio.Future) -> None:
    """Reads the outcome of a cancelled event's dispatch, which nobody awaits any more (so that
    asyncio does not report an exception as never retrieved)."""
    if not worker.cancelled() and worker.exception() is not None:
        logger.debug("hook-bridge: a cancelled dispatch failed", exc_info=worker.exception())


def _project_slug(path: Path) -> str:
    slug = str(path).replace("/", "-").replace("\\", "-").replace(":", "")
    return slug if slug.startswith("-") else "-" + slug


class HookBridge:
    """One mounted hook-bridge: the engine, the session context, and the registered handlers."""

    def __init__(self, coordinator: Any, config: dict[str, Any]):
        self.coordinator = coordinator
        self.config = config
        working_dir = self._capability("session.working_dir")
        base = Path(working_dir) if isinstance(working_dir, str) and working_dir else Path.cwd()
        if config["project_dir"] is not None:
            project = Path(os.path.expanduser(os.fspath(config["project_dir"])))
            project = project if project.is_absolute() else base / project
        else:
            project = base
        if not project.is_dir():
            raise ConfigError(f"hook-bridge: `project_dir` {str(project)!r} is not a directory")
        self.project_dir = project.resolve()
        self.working_dir = Path(working_dir).resolve() if isinstance(working_dir, str) and working_dir else self.project_dir
        self._working_dir_text = str(self.working_dir)
        self._hook_result = _hook_result_class()
        self.engine = Engine(
            str(self.project_dir),
            include_user_hooks=config["allow_user_hooks"],
            include_project_hooks=config["allow_project_hooks"],
            default_timeout=float(config["default_timeout"]),
            max_timeout=float(config["max_timeout"]),
            inline_hooks=json.dumps({"hooks": config["hooks"]}, indent=1, default=str)
            if config["hooks"] is not None else None,
        )
        for line in self.engine.diagnostics:
            logger.warning("hook-bridge: %s", line)
        self._unregister: list[Callable[[], Any]] = []
        self._env_dir: Path | None = None
        self._env_lock = threading.Lock()
        self._yours_env: _ScopeEnv | None = None
        self._project_env: _ScopeEnv | None = None
        self._transcript: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.closed = False
        if config["prompt_hooks"]["provider"] == "session":
            self.engine.set_model(self._ask_session_provider, self._converse_with_session_provider,
                                  self._judge_identity)

    # -- session context -------------------------------------------------------------------------

    def _capability(self, name: str) -> Any:
        try:
            return self.coordinator.get_capability(name)
        except Exception:
            return None

    def session_id(self, data: dict[str, Any]) -> str | None:
        sid = data.get("session_id")
        if isinstance(sid, str) and sid:
            return sid
        sid = getattr(self.coordinator, "session_id", None)
        return sid if isinstance(sid, str) and sid else None

    def env_files(self, session_id: str | None) -> tuple[_ScopeEnv, _ScopeEnv]:
        """The session's env files, yours and the project's, in a private folder created on first
        use (on a worker thread) and removed by cleanup."""
        with self._env_lock:
            if self._yours_env is None or self._project_env is None:
                prefix = f"hookbridge-env-{(session_id or 'session')[:8]}-"
                self._env_dir = Path(tempfile.mkdtemp(prefix=prefix))
                for name in ("yours.env", "project.env"):
                    (self._env_dir / name).touch(mode=0o600)
                self._yours_env = _ScopeEnv(self._env_dir / "yours.env")
                self._project_env = _ScopeEnv(self._env_dir / "project.env")
            return self._yours_env, self._project_env

    def transcript_path(self, session_id: str | None) -> str | None:
        if self._transcript is not None:
            return self._transcript
        declared = self._capability("session.transcript_path")
        if isinstance(declared, (str, os.PathLike)) and os.fspath(declared):
            return os.fspath(declared)
        if not session_id:
            return None
        projects = Path.home() / ".amplifier" / "projects"
        candidate = projects / _project_slug(self.working_dir) / "sessions" / session_id / "transcript.jsonl"
        if candidate.is_file():
            self._transcript = str(candidate)
        return self._transcript

    # -- prompt hooks ----------------------------------------------------------------------------

    def _ask_session_provider(self, system: str, user: str, model: str | None, max_tokens: int,
                              schema_json: str, timeout: float) -> str:
        """The engine's judge for prompt hooks: called on the hook's own thread while the event
        loop awaits the dispatch, it runs the provider call on that loop and waits for the text."""
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("hook-bridge: no event loop to ask the session's provider on")
        future = asyncio.run_coroutine_threadsafe(
            self._complete(system, user, model, max_tokens, json.loads(schema_json)), loop
        )
        try:
            return future.result(timeout)
        except BaseException:
            future.cancel()
            raise

    def _converse_with_session_provider(self, conversation_json: str, timeout: float) -> str:
        """The engine's model for agent hooks: their next turn, asked of the session's provider on
        the session's event loop (as for prompt hooks), as ``{"text", "calls"}`` JSON."""
        loop = self._loop
        if loop is None or loop.is_closed():
            raise RuntimeError("hook-bridge: no event loop to ask the session's provider on")
        future = asyncio.run_coroutine_threadsafe(self._converse(json.loads(conversation_json)), loop)
        try:
            return future.result(timeout)
        except BaseException:
            future.cancel()
            raise

    def _judge_provider(self) -> Any:
        """The mounted provider that answers prompt and agent hooks (``prompt_hooks.name``, else the
        first)."""
        providers = self.coordinator.get("providers") or {}
        wanted = self.config["prompt_hooks"]["name"]
        if wanted is not None:
            provider = providers.get(wanted)
            if provider is None:
                raise RuntimeError(
                    f"prompt_hooks.name is {wanted!r}, but the session's providers are {sorted(providers) or 'none'}"
                )
            return provider
        if providers:
            return next(iter(providers.values()))
        raise RuntimeError("the session has no provider mounted to answer prompt hooks")

    def _judge_identity(self) -> str:
        """Which model answers prompt and llm hooks, for the llm hook cache's key: the mounted
        provider ``_judge_provider`` picks (its name and class) and the model asked of it (the
        configured one, else the provider's own default), so that one model's cached answer is
        never replayed for another."""
        providers = self.coordinator.get("providers") or {}
        wanted = self.config["prompt_hooks"]["name"]
        name = wanted if wanted is not None else next(iter(providers), None)
        provider = providers.get(name) if name is not None else None
        kind = type(provider)
        model = self.config["prompt_hooks"]["model"] or getattr(provider, "default_model", None)
        return json.dumps({"provider": name, "class": f"{kind.__module__}.{kind.__qualname__}",
                           "model": model if isinstance(model, str) else None})

    async def _converse(self, conversation: dict[str, Any]) -> str:
        """One turn of an agent hook's conversation in amplifier-core's message model: the turns as
        user, assistant (text and tool calls) and tool messages, the hook's tools as ToolSpecs."""
        from amplifier_core.message_models import ChatRequest, Message, TextBlock, ToolCallBlock, ToolSpec

        messages = [Message(role="system", content=conversation["system"])]
        for turn in conversation["turns"]:
            if turn["role"] == "user":
                messages.append(Message(role="user", content=turn["text"]))
            elif turn["role"] == "assistant":
                blocks: list[Any] = [TextBlock(text=turn["text"])] if turn["text"] else []
                blocks += [ToolCallBlock(id=c["id"], name=c["name"], input=c["input"]) for c in turn["calls"]]
                messages.append(Message(role="assistant", content=blocks))
            else:
                for result in turn["results"]:
                    text = ("Error: " + result["text"]) if result["is_error"] else result["text"]
                    messages.append(Message(role="tool", content=text, tool_call_id=result["id"]))
        request = ChatRequest(
            messages=messages,
            tools=[ToolSpec(name=t["name"], description=t["description"], parameters=t["schema"])
                   for t in conversation["tools"]],
            max_output_tokens=conversation["max_tokens"],
            model=conversation["model"] or self.config["prompt_hooks"]["model"],
        )
        response = await self._judge_provider().complete(request)
        content = response.content or []
        text = "".join(getattr(block, "text", "") or "" for block in content if getattr(block, "type", "") == "text")
        if response.tool_calls:
            calls = [{"id": c.id, "name": c.name, "input": c.arguments} for c in response.tool_calls]
        else:
            calls = [{"id": b.id, "name": b.name, "input": b.input}
                     for b in content if getattr(b, "type", "") == "tool_call"]
        return json.dumps({"text": text, "calls": calls})

    async def _complete(self, system: str, user: str, model: str | None, max_tokens: int,
                        schema: dict[str, Any]) -> str:
        from amplifier_core.message_models import ChatRequest, Message, ResponseFormatJsonSchema

        provider = self._judge_provider()
        request = ChatRequest(
            messages=[Message(role="system", content=system), Message(role="user", content=user)],
            max_output_tokens=max_tokens,
            model=model or self.config["prompt_hooks"]["model"],
            response_format=ResponseFormatJsonSchema(json_schema=schema) if schema is not None else None,
        )
        response = await provider.complete(request)
        return "".join(getattr(block, "text", "") or "" for block in response.content or [])

    # -- dispatch --------------------------------------------------------------------------------

    def _dispatch_blocking(self, event: str, payload: str, session_id: str | None,
                           canceller: Canceller) -> dict[str, Any]:
        """Runs on a worker thread: the engine releases the GIL while hooks run."""
        yours, project = self.env_files(session_id)
        out = self.engine.dispatch(
            event,
            payload,
            session_id=session_id,
            cwd=self._working_dir_text,
            transcript_path=self.transcript_path(session_id),
            env_file=str(yours.path),
            extra_env=dict(yours.vars),
            project_env_file=str(project.path),
            project_extra_env=dict(project.vars),
            cancel=canceller,
        )
        with self._env_lock:
            yours.refresh()
            project.refresh()
        return out

    async def _dispatch(self, event: str, payload: str, session_id: str | None) -> dict[str, Any]:
        """The dispatch on a worker thread, stopped if the awaiting task is cancelled: the engine
        kills the hooks still running (their process groups) and returns; once it has, the
        ``CancelledError`` goes on. The worker is shielded so that the cancellation does not just
        abandon it with the hooks running."""
        canceller = Canceller()
        worker = asyncio.ensure_future(
            asyncio.to_thread(self._dispatch_blocking, event, payload, session_id, canceller)
        )
        try:
            return await asyncio.shield(worker)
        except asyncio.CancelledError:
            canceller.cancel()
            worker.add_done_callback(_log_abandoned_dispatch)
            try:
                done, _ = await asyncio.wait({worker}, timeout=CANCEL_WAIT)
                if not done:
                    logger.warning("hook-bridge: %s was cancelled, but its dispatch has not returned after %ss",
                                   event, CANCEL_WAIT)
            except asyncio.CancelledError:
                pass  # cancelled again while waiting: the dispatch was told to stop all the same
            logger.info("hook-bridge: %s was cancelled; its hooks were stopped", event)
            raise

    async def handle(self, event: str, data: Any) -> Any:
        result = await self._handle(event, data)
        if event == TURN_END and not self.closed and not (isinstance(data, dict) and data.get("status") == "cancelled"):
            await self.tell_of_silent_hooks(event, data if isinstance(data, dict) else {})
        return result

    async def tell_of_silent_hooks(self, event: str, data: dict[str, Any]) -> None:
        """At the end of a turn, name the session's hooks that failed in every run once (from the
        audit log): a guard that never launched checked nothing, and nobody would know."""
        session_id = self.session_id(data)
        if session_id is None:
            return
        try:
            notice = await asyncio.to_thread(self.engine.silent_hooks_notice, session_id)
        except Exception:
            logger.warning("hook-bridge: could not read the audit log", exc_info=True)
            return
        if notice:
            logger.warning("%s", notice)
            await self.show(event, notice, "warning")

    async def _handle(self, event: str, data: Any) -> Any:
        HookResult = self._hook_result
        if self.closed or not self.engine.handles(event):
            return HookResult()
        data = data if isinstance(data, dict) else {}
        # Selection is decided here, in microseconds, so that an event no hook matches returns at
        # once, without the hop to a worker thread: first from the tool's name alone (a tool no
        # matcher names, before the data is serialized), then from the whole data.
        tool_name = data.get("tool_name")
        if isinstance(tool_name, str) and not self.engine.may_select_tool(event, tool_name):
            return HookResult()
        session_id = self.session_id(data)
        self._loop = asyncio.get_running_loop()
        try:
            payload = json.dumps(data, default=str)
            if not self.engine.selects(event, payload, session_id=session_id, cwd=self._working_dir_text):
                return HookResult()
            out = await self._dispatch(event, payload, session_id)
        except Exception as e:  # the bridge itself failed: loudly, and closed where a guard decides
            logger.exception("hook-bridge: dispatching %s failed", event)
            await self.show(event, f"hook-bridge could not run the hooks for {event}: {e}", "warning")
            if event == "tool:pre":
                # A tool call the guards could not be given (data nested past what the engine
                # reads, a number JSON cannot hold, ...) is refused, as the engine refuses one
                # whose input it cannot read: the model controls that data (red-team pass 14).
                return HookResult(action="deny", reason=f"hook-bridge could not give this call to the hooks that guard it ({e}), so it is refused")
            return HookResult()
        if logger.isEnabledFor(logging.DEBUG):
            for report in out.get("reports", []):
                logger.debug("hook-bridge: %s report: %s", event, json.dumps(report))
        for note in out.get("notes", []):
            logger.info("hook-bridge: %s: %s", event, note)
        for warning in out.get("warnings", []):
            logger.warning("hook-bridge: %s", warning)
            await self.show(event, warning, "warning")
        result = HookResult.model_validate(out["result"])
        if out.get("stop_turn") is not None:
            await self.stop_turn(event, out["stop_turn"])
        if event in SELF_APPLIED_EVENTS:
            if result.action != "continue" or result.user_message:
                result = await self.coordinator.process_hook_result(result, event, f"{MODULE_ID}:{event}")
            return result
        if result.user_message and result.action in ("continue", "modify", "ask_user"):
            await self.show(event, result.user_message, result.user_message_level, result.user_message_source)
        return result

    async def stop_turn(self, event: str, reason: str) -> None:
        """``continue: false`` on a tool event: as in Claude Code, the operation goes on (the tool
        runs unless a hook denied it) and the turn ends after it. A graceful cancel does that with
        the published orchestrators: they finish the current tool, then stop before the next model
        request or tool."""
        logger.info("hook-bridge: %s: continue: false, the turn ends: %s", event, reason)
        request_cancel = getattr(self.coordinator, "request_cancel", None)
        if request_cancel is None:
            await self.show(event, f"a hook asked to stop ({reason}), but this session cannot be cancelled", "warning")
            return
        try:
            await request_cancel(False)
        except Exception as e:
            logger.warning("hook-bridge: could not stop the turn", exc_info=True)
            await self.show(event, f"a hook asked to stop ({reason}), but cancelling failed: {e}", "warning")

    async def show(self, event: str, message: str, level: str = "info", source: str | None = None) -> None:
        """Show ``message`` to the user through the kernel (display system, else the log)."""
        HookResult = _hook_result_class()
        note = HookResult(
            action="continue",
            user_message=message,
            user_message_level=level,
            user_message_source=source or MODULE_ID,
        )
        try:
            await self.coordinator.process_hook_result(note, event, MODULE_ID)
        except Exception:
            logger.warning("hook-bridge: could not show a message: %s", message, exc_info=True)

    # -- lifecycle -------------------------------------------------------------------------------

    async def deliver_async_answers(self, event: str, data: Any) -> Any:
        """``provider:request``: what ``async: true`` hooks that finished since the last request left
        for the model (their ``systemMessage`` and ``additionalContext``), as one system message
        kept in the conversation — where Claude Code shows it, on its next request (shared case 81).
        """
        HookResult = _hook_result_class()
        if self.closed:
            return HookResult()
        texts = self.engine.take_async_context()
        if not texts:
            return HookResult()
        return HookResult(action="inject_context", context_injection="\n\n".join(texts),
                          context_injection_role="system")

    def register(self, priority: int) -> None:
        for event in amplifier_events():
            async def handler(ev: str, data: Any, _event: str = event) -> Any:
                return await self.handle(_event, data)

            unregister = self.coordinator.hooks.register(event, handler, priority=priority, name=f"{MODULE_ID}:{event}")
            self._unregister.append(unregister)

        async def deliver(ev: str, data: Any) -> Any:
            return await self.deliver_async_answers(ev, data)

        unregister = self.coordinator.hooks.register("provider:request", deliver, priority=priority,
                                                     name=f"{MODULE_ID}:async-answers")
        self._unregister.append(unregister)

    def cleanup(self) -> None:
        """Unregister every handler and remove the env files. Idempotent, never raises."""
        if self.closed:
            return
        self.closed = True
        for unregister in self._unregister:
            try:
                unregister()
            except Exception:
                logger.debug("hook-bridge: unregister failed", exc_info=True)
        self._unregister.clear()
        with self._env_lock:
            if self._env_dir is not None:
                shutil.rmtree(self._env_dir, ignore_errors=True)


async def mount(coordinator: Any, config: dict[str, Any] | None = None) -> Callable[[], None] | None:
    """Mount hook-bridge on ``coordinator``; returns the cleanup callable (``None`` when disabled)."""
    settings = parse_config(config)
    if not settings["enabled"]:
        logger.info("hook-bridge: disabled by config")
        return None
    bridge = HookBridge(coordinator, settings)
    bridge.register(settings["priority"])
    logger.info(
        "hook-bridge: %d hook(s) from %s (user hooks %s, project hooks %s)",
        bridge.engine.hook_count,
        bridge.project_dir,
        "on" if settings["allow_user_hooks"] else "off",
        "on" if settings["allow_project_hooks"] else "off",
    )
    return bridge.cleanup
