"""The crash sweep's jobs on a Ray cluster: one Ray task per chunk of one column's jobs, played on its node exactly as a
local sweep plays it (``crash_sweep.play_chunk``).

A task builds or reuses its column's isolated environment on its node from the same hashed lock, with the harness's own
builder (``run.environments``: one build per node, under a file lock), never with Ray's runtime environments, which
layer packages on the interpreter Ray runs instead of isolating them. A task takes only JSON (the job scenarios' text)
and gives only JSON back, so the driver writes the same job files, and the merge the same bytes, as a local run. Tasks
run with ``max_retries=0``: a task whose process or node died is reported as a chunk not measured, never played again
behind the sweep's back. Every node must run the driver's code: a task on a node whose tree differs refuses to play.

Ray's usage statistics stay off (``RAY_USAGE_STATS_ENABLED=0``, and ``--disable-usage-stats`` for ``ray start``), and so
does its dashboard. ``loopback_cluster`` starts a head on 127.0.0.1 alone, for the tests and the benchmark; docs/sweep.md
gives the commands for a real cluster.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from harness.columns import ROOT
from harness.errors import HarnessError
from harness.runner_side.explore.crash_sweep import Call, Log, Played, play_chunk
from harness.runner_side.run.runner import PACKAGES

CONNECT_S = 10.0  # how long the head's address may take to accept a connection
STARTUP_S = 90.0  # how long a loopback head may take to start (seen here: about 4 s)


class ClusterError(HarnessError):
    """The Ray cluster could not be reached or started; the message says which and why."""


@functools.cache
def source_digest() -> str:
    """SHA-256 of every file of the packages a column process imports from the repository (``runner.PACKAGES``: code,
    locks, fixtures) and ``pyproject.toml``, by relative path: what a node must share with the driver to play its jobs."""
    digest = hashlib.sha256()
    files = [ROOT / "pyproject.toml"]
    for package in sorted(PACKAGES):
        files += sorted(f for f in (ROOT / package).rglob("*") if f.is_file() and "__pycache__" not in f.parts)
    for path in files:
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def play_on_node(source: str, column: str, mode: str, lock: str, scenarios: dict[str, str], twice: bool) -> Played:
    """The Ray task: ``play_chunk`` on this node, once its code is the driver's (``source``)."""
    if source_digest() != source:
        return {"runs": {}, "log": [], "failed": {column: f"node {socket.gethostname()} runs other code than the driver (its packages differ): "
                                                          "check out the driver's commit on every node"}}  # fmt: skip
    return play_chunk(column, mode, lock, scenarios, twice, log=lambda _: None)


def check_reachable(address: str) -> None:
    """Raise ``ClusterError`` unless something accepts a connection at the head's ``HOST:PORT`` within ``CONNECT_S``:
    Ray itself would retry an address where nothing answers for minutes."""
    host, _, port = address.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_S).close()
    except (OSError, ValueError) as exc:
        raise ClusterError(f"nothing answers at {address}, where the Ray head should be: {exc}") from exc


def play_on_ray(address: str, calls: list[Call], log: Log) -> Iterator[tuple[int, Played]]:
    """Send every chunk of ``calls`` to the Ray cluster at ``address`` as a task of one CPU; yield ``(index, played)``
    as each ends, the lines its column process said logged first. A task that raised or died is its column's
    ``failed``, with Ray's reason. This process joins the cluster as a driver: it must run on one of its nodes."""
    check_reachable(address)
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # before Ray is imported: it reads the setting once
    import ray

    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as exc:  # RayError: a token refused, say
        raise ClusterError(f"cannot join the Ray cluster at {address} as a driver (run it on a node of the cluster, with "
                           f"the cluster's RAY_AUTH_MODE and token): {str(exc).strip().splitlines()[0][:300]}") from exc  # fmt: skip
    try:
        cpus = ray.cluster_resources().get("CPU", 0)  # type: ignore[no-untyped-call]
        if cpus < 1:  # a task of one CPU would wait for ever
            raise ClusterError(f"the Ray cluster at {address} offers no CPU: start a worker node (ray start --address={address})")
        alive = len([node for node in ray.nodes() if node.get("Alive")])  # type: ignore[no-untyped-call]
        log(f"{len(calls)} Ray tasks of one CPU each; the cluster has {cpus:g} CPUs on {alive} nodes")
        task = ray.remote(num_cpus=1, max_retries=0)(play_on_node)
        pending = {task.remote(source_digest(), *call): index for index, call in enumerate(calls)}
        while pending:
            (ref,), _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(ref)
            column = calls[index][0]
            try:
                played: Played = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the task raised, or its worker or node died: never retried
                reason = str(exc).strip().splitlines()[-1][:300]
                played = {"runs": {}, "log": [], "failed": {column: f"its Ray task of {len(calls[index][3])} jobs failed and was not retried: {reason}"}}
            for line in played["log"]:
                log(f"[{column}] {line}")
            yield index, played
    finally:
        ray.shutdown()


