"""The shared world every column meets, split where its processes split.

- ``harness.column_side``: what runs inside a column process: the supervisor (``driver``), the
  fixture world, faults, the scripted model, the human approver, the column protocol
  (``StepRequest``/``StepOutcome``/``ColumnAdapter``), the network guard and the column process's
  entry point (``column_main``).
- ``harness.runner_side``: what runs in the runner: starting column processes (``runner``), the
  sandbox's environment, isolated environments, observation, observables, the comparator, the
  evidence, ``--check``, glue counting and glue coverage.
- The modules here, shared by both sides and importing neither: the records the sides exchange
  (``records``), the scenario format (``scenarios``), the fixture tools' catalog
  (``fixture_tools``), the ledger's channel (``ledger``: the runner's server and the workers'
  client speak one protocol), the column registry (``columns``), the canonical JSON writer and
  the errors. ``tests/test_code_rules.py`` fails on an import across the sides.

It stays light (the standard library, jsonschema and the engine's building blocks),
because every framework's isolated environment imports it too.
"""
