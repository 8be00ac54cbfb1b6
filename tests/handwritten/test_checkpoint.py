"""Versioned, hashed checkpoints: exact round trips, and every damaged checkpoint refused with CheckpointError.

These tests use the stores' public surface (save/load) and the documented columns
(``state``, ``content_hash``, ``schema_version`` of table ``checkpoints``); anything else in
the file is damaged generically, cell by cell, so the tests do not depend on its layout.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handwritten.canonical import args_hash, canonical_json
from handwritten.checkpoint import (
    AgentState,
    CheckpointError,
    MemoryCheckpointStore,
    PendingCall,
    SqliteCheckpointStore,
)
from handwritten.engine import Hooks
from tests.handwritten.rig import SESSION, USER_INPUT, SimulatedCrash, crash_after_checkpoint

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
NOTE = {"key": "k1", "text": "remember \u00e9t\u00e9"}
TRANSFER_CALL = PendingCall("c2", "transfer_funds", TRANSFER, args_hash(TRANSFER), f"{SESSION}/c2")
NOTE_CALL = PendingCall("c1", "put_note", NOTE, args_hash(NOTE), f"{SESSION}/c1")

RICH_STATE = AgentState(
    session_id=SESSION,
    event_id="e2",
    seen_event_ids=("e1", "e2"),
    step=3,
    status="awaiting_approval",
    messages=(
        {"role": "system", "content": "Be careful."},
        {"role": "user", "content": USER_INPUT},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "put_note", "arguments": canonical_json(NOTE)}}]},
        {"role": "tool", "tool_call_id": "c0", "name": "get_weather", "content": '{"forecast":"snow","city":"ACC-2 town"}'},
    ),
    turn_call_ids=("c1", "c2"),
    turn_results=({"role": "tool", "tool_call_id": "c0", "name": "get_weather", "content": '{"forecast":"snow"}'},),
    queue=(TRANSFER_CALL,),
    pending_approval=(TRANSFER_CALL,),
    pending_intent=NOTE_CALL,
    approved=(("c0", "tok-1"),),
    final_text=None,
    stop_reason=None,
)


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "engine.sqlite")


@pytest.fixture
def sqlite_store(db):
    store = SqliteCheckpointStore(db)
    yield store
    store.close()


def _fresh_load(db: str, session: str = SESSION):
    """Load in a new store, as a new process would."""
    store = SqliteCheckpointStore(db)
    try:
        return store.load(session)
    finally:
        store.close()


def _execute(db: str, sql: str, *params) -> None:
    """A second connection damaging the file behind the store's back."""
    with closing(sqlite3.connect(db, isolation_level=None)) as conn:
        conn.execute(sql, params)


def test_state_with_pending_approval_intent_and_messages_round_trips(db, sqlite_store):
    sqlite_store.save(RICH_STATE)
    assert (sqlite_store.load(SESSION), _fresh_load(db)) == (RICH_STATE, RICH_STATE)


def test_load_returns_the_latest_and_keeps_sessions_apart(db, sqlite_store):
    first = AgentState(session_id=SESSION, event_id="e1", seen_event_ids=("e1",), messages=RICH_STATE.messages[:2])
    other = AgentState(session_id="sess-other", step=9)
    shorter = RICH_STATE.evolve(messages=RICH_STATE.messages[:1], step=4)  # a transcript may also be replaced by a shorter one
    for state in (first, other, RICH_STATE):
        sqlite_store.save(state)
    seen = [(sqlite_store.load(SESSION), _fresh_load(db), _fresh_load(db, "sess-other"), _fresh_load(db, "sess-none"))]
    sqlite_store.save(shorter)
    seen.append((sqlite_store.load(SESSION), _fresh_load(db), _fresh_load(db, "sess-other"), _fresh_load(db, "sess-none")))
    assert seen == [(RICH_STATE, RICH_STATE, other, None), (shorter, shorter, other, None)]


def test_memory_store_keeps_the_latest():
    store = MemoryCheckpointStore()
    store.save(AgentState(session_id=SESSION))
    store.save(RICH_STATE)
    assert (store.load(SESSION), store.load("sess-none"), store.saves) == (RICH_STATE, None, 2)


