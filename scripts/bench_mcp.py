#!/usr/bin/env python3
"""Benchmark the ``tools/call`` round trip of the MCP server against the tool boundary it wraps.

Run it from the repository root with the ``mcp`` extra installed (``pip install -e ".[mcp]"``)::

    python scripts/bench_mcp.py                          # default rounds, Markdown table on stdout
    python scripts/bench_mcp.py --rounds 50 --batch 20 --json /tmp/bench_mcp.json

The same two calls, a read (``get_weather {"city": "Paris"}``) and a write (``put_note``, a fresh idempotency key
per call in ``_meta``, so every write runs: checkpoint, execute, record), go through four paths, each on its own
session in a temporary state directory:

- (a) ``ToolBoundary.call`` in process: schema, identity, policy, approval, checkpoint, execute; no MCP;
- (b) the MCP SDK in process: ``mcp.Client(server)`` on the ``Server`` of ``build_server``, no transport;
- (c) stdio: ``mcp.Client(StdioServerParameters(...))`` on one ``scripts/serve_mcp.py`` process, many calls;
- (d) Streamable HTTP: ``scripts/serve_mcp.py --http PORT`` (a free port), ``mcp.Client("http://127.0.0.1:PORT/mcp")``.

A fifth timed variant is the policy's own share: the registry validator's ``check``, the session user's identity
(``as_session_user``) and ``Policy.decide``, called directly as ``ToolBoundary._call`` does before it executes.

Method: the variants are interleaved round-robin (the order rotates every round) and each round times one batch of
``--batch`` calls per variant and kind with ``time.perf_counter_ns``, so a noisy machine's drift hits all alike.
Figures are medians over rounds of the per-call time; ratios to (a) and the policy share are taken within each
round, then the median. The numbers are ratios from one run on a shared 2-core machine: compare paths with each
other, not with another machine's figures. ``--json`` writes a timing file, not deterministic evidence.
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from importlib.metadata import version
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # runnable from a fresh clone without installing

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from mcp.types import CallToolResult, RequestParamsMeta  # noqa: E402

from handwritten.boundary import ToolBoundary  # noqa: E402
from handwritten.policy import Policy  # noqa: E402
from handwritten.tools import as_session_user  # noqa: E402
from harness.column_side.mcp import KEY_META  # noqa: E402
from harness.column_side.mcp.server import build_server  # noqa: E402
from harness.column_side.mcp.session import TOKEN_FILE, open_boundary  # noqa: E402
from harness.fixture_tools import FIXTURE_TOOLS  # noqa: E402

SERVE = ROOT / "scripts" / "serve_mcp.py"
KINDS = {"read": ("get_weather", {"city": "Paris"}), "write": ("put_note", {"key": "bench", "text": "hello"})}
PATHS = ["(a) boundary, in process", "(b) MCP SDK, in process", "(c) MCP over stdio", "(d) MCP over Streamable HTTP"]
POLICY = "schema + identity + policy alone"
USER = "bench"  # every session's user: neither tool acts for a user, so who it is does not matter
Call = Callable[[str, dict[str, Any], str | None], Awaitable[None] | None]  # tool, arguments, key
_keys = itertools.count()


def boundary_call(boundary: ToolBoundary) -> Call:
    def call(tool: str, args: dict[str, Any], key: str | None) -> None:
        result = boundary.call(tool, args, key)
        assert result.status == "ok", f"{tool}: {result.status} {result.output}"

    return call


def client_call(client: Client) -> Call:
    async def call(tool: str, args: dict[str, Any], key: str | None) -> None:
        result: CallToolResult = await client.call_tool(tool, args, meta=cast(RequestParamsMeta, {KEY_META: key}) if key else None)
        status = (result.structured_content or {}).get("status")
        assert not result.is_error and status == "ok", f"{tool}: {status} {result.content}"

    return call


def policy_call(boundary: ToolBoundary) -> Call:
    registry, policy = boundary.registry, Policy()  # built once, as the boundary holds its own

    def call(tool: str, args: dict[str, Any], key: str | None) -> None:
        checked = registry.validator(tool).check(args)
        spec = registry.get(tool)
        assert checked.ok and as_session_user(spec, checked.args, boundary.user) is not None
        policy.decide(tool, spec.risk)

    return call


async def timed(call: Call, kind: str, n: int) -> float:
    """µs per call over a batch of ``n`` calls of ``kind`` (a write gets a fresh key per call)."""
    tool, args = KINDS[kind]
    keys = [f"bench-{next(_keys)}" if kind == "write" else None for _ in range(n)]
    start = time.perf_counter_ns()
    for key in keys:
        pending = call(tool, args, key)
        if pending is not None:
            await pending
    return (time.perf_counter_ns() - start) / n / 1000.0


def start_http(state: Path, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """``serve_mcp.py --http`` on a free port, once it accepts connections."""
    with socket.socket() as sock:  # a free port: the OS picks one, the server binds it right after
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, str(SERVE), "--state-dir", str(state), "--session", "d", "--user", USER, "--http", str(port)]
    with open(log, "wb") as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    stop(proc)
    raise RuntimeError(f"the HTTP server did not start: {log.read_text()[-2000:]}")


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


async def measure(state: Path, rounds: int, batch: int, warmup: int) -> dict[str, dict[str, list[float]]]:
    """µs per call of every variant and kind, one sample per round."""
    tools = list(FIXTURE_TOOLS)
    local, served = (open_boundary(state, s, USER, tools, None) for s in ("a", "b"))
    http, url = start_http(state, state / "http.log")
    try:
        async with AsyncExitStack() as stack:
            stdio = StdioServerParameters(command=sys.executable, args=[str(SERVE), "--state-dir", str(state), "--session", "c", "--user", USER], cwd=str(ROOT))
            http_client = await stack.enter_async_context(httpx2.AsyncClient(headers={"Authorization": f"Bearer {(state / TOKEN_FILE).read_text().strip()}"}))
            over_http = streamable_http_client(url, http_client=http_client)  # every request carries the server's bearer token
            clients = [await stack.enter_async_context(Client(target)) for target in (build_server(served), stdio, over_http)]
            calls: dict[str, Call] = dict(zip(PATHS, [boundary_call(local), *map(client_call, clients)], strict=True))
            calls[POLICY] = policy_call(local)
            for call in calls.values():  # first calls pay for imports, connections and caches
                for kind in KINDS:
                    await timed(call, kind, warmup)
            samples: dict[str, dict[str, list[float]]] = {name: {kind: [] for kind in KINDS} for name in calls}
            names = list(calls)
            for r in range(rounds):
                k = r % len(names)
                for name in names[k:] + names[:k]:  # round-robin, rotating who goes first
                    for kind in KINDS:
                        samples[name][kind].append(await timed(calls[name], kind, batch))
            return samples
    finally:
        stop(http)
        for boundary in (local, served):
            boundary.records.close()


def summarize(samples: dict[str, dict[str, list[float]]]) -> dict[str, dict[str, dict[str, float]]]:
    """Median, quartiles, ratio to (a) and the policy share, per path and kind (ratios within each round)."""
    base, policy = samples[PATHS[0]], samples[POLICY]
    out: dict[str, dict[str, dict[str, float]]] = {}
    for name, kinds in samples.items():
        out[name] = {}
        for kind, xs in kinds.items():
            q1, _, q3 = statistics.quantiles(xs, n=4) if len(xs) > 1 else (xs[0], xs[0], xs[0])
            ratio = statistics.median(x / b for x, b in zip(xs, base[kind], strict=True))
            share = statistics.median(p / x for p, x in zip(policy[kind], xs, strict=True))
            out[name][kind] = {"median_us": statistics.median(xs), "p25_us": q1, "p75_us": q3, "ratio_to_a": ratio, "policy_share": share}
    return out


def table(summary: dict[str, dict[str, dict[str, float]]]) -> str:
    rows = [
        "| path | read µs/call | write µs/call | read × (a) | write × (a) | policy share, read | policy share, write |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name in PATHS:
        r, w = summary[name]["read"], summary[name]["write"]
        rows.append(
            f"| {name} | {r['median_us']:.0f} | {w['median_us']:.0f} | {r['ratio_to_a']:.1f} | {w['ratio_to_a']:.1f} "
            f"| {100 * r['policy_share']:.1f} % | {100 * w['policy_share']:.1f} % |"
        )
    p = summary[POLICY]
    rows.append(f"\n{POLICY}: {p['read']['median_us']:.1f} µs (read), {p['write']['median_us']:.1f} µs (write).")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="tools/call round trip: boundary, MCP in process, stdio, Streamable HTTP.")
    parser.add_argument("--rounds", type=int, default=30, help="interleaved rounds (default: 30)")
    parser.add_argument("--batch", type=int, default=20, help="calls per variant, kind and round (default: 20)")
    parser.add_argument("--warmup", type=int, default=10, help="untimed calls per variant and kind first (default: 10)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the figures (a timing file, not evidence)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as state:
        samples = anyio.run(measure, Path(state), args.rounds, args.batch, args.warmup)
    summary = summarize(samples)
    wall = time.monotonic() - started
    print(table(summary))
    print(f"\n{args.rounds} rounds × {args.batch} calls per path and kind; mcp {version('mcp')}, Python {platform.python_version()}; {wall:.1f} s.")
    if args.json:
        meta = {"rounds": args.rounds, "batch": args.batch, "warmup": args.warmup, "mcp": version("mcp"), "python": platform.python_version(), "wall_s": wall}
        figures = {**meta, "paths": summary, "samples_us": samples}
        args.json.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
