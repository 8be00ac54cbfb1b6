"""Checkpoint savers: round trip, append-only history, and refusal of anything not safe to load."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.local_state_graph.checkpointer import (
    Checkpoint,
    Checkpointer,
    CheckpointError,
    MemorySaver,
    SqliteSaver,
)
from adapters.local_state_graph.graph import END, StateGraph
from handwritten.canonical import sha256_hex

FIRST = Checkpoint("t", 1, 0, "input", {"messages": [{"role": "user", "content": "héllo"}], "n": 1.5}, "a")
SECOND = Checkpoint("t", 2, 1, "a", {"messages": [], "n": 2}, END, {"question": "ok?"})


@pytest.fixture(params=["memory", "sqlite"])
def make_saver(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Checkpointer]:
    if request.param == "memory":
        saver = MemorySaver()
        return lambda: saver
    return lambda: SqliteSaver(str(tmp_path / "checkpoints.sqlite"))


def test_checkpoints_round_trip_and_the_newest_wins(make_saver: Callable[[], Checkpointer]) -> None:
    saver = make_saver()
    assert saver.latest("t") is None
    saver.put(FIRST)
    saver.put(SECOND)
    reader = make_saver()  # for SQLite: another connection, as another process would open
    assert reader.latest("t") == SECOND
    assert reader.get("t", 1) == FIRST
    assert reader.get("t", 3) is None and reader.latest("other") is None


def test_a_checkpoint_is_never_overwritten(make_saver: Callable[[], Checkpointer]) -> None:
    saver = make_saver()
    saver.put(FIRST)
    with pytest.raises(CheckpointError, match="checkpoint 1 of thread 't' already exists"):
        saver.put(FIRST)


def test_values_that_are_not_json_are_refused_before_anything_is_saved(make_saver: Callable[[], Checkpointer]) -> None:
    saver = make_saver()
    with pytest.raises(ValueError):
        saver.put(Checkpoint("t", 1, 0, "input", {"n": float("nan")}, "a"))
    assert saver.latest("t") is None


def _tamper(path: Path, assignment: str, *params: object) -> None:
    conn = sqlite3.connect(path)
    conn.execute(f"UPDATE graph_checkpoints SET {assignment} WHERE checkpoint_id = 2", params)
    conn.commit()
    conn.close()


@pytest.mark.parametrize(
    ("assignment", "params", "message"),
    [
        ("body = replace(body, '\"n\":2', '\"n\":3')", (), "checkpoint 2 of thread 't' is corrupted: content hash mismatch"),
        ("schema_version = 2", (), "checkpoint 2 of thread 't': unknown schema version 2 .this runtime reads 1."),
        ("body = ?, content_hash = ?", ("{not json", sha256_hex("{not json")), "checkpoint 2 of thread 't' is unreadable"),
        ("body = ?, content_hash = ?", ('{"thread_id": "t"}', sha256_hex('{"thread_id": "t"}')), "checkpoint 2 of thread 't' is unreadable"),
    ],
)
def test_a_corrupted_or_unknown_version_checkpoint_is_refused_whole(tmp_path: Path, assignment: str, params: tuple[object, ...], message: str) -> None:
    path = tmp_path / "checkpoints.sqlite"
    saver = SqliteSaver(str(path))
    saver.put(FIRST)
    saver.put(SECOND)
    _tamper(path, assignment, *params)
    with pytest.raises(CheckpointError, match=message):
        SqliteSaver(str(path)).latest("t")
    assert SqliteSaver(str(path)).get("t", 1) == FIRST  # the others stay readable


def test_a_checkpoint_moved_to_another_thread_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "checkpoints.sqlite"
    SqliteSaver(str(path)).put(SECOND)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE graph_checkpoints SET thread_id = 'other'")
    conn.commit()
    conn.close()
    with pytest.raises(CheckpointError, match="checkpoint 2 of thread 'other' is corrupted: it does not hold that checkpoint"):
        SqliteSaver(str(path)).latest("other")


def test_a_graph_refuses_to_continue_from_a_corrupted_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "graph.sqlite"
    builder = StateGraph({"n": 0})
    builder.add_node("a", lambda values, run: {"n": values["n"] + 1})
    builder.set_entry_point("a")
    builder.add_edge("a", END)
    builder.compile(SqliteSaver(str(path))).invoke("t", {})
    _tamper(path, "body = replace(body, '\"n\":1', '\"n\":41')")
    graph = builder.compile(SqliteSaver(str(path)))
    for call in (lambda: graph.get_state("t"), lambda: graph.invoke("t", {}), lambda: graph.invoke("t", None)):
        with pytest.raises(CheckpointError, match="content hash mismatch"):
            call()


def test_an_unreadable_file_is_a_checkpoint_error(tmp_path: Path) -> None:
    path = tmp_path / "not_a_database.sqlite"
    path.write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(CheckpointError, match="is unreadable"):
        SqliteSaver(str(path))


def test_the_sqlite_file_is_in_wal_mode_with_synchronous_normal(tmp_path: Path) -> None:
    saver = SqliteSaver(str(tmp_path / "checkpoints.sqlite"))
    conn = saver._conn  # noqa: SLF001 - the durability settings are the point of this test
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
