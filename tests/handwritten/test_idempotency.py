"""The engine's idempotency records, memory and SQLite alike, plus two real processes racing on one key."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import threading
import time
from contextlib import closing

import pytest

from handwritten.checkpoint import SqliteCheckpointStore
from handwritten.idempotency import (
    Conflict,
    Exhausted,
    InFlight,
    MemoryIdempotencyStore,
    Record,
    RecordState,
    Replayed,
    SqliteIdempotencyStore,
    Started,
    Uncertain,
)

K = "sess-1/c1"
COMPLETED, FAILED = RecordState.COMPLETED, RecordState.FAILED
IN_PROGRESS, UNCERTAIN = RecordState.IN_PROGRESS, RecordState.UNCERTAIN


@pytest.fixture(params=["memory", "sqlite"])
def store(request, tmp_path):
    if request.param == "memory":
        yield MemoryIdempotencyStore()
    else:
        s = SqliteIdempotencyStore(str(tmp_path / "engine.sqlite"))
        yield s
        s.close()


# Each case: operations on key K as (method, *arguments) -> expected return value, then the record left behind.
# "begin" takes (args_hash, max_attempts).
CASES = {
    "new key starts attempt 1": (
        [(("begin", "h1", 3), Started(1))],
        Record(K, "h1", IN_PROGRESS, 1),
    ),
    "completed key replays the stored canonical JSON": (
        [(("begin", "h1", 3), Started(1)), (("complete", {"b": 2, "a": [1, "\u00e9"]}), None), (("begin", "h1", 3), Replayed('{"a":[1,"\u00e9"],"b":2}'))],
        Record(K, "h1", COMPLETED, 1, result='{"a":[1,"\u00e9"],"b":2}'),
    ),
    "other args on a completed key conflict": (
        [(("begin", "h1", 3), Started(1)), (("complete", {"ok": True}), None), (("begin", "h2", 3), Conflict("h1"))],
        Record(K, "h1", COMPLETED, 1, result='{"ok":true}'),
    ),
    "other args on an in-progress key conflict": (
        [(("begin", "h1", 3), Started(1)), (("begin", "h2", 3), Conflict("h1"))],
        Record(K, "h1", IN_PROGRESS, 1),
    ),
    "failures are retried until exhausted": (
        [
            (("begin", "h1", 3), Started(1)),
            (("fail", "boom 1"), None),
            (("begin", "h1", 3), Started(2)),
            (("fail", "boom 2"), None),
            (("begin", "h1", 3), Started(3)),
            (("fail", "boom 3"), None),
            (("begin", "h1", 3), Exhausted("boom 3")),
            (("begin", "h1", 3), Exhausted("boom 3")),
        ],
        Record(K, "h1", FAILED, 3, error="boom 3"),
    ),
    "one allowed attempt": (
        [(("begin", "h1", 1), Started(1)), (("fail", "boom"), None), (("begin", "h1", 1), Exhausted("boom"))],
        Record(K, "h1", FAILED, 1, error="boom"),
    ),
    "begin while in progress is in flight": (
        [(("begin", "h1", 3), Started(1)), (("begin", "h1", 3), InFlight()), (("begin", "h1", 3), InFlight())],
        Record(K, "h1", IN_PROGRESS, 1),
    ),
    "mark_uncertain makes begin answer Uncertain": (
        [(("begin", "h1", 3), Started(1)), (("mark_uncertain",), None), (("begin", "h1", 3), Uncertain())],
        Record(K, "h1", UNCERTAIN, 1),
    ),
    "mark_uncertain leaves a completed record alone": (
        [(("begin", "h1", 3), Started(1)), (("complete", 7), None), (("mark_uncertain",), None), (("begin", "h1", 3), Replayed("7"))],
        Record(K, "h1", COMPLETED, 1, result="7"),
    ),
    "mark_uncertain on an unknown key does nothing": (
        [(("mark_uncertain",), None), (("begin", "h1", 3), Started(1))],
        Record(K, "h1", IN_PROGRESS, 1),
    ),
    "resolve confirmed completes with the resolution recorded": (
        [
            (("begin", "h1", 3), Started(1)),
            (("mark_uncertain",), None),
            (("resolve", "confirmed", {"reconciled": "confirmed"}), None),
            (("begin", "h1", 3), Replayed('{"reconciled":"confirmed"}')),
        ],
        Record(K, "h1", COMPLETED, 1, result='{"reconciled":"confirmed"}', resolution="confirmed"),
    ),
    "resolve not_executed fails the record so a retry may run": (
        [
            (("begin", "h1", 3), Started(1)),
            (("mark_uncertain",), None),
            (("resolve", "not_executed", {"reconciled": "not_executed"}), None),
            (("begin", "h1", 3), Started(2)),
        ],
        Record(K, "h1", IN_PROGRESS, 2, result='{"reconciled":"not_executed"}', resolution="not_executed"),
    ),
    "claim_once is true exactly once": (
        [(("claim_once",), True), (("claim_once",), False), (("claim_once",), False)],
        Record(K, "", COMPLETED, 1, result="null"),
    ),
}


@pytest.mark.parametrize(("operations", "record"), CASES.values(), ids=CASES.keys())
def test_record_transitions(store, operations, record):
    assert store.get(K) is None
    answers = [getattr(store, op[0])(K, *op[1:]) for op, _ in operations]
    assert (answers, store.get(K)) == ([expected for _, expected in operations], record)


def test_keys_are_independent(store):
    answers = [store.begin("a", "h", 3), store.begin("b", "h", 3), store.claim_once("c"), store.begin("a", "h", 3)]
    assert (answers, store.get("d")) == ([Started(1), Started(1), True, InFlight()], None)


def test_sqlite_records_survive_a_new_connection(tmp_path):
    path = str(tmp_path / "engine.sqlite")
    first = SqliteIdempotencyStore(path)
    first.begin(K, "h1", 3)
    first.complete(K, {"id": 1})
    first.close()
    second = SqliteIdempotencyStore(path)
    try:
        assert (second.begin(K, "h1", 3), second.get(K)) == (Replayed('{"id":1}'), Record(K, "h1", COMPLETED, 1, result='{"id":1}'))
    finally:
        second.close()


# -- two real processes deliver the same key at the same moment -----------------------------

REPETITIONS = 10


def _deliver(db: str, effects_db: str, key: str, barrier, results) -> None:
    """One delivery in its own process: begin(); the winner widens the window, records its effect and completes."""
    try:
        store = SqliteIdempotencyStore(db)
        barrier.wait(timeout=10)
        outcome = store.begin(key, "h", 3)
        if isinstance(outcome, Started):
            time.sleep(0.05)
            effects = sqlite3.connect(effects_db, timeout=30.0, isolation_level=None)
            effects.execute("INSERT INTO effects (key, pid) VALUES (?, ?)", (key, os.getpid()))
            effects.close()
            store.complete(key, {"sent": key})
        store.close()
        results.put(outcome)
    except BaseException as exc:  # reported, never swallowed: a lock error must fail the test
        results.put(f"{type(exc).__name__}: {exc}")


def _label(outcome, key: str) -> str:
    if outcome == Started(1):
        return "started"
    if outcome in (InFlight(), Replayed(f'{{"sent":"{key}"}}')):
        return "lost: in flight or replayed"
    return repr(outcome)  # an exception text such as "OperationalError: database is locked" lands here


@pytest.mark.slow  # two processes
def test_two_processes_racing_on_one_key_run_the_effect_once(tmp_path):
    db, effects_db = str(tmp_path / "engine.sqlite"), str(tmp_path / "effects.sqlite")
    SqliteIdempotencyStore(db).close()  # the engine's file exists, as it does for any running deployment
    with closing(sqlite3.connect(effects_db)) as conn:
        conn.execute("CREATE TABLE effects (key TEXT NOT NULL, pid INTEGER NOT NULL)")
    ctx = multiprocessing.get_context("fork")

    summaries = []
    for rep in range(REPETITIONS):
        key = f"sess-race/c{rep}"
        barrier, results = ctx.Barrier(2), ctx.Queue()
        workers = [ctx.Process(target=_deliver, args=(db, effects_db, key, barrier, results)) for _ in range(2)]
        for w in workers:
            w.start()
        outcomes = [results.get(timeout=30) for _ in workers]
        for w in workers:
            w.join(timeout=30)
        with closing(sqlite3.connect(effects_db)) as conn:
            effects = conn.execute("SELECT COUNT(*) FROM effects WHERE key = ?", (key,)).fetchone()[0]
        summaries.append({"outcomes": sorted(_label(o, key) for o in outcomes), "effects": effects, "exit_codes": [w.exitcode for w in workers]})
    # every repetition: one winner, one clean loser (in flight, or a replay if the winner already finished), one effect
    assert summaries == [{"outcomes": ["lost: in flight or replayed", "started"], "effects": 1, "exit_codes": [0, 0]}] * REPETITIONS
    check = SqliteIdempotencyStore(db)
    try:
        assert [check.get(f"sess-race/c{rep}") for rep in range(REPETITIONS)] == [
            Record(f"sess-race/c{rep}", "h", COMPLETED, 1, result=f'{{"sent":"sess-race/c{rep}"}}') for rep in range(REPETITIONS)
        ]
    finally:
        check.close()


@pytest.mark.parametrize("store_class", [SqliteIdempotencyStore, SqliteCheckpointStore])
def test_opening_a_store_waits_while_another_process_creates_the_file(tmp_path, store_class):
    path = str(tmp_path / "engine.sqlite")
    creator = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    creator.execute("BEGIN IMMEDIATE")  # another process is writing the brand-new file right now
    release = threading.Timer(0.2, creator.execute, ("COMMIT",))
    release.start()
    try:
        store = store_class(path)  # should wait (busy timeout 30 s) for the creator, then open
        store.close()
    finally:
        release.join()
        creator.close()