CORRUPTED = f"checkpoint for session '{SESSION}' is corrupted: content hash mismatch"

# damage of the latest checkpoint -> expected CheckpointError message
DAMAGES = {
    "altered state text": (
        "UPDATE checkpoints SET state = replace(state, 'ACC-2', 'ACC-9') WHERE session_id = ?",
        CORRUPTED,
    ),
    "insignificant whitespace added to the state text": (
        "UPDATE checkpoints SET state = state || ' ' WHERE session_id = ?",
        CORRUPTED,
    ),
    "truncated state text": (
        "UPDATE checkpoints SET state = substr(state, 1, 40) WHERE session_id = ?",
        CORRUPTED,
    ),
    "changed content hash": (
        f"UPDATE checkpoints SET content_hash = '{'0' * 64}' WHERE session_id = ?",
        CORRUPTED,
    ),
    "unknown schema version": (
        "UPDATE checkpoints SET schema_version = 2 WHERE session_id = ?",
        f"checkpoint for session '{SESSION}': unknown schema version 2 (this engine reads 1)",
    ),
}


@pytest.mark.parametrize(("sql", "message"), DAMAGES.values(), ids=DAMAGES.keys())
def test_damaged_latest_checkpoint_is_refused(db, sqlite_store, sql, message):
    sqlite_store.save(AgentState(session_id=SESSION))
    sqlite_store.save(RICH_STATE)
    _execute(db, sql, SESSION)
    outcomes = []
    for load in (lambda: sqlite_store.load(SESSION), lambda: _fresh_load(db)):
        with pytest.raises(CheckpointError) as info:
            load()
        outcomes.append(str(info.value))
    assert outcomes == [message, message]


def _content_cells(db: str) -> list[tuple[str, str, str, int]]:
    """(table, column, declared type, rowid) of every stored cell except keys (primary-key columns and session_id)."""
    with closing(sqlite3.connect(db)) as conn:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        cells = []
        for table in tables:
            columns = [(c[1], c[2].upper()) for c in conn.execute(f"PRAGMA table_info({table})") if c[5] == 0 and c[1] != "session_id"]
            for (rowid,) in conn.execute(f"SELECT rowid FROM {table}"):
                cells += [(table, column, kind, rowid) for column, kind in columns]
    return cells


ALTERATIONS = {
    "TEXT": {"space appended": "{c} || ' '", "last character cut": "substr({c}, 1, length({c}) - 1)"},
    "INTEGER": {"plus one": "{c} + 1", "minus one": "{c} - 1"},
}


def test_changing_any_stored_cell_is_refused(db, sqlite_store):
    """Whatever the file's layout: alter any stored cell of a session's only checkpoint, and load refuses it."""
    sqlite_store.save(RICH_STATE)
    cells = _content_cells(db)
    assert {("checkpoints", c) for c in ("state", "content_hash", "schema_version")} <= {(t, c) for t, c, _, _ in cells}
    outcomes = {}
    for table, column, kind, rowid in cells:
        for name, alteration in ALTERATIONS[kind].items():
            with closing(sqlite3.connect(db, isolation_level=None)) as conn:
                (original,) = conn.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
                conn.execute(f"UPDATE {table} SET {column} = {alteration.format(c=column)} WHERE rowid = ?", (rowid,))
                (altered,) = conn.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", (rowid,)).fetchone()
                if altered == original:  # e.g. NULL + 1 is still NULL: nothing was changed
                    continue
                try:
                    _fresh_load(db)
                    outcomes[f"{table}.{column}#{rowid}: {name}"] = "loaded"
                except CheckpointError:
                    outcomes[f"{table}.{column}#{rowid}: {name}"] = "refused"
                except Exception as exc:  # anything but CheckpointError is a failure to refuse cleanly
                    outcomes[f"{table}.{column}#{rowid}: {name}"] = repr(exc)
                finally:
                    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (original, rowid))
    assert outcomes == dict.fromkeys(outcomes, "refused")
    assert _fresh_load(db) == RICH_STATE  # every cell was put back: the file is intact again


