"""Test-only broken column: the hand-written engine with idempotency records that forget
in-progress calls, so a resume after a crash runs the side effect again."""

from __future__ import annotations

from adapters.handwritten.column import HandwrittenColumn
from handwritten.idempotency import (
    Begin,
    InFlight,
    RecordState,
    SqliteIdempotencyStore,
    Started,
    Uncertain,
)


class Column(HandwrittenColumn):
    name = "broken_reexecutes_on_resume"


class ForgetfulStore(SqliteIdempotencyStore):
    """Treats an unfinished record as never started: the classic re-execution on resume."""

    def get(self, key):  # type: ignore[no-untyped-def]
        record = super().get(key)
        return None if record is not None and record.state is not RecordState.COMPLETED else record

    def begin(self, key: str, args_hash: str, max_attempts: int) -> Begin:
        answer = super().begin(key, args_hash, max_attempts)
        return Started(1) if isinstance(answer, (InFlight, Uncertain)) else answer


Column.idempotency_store = ForgetfulStore
