"""Real tools for end-to-end tests (module id ``hbtest-tools``), named and shaped like Amplifier's own
``bash`` (tool-bash: ``{command}`` → ``{stdout, stderr, returncode}``) and ``write_file``
(tool-filesystem: ``{file_path, content}`` → ``{file_path, bytes}``). They really run commands and
write files, under the session's working directory (config ``working_dir``). Every call is kept in
``tool.calls`` so tests can check what ran.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from amplifier_core.models import ToolResult

__amplifier_module_type__ = "tool"


class BashTool:
    name = "bash"
    description = "Run a bash command"
    input_schema = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}

    def __init__(self, working_dir: str) -> None:
        self.working_dir = working_dir
        self.calls: list[dict[str, Any]] = []

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.calls.append(dict(input))
        command = input.get("command")
        if not isinstance(command, str) or not command:
            return ToolResult(success=False, output="command is required", error={"message": "command is required"})
        proc = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=self.working_dir,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        out, err = await proc.communicate()
        output = {"stdout": out.decode(errors="replace"), "stderr": err.decode(errors="replace"), "returncode": proc.returncode}
        return ToolResult(success=proc.returncode == 0, output=output)


class WriteFileTool:
    name = "write_file"
    description = "Write a file"
    input_schema = {
        "type": "object",
        "properties": {"file_path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["file_path", "content"],
    }

    def __init__(self, working_dir: str) -> None:
        self.working_dir = working_dir
        self.calls: list[dict[str, Any]] = []

    async def execute(self, input: dict[str, Any]) -> ToolResult:
        self.calls.append(dict(input))
        path = Path(input["file_path"])
        if not path.is_absolute():
            path = Path(self.working_dir) / path
        path.parent.mkdir(parents=True, exist_ok=True)
        data = input.get("content", "")
        path.write_text(data)
        return ToolResult(success=True, output={"file_path": str(path), "bytes": len(data.encode())})


async def mount(coordinator: Any, config: dict[str, Any]):
    working_dir = config.get("working_dir") or coordinator.get_capability("session.working_dir") or "."
    for tool in (BashTool(working_dir), WriteFileTool(working_dir)):
        await coordinator.mount("tools", tool, name=tool.name)
    return None