# a state the store itself accepted but whose fields do not parse: refused as CheckpointError, never a raw error
UNPARSEABLE = {
    "step is not a number": RICH_STATE.evolve(step="three"),
    "approved entry too short": RICH_STATE.evolve(approved=(("c0",),)),
}


@pytest.mark.parametrize("state", UNPARSEABLE.values(), ids=UNPARSEABLE.keys())
def test_fields_that_do_not_parse_are_a_checkpoint_error(db, sqlite_store, state):
    sqlite_store.save(state)
    with pytest.raises(CheckpointError) as info:
        _fresh_load(db)
    assert str(info.value).startswith(f"checkpoint for session '{SESSION}' is unreadable: ")


def test_file_of_garbage_bytes_is_a_checkpoint_error(tmp_path):
    path = tmp_path / "engine.sqlite"
    path.write_bytes(b"\x00\xffnot a database at all\x13\x37" * 300)
    with pytest.raises(CheckpointError) as info:
        SqliteCheckpointStore(str(path))
    assert str(info.value) == "checkpoint file is unreadable: file is not a database"


# -- Engine.resume on a damaged checkpoint ----------------------------------------------------

SCRIPT = [
    {"tool_calls": [{"id": "c1", "name": "put_note", "arguments": NOTE}]},
    {"text": "Noted."},
]
NOTE_EFFECT = {"c1": {"tool": "put_note", "tool_entries": 1, "executor_entries": 1, "effects": 1}}

# damage of the latest checkpoint (None: intact) -> (outcome of resume, ledger afterwards)
RESUME_CASES = {
    "intact: resume runs the call once": (None, ("completed", "Noted."), NOTE_EFFECT),
    "altered state text": ("UPDATE checkpoints SET state = replace(state, 'k1', 'k9') WHERE session_id = ?", CORRUPTED, {}),
    "changed content hash": (DAMAGES["changed content hash"][0], CORRUPTED, {}),
    "unknown schema version": (DAMAGES["unknown schema version"][0], DAMAGES["unknown schema version"][1], {}),
}


@pytest.mark.parametrize(("sql", "outcome", "ledger"), RESUME_CASES.values(), ids=RESUME_CASES.keys())
def test_resume_refuses_a_damaged_checkpoint_and_calls_no_tool(make_rig, sql, outcome, ledger):
    rig = make_rig(SCRIPT, ["put_note"], store="sqlite", hooks=Hooks(after_checkpoint=crash_after_checkpoint))
    with pytest.raises(SimulatedCrash):
        rig.engine.run(SESSION, USER_INPUT, "e1")  # dies between the intent checkpoint and the executor
    assert (rig.checkpoints.load(SESSION).pending_intent, rig.ledger()) == (NOTE_CALL, {})
    if sql is not None:
        _execute(rig.engine_db, sql, SESSION)

    engine = rig.restart(hooks=Hooks())  # a new process: fresh stores over the same file
    try:
        result = engine.resume(SESSION)
        seen = (result.status, result.final_text)
    except CheckpointError as exc:
        seen = str(exc)
    assert (seen, rig.ledger(), rig.model_turns_asked()) == (outcome, ledger, [0, 1] if sql is None else [0])


# -- property: any state round-trips ------------------------------------------------------------

