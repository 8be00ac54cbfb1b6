"""Project exceptions for harness bugs and bad input (model mistakes are values, never these)."""

from __future__ import annotations

import re

# C0 and C1 controls, DEL, the line and paragraph separators and the bidirectional overrides and isolates: what
# a terminal obeys (moves the cursor, clears the screen, sets the title, reorders the text) instead of showing.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str, lines: bool = False) -> str:
    """``text`` with every character a terminal would obey instead of show written as its escape (``\\x1b``,
    ``\\u202e``): scenario text printed in a message is shown, never acted on; a lone surrogate (which no terminal
    can be sent) is escaped too. With ``lines`` the text's own line breaks stay (a block of lines the harness wrote)."""
    if lines:
        return "\n".join(printable(line) for line in text.split("\n"))
    return _UNPRINTABLE.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text)


class HarnessError(Exception):
    """A harness bug or an impossible situation; ``partial`` carries whatever the run had gathered."""

    def __init__(self, message: str, partial: object = None) -> None:
        super().__init__(message)
        self.partial = partial


class ScenarioError(HarnessError):
    """A scenario file is malformed; the message names the file and the field, with the file's text ``printable``."""

    def __init__(self, message: str, partial: object = None) -> None:
        super().__init__(printable(message), partial)
