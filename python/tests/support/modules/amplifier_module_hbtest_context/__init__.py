"""A plain in-memory context manager (module id ``hbtest-context``): keeps every message, in order."""

from __future__ import annotations

from typing import Any

__amplifier_module_type__ = "context"


class ListContext:
    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []

    async def add_message(self, message: dict[str, Any]) -> None:
        self.messages.append(dict(message))

    async def get_messages_for_request(self, token_budget: int | None = None, provider: Any = None) -> list[dict[str, Any]]:
        return list(self.messages)

    async def get_messages(self) -> list[dict[str, Any]]:
        return list(self.messages)

    async def set_messages(self, messages: list[dict[str, Any]]) -> None:
        self.messages = list(messages)

    async def clear(self) -> None:
        self.messages = []


async def mount(coordinator: Any, config: dict[str, Any]):
    await coordinator.mount("context", ListContext())
    return None
