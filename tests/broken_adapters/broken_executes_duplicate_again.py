"""Test-only broken column: the hand-written engine with idempotency records that never replay,
so a second delivery of a completed call runs its side effect again. The comparator must say
``equal: false`` on ``idempotent_replay``."""

from __future__ import annotations

from adapters.handwritten.column import HandwrittenColumn
from handwritten.idempotency import Begin, Replayed, SqliteIdempotencyStore, Started


class Column(HandwrittenColumn):
    name = "broken_executes_duplicate_again"


class AmnesiacStore(SqliteIdempotencyStore):
    """Answers a completed key as if it had never run: the duplicate delivery executes again."""

    def begin(self, key: str, args_hash: str, max_attempts: int) -> Begin:
        answer = super().begin(key, args_hash, max_attempts)
        return Started(1) if isinstance(answer, Replayed) else answer


Column.idempotency_store = AmnesiacStore
