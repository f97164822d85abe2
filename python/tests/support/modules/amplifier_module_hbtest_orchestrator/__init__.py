"""A minimal agent loop for end-to-end tests (module id ``hbtest-orchestrator``).

The reference orchestrator (loop-basic) is not on PyPI, so the tests bring their own. It emits the
kernel's standard events with the payloads loop-basic emits and acts on their results the way a
well-behaved orchestrator should:

- ``prompt:submit`` ``{prompt}``: processed by ``coordinator.process_hook_result`` (context
  injections land in the context, ``ask_user`` goes to the approval system); ``deny`` ends the turn
  with ``"Operation denied: <reason>"``.
- ``tool:pre`` ``{tool_name, tool_input, tool_call_id}``: processed; ``deny`` (from a hook, or from
  the user answering an approval) skips the tool and returns ``"Denied by hook: <reason>"`` as its
  result; a changed ``data["tool_input"]`` (a hook's ``modify``, which the registry hands back as
  ``continue`` with the new data) becomes the tool's input.
- ``tool:post`` ``{tool_name, tool_input, result, tool_call_id}`` with ``result`` the
  ``ToolResult`` (hooks get ``str(ToolResult)``, as with loop-basic on 2.0.2): processed; ephemeral injections go into the next request; a changed
  ``data["result"]`` replaces the output.
- ``provider:request`` ``{provider, iteration}`` before each model request, processed before the
  request's messages are read, as loop-basic does: a (persistent) context injection is in this
  request and kept; an ephemeral one is added to this request only.
- ``tool:error`` when a tool raises; ``prompt:complete`` and ``orchestrator:complete`` at the end.
- Cancellation, as loop-basic and loop-streaming check it: ``coordinator.cancellation.is_cancelled``
  before each model request and before each tool; a graceful cancel (``request_cancel(False)``, what
  hook-bridge asks for on ``continue: false``) lets the running tool finish, then no further tool
  runs and no further request is made; the turn ends with ``status: "cancelled"``.

Tool calls run one after another (loop-basic runs them in parallel; sequential keeps the tests
deterministic). Ephemeral injections that ask for ``append_to_last_tool_result`` are appended to
the last tool result of the next request, as loop-basic does. Config: ``max_turns`` (default 8).
"""

from __future__ import annotations

import json
from typing import Any

from amplifier_core.message_models import ChatRequest, Message, ToolSpec

__amplifier_module_type__ = "orchestrator"

NAME = "hbtest-orchestrator"


