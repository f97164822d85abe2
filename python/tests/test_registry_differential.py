"""Differential property test: hookbridge.HookRegistry against amplifier_core.HookRegistry 2.0.2.

Hypothesis generates *programs*: sequences of registrations (priorities with negatives and ties,
names with duplicates and None, sync and async handlers answering with dicts, kernel pydantic
HookResults, hookbridge HookResults or None, raising, answering garbage, echoing their data,
yielding to the event loop many times before answering), unregistering by handle and by name, set_default_fields,
emit, emit_and_collect and list_handlers. Each program runs on a fresh registry of each kind; the
observable outputs (results' model_dump with timestamps checked as RFC 3339 and then masked,
collected lists, listings with auto names masked, exceptions) and the handler call logs (which
handler ran, in which order, with which data) must be identical. A failure prints the program.

Nothing here depends on how fast the machine is. The collect timeout of the programs is a hang
guard no handler comes near; the timeout itself is compared in its own test, with handlers whose
fate does not depend on the clock (one that never answers, and synchronous ones, which both
registries run to the end whatever the timeout).

HOOKBRIDGE_DIFF_EXAMPLES overrides the number of programs (default 2000).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import logging
import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import hookbridge
from _support import HAVE_KERNEL, KernelHookResult, normalize, normalize_listing, normalize_name

pytestmark = pytest.mark.skipif(not HAVE_KERNEL, reason="amplifier-core==2.0.2 is not installed")

if HAVE_KERNEL:
    import amplifier_core

EXAMPLES = int(os.environ.get("HOOKBRIDGE_DIFF_EXAMPLES", "2000"))
# Seconds. amplifier-core's collect timeout runs on a tokio thread and races the event loop: on a
# loaded machine it cuts off async handlers that never wait on anything (measured: with three
# threads hogging the GIL and a 1 ms timeout, 2.0.2 collected 58 of 200 such answers). So no
# handler of a generated program may meet the timeout: it is a hang guard, far beyond any handler.
COLLECT_TIMEOUT = 60.0
# "slow" handlers yield to the event loop this many times inside emit_and_collect before answering.
SLOW_TURNS = 20
# The timeout test: short, because the one handler it cuts off never answers at all.
SHORT_TIMEOUT = 0.05

EVENTS = ["tool:pre", "tool:post", "*", "session:start"]
NAMES = ["a", "b", "dup", "", "tool:pre"]
TEXTS = ["", "x", "hello world", "two\nlines", "ünïcödé"]
ACTIONS = ["continue", "deny", "modify", "inject_context", "ask_user"]
ROLES = ["system", "user", "assistant"]


def _drop(record: logging.LogRecord) -> bool:
    return False


@pytest.fixture(autouse=True)
def quiet_registries():
    """Thousands of handlers fail on purpose: keep both registries' logs out of the report. A
    filter, not a level: the kernel's Rust logging caches Python logger levels for the life of
    the process, so a level changed here would silence it for every later test too."""
    loggers = [logging.getLogger(name) for name in ("hookbridge", "amplifier_core.hooks", "_engine.bridges")]
    for logger in loggers:
        logger.addFilter(_drop)
    yield
    for logger in loggers:
        logger.removeFilter(_drop)


# ---------------------------------------------------------------------------------------------
# Program model


@dataclass(frozen=True)
class HandlerSpec:
    tag: str  # unique per program: what the call log records
    event: str
    priority: int
    name: str | None
    is_async: bool
    via_on: bool  # register through the `on` alias
    kind: str  # none | raise | invalid | result | echo | slow
    payload: Any = None  # result fields, or the invalid answer
    style: str = "dict"  # dict | kernel | hookbridge

    def __repr__(self) -> str:
        how = "on" if self.via_on else "register"
        sync = "async" if self.is_async else "sync"
        extra = "" if self.payload is None else f" {self.payload!r}"
        return (f"{how}({self.event!r}, {self.tag}, priority={self.priority}, name={self.name!r}) "
                f"# {sync} {self.kind}/{self.style}{extra}")


@dataclass(frozen=True)
class Step:
    kind: str  # register | unregister_handle | unregister_name | defaults | emit | collect | list
    arg: Any = None
    data: Any = None

    def __repr__(self) -> str:
        if self.kind == "register":
            return repr(self.arg)
        if self.kind == "emit":
            return f"emit({self.arg!r}, {self.data!r})"
        if self.kind == "collect":
            return f"emit_and_collect({self.arg!r}, {self.data!r}, timeout={COLLECT_TIMEOUT})"
        if self.kind == "defaults":
            return f"set_default_fields(**{self.arg!r})"
        if self.kind == "unregister_handle":
            return f"handles[{self.arg} % len(handles)]()"
        if self.kind == "unregister_name":
            return f"unregister({self.arg!r})"
        return f"list_handlers({self.arg!r})"


def pretty(steps: list[Step]) -> str:
    return "\n".join(f"  {i:2}: {step!r}" for i, step in enumerate(steps))


# ---------------------------------------------------------------------------------------------
# Strategies

VALUES = [0, -3, 5, "", "x", "two\nlines", True, False, None, 1.5, -0.0, 2**64, 10**20,
          [1, "a"], [], {"x": 1}, {"x": {"y": [None]}}, {"y": []}]
values = st.sampled_from(VALUES)
small_dicts = st.dictionaries(st.sampled_from(["k", "n", "session_id", "timestamp", "tool_name"]),
                              values, max_size=3)
event_data = st.one_of(
    small_dicts,
    small_dicts.map(lambda d: {**d, "timestamp": "caller-ts"} if d else d),
    st.sampled_from([None, [1, 2], "text", 5, {"t": (1, 2)}, {"x": float("nan")}]),
)
defaults_strategy = st.dictionaries(st.sampled_from(["session_id", "k", "timestamp", "d"]), values, max_size=3)

INJECTION_ITEMS = [
    {"content": "i1"},
    {"content": ""},
    {"content": "i2", "role": "user"},
    {"content": "i3", "ephemeral": True},
    {"content": "i4", "append_to_last_tool_result": True, "role": "assistant"},
    {"content": "i5", "hook_name": "given", "event": "given:event", "ephemeral": False},
]

#: Every optional field with its values; the fields that drive the registry appear several times
#: so they are drawn more often.
FIELD_VALUES: dict[str, st.SearchStrategy] = {
    "data": st.one_of(st.none(), small_dicts),
    "reason": st.sampled_from(TEXTS),
    "context_injection": st.one_of(st.none(), st.sampled_from(TEXTS)),
    "context_injection_role": st.sampled_from(ROLES),
    "ephemeral": st.booleans(),
    "approval_prompt": st.sampled_from(TEXTS),
    "approval_options": st.sampled_from([None, [], ["Allow", "Deny"], ["Allow always"]]),
    "approval_timeout": st.sampled_from([1.5, 30, 300.0]),
    "approval_default": st.sampled_from(["allow", "deny"]),
    "suppress_output": st.booleans(),
    "user_message": st.sampled_from(TEXTS),
    "user_message_level": st.sampled_from(["info", "warning", "error"]),
    "user_message_source": st.sampled_from(TEXTS),
    "append_to_last_tool_result": st.booleans(),
    "context_injections": st.lists(st.sampled_from(INJECTION_ITEMS), max_size=2),
}
HOT_FIELDS = ["data", "context_injection", "context_injections", "ephemeral", "suppress_output",
              "user_message", "context_injection_role", "append_to_last_tool_result"]
FIELD_KEYS = list(FIELD_VALUES) + HOT_FIELDS * 2


# Strategies are built once: building them inside a draw re-validates them every time.
ACTION_S = st.sampled_from(ACTIONS)
BOOL_S = st.booleans()
FIELD_KEYS_S = st.lists(st.sampled_from(FIELD_KEYS), max_size=4, unique=True)
KIND_S = st.sampled_from(["result"] * 6 + ["none", "raise", "invalid", "echo", "echo", "slow"])
INVALID_S = st.sampled_from(INVALID_ANSWERS := [
    "not a result", 5, [1], True, 1.5, {"action": "bogus"}, {"ephemeral": "yes"},
    {"action": "modify", "data": [1]}, {"reason": 5}, {"action": None},
    {"context_injections": [{"role": "user"}]}, {"action": "deny", "x": float("nan")}])
EVENT_S = st.sampled_from(EVENTS)
PRIORITY_S = st.one_of(st.integers(-3, 3), st.sampled_from([-(2**31), 2**31 - 1]))
NAME_S = st.one_of(st.none(), st.sampled_from(NAMES))
STYLE_S = st.sampled_from(["dict", "kernel", "hookbridge"])
VIA_ON_S = st.integers(0, 4).map(lambda n: n == 0)
STEP_KIND_S = st.sampled_from(
    ["register"] * 7 + ["emit"] * 6 + ["collect"] * 2 + ["defaults", "unregister_handle", "unregister_name", "list"])
HANDLE_S = st.integers(0, 20)
UNREGISTER_NAME_S = st.sampled_from(NAMES + ["missing"])
LIST_EVENT_S = st.one_of(st.none(), EVENT_S)
LENGTH_S = st.integers(1, 14)


@st.composite
def result_fields(draw):
    """A partial HookResult: only some fields, as a handler would write it."""
    fields: dict[str, Any] = {}
    action = draw(ACTION_S)
    if action != "continue" or draw(BOOL_S):
        fields["action"] = action
    for key in draw(FIELD_KEYS_S):
        fields[key] = draw(FIELD_VALUES[key])
    return fields


RESULT_FIELDS_S = result_fields()


@st.composite
def handler_specs(draw):
    kind = draw(KIND_S)
    payload = None
    if kind in ("result", "slow"):
        payload = draw(RESULT_FIELDS_S)
    elif kind == "invalid":
        payload = draw(INVALID_S)
    return HandlerSpec(
        tag="",
        event=draw(EVENT_S),
        priority=draw(PRIORITY_S),
        name=draw(NAME_S),
        is_async=kind == "slow" or draw(BOOL_S),
        via_on=draw(VIA_ON_S),
        kind=kind,
        payload=payload,
        style=draw(STYLE_S),
    )


HANDLER_SPEC_S = handler_specs()


@st.composite
def programs(draw):
    steps: list[Step] = []
    registered = 0
    for _ in range(draw(LENGTH_S)):
        kind = draw(STEP_KIND_S)
        if kind == "register":
            registered += 1
            spec = dataclasses.replace(draw(HANDLER_SPEC_S), tag=f"h{registered}")
            steps.append(Step("register", spec))
        elif kind in ("emit", "collect"):
            steps.append(Step(kind, draw(EVENT_S), draw(event_data)))
        elif kind == "defaults":
            steps.append(Step("defaults", draw(defaults_strategy)))
        elif kind == "unregister_handle":
            steps.append(Step("unregister_handle", draw(HANDLE_S)))
        elif kind == "unregister_name":
            steps.append(Step("unregister_name", draw(UNREGISTER_NAME_S)))
        else:
            steps.append(Step("list", draw(LIST_EVENT_S)))
    # Always finish with an emit of every event that has handlers, so registrations get exercised.
    for event in dict.fromkeys(s.arg.event for s in steps if s.kind == "register"):
        steps.append(Step("emit", event, {"k": 1}))
    return steps


# ---------------------------------------------------------------------------------------------
# Running a program


def make_answer(spec: HandlerSpec, fields: dict[str, Any]) -> Any:
    fields = copy.deepcopy(fields)
    if spec.style == "kernel":
        return KernelHookResult(**fields)
    if spec.style == "hookbridge":
        return hookbridge.HookResult(**fields)
    return fields


def build_handler(spec: HandlerSpec, log: list, mode: dict[str, bool]):
    """The handler for `spec`. It records its call on entry, before any await, so the log says
    which handlers were *started*, whatever happens to them afterwards (a timed-out handler may
    be cancelled a little earlier or later by either implementation)."""

    def answer(data: Any) -> Any:
        if spec.kind == "none":
            if isinstance(data, dict):
                data["mutated_by"] = spec.tag  # must not leak to later handlers or the result
            return None
        if spec.kind == "raise":
            raise ValueError(f"boom from {spec.tag}")
        if spec.kind == "invalid":
            return copy.deepcopy(spec.payload)
        if spec.kind == "echo":
            echoed = dict(data) if isinstance(data, dict) else {}
            echoed["seen_by"] = spec.tag
            return make_answer(spec, {"action": "modify", "data": echoed})
        return make_answer(spec, spec.payload)

    def record(event: str, data: Any) -> None:
        log.append((spec.tag, event, normalize(copy.deepcopy(data))))

    if not spec.is_async:

        def handler(event: str, data: Any) -> Any:
            record(event, data)
            return answer(data)

        return handler

    async def async_handler(event: str, data: Any) -> Any:
        record(event, data)
        for _ in range(SLOW_TURNS if spec.kind == "slow" and mode["collect"] else 1):
            await asyncio.sleep(0)
        return answer(data)

    return async_handler


async def execute(registry_cls: type, steps: list[Step]) -> tuple[list, list]:
    registry = registry_cls()
    log: list = []
    outputs: list = []
    handles: list = []
    mode = {"collect": False}
    for index, step in enumerate(steps):
        if step.kind == "register":
            spec: HandlerSpec = step.arg
            register = registry.on if spec.via_on else registry.register
            handle = register(spec.event, build_handler(spec, log, mode), priority=spec.priority, name=spec.name)
            handles.append(handle)
            outputs.append((index, "registered", normalize_name(repr(handle)[len("<unregister '"):-2])))
        elif step.kind == "unregister_handle":
            if handles:
                outputs.append((index, "handle()", handles[step.arg % len(handles)]()))
        elif step.kind == "unregister_name":
            outputs.append((index, "unregister", registry.unregister(step.arg)))
        elif step.kind == "defaults":
            try:
                registry.set_default_fields(**copy.deepcopy(step.arg))
            except Exception as exc:  # noqa: BLE001 - compared between implementations
                outputs.append((index, "defaults raised", type(exc).__name__, str(exc)))
        elif step.kind == "list":
            listing = registry.list_handlers(step.arg) if step.arg is not None else registry.list_handlers()
            outputs.append((index, "list", normalize_listing(listing)))
        else:
            try:
                if step.kind == "emit":
                    result = await registry.emit(step.arg, copy.deepcopy(step.data))
                    outputs.append((index, "emit", type(result).__name__, normalize(result.model_dump())))
                else:
                    mode["collect"] = True
                    try:
                        collected = await registry.emit_and_collect(step.arg, copy.deepcopy(step.data),
                                                                    timeout=COLLECT_TIMEOUT)
                    finally:
                        mode["collect"] = False
                    outputs.append((index, "collect", normalize(collected)))
            except Exception as exc:  # noqa: BLE001 - compared between implementations
                outputs.append((index, f"{step.kind} raised", type(exc).__name__, str(exc)))
    return outputs, log


def first_difference(ours: list, theirs: list) -> str:
    for i, (a, b) in enumerate(zip(ours, theirs)):
        if a != b:
            return f"first difference at item {i}:\n  hookbridge:     {a!r}\n  amplifier-core: {b!r}"
    return f"lengths differ: hookbridge {len(ours)}, amplifier-core {len(theirs)}"


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(programs())
def test_hookbridge_matches_amplifier_core(steps: list[Step]):
    note("program:\n" + pretty(steps))
    ours_out, ours_log = asyncio.run(execute(hookbridge.HookRegistry, steps))
    theirs_out, theirs_log = asyncio.run(execute(amplifier_core.HookRegistry, steps))
    assert ours_out == theirs_out, "outputs differ; " + first_difference(ours_out, theirs_out)
    assert ours_log == theirs_log, "handler calls differ; " + first_difference(ours_log, theirs_log)


def test_a_handler_past_the_collect_timeout_is_skipped_by_both():
    """emit_and_collect's timeout, compared without a race: the late handler waits for an event
    nobody sets, so it is past any timeout; the others are synchronous, which amplifier-core 2.0.2
    calls inline and never cuts short (measured: even a zero timeout collects them). Both
    registries skip the late handler, keep going with the next one, and collect the rest in order."""

    async def run(registry_cls: type) -> tuple[list, list]:
        registry = registry_cls()
        calls: list = []

        def sync_handler(tag: str, action: str):
            def handler(event: str, data: Any) -> Any:
                calls.append((tag, data))
                return {"action": action, "data": {"from": tag}}
            return handler

        async def never_answers(event: str, data: Any) -> Any:
            calls.append(("late", data))
            await asyncio.Event().wait()
            return {"action": "continue", "data": {"from": "late"}}

        registry.register("tool:pre", sync_handler("first", "continue"), priority=1, name="first")
        registry.register("tool:pre", never_answers, priority=2, name="late")
        registry.register("tool:pre", sync_handler("after", "deny"), priority=3, name="after")
        registry.register("tool:post", sync_handler("other event", "continue"), priority=0)
        # A registry that never applies the timeout would hang here: fail instead.
        collected = await asyncio.wait_for(
            registry.emit_and_collect("tool:pre", {"n": 1}, timeout=SHORT_TIMEOUT), COLLECT_TIMEOUT)
        return normalize(collected), calls

    theirs = asyncio.run(run(amplifier_core.HookRegistry))
    # The reference itself, so that the comparison below is about a timeout that happened.
    assert theirs == ([{"from": "first"}, {"from": "after"}],
                      [("first", {"n": 1}), ("late", {"n": 1}), ("after", {"n": 1})]), theirs
    ours = asyncio.run(run(hookbridge.HookRegistry))
    assert ours == theirs


def test_the_generator_reaches_every_rule():
    """A smoke check that the generator is not degenerate (kinds, styles, actions all occur)."""
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, database=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(programs())
    def collect(steps):
        for step in steps:
            seen.add(step.kind)
            if step.kind == "register":
                spec = step.arg
                seen.update({f"kind:{spec.kind}", f"style:{spec.style}", f"async:{spec.is_async}"})
                if isinstance(spec.payload, dict):
                    seen.add(f"action:{spec.payload.get('action', 'continue')}")

    collect()
    expected = {"register", "emit", "collect", "defaults", "unregister_handle", "unregister_name", "list"}
    expected |= {f"kind:{k}" for k in ["none", "raise", "invalid", "result", "echo", "slow"]}
    expected |= {f"style:{s}" for s in ["dict", "kernel", "hookbridge"]} | {"async:True", "async:False"}
    expected |= {f"action:{a}" for a in ACTIONS}
    assert expected <= seen, sorted(expected - seen)
