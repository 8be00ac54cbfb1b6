"""Project exceptions for harness bugs and bad input (model mistakes are values, never these)."""

from __future__ import annotations


class HarnessError(Exception):
    """A harness bug or an impossible situation; ``partial`` carries whatever the run had gathered."""

    def __init__(self, message: str, partial: object = None) -> None:
        super().__init__(message)
        self.partial = partial


class ScenarioError(HarnessError):
    """A scenario file is malformed; the message names the file and the field."""
