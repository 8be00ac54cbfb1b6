"""What the wire probes share: a plain OpenAI-compatible stub on 127.0.0.1, and the wire counts of what it received.

A wire probe (``probes/<framework>/<scenario>__wire.py``, with ``MODE = "wire"``) drives its framework's documented OpenAI-compatible
model against this stub alone: ``http.server`` in a thread, with no scenario file, no token and no recording beyond
each request's headers and body (nothing of the runner's scripted server). The stub answers a request for turn N (the
assistant turns the request carries) with the script's turn N, as chat completions or the Responses API, plain or
streamed as asked; ``failures`` makes it answer the turn's first requests otherwise, in order (an HTTP status, a
status with a ``Retry-After``, ``"bad_body"``: a 200 that is not JSON, ``"cut"``: the answer dropped after its start),
and ``always`` every request of the turn. ``wire_counts`` computes the ``wire`` observable's per-run counts from what it received, by the same
functions the runner uses (``harness.runner_side.observe.wire``).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from handwritten.canonical import canonical_json
from harness import wire_formats as formats
from harness.schema_diff import schema_diffs
from harness.script_log import ScriptJudge, reply_for

Answer = int | str | tuple[int, float]
"""How a failing request is answered: an HTTP status, ``(status, Retry-After seconds)``, ``"bad_body"`` or ``"cut"``."""


class LoopbackModel:
    """The stub, serving from construction until ``close``; ``url`` is the base URL a client is given."""

    def __init__(self, script: Sequence[Mapping[str, Any]], failures: Mapping[int, Sequence[Answer]] | None = None,
                 always: Mapping[int, Answer] | None = None) -> None:  # fmt: skip
        self.script = list(script)
        self.failures = {turn: list(answers) for turn, answers in (failures or {}).items()}
        self.always = dict(always or {})
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, and streams in chunks: a cut one ends without its last chunk

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
                stub.answer(self, body)

            def log_message(self, *args: Any) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        chat = handler.path.endswith("/chat/completions")
        messages = formats.chat_messages(body) if chat else formats.responses_messages(body)
        turn = ScriptJudge.turn_of(messages)
        self.requests.append({"path": handler.path, "turn": turn, "retry_count": handler.headers.get("x-stainless-retry-count"),
                              "timeout": handler.headers.get("x-stainless-read-timeout"), "idempotency_key": handler.headers.get("idempotency-key"),
                              "tools": formats.chat_tools(body) if chat else formats.responses_tools(body)})  # fmt: skip
        failure = self._failure(turn)
        if isinstance(failure, (int, tuple)):
            status, retry_after = failure if isinstance(failure, tuple) else (failure, None)
            _send(handler, status, canonical_json({"error": {"message": f"status {status}", "type": "probe"}}).encode(), retry_after=retry_after)
            return
        if failure == "bad_body":
            _send(handler, 200, b"this is not JSON")
            return
        reply = reply_for(self.script[turn])
        if not body.get("stream"):
            answer = formats.chat_completion(reply, turn, "probe") if chat else formats.response_object(reply, turn, "probe")
            _send(handler, 200, canonical_json(answer).encode(), cut=failure == "cut")
            return
        handler.send_response(200)
        handler.send_header("content-type", "text/event-stream")
        handler.send_header("transfer-encoding", "chunked")
        handler.end_headers()
        events = ([f"data: {canonical_json(c)}\n\n" for c in formats.chat_chunks(reply, turn, "probe")] + ["data: [DONE]\n\n"] if chat else
                  [f"event: {e['type']}\ndata: {canonical_json(e)}\n\n" for e in formats.response_events(reply, turn, "probe")])  # fmt: skip
        for event in events[:1] if failure == "cut" else events:
            data = event.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        if failure == "cut":
            handler.close_connection = True
            return
        handler.wfile.write(b"0\r\n\r\n")

    def _failure(self, turn: int) -> Answer | None:
        """How this request of ``turn`` is answered other than by the script: every time, or the next of its listed failures."""
        if turn in self.always:
            return self.always[turn]
        pending = self.failures.get(turn)
        return pending.pop(0) if pending else None


def _send(handler: BaseHTTPRequestHandler, status: int, body: bytes, cut: bool = False, retry_after: float | None = None) -> None:
    handler.send_response(status)
    handler.send_header("content-type", "application/json")
    if retry_after is not None:
        handler.send_header("retry-after", f"{retry_after:g}")
    handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body[: len(body) // 2] if cut else body)
    handler.close_connection = cut


def wire_counts(requests: Sequence[Mapping[str, Any]], tools: Sequence[str], objects: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``wire`` observable's per-run counts from the stub's requests: ``wire.attempts``, ``wire.client_retries``,
    ``wire.idempotency_key_sent``, ``wire.read_timeout`` and ``wire.schema_diff.<tool>`` for each tool whose schema
    changed on its way to the request (the engine's wire run sends them verbatim): ``objects`` are the schemas the
    probe read from its framework's tool objects, by tool name (``harness.schema_diff``)."""
    sent: Sequence[Mapping[str, Any]] = next((r["tools"] for r in requests if r["tools"]), [])
    counts: dict[str, Any] = {
        "wire.attempts": len(requests),
        "wire.client_retries": sum(1 for r in requests if str(r["retry_count"] or "0") != "0"),
        "wire.idempotency_key_sent": bool(requests) and all(r["idempotency_key"] for r in requests),
        "wire.read_timeout": sorted({str(r["timeout"] or "none") for r in requests}),
    }
    return counts | {f"wire.schema_diff.{tool}": diff for tool, diff in schema_diffs(tools, sent, objects).items()}
