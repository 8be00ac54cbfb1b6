"""The engine's model over HTTP: any OpenAI-compatible chat completions endpoint, through the official ``openai`` client.

The contract's rules for a model endpoint that fails (``docs/contract.md``, "The model's endpoint"):

- at most ``max_attempts`` (3) HTTP attempts per logical model call, in all: the client's own retries are off
  (``max_retries=0``) and this model counts, so no two layers stack their retries;
- an attempt is retried after 408, 429, any 5xx, a dropped connection (a reset, or an answer cut short), a timeout
  and a 200 whose body is not a chat completion; any other 4xx ends the call at once;
- ``Retry-After`` is honoured up to ``max_retry_after_s`` (2 s); a longer one means giving up at once; otherwise the
  wait before retry ``n`` (0-based) is ``backoff_s * 2**n`` (0.1 s, 0.2 s), with no jitter;
- timeouts: ``connect_timeout_s`` (1 s) to connect, ``read_timeout_s`` (5 s) to read; redirects are not followed (an
  attempt is one HTTP request: a 3xx is a status that is not retried);
- every attempt of one logical call carries the same ``Idempotency-Key: <session>/turn-<n>`` (``n``: the turn, the
  number of assistant messages so far), so a server can tell a retry from a new call.

After the last attempt it raises ``ModelUnavailable``: the engine stops the run ``model_unavailable`` with its
checkpoint at the last completed turn, and a ``resume`` asks again with a fresh budget.

``openai`` is imported when the model is built (the ``wire`` extra), never by the engine's core.
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .model import ModelReply, ModelUnavailable, ToolCall

_MESSAGE_FIELDS = ("role", "content", "tool_calls", "tool_call_id")  # what the chat completions API defines


@dataclass(frozen=True)
class WirePolicy:
    """The contract's attempt budget, backoff and timeouts for one logical model call."""

    max_attempts: int = 3
    backoff_s: float = 0.1
    max_retry_after_s: float = 2.0
    connect_timeout_s: float = 1.0
    read_timeout_s: float = 5.0


class _GiveUp(Exception):
    """An attempt failed in a way that is not retried (a 4xx other than 408 and 429, or a Retry-After too long)."""


class _Retry(Exception):
    """An attempt failed in a way that is retried; ``wait_s`` is the server's Retry-After, when it sent one."""

    def __init__(self, what: str, wait_s: float | None = None) -> None:
        super().__init__(what)
        self.wait_s = wait_s


class OpenAIWireModel:
    """Implements ``handwritten.model.Model`` over an OpenAI-compatible ``/chat/completions`` endpoint."""

    def __init__(
        self,
        base_url: str,
        *,
        session_id: str,
        model: str = "scripted-model",
        api_key: str = "not-a-key",
        policy: WirePolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        import openai  # the wire extra: the engine's core never imports it

        self._openai = openai
        self._policy = policy or WirePolicy()
        timeout = openai.Timeout(self._policy.read_timeout_s, connect=self._policy.connect_timeout_s)
        self._client = openai.OpenAI(
            base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout,
            http_client=openai.DefaultHttpxClient(timeout=timeout, follow_redirects=False),
        )  # fmt: skip
        self._session_id = session_id
        self._model = model
        self._sleep = sleep
        self._clock = clock  # reads a Retry-After given as an HTTP date

    def complete(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]]) -> ModelReply:
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        key = f"{self._session_id}/turn-{turn}"
        sent = [{k: m[k] for k in _MESSAGE_FIELDS if k in m} for m in messages]
        met: list[str] = []
        for attempt in range(self._policy.max_attempts):
            try:
                return self._attempt(sent, tools, key)
            except _GiveUp as exc:
                met.append(str(exc))
                raise ModelUnavailable(f"turn {turn}: {exc} is not retried (attempt {attempt + 1})", tuple(met)) from None
            except _Retry as exc:
                met.append(str(exc))
                if attempt + 1 == self._policy.max_attempts:
                    break
                if exc.wait_s is not None and exc.wait_s > self._policy.max_retry_after_s:
                    raise ModelUnavailable(f"turn {turn}: Retry-After {exc.wait_s:g} s is over {self._policy.max_retry_after_s:g} s", tuple(met)) from None
                self._sleep(exc.wait_s if exc.wait_s is not None else self._policy.backoff_s * 2**attempt)
        raise ModelUnavailable(f"turn {turn}: {len(met)} attempts failed ({', '.join(met)})", tuple(met))

    def _attempt(self, messages: list[dict[str, Any]], tools: Sequence[Mapping[str, Any]], key: str) -> ModelReply:
        """One HTTP attempt; a failure raises ``_Retry`` or ``_GiveUp`` naming what it met."""
        openai = self._openai
        try:
            raw = self._client.chat.completions.with_raw_response.create(
                model=self._model, messages=messages, tools=list(tools), extra_headers={"Idempotency-Key": key},  # type: ignore[arg-type]
            )  # fmt: skip
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in (408, 429) or status >= 500:
                raise _Retry(str(status), _retry_after(exc.response.headers.get("retry-after"), self._clock)) from None
            raise _GiveUp(str(status)) from None
        except openai.APITimeoutError:
            raise _Retry("timeout") from None
        except openai.APIConnectionError as exc:  # a reset, or an answer cut short
            raise _Retry(f"connection ({type(exc.__cause__).__name__ if exc.__cause__ else 'closed'})") from None
        try:
            return _reply(json.loads(raw.http_response.text))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError):  # not JSON (or nested past the parser), not a chat completion
            raise _Retry("bad_body") from None


def _reply(body: Mapping[str, Any]) -> ModelReply:
    """The engine's reply from a chat completion; arguments stay the raw JSON text the model sent."""
    message = body["choices"][0]["message"]
    calls = tuple(ToolCall(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in message.get("tool_calls") or ())
    text = message.get("content")
    if not calls and not isinstance(text, str):
        raise ValueError("a chat completion with neither text nor tool calls")
    return ModelReply(text=text if isinstance(text, str) else None, tool_calls=calls)


def _retry_after(value: str | None, clock: Callable[[], float]) -> float | None:
    """Seconds from a ``Retry-After`` header: a number of seconds, or an HTTP date (RFC 9110) counted from ``clock``;
    anything else, and a number that is not finite, is treated as absent."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - clock()
        except (TypeError, ValueError, IndexError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None
