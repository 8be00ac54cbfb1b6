"""The modes a column is played in, and which of the reference's runs each is compared with: defined here once.

- ``defaults``: the framework as its documentation teaches it, with the scripted model in process;
- ``contract``: the framework with the least glue that keeps the contract (``docs/contract.md``);
- ``wire``: ``defaults`` with the framework's own OpenAI-compatible client against the runner's scripted server.

Every mode of a framework is compared with a run of the reference column, the hand-written engine
(``harness.columns.REFERENCE``), which plays the contract: in process for ``defaults`` and ``contract``, over the
wire for ``wire`` (the engine's own client on the same scripted server).
"""

from __future__ import annotations

from harness.columns import REFERENCE

MODES: tuple[str, ...] = ("defaults", "contract", "wire")
"""Every mode, in the order tables, the scorecard and the command line list them."""

REFERENCE_MODES: tuple[str, ...] = ("contract", "wire")
"""The modes the reference column plays: the contract in process, and the contract with its model over the wire."""

GLUE_MODES: tuple[str, ...] = ("defaults", "contract")
"""The modes whose line traces tell a contract column's glue from the framework's defaults (the glue count's check)."""


def compared_with(mode: str) -> tuple[str, str]:
    """``(column, mode)`` of the reference run a framework's run in ``mode`` is compared with: the engine's wire run
    for ``wire``, its contract run for ``defaults`` and ``contract``."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    return REFERENCE, "wire" if mode == "wire" else "contract"


def reference_modes(modes: list[str] | tuple[str, ...]) -> list[str]:
    """The reference column's modes a run of ``modes`` plays: its contract run always (every scenario's expectations
    are checked on it), and the engine run each of ``modes`` is compared with."""
    return list(dict.fromkeys(["contract", *(compared_with(mode)[1] for mode in modes)]))
