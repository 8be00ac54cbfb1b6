"""Exploration: scenarios generated from a seed, the contract's properties checked on the reference columns for every
one, and a search of the third-party columns for adapter errors, undeclared races and differences no rule explains.

``generate`` writes a corpus in the scenario format (every file loads with ``harness.scenarios``), ``properties``
checks the engine's and the local state graph's runs against the contract, ``shrink`` reduces a failing scenario
to a small one, and ``scripts/explore.py`` runs it all through the runner, one column process per column. The crash
sweep lives here too: ``jobs`` makes a committed scenario with one kill at a transition, ``crash_sweep`` plans, runs and
judges them (``scripts/sweep.py``), and ``on_ray`` runs its jobs on a Ray cluster.
"""
