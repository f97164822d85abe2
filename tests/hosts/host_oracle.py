"""What the host oracles (`codex/`, `gemini/`) share: installing a pinned agent (`npm ci`), and the
normalized views of a run that two runs are compared by."""

import http.server
import json
import os
import re
import subprocess
import sys
import threading

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "npm"))
import npm_ci  # noqa: E402  (npm ci from the committed lockfiles)


def npm_binary(folder, version, env_var):
    """The agent pinned by `tests/npm/<folder>/` (package.json and package-lock.json), installed with
    `npm ci` on first use into `$env_var` (default `target/npm/<folder>`); `version` is the one the
    oracle says it measures, and must be the one the lockfile pins."""
    package, pinned = npm_ci.pinned(folder)
    if pinned != version:
        raise SystemExit(f"tests/npm/{folder} pins {package} {pinned}, the oracle measures {version}")
    return npm_ci.install(folder, os.environ.get(env_var) or None)


UUIDISH = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")
WALL_TIME = re.compile(r"Wall time: [0-9.]+ seconds")
CHUNK_ID = re.compile(r"Chunk ID: \w+")
# Codex tells the model which registration a Stop hook's continuation came from: the event, the
# handler's position among all handlers of the hooks file, and the file. install-into registers
# hookbridge for every event, so its Stop handler is not at the position of the case's own: an
# opaque ordinal, normalized (the text around it is compared).
HOOK_RUN_ORDINAL = re.compile(r'hook_run_id="([\w-]+):\d+:')
# Codex gives each subagent it spawns a nickname picked at random.
AGENT_NICKNAME = re.compile(r'"nickname":"[^"]*"')
SESSION_DAY = re.compile(r"sessions/\d{4}/\d\d/\d\d/")
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d[-:]\d\d[-:]\d\d(\.\d+)?Z?")


def normalize(text, places):
    for path, name in places:
        text = text.replace(path, name)
    text = UUIDISH.sub("<id>", text)
    text = WALL_TIME.sub("Wall time: <t> seconds", text)
    text = CHUNK_ID.sub("Chunk ID: <id>", text)
    text = HOOK_RUN_ORDINAL.sub(r'hook_run_id="\1:<n>:', text)
    text = SESSION_DAY.sub("sessions/<day>/", text)
    text = AGENT_NICKNAME.sub('"nickname":"<name>"', text)
    return TIMESTAMP.sub("<time>", text)


def files_view(project, places, skip=(".codex", ".gemini", ".amplifier", ".git")):
    """The project's files (hookbridge's and Codex's own config left out) and what they hold."""
    files = {}
    for base, dirs, names in os.walk(project):
        rel_base = os.path.relpath(base, project)
        if rel_base.split(os.sep)[0] in skip:
            continue
        for name in names:
            path = os.path.join(base, name)
            rel = os.path.normpath(os.path.join(rel_base, name))
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    files[rel] = normalize(f.read(), places)
            except OSError as e:
                files[rel] = f"<unreadable: {e}>"
    return files



class FakeModel:
    """A scripted model API on loopback: a subclass says what a GET and a POST answer
    (`answer_get`, `answer_post`, each `(content type, body bytes)`); `take_turn` keeps a model
    request and gives its index, the turn of the script it gets."""

    def __init__(self, turns):
        self.turns, self.requests, self.lock = turns, [], threading.Lock()
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self._send(*fake.answer_get(self.path))

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                self._send(*fake.answer_post(self.path, json.loads(raw or b"{}")))

            def _send(self, kind, body):
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take_turn(self, body):
        with self.lock:
            self.requests.append(body)
            return len(self.requests) - 1

    def answer_get(self, path):
        return "application/json", b"{}"

    def answer_post(self, path, body):
        raise NotImplementedError

    @property
    def port(self):
        return self.server.server_address[1]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def install_hookbridge(hookbridge, agent, project, home, hooks):
    """`hooks` (Claude Code format) in `<project>/.amplifier/hooks/`, hookbridge registered in
    `agent` for that project by `hookbridge install-into <agent> --scope project`, and the project
    trusted (`hookbridge trust --yes`) by the user whose HOME is `home`."""
    os.makedirs(os.path.join(project, ".amplifier", "hooks"))
    with open(os.path.join(project, ".amplifier", "hooks", "hooks.json"), "w") as f:
        json.dump(hooks, f, indent=2)
    env = dict(os.environ, HOME=home)
    for key in ("CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR"):
        env.pop(key, None)
    out = subprocess.run([hookbridge, "install-into", agent, "--scope", "project",
                          "--program", hookbridge, "--project-dir", project],
                         capture_output=True, text=True, env=env, cwd=project, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"install-into {agent} failed ({out.returncode}): {out.stderr}")
    # A user's one-time step (docs/trust.md): the project's hooks run once it is trusted, with the
    # HOME the agent runs with.
    out = subprocess.run([hookbridge, "trust", "--yes", project],
                         capture_output=True, text=True, env=env, cwd=project, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"hookbridge trust failed ({out.returncode}): {out.stderr}")


def read_prompt(case):
    """The case's `prompt` file, or "go"."""
    path = os.path.join(case, "prompt")
    if not os.path.exists(path):
        return "go"
    with open(path) as f:
        return f.read().strip()


def differences(a, b, path=""):
    """Where two views differ, as `path: a != b` lines."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b)):
            out += differences(a.get(key), b.get(key), f"{path}.{key}" if path else key)
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f"{path}[{i}]")
        return out
    return [] if a == b else [f"{path}: {json.dumps(a)[:300]}\n      != {json.dumps(b)[:300]}"]
