"""The ``handwritten`` column: the hand-written reference engine over the shared fixture world."""

from harness.columns import Column

COLUMN = Column("handwritten", "adapters.handwritten.column:HandwrittenColumn", "project", "the hand-written reference engine")
