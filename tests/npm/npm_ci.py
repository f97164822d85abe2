#!/usr/bin/env python3
"""The agents the test suite runs, installed exactly as pinned: `npm ci` from the committed
`tests/npm/<name>/package.json` and `package-lock.json` (every package's version and integrity hash).

    python3 tests/npm/npm_ci.py NAME [DEST]     prints the agent's command (its path), installing first

NAME is a folder here: `claude-code`, `claude-code-next` (the next Claude Code release, which measures
`tests/conformance/next/`), `codex`, `gemini`. DEST defaults to `target/npm/<NAME>`; an
install whose lockfile equals the committed one is reused. After installing, the package's own
`package.json` must give the pinned version.

To move to another version: change the version in `<NAME>/package.json`, then
`npm install --package-lock-only --ignore-scripts` in that folder, and commit both files (and the
oracle's version constant, which must agree).
"""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
COMMANDS = {"claude-code": "claude", "claude-code-next": "claude", "codex": "codex", "gemini": "gemini"}


def pinned(name):
    """(package, version) that `tests/npm/<name>/package.json` pins."""
    with open(os.path.join(HERE, name, "package.json")) as f:
        (package, version), = json.load(f)["dependencies"].items()
    return package, version


def install(name, dest=None):
    """The pinned agent's command, installed with `npm ci` into `dest` unless it is there already."""
    package, version = pinned(name)
    dest = os.path.abspath(dest or os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"),
                                                 "npm", name))
    binary = os.path.join(dest, "node_modules", ".bin", COMMANDS[name])
    lock = os.path.join(HERE, name, "package-lock.json")

    def same(a, b):
        try:
            with open(a, "rb") as x, open(b, "rb") as y:
                return x.read() == y.read()
        except OSError:
            return False

    done = os.path.join(dest, "installed-lock.json")  # written only after a whole install
    if not (os.path.exists(binary) and same(lock, done)):
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        for f in ("package.json", "package-lock.json"):
            shutil.copy(os.path.join(HERE, name, f), dest)
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=dest, check=True,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        shutil.copy(lock, done)
    with open(os.path.join(dest, "node_modules", *package.split("/"), "package.json")) as f:
        installed = json.load(f)["version"]
    if installed != version:
        raise SystemExit(f"{dest}: npm ci installed {package} {installed}, not the pinned {version}")
    return binary


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in COMMANDS:
        sys.exit(f"usage: npm_ci.py {{{','.join(COMMANDS)}}} [DEST]")
    print(install(*sys.argv[1:]))
