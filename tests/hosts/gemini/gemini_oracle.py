"""The real Gemini CLI, run headless against a scripted fake Gemini API on loopback: ground truth
for hookbridge's Gemini host.

Gemini CLI's hooks have their own shape (events `BeforeTool`, `AfterTool`, `BeforeAgent`,
`AfterAgent`, …; tool names such as `run_shell_command`; `decision: "deny"`,
`hookSpecificOutput.tool_input`), so the differential is by intent: a case holds a Claude Code hook
and the Gemini CLI hook that means the same, and Gemini CLI must do the same with each:

    claude_hooks.json    Claude Code-format hooks, run by hookbridge (`install-into gemini`)
    gemini_hooks.json    the same hooks written for Gemini CLI, registered in it directly
    actions.json         what each hook answers (see ../hook.py); names used by one side only
                         are fine
    script.json          the model's turns: each a list of Gemini API `parts` (`functionCall` or
                         `text`); later requests get "END"
    prompt               the user's prompt (default "go")
    kill_after           optional: seconds after which the run is stopped, for a case where
                         Gemini CLI waits for a person (a tool confirmation, which `-p` cannot
                         give); the view's exit code then says so
    stop_when            optional, with kill_after: a file (relative to the project) whose
                         appearance stops the run at once, instead of waiting out kill_after

`run_case(case, mode)` runs it in a fresh project and HOME, `mode` being `direct` (the Gemini hooks
in `<project>/.gemini/settings.json`) or `bridge` (the Claude hooks in `.amplifier/hooks/`, and the
settings file written by `hookbridge install-into gemini --scope project`). The view: what the model
was given after the prompt, Gemini CLI's answer and exit code, and the project's files (the hooks'
payload logs left out: the two sides are given different payloads by design).

Gemini CLI is installed with `npm ci` from `tests/npm/gemini/` (the version below must be the one it pins) into `$HOOKBRIDGE_GEMINI_DIR` (default
`target/npm/gemini`) on first use.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from host_oracle import FakeModel, files_view, install_hookbridge, normalize, npm_binary, read_prompt  # noqa: E402

GEMINI_VERSION = "0.61.0"
MODEL = "gemini-2.5-flash"
HERE = os.path.dirname(os.path.abspath(__file__))


def gemini_binary():
    """The pinned Gemini CLI, installed with `npm ci` on first use."""
    return npm_binary("gemini", GEMINI_VERSION, "HOOKBRIDGE_GEMINI_DIR")


class FakeGemini(FakeModel):
    """The Gemini API: `streamGenerateContent` answers request i with turn i of the script; other
    calls (token counts, Gemini CLI's own helper requests) get a neutral answer."""

    USAGE = {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}

    def answer_post(self, path, body):
        if ":countTokens" in path:
            return "application/json", json.dumps({"totalTokens": 1}).encode()
        if ":streamGenerateContent" in path:
            index = self.take_turn(body)
            parts = self.turns[index] if index < len(self.turns) else [{"text": "END"}]
            chunk = {"candidates": [{"content": {"role": "model", "parts": parts},
                                     "finishReason": "STOP", "index": 0}], "usageMetadata": self.USAGE}
            return "text/event-stream", f"data: {json.dumps(chunk)}\r\n\r\n".encode()
        # A helper request with a JSON schema: the smallest answer that fits it.
        schema = (body.get("generationConfig") or {}).get("responseJsonSchema") or {}
        answer = {key: (50 if spec.get("type") in ("INTEGER", "NUMBER", "integer", "number") else "user")
                  for key, spec in (schema.get("properties") or {}).items()}
        chunk = {"candidates": [{"content": {"role": "model", "parts": [{"text": json.dumps(answer)}]},
                                 "finishReason": "STOP", "index": 0}], "usageMetadata": self.USAGE}
        return "application/json", json.dumps(chunk).encode()


CALL_ID = re.compile(r"\b(\w+)_\d{10,}_\d+\b")
PGID = re.compile(r"(Process Group PGID|Background PIDs): [0-9, ]+")


def text_of(part, places):
    text = normalize(part, places)
    text = CALL_ID.sub(r"\1_<id>", text)
    return PGID.sub(r"\1: <n>", text)


def model_view(requests, places):
    """What the model was given after the user's prompt, request by request (the session context
    Gemini CLI puts before the prompt is left out)."""
    view = []
    for request in requests:
        contents = request.get("contents", [])
        seen = []
        for n, content in enumerate(contents):
            parts = content.get("parts", [])
            if n == 0:
                parts = parts[1:] if parts and "session_context" in parts[0].get("text", "") else parts
            for part in parts:
                if "text" in part and not part.get("thought"):
                    seen.append({content.get("role"): text_of(part["text"], places)})
                elif "functionCall" in part:
                    call = part["functionCall"]
                    seen.append({"call": call.get("name"), "args": call.get("args")})
                elif "functionResponse" in part:
                    response = part["functionResponse"].get("response")
                    seen.append({"response": text_of(json.dumps(response, sort_keys=True), places)})
        view.append(seen)
    return view


def prepare(case, mode, hookbridge, workdir):
    """A fresh project and HOME for `case` in `mode`; returns the project."""
    project, home = os.path.join(workdir, "project"), os.path.join(workdir, "home")
    os.makedirs(os.path.join(home, ".gemini"))
    os.makedirs(os.path.join(project, ".gemini"))
    hooks_dir = os.path.join(workdir, "hooks")
    os.makedirs(hooks_dir)
    shutil.copy(os.path.join(HERE, "..", "hook.py"), hooks_dir)
    shutil.copy(os.path.join(case, "actions.json"), hooks_dir)
    with open(os.path.join(home, ".gemini", "settings.json"), "w") as f:
        json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, f)
    with open(os.path.join(home, ".gemini", "trustedFolders.json"), "w") as f:
        json.dump({project: "TRUST_FOLDER"}, f)
    which = "gemini_hooks.json" if mode == "direct" else "claude_hooks.json"
    with open(os.path.join(case, which)) as f:
        hooks = json.loads(f.read().replace("{{HOOKS}}", hooks_dir))
    if mode == "direct":
        with open(os.path.join(project, ".gemini", "settings.json"), "w") as f:
            json.dump(hooks, f, indent=2)
    else:
        install_hookbridge(hookbridge, "gemini", project, home, hooks)
    subprocess.run(["git", "init", "-q", project], check=True)
    return project, home


