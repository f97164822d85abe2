"""`hookbridge schema` agrees with the parser.

The schema is generated from the parser's tables; this checks the two against each other on every
hooks config the repository has (the example project's, every measured conformance case's, the
shared ones' and the migrate fixtures' outputs aside) and on configs made to be wrong:
- a config `hookbridge validate` finds no error in is valid under the schema;
- a config the schema rejects is one `validate` reports an error for.
(The converse of either need not hold: the schema cannot see a missing script or a bad regex.)

The binary is $HOOKBRIDGE_BIN, else target/debug/hookbridge.
"""

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"


@pytest.fixture(scope="module")
def hookbridge():
    binary = Path(os.environ.get("HOOKBRIDGE_BIN") or ROOT / "target" / "debug" / "hookbridge")
    if not binary.exists():
        pytest.fail(f"no hookbridge binary at {binary}: run `cargo build -p hookbridge-cli` or set HOOKBRIDGE_BIN")
    return binary


@pytest.fixture(scope="module")
def validator(hookbridge):
    out = subprocess.run([str(hookbridge), "schema"], capture_output=True, text=True, check=True)
    schema = json.loads(out.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate_errors(hookbridge, tmp_path, config):
    """The errors `hookbridge validate --json` reports for `config` as a project's hooks.json,
    leaving out what the schema cannot know (files on disk, programs on PATH, regexes)."""
    project = tmp_path / "project"
    hooks = project / ".amplifier" / "hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "hooks.json").write_text(json.dumps(config))
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "AMPLIFIER_PROJECT_DIR")}
    env["HOME"] = str(tmp_path / "home")
    out = subprocess.run([str(hookbridge), "validate", "--json", "--project-dir", str(project), "--no-user-hooks"],
                         capture_output=True, text=True, env=env)
    report = json.loads(out.stdout)
    unseen = ("does not exist", "not on PATH", "regular expression", "will be skipped", "`if`")
    return [p for p in report["problems"]
            if p["severity"] == "error" and not any(u in p["message"] for u in unseen)]


def configs():
    """(name, config) for every hooks config in the repository and the shared cases."""
    hooks_dir = ROOT / "examples" / "project" / ".amplifier" / "hooks"
    found = [(str(f.relative_to(ROOT)), json.loads(f.read_text()))
             for f in sorted(hooks_dir.rglob("hooks.json"))]
    for folder in [ROOT / "tests" / "conformance" / "cases", SHARED / "conformance" / "cases"]:
        for case in sorted(folder.glob("*/case.json")):
            spec = json.loads(case.read_text())
            for scope in ("settings", "user_settings"):
                hooks = (spec.get(scope) or {}).get("hooks")
                if hooks is not None:
                    found.append((f"{case.parent.name}:{scope}", {"hooks": hooks}))
    return found


def test_there_are_configs_to_check():
    assert len(configs()) > 100


@pytest.mark.parametrize("name,config", configs(), ids=lambda v: v if isinstance(v, str) else "")
def test_schema_and_parser_agree_on_every_config(hookbridge, validator, tmp_path, name, config):
    schema_errors = [e.message for e in validator.iter_errors(config)]
    parser_errors = validate_errors(hookbridge, tmp_path, config)
    if not parser_errors:
        assert not schema_errors, f"{name}: the parser accepts it, the schema does not: {schema_errors}"
    if schema_errors:
        assert parser_errors, f"{name}: the schema rejects it ({schema_errors}), the parser reports nothing"


WRONG = [
    {"hooks": {"PreToolUse": [{"hooks": [{"type": "comand", "command": "x"}]}]}},
    {"hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}},
    {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "timeout": "5"}]}]}},
    {"hooks": {"PreToolUse": [{"matcher": "Bash"}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "http"}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "mcp_tool", "server": "s"}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "args": "a b"}]}]}},
    {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "onFailure": "explode"}]}]}},
    {"hooks": {"Stop": {"hooks": []}}},
    {"hooks": []},
]


@pytest.mark.parametrize("config", WRONG, ids=lambda c: json.dumps(c)[:60])
def test_wrong_configs_are_rejected_by_both(hookbridge, validator, tmp_path, config):
    assert list(validator.iter_errors(config)), "the schema accepts it"
    assert validate_errors(hookbridge, tmp_path, config), "the parser reports no error"
