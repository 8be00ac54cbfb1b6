"""The runner reads what a column wrote (its observations, its guard's log, its line traces) as a column might have
left it: a FIFO, a link (in the file's place or a directory's), a sparse file of gigabytes. Each is refused in one line,
never waited on, followed or held (issue 33)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.runner_side.run.glue_coverage import read_lines
from harness.runner_side.run.users import MAX_COLUMN_FILE, read_column_file


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "scratch" / "traces").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "defaults.tsv").write_text("1\tsecret.py\n", encoding="utf-8")
    return tmp_path / "scratch"


def _returns_within(seconds: float, act: object) -> None:
    done = threading.Event()
    outcome: list[BaseException] = []

    def run() -> None:
        try:
            act()  # type: ignore[operator]
        except BaseException as exc:
            outcome.append(exc)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    assert done.wait(seconds), "the runner waited on what the column left"
    assert outcome and isinstance(outcome[0], HarnessError), outcome


def test_a_fifo_among_the_traces_is_refused_at_once(scratch: Path) -> None:
    os.mkfifo(scratch / "traces" / "defaults.tsv")
    _returns_within(5, lambda: read_lines(scratch / "traces" / "defaults.tsv"))


def test_a_link_in_a_files_place_or_a_directorys_is_never_followed(scratch: Path) -> None:
    (scratch / "traces" / "defaults.tsv").symlink_to(scratch.parent / "elsewhere" / "defaults.tsv")
    with pytest.raises(HarnessError, match="symbolic link"):
        read_lines(scratch / "traces" / "defaults.tsv")
    (scratch / "traces" / "defaults.tsv").unlink()
    (scratch / "traces").rmdir()
    (scratch / "traces").symlink_to(scratch.parent / "elsewhere")
    with pytest.raises(HarnessError, match="is a symbolic link, not a directory the column made"):
        read_lines(scratch / "traces" / "defaults.tsv")


def test_a_file_larger_than_the_bound_is_refused_before_it_is_read(scratch: Path) -> None:
    big = scratch / "observations.json"
    with open(big, "wb") as sparse:  # costs the column nothing on disk
        sparse.truncate(MAX_COLUMN_FILE + 1)
    with pytest.raises(HarnessError, match="more than the"):
        read_column_file(big, scratch)
    big.write_text("{}", encoding="utf-8")
    assert read_column_file(big, scratch) == "{}"
