"""``hookbridge.HookRegistry``: amplifier-core 2.0.2's ``HookRegistry``, same Python API, same semantics.

Every rule (ordering, defaults and timestamp, deny/modify/inject/ask_user folding, the
duplicate-name rules, ...) lives in Rust (``hookbridge-core``, ``amplifier::registry``); this
module is the thin asyncio loop around it. For each handler the Rust fold names, the loop calls
the handler (sync or async), turns its answer into JSON and feeds it back. Values cross the
boundary as ``json.dumps(value, default=str)`` text, the same path amplifier-core takes, so the
same inputs convert (or fail) the same way.

``emit`` returns ``amplifier_core.models.HookResult`` when amplifier-core is importable, so
hookbridge is a drop-in replacement next to the kernel; otherwise it returns
:class:`HookResult` below, a dependency-free class with the same fields.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import inspect
import json
import logging
import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Literal

from . import _native

__all__ = ["ContextInjection", "HookRegistry", "HookResult", "result_class"]

logger = logging.getLogger("hookbridge")

#: amplifier-core runs ``emit_and_collect`` timeouts on tokio's timer, whose resolution is one
#: millisecond: even a zero timeout lets a handler that finishes without waiting complete.
_MIN_TIMEOUT = 0.001

_ACTIONS = ("continue", "deny", "modify", "inject_context", "ask_user")
_ROLES = ("system", "user", "assistant")
_LEVELS = ("info", "warning", "error")
_APPROVAL_DEFAULTS = ("allow", "deny")


def _check_literal(field_name: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"{field_name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")


@dataclass
class ContextInjection:
    """One ordered context injection (``amplifier_core.models.ContextInjection``)."""

    content: str
    role: Literal["system", "user", "assistant"] = "system"
    ephemeral: bool = False
    append_to_last_tool_result: bool = False
    hook_name: str = "unknown"
    event: str = ""

    def __post_init__(self) -> None:
        _check_literal("role", self.role, _ROLES)

    def model_dump(self, *, mode: str = "python", **_options: Any) -> dict[str, Any]:
        """The fields as a dict, like pydantic's ``model_dump``."""
        return dataclasses.asdict(self)


@dataclass
class HookResult:
    """A hook handler's answer: the fields and defaults of ``amplifier_core.models.HookResult``.

    Handlers may return it to either registry (it has ``model_dump``). ``model_validate`` is as
    strict as the kernel (the check runs in Rust).
    """

    action: Literal["continue", "deny", "modify", "inject_context", "ask_user"] = "continue"
    data: dict[str, Any] | None = None
    reason: str | None = None
    context_injection: str | None = None
    context_injection_role: Literal["system", "user", "assistant"] = "system"
    ephemeral: bool = False
    approval_prompt: str | None = None
    approval_options: list[str] | None = None
    approval_timeout: float = 300.0
    approval_default: Literal["allow", "deny"] = "deny"
    suppress_output: bool = False
    user_message: str | None = None
    user_message_level: Literal["info", "warning", "error"] = "info"
    user_message_source: str | None = None
    append_to_last_tool_result: bool = False
    context_injections: list[ContextInjection] = field(default_factory=list)

    def __post_init__(self) -> None:
        _check_literal("action", self.action, _ACTIONS)
        _check_literal("context_injection_role", self.context_injection_role, _ROLES)
        _check_literal("user_message_level", self.user_message_level, _LEVELS)
        _check_literal("approval_default", self.approval_default, _APPROVAL_DEFAULTS)
        self.context_injections = [
            item if isinstance(item, ContextInjection) else ContextInjection(**item)
            for item in self.context_injections
        ]

    def model_dump(self, *, mode: str = "python", **_options: Any) -> dict[str, Any]:
        """The fields as a dict (the keys and order of pydantic's ``model_dump``)."""
        return dataclasses.asdict(self)

    @classmethod
    def model_validate(cls, obj: Any) -> HookResult:
        """Builds a result from a dict (partial is fine) or any object with ``model_dump``."""
        if isinstance(obj, cls):
            return obj
        return cls(**json.loads(_native.normalize_hook_result(_dumps(obj))))


@functools.cache
def result_class() -> type:
    """The class ``emit`` returns: amplifier-core's ``HookResult`` if importable, else ours."""
    try:
        from amplifier_core.models import HookResult as KernelHookResult
    except ImportError:
        return HookResult
    return KernelHookResult


