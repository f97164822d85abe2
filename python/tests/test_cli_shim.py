"""The package's `hookbridge` console script (hookbridge._cli): it execs the executable a wheel
from scripts/build-wheel.sh carries, and without one it says how to get it instead of failing
obscurely. (The wheel with the executable is installed and run by scripts/test.sh's install stage.)"""

import subprocess
import sys

from hookbridge import _cli


def test_without_the_shipped_executable_it_says_how_to_get_one():
    # The development install (maturin develop) carries no executable.
    assert not _cli.binary().exists()
    out = subprocess.run([sys.executable, "-m", "hookbridge._cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 1
    assert "has no hookbridge executable" in out.stderr
    assert "scripts/build-wheel.sh" in out.stderr


def test_the_executable_is_exec_ed_with_the_arguments(tmp_path, monkeypatch):
    fake = tmp_path / "hookbridge"
    fake.write_text('#!/bin/sh\necho "args: $*"; exit 7\n')
    fake.chmod(0o755)
    code = (
        "import sys; from hookbridge import _cli; from pathlib import Path;"
        f"_cli.binary = lambda: Path({str(fake)!r}); sys.argv = ['hookbridge', 'list', '--json']; _cli.main()"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 7, out.stderr
    assert out.stdout == "args: list --json\n"
