#!/usr/bin/env python3
"""Test helper: leave a marker file marks/<PREFIX>__<what the hook saw>.

<what the hook saw> is the Bash command, the file path (relative to the project) or the event
name, with every run of characters other than letters, digits and dots replaced by `_`.
Usage (as a hook command): python3 "$CLAUDE_PROJECT_DIR/mark.py" PREFIX
"""
import json
import os
import re
import sys

data = json.load(sys.stdin)
tool_input = data.get("tool_input") or {}
key = tool_input.get("command") or tool_input.get("file_path") or data.get("hook_event_name") or "?"
project = os.environ.get("CLAUDE_PROJECT_DIR", os.getcwd())
if key.startswith(project + "/"):
    key = key[len(project) + 1:]
name = sys.argv[1] + "__" + (re.sub(r"[^A-Za-z0-9.]+", "_", key).strip("_")[:80] or "_")
os.makedirs(os.path.join(project, "marks"), exist_ok=True)
open(os.path.join(project, "marks", name), "w").close()
