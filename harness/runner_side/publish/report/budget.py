"""The size budget of ``evidence/report.html``: what each part of the page may take, stated per part so that a new
column, scenario or turn brings its own allowance and nothing grows faster than the evidence it shows.

The page is the sum of these parts (``tests/harness/runner_side/publish/test_report_scale.py`` cuts the page along its own markup and holds
each part to its budget, on the committed evidence and on a 1,000-turn
run):

- a **cell**: one (scenario, column, mode) of a scenario's section: its head, its cell at every driver step (the
  lanes, the raw facts and trace of the step), the unscripted text the model was sent and the reasons. At most
  ``CELL_BASE`` plus ``PER_RECORD_BYTE`` bytes per byte of the record it shows, as the evidence file holds it
  (``record_bytes``): a record is shown once readably and once raw. Each record is shown once in the page: the copy of
  a flaky scenario beside the loop is made by the page's script.
- a **scenario**'s own text: its title, description, stepper and driver steps, its entry in the index. At most
  ``SCENARIO_BASE`` plus ``PER_SCENARIO_BYTE`` per byte of the scenario (``scenario_bytes``).
- a **loop run**: a flaky-tool scenario's replay in the loop's data (each event once, three counters per event, the
  messages once), its place on the failure-rate control and beside the loop. At most ``LOOP_BASE`` plus
  ``PER_LOOP_RECORD_BYTE`` per byte of the engine's record it replays.
- a **scorecard cell**: one (row, column): at most ``SCORECARD_CELL_BASE`` plus ``SCORECARD_PER_SCENARIO`` per
  scenario it counts (its hover names them); a column's head and glue: at most ``SCORECARD_COLUMN``.
- a **pin change**: one change of "What changed between pins" (``report.pins``): at most ``PIN_CHANGE_BASE`` plus
  ``PIN_PER_SCENARIO`` per scenario it lists (a scenario's line lists at most 8 values, each cut to 80 characters).
- the **rest**: styles, script, headings, the legend, the scorecard's row labels, the loop's controls: at most
  ``FIXED``.

A record's bytes grow linearly with its turns and calls (about 190 bytes per trace event for the engine), so the page
does too: the engine's 1,000-turn flaky run (about 4,900 trace events, a 0.9 MB record) makes a page of about 2.4 MB.
The committed evidence uses at most 60 % of any part's budget (the largest cell: 18 KiB of 8 KiB + 2 × 11.5 KiB). Text
made mostly of ``<``, ``>``, ``&`` or quotes is the exception: escaped, it takes 4 to 6 bytes a character.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from harness.scenarios import Scenario

KIB = 1024
CELL_BASE = 8 * KIB
PER_RECORD_BYTE = 2
SCENARIO_BASE = 4 * KIB
PER_SCENARIO_BYTE = 2
LOOP_BASE = 1 * KIB
PER_LOOP_RECORD_BYTE = 2
SCORECARD_CELL_BASE = 512
SCORECARD_PER_SCENARIO = 64
SCORECARD_COLUMN = 2 * KIB
PIN_CHANGE_BASE = 1 * KIB
PIN_PER_SCENARIO = 3 * KIB
FIXED = 64 * KIB


def record_bytes(record: dict[str, Any]) -> int:
    """A record's size as the evidence file holds it (canonical JSON, UTF-8)."""
    return len(json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())


def scenario_bytes(scenario: Scenario) -> int:
    """A scenario's size as canonical JSON of what every column receives (its ``expected`` block is not shown)."""
    return len(json.dumps(dataclasses.asdict(scenario), sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode())


def cell_budget(record: dict[str, Any]) -> int:
    return CELL_BASE + PER_RECORD_BYTE * record_bytes(record)


def scenario_budget(scenario: Scenario) -> int:
    return SCENARIO_BASE + PER_SCENARIO_BYTE * scenario_bytes(scenario)


def loop_budget(engine_record: dict[str, Any]) -> int:
    return LOOP_BASE + PER_LOOP_RECORD_BYTE * record_bytes(engine_record)


def scorecard_cell_budget(scenarios_counted: int) -> int:
    return SCORECARD_CELL_BASE + SCORECARD_PER_SCENARIO * scenarios_counted


def pin_change_budget(scenarios_listed: int) -> int:
    return PIN_CHANGE_BASE + PIN_PER_SCENARIO * scenarios_listed
