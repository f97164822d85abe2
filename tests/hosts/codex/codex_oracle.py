"""The real Codex CLI, run headless against a scripted fake model on loopback: ground truth for
hookbridge's Codex host, as `../shared/oracle/` is for Claude Code.

A case is a folder:

    hooks.json     Claude Code-format hooks (`{"hooks": {event: [groups]}}`); `{{HOOKS}}` in a
                   command is the folder that holds `hook.py` and the case's `actions.json`
    actions.json   what each hook answers: `{name: {"stdout": text or JSON, "stderr": text,
                   "exit": code, "first_only": bool}}`, run by `hook.py NAME`
    script.json    the model's turns: a list of turns, each a list of Responses API output items
                   (`function_call` or `message`); later requests get "END"
    prompt         the user's prompt (default "go")
    files/         optional: the project's starting files
    agents.json    optional: the turns of subagents the script spawns, `{task message: turns}`
                   (see `FakeResponses`)
    exec_args.json optional: `codex exec` arguments (a JSON list) that replace the default
                   sandbox choice `["-s", "workspace-write"]`: `["--approve-for-me"]` has Codex
                   ask for approvals (auto-reviewed, in the same sandbox), which `codex exec`
                   otherwise never does; a request no hook decides goes to the auto-reviewer,
                   whose requests take the script's next turns

`run_case(case, mode)` runs it in a fresh project and CODEX_HOME:
- `direct`: the hooks registered in Codex itself (`<project>/.codex/hooks.json`);
- `bridge`: the hooks in `<project>/.amplifier/hooks/hooks.json`, and Codex's hooks file written
  by `hookbridge install-into codex --scope project`.
Either way the project is marked trusted and Codex runs with `--dangerously-bypass-hook-trust` (its
hook review is a question of installation, the same for both). The result is a *view*: what the
model saw after the user's prompt (tool outputs and texts a hook added, ids and timings
normalized), the messages Codex printed, its exit code and the project's files, so that the two
modes can be compared and a direct run checked against the view recorded in `measured.json`.

Codex is installed with `npm ci` from `tests/npm/codex/` (the version below must be the one it pins) into `$HOOKBRIDGE_CODEX_DIR` (default
`target/npm/codex`) on first use.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from host_oracle import FakeModel, files_view, install_hookbridge, normalize, npm_binary, read_prompt  # noqa: E402

CODEX_VERSION = "0.169.0"
HERE = os.path.dirname(os.path.abspath(__file__))


def codex_binary():
    """The pinned Codex CLI, installed with `npm ci` on first use."""
    return npm_binary("codex", CODEX_VERSION, "HOOKBRIDGE_CODEX_DIR")


class FakeResponses(FakeModel):
    """A Responses API that answers request i with turn i of the script, streamed as Codex reads
    it, and keeps every request body.

    A subagent (`spawn_agent`) is a thread of its own, asking the same API while its parent does:
    with `agents` (`{task message: turns}`), a request that has a user message equal to a task is
    that subagent's and gets its next turn, the rest the main script's; `{{AGENT_ID}}` in a
    turn's function call arguments is the id of the last agent the request shows spawned."""

    def __init__(self, turns, agents=None):
        super().__init__(turns)
        self.agents = agents or {}
        self.threads, self.taken = [], {}

    def answer_get(self, path):
        return "application/json", json.dumps({"object": "list", "data": []}).encode()

    def thread_of(self, body):
        """The subagent task a request is for, or "" (the main thread)."""
        for item in body.get("input", []):
            if item.get("type") == "message" and item.get("role") == "user":
                for content in item.get("content", []):
                    if isinstance(content, dict) and content.get("text") in self.agents:
                        return content["text"]
        return ""

    def in_order(self):
        """The requests, the main thread's first, then each subagent's (in the order of `agents`),
        so that two threads asking at once do not make the view depend on which asked first."""
        order = [""] + list(self.agents)
        return [self.requests[n] for _, n in sorted((order.index(thread), n) for n, thread in enumerate(self.threads))]

    def answer_post(self, path, body):
        thread = self.thread_of(body)
        with self.lock:
            n = len(self.requests)
            self.requests.append(body)
            self.threads.append(thread)
            index = self.taken.get(thread, 0)
            self.taken[thread] = index + 1
        turns = self.agents[thread] if thread else self.turns
        items = turns[index] if index < len(turns) else [
            {"type": "message", "content": [{"type": "output_text", "text": "END"}]}]
        agent_id = last_agent_id(body)
        rid = f"resp_{n}"
        events = [("response.created", {"type": "response.created", "response": {"id": rid}})]
        for j, item in enumerate(items):
            item = dict(item, id=f"item_{n}_{j}")
            if item["type"] == "message":
                item.setdefault("role", "assistant")
            if agent_id and isinstance(item.get("arguments"), str):
                item["arguments"] = item["arguments"].replace("{{AGENT_ID}}", agent_id)
            events.append(("response.output_item.done",
                           {"type": "response.output_item.done", "output_index": j, "item": item}))
        usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
                 "output_tokens_details": None, "total_tokens": 2}
        events.append(("response.completed",
                       {"type": "response.completed", "response": {"id": rid, "usage": usage}}))
        return "text/event-stream", "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()