class RayCluster:
    """The Ray cluster whose head is at ``address``, as ``crash_sweep.run_jobs`` plays chunks on it."""

    def __init__(self, address: str) -> None:
        self.address, self.name = address, f"the Ray cluster at {address}"

    def play(self, calls: list[Call], log: Log) -> Iterator[tuple[int, Played]]:
        return play_on_ray(self.address, calls, log)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Head(NamedTuple):
    """A loopback head: its ``HOST:PORT``, the environment a driver needs to reach it, its session (the head's pid: its
    workers are in it, each in a process group of its own), its temporary directory (its tasks' ``TMPDIR`` is inside it)."""

    address: str
    env: dict[str, str]
    session: int
    directory: Path


@contextlib.contextmanager
def loopback_cluster(num_cpus: int) -> Iterator[Head]:
    """A Ray head of ``num_cpus`` CPUs on 127.0.0.1 alone (every server of it on loopback), in a session of its own;
    yields it (the driver's environment holds token authentication, with a token of its own) and stops its whole
    session on the way out. Its temporary directory is short (Ray's Unix sockets live there) and holds its tasks' temporary
    files too: all of it goes with the head, a killed task's scratch directory included."""
    ray = Path(sys.executable).with_name("ray")
    if not ray.is_file():
        raise ClusterError(f"no {ray}: install the ray extra (pip install -e '.[ray]')")
    env = {
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # Ray's local-only switch: 127.0.0.1 stays the node's address, not the host's
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),  # the cluster's own: nothing read from or written to ~/.ray
    }
    directory = Path(tempfile.mkdtemp(prefix="rb-", dir="/tmp"))  # a Unix socket's path holds about 107 bytes
    head = None
    try:
        (directory / "tmp").mkdir()
        own = {
            "TMPDIR": str(directory / "tmp"),
            "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0",  # nothing to drain once the sweep has its results
        }
        address = f"127.0.0.1:{_free_port()}"
        command = [str(ray), "start", "--head", "--block", "--node-ip-address=127.0.0.1", f"--port={address.rsplit(':', 1)[1]}",
                   f"--num-cpus={num_cpus}", "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={directory}",
                   "--object-store-memory=100000000"]  # fmt: skip
        said = directory / "head.log"
        with open(said, "w", encoding="utf-8") as out:
            head = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **env, **own}, start_new_session=True)
        deadline = time.monotonic() + STARTUP_S
        while "Ray runtime started" not in said.read_text(encoding="utf-8", errors="replace"):
            if head.poll() is not None or time.monotonic() > deadline:
                tail = said.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
                raise ClusterError(f"the loopback Ray head did not start: {' / '.join(tail) or 'it said nothing'}")
            time.sleep(0.2)
        yield Head(address, env, head.pid, directory)
    finally:
        if head is not None:
            _stop_group(head)
        shutil.rmtree(directory, ignore_errors=True)


def _stop_group(head: subprocess.Popen[bytes]) -> None:
    """End the head's session (``ray start``, the GCS, the raylet, its workers in process groups of their own): SIGTERM
    to the head's group, then SIGKILL to whatever of the session is left after 20 s."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(head.pid, signal.SIGTERM)
    for grace, last in ((20.0, False), (10.0, True)):
        deadline = time.monotonic() + grace
        while (left := session(head.pid)) and time.monotonic() < deadline:
            head.poll()  # reaps the head itself; the others go to init
            time.sleep(0.2)
        for pid in [] if last else left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def session(sid: int) -> list[int]:
    """The processes of session ``sid`` still running (not zombies)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and os.getsid(int(proc.name)) == sid and (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                found.append(int(proc.name))
        except (OSError, IndexError):
            continue
    return found