class MiniLoop:
    def __init__(self, config: dict[str, Any]) -> None:
        self.max_turns = int(config.get("max_turns", 8))

    async def execute(self, prompt: str, context: Any, providers: dict[str, Any], tools: dict[str, Any], hooks: Any,
                      coordinator: Any = None, **kwargs: Any) -> str:
        result = await hooks.emit("prompt:submit", {"prompt": prompt})
        result = await coordinator.process_hook_result(result, "prompt:submit", NAME)
        if result.action == "deny":
            await hooks.emit("orchestrator:complete", {"orchestrator": NAME, "turn_count": 0, "status": "denied"})
            return f"Operation denied: {result.reason}"
        await context.add_message({"role": "user", "content": prompt})
        provider = next(iter(providers.values()))
        specs = [ToolSpec(name=t.name, description=t.description, parameters=t.input_schema) for t in tools.values()]
        ephemeral: list[dict[str, Any]] = []
        text = ""
        status = "success"
        for turn in range(1, self.max_turns + 1):
            if self._cancelled(coordinator):
                status = "cancelled"
                break
            asked = await hooks.emit("provider:request", {"provider": "hbtest", "iteration": turn})
            asked = await coordinator.process_hook_result(asked, "provider:request", NAME)
            messages = [dict(m) for m in await context.get_messages_for_request(provider=provider)]
            if asked.action == "inject_context" and asked.ephemeral and asked.context_injection:
                messages.append({"role": asked.context_injection_role, "content": asked.context_injection})
            for injection in ephemeral:
                if injection["append_to_last_tool_result"] and messages and messages[-1].get("role") == "tool":
                    messages[-1]["content"] = f"{messages[-1]['content']}\n\n{injection['content']}"
                else:
                    messages.append({"role": injection["role"], "content": injection["content"]})
            ephemeral = []
            request = ChatRequest(messages=[Message(**m) for m in messages], tools=specs or None)
            response = await provider.complete(request)
            calls = provider.parse_tool_calls(response)
            text = "".join(getattr(b, "text", "") for b in response.content)
            if not calls:
                await context.add_message({"role": "assistant", "content": text})
                break
            await context.add_message({
                "role": "assistant",
                "content": text,
                "tool_calls": [{"id": c.id, "tool": c.name, "arguments": c.arguments} for c in calls],
            })
            for call in calls:
                if self._cancelled(coordinator):
                    output = "Cancelled: the turn was stopped before this tool ran"
                else:
                    output = await self._run_tool(call, tools, hooks, coordinator, ephemeral)
                await context.add_message({"role": "tool", "tool_call_id": call.id, "content": output})
        else:
            turn = self.max_turns
        await hooks.emit("prompt:complete", {"response_preview": text[:200], "length": len(text)})
        await hooks.emit("orchestrator:complete", {"orchestrator": NAME, "turn_count": turn, "status": status})
        return text

    @staticmethod
    def _cancelled(coordinator: Any) -> bool:
        token = getattr(coordinator, "cancellation", None)
        return bool(token is not None and token.is_cancelled)

    async def _run_tool(self, call: Any, tools: dict[str, Any], hooks: Any, coordinator: Any,
                        ephemeral: list[dict[str, Any]]) -> str:
        name, args = call.name, dict(call.arguments)
        pre = await hooks.emit("tool:pre", {"tool_name": name, "tool_input": args, "tool_call_id": call.id})
        pre = await coordinator.process_hook_result(pre, "tool:pre", name)
        if pre.action == "deny":
            return f"Denied by hook: {pre.reason}"
        if pre.data and isinstance(pre.data.get("tool_input"), dict) and pre.data["tool_input"] != args:
            args = pre.data["tool_input"]
        tool = tools.get(name)
        try:
            if tool is None:
                raise RuntimeError(f"Tool '{name}' not found")
            result = await tool.execute(args)
        except Exception as e:  # a failing tool is reported, never raised
            await hooks.emit("tool:error", {
                "tool_name": name, "tool_input": args, "tool_call_id": call.id,
                "error": {"type": type(e).__name__, "msg": str(e)},
            })
            return f"Error executing tool: {e}"
        # As loop-basic: the ToolResult itself (amplifier-core 2.0.2's has no to_dict), which the
        # registry serializes with `default=str`, so hooks receive `str(ToolResult)`.
        result_data = result.to_dict() if hasattr(result, "to_dict") else result
        sent = result_data if isinstance(result_data, (dict, list, str)) else str(result_data)
        post = await hooks.emit("tool:post", {"tool_name": name, "tool_input": args, "result": result_data,
                                              "tool_call_id": call.id})
        post = await coordinator.process_hook_result(post, "tool:post", name)
        if post.action == "inject_context" and post.ephemeral and post.context_injection:
            ephemeral.append({
                "role": post.context_injection_role,
                "content": post.context_injection,
                "append_to_last_tool_result": post.append_to_last_tool_result,
            })
        if post.data is not None and "result" in post.data and post.data["result"] != sent:
            changed = post.data["result"]
            return json.dumps(changed) if isinstance(changed, (dict, list)) else str(changed)
        return result.get_serialized_output()


async def mount(coordinator: Any, config: dict[str, Any]):
    await coordinator.mount("orchestrator", MiniLoop(config))
    return None
