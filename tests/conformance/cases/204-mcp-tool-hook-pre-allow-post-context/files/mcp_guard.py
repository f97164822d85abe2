#!/usr/bin/env python3
# A stdio MCP server for mcp_tool hooks: `check` denies commands that contain "rm", `context` answers
# with additional context, `broken` returns isError. Each call is appended to mcp_calls.jsonl.
import json, sys
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        continue
    if method == "initialize":
        res = {"protocolVersion": msg["params"].get("protocolVersion", "2024-11-05"),
               "capabilities": {"tools": {}}, "serverInfo": {"name": "guard", "version": "1"}}
    elif method == "tools/list":
        schema = {"type": "object", "properties": {"command": {"type": "string"}}}
        res = {"tools": [{"name": n, "description": n, "inputSchema": schema} for n in ("check", "context", "broken")]}
    elif method == "tools/call":
        params = msg["params"]
        with open("mcp_calls.jsonl", "a") as f:
            f.write(json.dumps(params, sort_keys=True) + "\n")
        name, args = params["name"], params.get("arguments", {})
        if name == "check":
            if "rm" in args.get("command", ""):
                out = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                              "permissionDecisionReason": "MCP-GUARD: no rm in " + args["command"]}}
            else:
                out = {}
            res = {"content": [{"type": "text", "text": json.dumps(out)}]}
        elif name == "context":
            out = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "MCP-CTX for " + args.get("command", "")}}
            res = {"content": [{"type": "text", "text": json.dumps(out)}]}
        else:
            res = {"content": [{"type": "text", "text": "MCP-BROKEN"}], "isError": True}
    else:
        res = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": res}) + "\n")
    sys.stdout.flush()