def last_agent_id(body):
    """The `agent_id` of the last `spawn_agent` output in a request, if any."""
    found = None
    for item in body.get("input", []):
        if item.get("type") == "function_call_output" and isinstance(item.get("output"), str):
            try:
                output = json.loads(item["output"])
            except json.JSONDecodeError:
                continue
            if isinstance(output, dict) and isinstance(output.get("agent_id"), str):
                found = output["agent_id"]
    return found


def model_view(requests, places):
    """What the model was given from the first item after the environment context (so that what
    a SessionStart or SubagentStart hook put before the prompt is seen too), else after the user's
    prompt, request by request: every item but the model's own, with ids left out and texts
    normalized."""
    view = []
    for request in requests:
        items = request.get("input", [])
        prompt = max((i for i, item in enumerate(items)
                      if item.get("role") == "user" and item.get("type") == "message"), default=-1)
        # The prompt is the last user message before the first function call of this turn.
        first_call = next((i for i, item in enumerate(items) if item.get("type") == "function_call"), len(items))
        users = [i for i, item in enumerate(items[:first_call]) if item.get("role") == "user"]
        if users:
            prompt = users[-1]
        context = [i for i, item in enumerate(items[:prompt]) if "<environment_context>" in json.dumps(item)]
        prompt = context[-1] + 1 if context else prompt
        seen = []
        for item in items[prompt:]:
            kind = item.get("type")
            if kind == "function_call":
                arguments = item.get("arguments")
                if isinstance(arguments, str):  # an agent id a `{{AGENT_ID}}` became
                    arguments = normalize(arguments, places)
                seen.append({"call": item.get("name"), "arguments": arguments})
            elif kind == "function_call_output":
                output = item.get("output")
                if not isinstance(output, str):
                    output = json.dumps(output, sort_keys=True)
                seen.append({"output": normalize(output, places)})
            elif kind == "message":
                texts = [normalize(c.get("text", ""), places) for c in item.get("content", [])
                         if isinstance(c, dict)]
                seen.append({"role": item.get("role"), "texts": texts})
        view.append(seen)
    return view


def printed_view(stdout, places):
    """The agent messages and errors Codex printed (`--json` events), warnings about this harness
    (the bypassed hook review, the fake model's missing metadata) left out."""
    shown = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        item = event.get("item") or {}
        if event.get("type") != "item.completed":
            if event.get("type") in ("turn.failed", "error"):
                shown.append({"event": event.get("type"), "text": normalize(json.dumps(event), places)})
            continue
        kind = item.get("type")
        text = item.get("text") or item.get("message") or ""
        if kind == "error" and ("dangerously-bypass-hook-trust" in text or "Model metadata" in text):
            continue
        if kind in ("agent_message", "error"):
            shown.append({kind: normalize(text, places)})
        elif kind == "command_execution":
            shown.append({"command": item.get("command"), "exit_code": item.get("exit_code"),
                          "status": item.get("status")})
    return shown


