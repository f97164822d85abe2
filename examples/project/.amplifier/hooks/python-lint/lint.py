#!/usr/bin/env python3
"""python-lint: a PostToolUse hook (matcher "Write|Edit") that lints the Python file just written.

Contract (Claude Code's, run unchanged by hookbridge): the event arrives as JSON on stdin. When the
file has problems, the hook prints
    {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "<findings>"}}
and exits 0, so the findings are added to what the agent sees next; a clean file prints nothing.

Checks, in order, stopping at the first that finds something:
  1. syntax: the same check as `python3 -m py_compile`, done in-process with compile() so that no
     __pycache__ is written into the project;
  2. `ruff check`, else `pyflakes`, if one is installed (nothing is ever installed by this hook).
"""

import json
import os
import shutil
import subprocess
import sys

MAX_FINDINGS = 20


def resolve(path, payload):
    if os.path.isabs(path):
        return path
    base = payload.get("cwd") or os.environ.get("CLAUDE_PROJECT_DIR") or os.getcwd()
    return os.path.join(base, path)


def shown_name(path):
    """The path relative to the project, when it is inside it."""
    project = os.environ.get("CLAUDE_PROJECT_DIR")
    if project:
        rel = os.path.relpath(path, project)
        if not rel.startswith(".."):
            return rel
    return path


def syntax_findings(path, name):
    with open(path, "rb") as f:
        source = f.read()
    try:
        compile(source, name, "exec", dont_inherit=True)
    except SyntaxError as e:  # includes IndentationError and TabError
        where = f"{name}:{e.lineno or 0}:{e.offset or 0}"
        finding = f"{where}: {type(e).__name__}: {e.msg}"
        if e.text:
            finding += "\n    " + e.text.rstrip("\r\n")
        return [finding]
    except ValueError as e:  # e.g. a NUL byte in the source
        return [f"{name}: {e}"]
    return []


def linter_findings(path, name):
    """Findings of ruff or pyflakes, whichever is installed; ([], None) when neither is."""
    candidates = []
    if shutil.which("ruff"):
        candidates.append(("ruff", ["ruff", "check", "--no-cache", "--quiet", "--output-format=concise", path]))
    if shutil.which("pyflakes"):
        candidates.append(("pyflakes", ["pyflakes", path]))
    for tool, argv in candidates:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode not in (0, 1):
            continue  # the tool itself failed (bad config, old version): try the next one
        lines = [line.replace(path, name) for line in done.stdout.splitlines() if line.strip()]
        lines = [line for line in lines if not line.startswith(("Found ", "[*]", "No fixes"))]
        return lines, tool
    return [], None


def main():
    try:
        payload = json.load(sys.stdin)
    except ValueError as e:
        print(f"python-lint: the hook payload is not JSON: {e}", file=sys.stderr)
        return 1
    tool_input = payload.get("tool_input") or {}
    file_path = tool_input.get("file_path") or ""
    if not isinstance(file_path, str) or not file_path.endswith((".py", ".pyi")):
        return 0
    path = resolve(file_path, payload)
    if not os.path.isfile(path):
        return 0
    name = shown_name(path)

    findings, tool = syntax_findings(path, name), "python3 -m py_compile"
    if not findings:
        findings, tool = linter_findings(path, name)
    if not findings:
        return 0

    more = len(findings) - MAX_FINDINGS
    text = f"python-lint found {len(findings)} problem(s) in {name} (checked with {tool}):\n"
    text += "\n".join(findings[:MAX_FINDINGS])
    if more > 0:
        text += f"\n… and {more} more"
    text += "\nFix these before moving on."
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": text}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