def run_until(command, project, env, case):
    """`command` run until the case's `stop_when` file appears in the project (complete: it reads
    as JSON), or for its `kill_after` seconds at most; a run still going then is stopped (with its
    hooks), its exit code `"stopped: waits for a person"`. The file is what the case is about (a
    Notification hook's record): once it is there, waiting longer only shows Gemini CLI waiting."""
    with open(os.path.join(case, "kill_after")) as f:
        seconds = float(f.read().strip())
    stop_when = None
    if os.path.exists(os.path.join(case, "stop_when")):
        with open(os.path.join(case, "stop_when")) as f:
            stop_when = os.path.join(project, f.read().strip())
    process = subprocess.Popen(command, cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + seconds
    try:
        while True:
            try:
                stdout, stderr = process.communicate(timeout=0.2)
                return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
            except subprocess.TimeoutExpired:
                pass
            if time.monotonic() > deadline or (stop_when and written(stop_when)):
                break
    finally:
        if process.returncode is None:
            os.killpg(process.pid, signal.SIGKILL)
    stdout, stderr = process.communicate()
    return subprocess.CompletedProcess(command, "stopped: waits for a person", stdout, stderr)


def written(path):
    """`path` exists and holds a whole JSON document."""
    try:
        with open(path) as f:
            json.load(f)
        return True
    except (OSError, ValueError):
        return False


def run_case(case, mode, hookbridge=None, keep=None):
    """Runs `case` in `mode` (`direct` or `bridge`) and returns its view."""
    case = os.path.abspath(case)
    with open(os.path.join(case, "script.json")) as f:
        fake = FakeGemini(json.load(f))
    prompt = read_prompt(case)
    workdir = tempfile.mkdtemp(prefix=f"gemini-{mode}-")
    try:
        project, home = prepare(case, mode, hookbridge, workdir)
        env = dict(os.environ, HOME=home, GEMINI_API_KEY="fake",
                   GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{fake.port}", NO_COLOR="1")
        for key in ("CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT"):
            env.pop(key, None)
        command = [gemini_binary(), "-p", prompt, "--yolo", "-m", MODEL, "-o", "json"]
        if os.path.exists(os.path.join(case, "kill_after")):
            run = run_until(command, project, env, case)
        else:
            run = subprocess.run(command, cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                                 text=True, timeout=180)
        places = [(project, "<project>"), (workdir, "<work>"), (case, "<case>")]
        try:
            answer = json.loads(run.stdout).get("response")
        except json.JSONDecodeError:
            answer = f"<not JSON: {run.stdout[:200]}>"
        files = files_view(project, places)
        view = {
            "model": model_view(fake.requests, places),
            "answer": answer,
            "exit_code": run.returncode,
            "files": {k: v for k, v in files.items() if not k.startswith("hooklog" + os.sep)},
        }
        if keep:
            shutil.copytree(workdir, keep, dirs_exist_ok=True)
            with open(os.path.join(keep, "gemini.stderr"), "w") as f:
                f.write(run.stderr)
        return view
    finally:
        fake.close()
        shutil.rmtree(workdir, ignore_errors=True)


NAME, VERSION, binary = "Gemini CLI", GEMINI_VERSION, gemini_binary
