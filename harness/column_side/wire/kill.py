"""A ``model.kill_before_turn`` fault over the wire: the worker dies when its model's answer arrives, before any
code of the column or its framework reads it.

In process the scripted model logs a request, fires the fault, then answers. Over the wire the runner's scripted
server logs the request and answers it with an ``x-scripted-turn`` header; this hook, on the worker's HTTP client
(``httpx2``, which openai 3.x and every framework built on it use, and ``httpx``), fires the fault for that turn as
the response comes in: the server has logged the request, and nothing has read the answer. It only reads a header:
no request or answer is changed. Installed in the forked worker of a ``wire`` step only.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.column_side.fixtures.faults import FaultPlan

TURN_HEADER = "x-scripted-turn"


def arm_wire_kills(faults: FaultPlan) -> None:
    """Make every HTTP response carrying ``x-scripted-turn: N`` fire ``model.kill_before_turn`` for turn N."""
    if not faults.has("model.kill_before_turn"):
        return
    for name in ("httpx2", "httpx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        _wrap(module.Client, "send", faults, asynchronous=False)
        _wrap(module.AsyncClient, "send", faults, asynchronous=True)


def _fire(faults: FaultPlan, response: Any) -> None:
    turn = response.headers.get(TURN_HEADER)
    if turn is not None and turn.isdigit():
        faults.fire("model.kill_before_turn", turn=int(turn))


def _wrap(cls: Any, method: str, faults: FaultPlan, asynchronous: bool) -> None:
    original = getattr(cls, method)
    if getattr(original, "_wire_kill", False):
        return
    if asynchronous:
        async def send(self: Any, *args: Any, **kwargs: Any) -> Any:
            response = await original(self, *args, **kwargs)
            _fire(faults, response)
            return response
    else:
        def send(self: Any, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
            response = original(self, *args, **kwargs)
            _fire(faults, response)
            return response
    send._wire_kill = True  # type: ignore[attr-defined]
    setattr(cls, method, send)
