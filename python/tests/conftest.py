import sys
from pathlib import Path

import pytest

from _support import HAVE_KERNEL, registry_classes
from support.harness import Project

# scripts/test.sh's rule for every pytest run: with CI=true a skipped test fails the run.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from pytest_no_skip_in_ci import *  # noqa: E402,F401,F403  (its pytest hooks, registered here)


def pytest_report_header(config):
    if HAVE_KERNEL:
        import amplifier_core

        return f"amplifier-core {amplifier_core.__version__} (differential reference)"
    return "amplifier-core not installed: differential tests are skipped (run scripts/python-env.sh)"


@pytest.fixture(params=["hookbridge", "amplifier-core"])
def registry_cls(request):
    """Each quirk test runs on hookbridge and on the real kernel: the table is the measurement."""
    classes = registry_classes()
    if request.param not in classes:
        pytest.skip("amplifier-core==2.0.2 is not installed")
    return classes[request.param]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project and a home directory of their own (``HOME`` points at it, so a developer's own
    ``~/.amplifier/hooks`` never leaks in)."""
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    # Trust records live under HOME too (``~/.local/state/hookbridge``), never a developer's own.
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    return Project(root=root.resolve(), home=home.resolve())


@pytest.fixture
def no_model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model API configured by the environment: prompt and agent hooks reach the provider a test
    sets up, never a developer's own keys."""
    for var in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY",
                "OPENAI_BASE_URL", "HOOKBRIDGE_MODEL_PROVIDER", "HOOKBRIDGE_PROMPT_MODEL"):
        monkeypatch.delenv(var, raising=False)