def _plain(obj: Any) -> Any:
    """What amplifier-core serializes for ``obj``: ``model_dump(mode="json")`` (or, failing that,
    ``model_dump()``) when there is one, else the object itself."""
    dump = getattr(obj, "model_dump", None)
    if callable(dump):
        try:
            return dump(mode="json")
        except Exception:
            try:
                return dump()
            except Exception:
                return obj
    return obj


def _dumps(obj: Any) -> str:
    return json.dumps(_plain(obj), default=str)


def _to_result(result_json: str) -> Any:
    return result_class().model_validate(json.loads(result_json))


async def _call(handler: Any, event: str, data: Any) -> Any:
    answer = handler(event, data)
    if inspect.isawaitable(answer):
        answer = await answer
    return answer


def _log_failure(message: str, exc: BaseException) -> None:
    logger.error(message, exc_info=exc if logger.isEnabledFor(logging.DEBUG) else None)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _timeout_seconds(timeout: Any) -> float | None:
    if not isinstance(timeout, numbers.Real):
        raise TypeError(f"must be real number, not {type(timeout).__name__}")
    seconds = float(timeout)
    if math.isnan(seconds) or seconds < 0:
        raise ValueError(f"timeout must be a non-negative number of seconds, got {timeout!r}")
    if math.isinf(seconds):
        return None
    return max(seconds, _MIN_TIMEOUT)


class HookRegistry(_native.RegistryCore):
    """Drop-in for ``amplifier_core.HookRegistry`` (2.0.2).

    Inherited from the Rust core: ``register(event, handler, priority=0, name=None)`` (returns an
    idempotent unregister callable), ``on`` (alias), ``unregister(name)`` (removes the most
    recently registered handler of that name), ``list_handlers(event=None)``.
    """

    SESSION_START = "session:start"
    SESSION_END = "session:end"
    PROMPT_SUBMIT = "prompt:submit"
    TOOL_PRE = "tool:pre"
    TOOL_POST = "tool:post"
    CONTEXT_PRE_COMPACT = "context:pre_compact"
    ORCHESTRATOR_COMPLETE = "orchestrator:complete"
    USER_NOTIFICATION = "user:notification"

    def set_default_fields(self, **defaults: Any) -> None:
        """Replaces (does not merge) the fields merged under ``emit`` data."""
        self._set_default_fields_json(_dumps(defaults))

    async def emit(self, event: str, data: Any) -> Any:
        """Calls the event's handlers one by one, lowest priority first, and folds their answers.

        deny stops at once; modify replaces the data for the next handler; inject_context answers
        are merged; the first ask_user wins over them. A handler that raises is logged and
        skipped; one that answers something that is not a HookResult ends the emit with a deny.
        """
        fold = self._start_emit(event, _dumps(data))
        while (call := fold.next_call()) is not None:
            handler, _name, data_json = call
            try:
                answer = await _call(handler, event, json.loads(data_json))
                answer_json = None if answer is None else _dumps(answer)
            except Exception as exc:
                _log_failure(fold.accept_error(_describe(exc)), exc)
                continue
            done, problem = fold.accept_result(answer_json)
            if problem is not None:
                logger.error(problem)
            if done is not None:
                return _to_result(done)
        return _to_result(fold.finish())

    async def emit_and_collect(self, event: str, data: Any, timeout: float = 1.0) -> list[dict[str, Any]]:
        """Calls every handler with the original data (no defaults, no timestamp), each bounded by
        ``timeout`` seconds, and returns the ``data`` of every answer that has some, whatever its
        action. Timeouts, failures and invalid answers are logged and skipped."""
        seconds = _timeout_seconds(timeout)
        fold = self._start_collect(event, _dumps(data))
        while (call := fold.next_call()) is not None:
            handler, _name, data_json = call
            scope = asyncio.timeout(seconds)
            try:
                async with scope:
                    answer = await _call(handler, event, json.loads(data_json))
                answer_json = None if answer is None else _dumps(answer)
            except Exception as exc:
                if isinstance(exc, TimeoutError) and scope.expired():
                    logger.warning(fold.accept_timeout())
                else:
                    _log_failure(fold.accept_error(_describe(exc)), exc)
                continue
            problem = fold.accept_result(answer_json)
            if problem is not None:
                logger.error(problem)
        return json.loads(fold.finish())
