"""`hookbridge install-into claude` against the real Claude Code.

mux_diff.py registers `hookbridge run` only for the events a case has hooks for. What a user gets
from `install-into claude` is different: hookbridge registered for *every* event, with outer
timeouts. This check runs a spread of measured cases with exactly the settings `install-into`
writes (the case's hooks moved to `.amplifier/hooks/`, its settings file produced by
`hookbridge install-into claude --scope project --dry-run`) and compares, with mux_diff's own
view, what the model saw, how the run ended and what files were left against Claude Code running
the hooks directly, and beyond mux_diff's view every text the model was given after its first
answer (an async hook's answer arrives as a bare system reminder that view does not keep). A case
with no hooks at all is among them: registering every event must change nothing by itself.

With `--plugin DIR`, the same cases run with hookbridge's Claude Code plugin instead
(`plugins/hookbridge`, loaded with `--plugin-dir`, `hookbridge` found on PATH) and no hooks in the
settings file at all.

Claude Code's run of a case with its hooks registered directly is kept for the rest of a test run
when `HOOKBRIDGE_DIRECT_RUNS` is set (`tests/mux/direct_runs.py`); after 3 consecutive cases the
oracle could not run, the rest is not run and the check fails.

Usage: python3 check_with_claude.py [--plugin DIR] HOOKBRIDGE_BIN CASE_DIR...
"""

