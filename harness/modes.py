"""The modes a column is played in, and which of the reference's runs each is compared with: defined here once.

- ``defaults``: the framework as its documentation teaches it, with the scripted model in process;
- ``contract``: the framework with the least glue that keeps the contract (``docs/contract.md``);
- ``wire``: ``defaults`` with the framework's own OpenAI-compatible client against the runner's scripted server;
- ``mcp``: ``defaults`` with the framework's own MCP client taking every tool from the runner's MCP server
  (``harness.runner_side.run.servers.mcp``), every client setting at its default.

Every mode of a framework is compared with a run of the engine, which plays the contract: the reference column
(``harness.columns.REFERENCE``) in process for ``defaults`` and ``contract``, over the wire for ``wire`` (the engine's own
client on the same scripted server); for ``mcp``, the engine as an MCP client of the project's server
(``MCP_REFERENCE``, in its contract mode).
"""

from __future__ import annotations

from harness.columns import REFERENCE

MODES: tuple[str, ...] = ("defaults", "contract", "wire", "mcp")
"""Every mode, in the order tables, the scorecard and the command line list them."""

REFERENCE_MODES: tuple[str, ...] = ("contract", "wire")
"""The modes the reference column plays: the contract in process, and the contract with its model over the wire."""

DEFAULT_MODES: tuple[str, ...] = ("defaults", "contract", "wire")
"""The modes a comparison runs when none is named (``--mode all``). ``mcp`` runs on its own (``--mode mcp``): its runs
wait on the runner's MCP server (slow answers, restarts) and would lengthen every default comparison; a run of the
default modes keeps each column's ``mcp`` evidence as it was."""

MCP_REFERENCE = "handwritten_mcp"
"""The engine as an MCP client of the project's server: what a framework's MCP client is compared with."""

GLUE_MODES: tuple[str, ...] = ("defaults", "contract")
"""The modes whose line traces tell a contract column's glue from the framework's defaults (the glue count's check)."""


def compared_with(mode: str) -> tuple[str, str]:
    """``(column, mode)`` of the reference run a framework's run in ``mode`` is compared with: the engine's wire run
    for ``wire``, its contract run for ``defaults`` and ``contract``."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    if mode == "mcp":
        return MCP_REFERENCE, "contract"
    return REFERENCE, "wire" if mode == "wire" else "contract"


def reference_modes(modes: list[str] | tuple[str, ...]) -> list[str]:
    """The reference column's modes a run of ``modes`` plays: its contract run always (every scenario's expectations
    are checked on it), and the engine run each of ``modes`` is compared with."""
    return list(dict.fromkeys(["contract", *(compared_with(mode)[1] for mode in modes if compared_with(mode)[0] == REFERENCE)]))


def modes_played(column: str, modes: list[str] | tuple[str, ...]) -> list[str]:
    """The modes ``column`` plays in a run of ``modes``: the reference's (``reference_modes``); for any other column the
    modes asked, with the run every mode asked is compared with when it is this column's (the MCP reference's contract
    run, for ``mcp``)."""
    if column == REFERENCE:
        return reference_modes(modes)
    return list(dict.fromkeys([*modes, *(compared_with(m)[1] for m in modes if compared_with(m)[0] == column)]))


def over_mcp(column: str, mode: str) -> bool:
    """Whether ``column``'s runs in ``mode`` take their tools from an MCP server: every framework's ``mcp`` mode, and
    every run of the MCP reference (the engine as a client of the project's server)."""
    return mode == "mcp" or column == MCP_REFERENCE
