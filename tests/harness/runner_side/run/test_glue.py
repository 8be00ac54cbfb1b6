"""Glue lines are counted from the adapter's sources, exactly: code lines only (no docstrings, comments or
blank lines), in glue files, marked regions, the shared glue the column imports, the blocks of
glue_blocks.py it uses (closed over the blocks those use) and the base column's marked regions."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from harness.runner_side.run.glue import code_lines, count_glue_lines

BLOCKS = '''\
"""Shared glue blocks (module docstring: not code)."""

from __future__ import annotations

import json
from typing import Any

LIMIT = 3  # used by the block "run"
UNUSED = 4


# contract glue block: state
class State:
    """The glue's state."""

    name: str
    """An attribute docstring: not code either."""
# contract glue block end


# contract glue block: run
def run(state: State, args: Any) -> str:
    """Runs once."""
    # a comment

    return settle(state) * LIMIT


def helper() -> None:
    pass
# contract glue block end


# contract glue block: settle
def settle(state: State) -> str:
    return json.dumps(
        {"name": state.name}
    )
# contract glue block end


# contract glue block: gate
def gate() -> bool:
    return True
# contract glue block end


# contract glue block: lonely
def lonely() -> None:
    pass
# contract glue block end
'''
BASE = '''\
"""The base column."""

from .glue_blocks import State, gate


class FrameworkColumn:
    def play(self, contract):
        if contract is not None:
            # contract glue: start
            """Not a docstring's place, still not code."""
            gate()
            # contract glue: end
        return 1
'''


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_code_lines_leave_out_docstrings_comments_and_blank_lines_but_keep_multiline_code() -> None:
    source = '''"""Module
docstring."""
x = 1  # a comment counts as the code it follows

# a comment
def f():
    """Function docstring."""
    return """a string
    that is code"""
class C:
    """Class."""
    a: int
    """Attribute docstring."""
'''
    assert code_lines(source) == {3, 6, 8, 9, 10, 12}


def test_glue_files_shared_glue_and_marked_regions_count_their_code_lines(tmp_path: Path) -> None:
    adapters = tmp_path / "adapters"
    _write(adapters / "glue_common.py", '"""Shared glue: whole file."""\ns = 1\n# why\nt = 2\n')
    _write(adapters / "glue_unused.py", "u = 1\n")
    _write(adapters / "tools.py", "from adapters.glue_common import s\n# contract glue: start\nk = s\n# contract glue: end\n")
    _write(adapters / "col" / "glue.py", '"""Doc."""\n\n# a comment\nx = 1\ndef f():\n    """Doc."""\n    return 2\n')
    _write(
        adapters / "col" / "adapter.py",
        "from ..tools import k\na = 1\n# contract glue: start\nb = 2\n\n    # why\nc = 3\n# contract glue: end\nd = 4\n",
    )
    _write(adapters / "col" / "plain.py", "e = 5\n")
    # the shared glue is imported through another shared module; its marked region counts too
    assert count_glue_lines(adapters / "col") == {
        "files": {"../glue_common.py": 2, "../tools.py": 1, "adapter.py": 2, "glue.py": 3},
        "total": 8,
    }


def test_blocks_count_when_used_closed_over_the_blocks_and_statements_they_use(tmp_path: Path) -> None:
    adapters = tmp_path / "adapters"
    _write(adapters / "glue_blocks.py", BLOCKS)
    _write(adapters / "col" / "session.py", "from adapters.glue_blocks import run\n\ndef go(s):\n    return run(s, {})\n")
    # run uses State, settle, LIMIT and Any (an annotation), settle uses json: gate, lonely and UNUSED are not counted
    assert count_glue_lines(adapters / "col") == {
        "files": {"../glue_blocks.py#module": 3, "../glue_blocks.py#run": 4, "../glue_blocks.py#settle": 4, "../glue_blocks.py#state": 2},
        "total": 13,
    }


def test_a_block_used_as_an_attribute_of_the_module_counts(tmp_path: Path) -> None:
    adapters = tmp_path / "adapters"
    _write(adapters / "glue_blocks.py", BLOCKS)
    _write(adapters / "col" / "session.py", "from adapters import glue_blocks as gb\n\ndef go():\n    return gb.lonely()\n")
    assert count_glue_lines(adapters / "col")["files"] == {"../glue_blocks.py#lonely": 2}


def test_the_base_columns_regions_and_blocks_count_for_every_framework_column(tmp_path: Path) -> None:
    adapters = tmp_path / "adapters"
    _write(adapters / "glue_blocks.py", BLOCKS)
    _write(adapters / "column.py", BASE)
    _write(adapters / "framework" / "column.py", "from ..column import FrameworkColumn\n\nclass Col(FrameworkColumn):\n    pass\n")
    _write(adapters / "own" / "column.py", "from .column_parts import Col\n")  # its own column.py, not the base
    _write(adapters / "own" / "column_parts.py", "class Col:\n    pass\n")
    assert count_glue_lines(adapters / "framework") == {
        "files": {"../column.py": 1, "../glue_blocks.py#gate": 2, "../glue_blocks.py#state": 2},
        "total": 5,
    }
    assert count_glue_lines(adapters / "own") == {"files": {}, "total": 0}


@pytest.mark.parametrize(
    "text",
    [
        "# contract glue: start\nx = 1\n",
        "x = 1\n# contract glue: end\n",
        "# contract glue: start\n# contract glue: start\nx = 1\n# contract glue: end\n",
    ],
)
def test_unbalanced_markers_are_an_error_not_a_guess(tmp_path: Path, text: str) -> None:
    _write(tmp_path / "adapters" / "col" / "session.py", text)
    with pytest.raises(ValueError, match="session.py"):
        count_glue_lines(tmp_path / "adapters" / "col")


def test_a_block_statement_past_its_end_marker_is_an_error(tmp_path: Path) -> None:
    _write(tmp_path / "adapters" / "glue_blocks.py", "# contract glue block: a\ndef f():\n# contract glue block end\n    pass\n")
    _write(tmp_path / "adapters" / "col" / "s.py", "from adapters.glue_blocks import f\n")
    with pytest.raises(ValueError, match="past its end marker"):
        count_glue_lines(tmp_path / "adapters" / "col")