texts = st.text(max_size=12)
json_leaf = st.none() | st.booleans() | st.integers(-(2**63), 2**63) | st.floats(allow_nan=False, allow_infinity=False) | texts
json_value = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3), max_leaves=8)
ids = st.text(alphabet="abc123-/", min_size=1, max_size=6)
messages = st.fixed_dictionaries(
    {"role": st.sampled_from(["system", "user", "assistant", "tool"]), "content": st.none() | texts},
    optional={"tool_call_id": ids, "tool_calls": st.lists(json_value, max_size=2), "extra": json_value},
)
pending_calls = st.builds(lambda i, t, a, k: PendingCall(i, t, a, args_hash(a), k), ids, ids, json_value, st.none() | ids)
states = st.builds(
    AgentState,
    session_id=ids,
    event_id=st.none() | ids,
    seen_event_ids=st.lists(ids, max_size=3).map(tuple),
    step=st.integers(0, 10_000),
    status=st.sampled_from(["running", "awaiting_approval", "reconcile_required", "completed", "stopped_max_steps"]),
    messages=st.lists(messages, max_size=5).map(tuple),
    turn_call_ids=st.lists(ids, max_size=3).map(tuple),
    turn_results=st.lists(messages, max_size=2).map(tuple),
    queue=st.lists(pending_calls, max_size=2).map(tuple),
    pending_approval=st.lists(pending_calls, max_size=2).map(tuple),
    pending_intent=st.none() | pending_calls,
    approved=st.lists(st.tuples(ids, ids), max_size=2).map(tuple),
    final_text=st.none() | texts,
    stop_reason=st.none() | texts,
)


def _grow(state: AgentState, op: tuple) -> AgentState:
    match op:
        case ("append", new):
            return state.evolve(messages=state.messages + tuple(new), step=state.step + 1)
        case ("truncate", keep):
            return state.evolve(messages=state.messages[:keep], step=state.step + 1)
        case ("copy",):  # equal content, new objects (as after a load in another process)
            return state.evolve(messages=tuple(dict(m) for m in state.messages), status="running")
        case ("replace_last", message):
            return state.evolve(messages=state.messages[:-1] + (message,))
    raise AssertionError(op)


operations = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.lists(messages, min_size=1, max_size=3)),
        st.tuples(st.just("truncate"), st.integers(0, 6)),
        st.tuples(st.just("copy")),
        st.tuples(st.just("replace_last"), messages),
        st.tuples(st.just("load")),
    ),
    min_size=1,
    max_size=8,
)


@pytest.mark.slow  # hypothesis: many SQLite files
@settings(max_examples=40, deadline=None)
@given(first=states, ops=operations)
def test_after_any_sequence_of_saves_the_last_one_loads(tmp_path_factory, first, ops):
    """One writer: save, grow, shrink, replace, reload in any order; a fresh process always loads the last save."""
    db = str(tmp_path_factory.mktemp("seq") / "engine.sqlite")
    store = SqliteCheckpointStore(db)
    try:
        state, seen, expected = first, [], []
        store.save(state)
        for op in ops:
            if op == ("load",):
                state = store.load(state.session_id)
            else:
                state = _grow(state, op)
                store.save(state)
            seen.append(_fresh_load(db, state.session_id))
            expected.append(state)
        assert seen == expected
    finally:
        store.close()


def test_two_handles_saving_one_after_the_other_the_last_save_loads(db):
    first, second = SqliteCheckpointStore(db), SqliteCheckpointStore(db)
    base = AgentState(session_id=SESSION, messages=({"role": "user", "content": USER_INPUT},))
    by_second = base.evolve(step=1, messages=base.messages + ({"role": "assistant", "content": "from the second handle"},))
    by_first = base.evolve(step=2, messages=base.messages + ({"role": "assistant", "content": "from the first handle"},))
    try:
        first.save(base)
        second.save(by_second)
        first.save(by_first)
        assert _fresh_load(db) == by_first
    finally:
        first.close()
        second.close()


@pytest.fixture(scope="module")
def shared_store(tmp_path_factory):
    store = SqliteCheckpointStore(str(tmp_path_factory.mktemp("prop") / "engine.sqlite"))
    yield store
    store.close()


@settings(max_examples=60, deadline=None)
@given(state=states, extra_turn=messages)
def test_any_state_round_trips(shared_store, state, extra_turn):
    """to_json/from_json, then the SQLite store, then a grown transcript saved over it: always the exact state back."""
    grown = state.evolve(messages=state.messages + (extra_turn,), step=state.step + 1)
    shared_store.save(state)
    loaded = shared_store.load(state.session_id)
    shared_store.save(grown)
    assert (AgentState.from_json(state.to_json()), loaded, shared_store.load(state.session_id)) == (state, state, grown)