import copy
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ORACLE_DIR = os.environ.get("HOOKBRIDGE_ORACLE_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "oracle")
sys.path.insert(0, ORACLE_DIR)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mux"))
import mux_diff  # noqa: E402  (the shared differential's run_oracle, hook_commands and view)
from direct_runs import checked, direct_run  # noqa: E402  (Claude Code's direct run, kept within a test run)
from wall_clock import without_date_notice  # noqa: E402  (Claude Code's date-change notice, not the hooks')

MAX_ERRORS_IN_A_ROW = 3  # then the oracle itself is failing: the rest is not run


# Claude Code tells the model which plugin a blocking hook came from; registered through the plugin,
# that hook is hookbridge. The one difference the plugin route has, and the reason install-into is
# the route that gives Claude Code's own view (documented in docs/install.md).
PLUGIN_NOTE = re.compile(r"\n*This hook comes from the hookbridge@[^ ]+ plugin\.")


def without_plugin_note(node):
    """The view with the plugin note taken out; Claude Code writes it in place of the text's
    trailing newlines, so those go on both sides."""
    if isinstance(node, str):
        return PLUGIN_NOTE.sub("", node).rstrip("\n")
    if isinstance(node, (list, tuple)):
        return type(node)(without_plugin_note(x) for x in node)
    if isinstance(node, dict):
        return {k: without_plugin_note(v) for k, v in node.items()}
    return node


def later_texts(report, commands):
    """Every text the model was given after its first answer outside tool results, normalized as
    mux_diff normalizes: mux_diff's view keeps only texts that mention a hook, and an async hook's
    answer reaches the model as a bare system reminder (`ASYNC-SYSMSG\nASYNC-CTX`, case 81)."""
    last = (report.get("model_requests") or [[]])[-1]
    first_answer = next((i for i, m in enumerate(last) if m.get("role") == "assistant"), len(last))
    texts = []
    for msg in last[first_answer:]:
        if msg.get("role") == "assistant":
            continue
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content or []:
            if block.get("type") == "text":
                texts.append(mux_diff.normalize_text(block.get("text", ""), commands))
    return texts


def installed_case(case_dir, hookbridge, dest, plugin=None):
    """`case_dir` copied to `dest` with its hooks behind hookbridge, registered by install-into
    (or, with `plugin`, by that Claude Code plugin)."""
    shutil.copytree(case_dir, dest, dirs_exist_ok=True)
    with open(os.path.join(case_dir, "case.json")) as f:
        case = json.load(f)
    project = os.path.join(dest, "files")
    os.makedirs(os.path.join(project, ".amplifier", "hooks"), exist_ok=True)
    with open(os.path.join(project, ".amplifier", "hooks", "hooks.json"), "w") as f:
        json.dump({"hooks": case.get("settings", {}).get("hooks", {})}, f, indent=2)
    user_hooks = (case.get("user_settings") or {}).get("hooks")
    home = tempfile.mkdtemp(prefix="install-into-home-")
    if user_hooks:
        # The user's hooks go to ~/.amplifier/hooks of the home the oracle gives Claude Code; here
        # install-into only needs them to size the timeouts.
        for root in (os.path.join(dest, "home"), home):
            os.makedirs(os.path.join(root, ".amplifier", "hooks"), exist_ok=True)
            with open(os.path.join(root, ".amplifier", "hooks", "hooks.json"), "w") as f:
                json.dump({"hooks": user_hooks}, f, indent=2)
        us = copy.deepcopy(case["user_settings"])
        us.pop("hooks")
        case["user_settings"] = us
    if plugin:
        shutil.rmtree(home, ignore_errors=True)
        settings = copy.deepcopy(case.get("settings", {}))
        settings.pop("hooks", None)
        case["settings"] = settings
        case["args"] = case.get("args", ["--allowedTools", "Bash,Write,Edit,Read"]) + ["--plugin-dir", plugin]
        case_env = dict(case.get("env", {}))
        case_env["PATH"] = os.path.dirname(hookbridge) + os.pathsep + os.environ.get("PATH", "")
        case["env"] = case_env
        with open(os.path.join(dest, "case.json"), "w") as f:
            json.dump(case, f, indent=2)
        with open(os.path.join(plugin, "hooks", "hooks.json")) as f:
            return len(json.load(f)["hooks"])
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR")}
    env["HOME"] = home
    out = subprocess.run(
        [hookbridge, "install-into", "claude", "--scope", "project", "--dry-run",
         "--program", hookbridge, "--project-dir", project],
        capture_output=True, text=True, env=env, timeout=60)
    shutil.rmtree(home, ignore_errors=True)
    if out.returncode != 0:
        raise RuntimeError(f"install-into failed ({out.returncode}): {out.stderr}")
    written = json.loads(out.stdout)
    settings = copy.deepcopy(case.get("settings", {}))
    settings["hooks"] = written["hooks"]
    case["settings"] = settings
    with open(os.path.join(dest, "case.json"), "w") as f:
        json.dump(case, f, indent=2)
    return len(written["hooks"])


def main():
    args = sys.argv[1:]
    plugin = None
    if args[:1] == ["--plugin"]:
        plugin, args = os.path.abspath(args[1]), args[2:]
    hookbridge, cases = os.path.abspath(args[0]), args[1:]
    if plugin and os.path.basename(hookbridge) != "hookbridge":
        sys.exit(f"{hookbridge}: the plugin starts `hookbridge` from PATH, so the binary must have that name")
    same = errors_in_a_row = 0
    stopped = ""
    for case_dir in cases:
        if errors_in_a_row >= MAX_ERRORS_IN_A_ROW:
            stopped = f" (stopped after {errors_in_a_row} consecutive oracle errors)"
            print(f"ERROR stopped after {errors_in_a_row} consecutive oracle errors: the oracle is failing")
            break
        name = os.path.basename(os.path.normpath(case_dir))
        with open(os.path.join(case_dir, "case.json")) as f:
            spec = json.load(f)
        ignore = spec.get("mux_contents_ignore", [])
        tmp = tempfile.mkdtemp(prefix="install-into-")
        try:
            events = installed_case(case_dir, hookbridge, tmp, plugin)
            with open(os.path.join(case_dir, "case.json")) as f:
                direct_commands = mux_diff.hook_commands(json.load(f))
            with open(os.path.join(tmp, "case.json")) as f:
                installed_commands = mux_diff.hook_commands(json.load(f))
            if plugin:
                with open(os.path.join(plugin, "hooks", "hooks.json")) as f:
                    shipped = mux_diff.hook_commands({"settings": json.load(f)})
                installed_commands = sorted(set(shipped) | set(installed_commands), key=len, reverse=True)
            # The one-time step of a user of hookbridge: trusting the project's hooks (docs/trust.md).
            trust = f"{shlex.quote(hookbridge)} trust --yes ."
            direct, installed = direct_run(case_dir), checked(mux_diff.run_oracle(tmp, trust), "installed")
            a = mux_diff.view(direct, direct_commands, ignore)
            b = mux_diff.view(installed, installed_commands, ignore)
            a["texts"] = later_texts(direct, direct_commands)
            b["texts"] = later_texts(installed, installed_commands)
            if plugin:
                a, b = without_plugin_note(a), without_plugin_note(b)
            a, b = without_date_notice(a), without_date_notice(b)
        except Exception as e:  # a failure to run is a difference, not a crash
            print(f"ERROR {name}: {e}", flush=True)
            errors_in_a_row += 1
            continue
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        errors_in_a_row = 0
        if a == b:
            same += 1
            print(f"same  {name} ({events} events registered)")
        else:
            print(f"DIFF  {name} ({events} events registered)")
            for key in ("prelude", "shown", "texts", "files", "contents", "ending"):
                if a[key] != b[key]:
                    print(f"      {key}: claude   ={json.dumps(a[key])[:400]}")
                    print(f"      {key}: installed={json.dumps(b[key])[:400]}")
    what = "plugin" if plugin else "install-into"
    print(f"{what} conformance: {same}/{len(cases)} identical{stopped}")
    sys.exit(0 if cases and same == len(cases) else 1)


if __name__ == "__main__":
    main()
