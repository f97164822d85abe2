"""A scripted LLM provider for end-to-end tests (module id ``hbtest-provider``).

Config: ``{"script": [step, ...]}`` where each step is ``{"text": str, "tool_calls": [{"id", "name",
"arguments"}]}``. Each ``complete()`` call answers with the next step; past the end it answers
``"done"``. Every request is kept in ``provider.requests`` so tests can read what the model saw.
"""

from __future__ import annotations

from typing import Any

from amplifier_core.message_models import ChatRequest, ChatResponse, TextBlock, ToolCall
from amplifier_core.models import ProviderInfo

__amplifier_module_type__ = "provider"


class ScriptedProvider:
    name = "hbtest"

    def __init__(self, script: list[dict[str, Any]]):
        self.script = list(script)
        self.requests: list[ChatRequest] = []

    def get_info(self) -> ProviderInfo:
        return ProviderInfo(id="hbtest", display_name="hook-bridge test provider")

    async def list_models(self) -> list[Any]:
        return []

    async def complete(self, request: ChatRequest, **kwargs: Any) -> ChatResponse:
        self.requests.append(request)
        step = self.script[len(self.requests) - 1] if len(self.requests) <= len(self.script) else {"text": "done"}
        calls = [ToolCall(id=c["id"], name=c["name"], arguments=c.get("arguments", {})) for c in step.get("tool_calls", [])]
        return ChatResponse(content=[TextBlock(text=step.get("text", ""))], tool_calls=calls or None)

    def parse_tool_calls(self, response: ChatResponse) -> list[ToolCall]:
        return list(response.tool_calls or [])


async def mount(coordinator: Any, config: dict[str, Any]):
    provider = ScriptedProvider(config.get("script", []))
    await coordinator.mount("providers", provider, name="hbtest")
    return None
