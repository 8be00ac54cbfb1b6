"""Stage 2, observe: a column's raw record to its observables (the contract's cells), the wire mode's own observable.

Imports no other stage: ``run`` uses it (every record is observed as it arrives), ``judge`` and ``publish`` read it."""