def prepare(case, mode, hookbridge, workdir):
    """A fresh project and CODEX_HOME for `case` in `mode`; returns (project, home)."""
    project, home = os.path.join(workdir, "project"), os.path.join(workdir, "codex-home")
    os.makedirs(home)
    if os.path.isdir(os.path.join(case, "files")):
        shutil.copytree(os.path.join(case, "files"), project)
    else:
        os.makedirs(project)
    hooks_dir = os.path.join(workdir, "hooks")
    os.makedirs(hooks_dir)
    shutil.copy(os.path.join(HERE, "..", "hook.py"), hooks_dir)
    if os.path.exists(os.path.join(case, "actions.json")):
        shutil.copy(os.path.join(case, "actions.json"), hooks_dir)
    with open(os.path.join(case, "hooks.json")) as f:
        hooks = json.loads(f.read().replace("{{HOOKS}}", hooks_dir))
    with open(os.path.join(home, "config.toml"), "w") as f:
        f.write(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    if mode == "direct":
        os.makedirs(os.path.join(project, ".codex"))
        with open(os.path.join(project, ".codex", "hooks.json"), "w") as f:
            json.dump(hooks, f, indent=2)
    else:
        install_hookbridge(hookbridge, "codex", project, workdir, hooks)
    subprocess.run(["git", "init", "-q", project], check=True)
    return project, home


def exec_args(case):
    """The case's `exec_args.json`, or the default sandbox choice."""
    path = os.path.join(case, "exec_args.json")
    if not os.path.exists(path):
        return ["-s", "workspace-write"]
    with open(path) as f:
        return json.load(f)


def run_case(case, mode, hookbridge=None, keep=None):
    """Runs `case` in `mode` (`direct` or `bridge`) and returns its view."""
    case = os.path.abspath(case)
    with open(os.path.join(case, "script.json")) as f:
        turns = json.load(f)
    agents = None
    if os.path.exists(os.path.join(case, "agents.json")):
        with open(os.path.join(case, "agents.json")) as f:
            agents = json.load(f)
    model = FakeResponses(turns, agents)
    prompt = read_prompt(case)
    workdir = tempfile.mkdtemp(prefix=f"codex-{mode}-")
    try:
        project, home = prepare(case, mode, hookbridge, workdir)
        provider = (f'{{name="fake",base_url="http://127.0.0.1:{model.port}/v1",'
                    f'wire_api="responses",env_key="FAKE_MODEL_KEY"}}')
        env = dict(os.environ, CODEX_HOME=home, HOME=workdir, FAKE_MODEL_KEY="fake")
        for key in ("CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR", "OPENAI_API_KEY", "CODEX_API_KEY"):
            env.pop(key, None)
        run = subprocess.run(
            [codex_binary(), "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "--json",
             *exec_args(case), "-c", "model_provider=fake", "-c", f"model_providers.fake={provider}",
             "-m", "gpt-5", prompt],
            cwd=project, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=180)
        places = [(project, "<project>"), (workdir, "<work>"), (case, "<case>")]
        view = {
            "model": model_view(model.in_order(), places),
            "printed": printed_view(run.stdout, places),
            "exit_code": run.returncode,
            "files": files_view(project, places),
        }
        if keep:
            shutil.copytree(workdir, keep, dirs_exist_ok=True)
            with open(os.path.join(keep, "codex.stderr"), "w") as f:
                f.write(run.stderr)
        return view
    finally:
        model.close()
        shutil.rmtree(workdir, ignore_errors=True)


NAME, VERSION, binary = "Codex CLI", CODEX_VERSION, codex_binary
