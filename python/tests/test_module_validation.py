"""hook-bridge passes amplifier-core's own checks for hook modules.

- ``amplifier-core validate hook <package dir>``: the kernel's CLI (from this venv) imports the
  package, checks ``mount`` (async, ``(coordinator, config)``) and mounts it on a
  ``MockCoordinator`` to see handlers registered.
- ``HookBehaviorTests``: the kernel's behavioral test base class. Its fixtures come from
  amplifier-core's pytest plugin, which finds the module under test from an
  ``amplifier-module-<type>-<name>`` directory or ``--module-path``; neither fits a module that
  lives in a larger repository, so this file overrides the plugin's ``module_path`` fixture with the
  package that is actually imported. Everything else (``coordinator``, ``hook_cleanup``) is the
  plugin's own.

Both run in a temporary project and home directory, so the developer's hooks never load.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from amplifier_core.validation.behavioral import HookBehaviorTests

import amplifier_module_hook_bridge

#: The package as this interpreter imports it (not resolved: a symlinked checkout stays as seen).
PACKAGE_DIR = Path(amplifier_module_hook_bridge.__file__).absolute().parent


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project as the working directory and an empty home."""
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path / "project")
    return tmp_path / "project"


@pytest.fixture
def module_path() -> Path:
    return PACKAGE_DIR


def _cli() -> str:
    cli = Path(sys.executable).parent / "amplifier-core"
    if not cli.exists():
        pytest.skip(f"amplifier-core's CLI is not installed next to {sys.executable}")
    return str(cli)


def test_amplifier_core_validate_hook_passes(isolated: Path) -> None:
    proc = subprocess.run([_cli(), "validate", "hook", str(PACKAGE_DIR)], capture_output=True, text=True,
                          cwd=isolated, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED: 4/4 checks" in proc.stdout, proc.stdout
    for check in ("module_importable", "mount_exists", "mount_signature", "protocol_compliance"):
        assert check in proc.stdout


def test_the_entry_point_is_installed() -> None:
    """``hook-bridge`` in ``amplifier.modules``: what Amplifier's loader looks up first."""
    from importlib.metadata import entry_points

    names = [ep for ep in entry_points(group="amplifier.modules") if ep.name == "hook-bridge"]
    assert [ep.value for ep in names] == ["amplifier_module_hook_bridge:mount"]


class TestHookBridgeBehavior(HookBehaviorTests):
    """amplifier-core's behavioral contract for hook modules, run on hook-bridge."""


# MockCoordinator's display system is an AsyncMock, which the kernel calls synchronously.
@pytest.mark.filterwarnings("ignore:coroutine 'AsyncMockMixin._execute_mock_call' was never awaited")
class TestHookBridgeOnItsOwnEvents:
    """The same contract on the events hook-bridge handles, with hooks configured: malformed or
    empty data must neither crash the kernel nor block anything."""

    @pytest.fixture
    def project(self, isolated: Path) -> Path:
        plugin = isolated / ".amplifier" / "hooks" / "guard"
        plugin.mkdir(parents=True)
        hooks = {"hooks": {event: [{"matcher": "*", "hooks": [{"type": "command", "command": "exit 2"}]}]
                           for event in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart")}}
        (plugin / "hooks.json").write_text(json.dumps(hooks))
        return isolated

    @pytest.mark.parametrize("event", ["tool:pre", "tool:post", "tool:error", "prompt:submit", "session:end"])
    @pytest.mark.parametrize("data", [None, {}])
    async def test_malformed_data_gives_a_valid_result(self, project: Path, coordinator, event, data) -> None:
        from amplifier_core import HookResult

        cleanup = await amplifier_module_hook_bridge.mount(coordinator, {})
        try:
            result = await coordinator.hooks.emit(event, data)
        finally:
            cleanup()
        assert isinstance(result, HookResult)
        assert result.action in {"continue", "deny", "modify", "inject_context", "ask_user"}
        if event == "tool:pre":
            # no tool name, no payload: the guard is not run on a half-empty payload (a guard that
            # sees an empty command might let it through), and the operation is not blocked
            assert result.action == "continue"
