"""The conformance suite's fixtures: the column under test, named by ``--column`` or the ``COLUMN`` environment variable
(``tests/in_env.py`` sets it), as ``harness.columns.known_columns()`` declares it, and ``play``: a scenario run through
the column as its column process runs one (a worker per driver step, real kills, a private ledger: ``run_raw``)."""

from __future__ import annotations

import os

import pytest
from conformance import Play, Played, column_named

from harness.column_side.column_main import run_raw
from harness.column_side.protocol import ColumnAdapter
from harness.columns import known_columns
from harness.scenarios import Scenario


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--column", default=os.environ.get("COLUMN"), help="the column under test (default: the COLUMN environment variable)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--column") not in known_columns():
        raise pytest.UsageError(f"--column or COLUMN names the column under test, one of {sorted(known_columns())}, not {config.getoption('--column')!r}")


@pytest.fixture(scope="session")
def column(pytestconfig: pytest.Config) -> ColumnAdapter:
    """The column under test."""
    return column_named(pytestconfig.getoption("--column"))


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes ``mode`` runs in each mode its module's ``modes(column)`` lists for the column under test."""
    if "mode" in metafunc.fixturenames:
        metafunc.parametrize("mode", metafunc.module.modes(column_named(metafunc.config.getoption("--column"))), scope="module")


@pytest.fixture(scope="session")
def play(column: ColumnAdapter, tmp_path_factory: pytest.TempPathFactory) -> Play:
    """``play(mode, scenario)``: the scenario through the column in ``mode``, in a scratch directory of its own; a step that
    ended in an error fails the test there. The column is prepared for a mode once (what its workers then inherit)."""
    prepared: set[str] = set()

    def run(mode: str, scenario: Scenario) -> Played:
        if mode not in prepared:
            column.prepare(mode)
            prepared.add(mode)
        record = run_raw(column, scenario, mode, tmp_path_factory.mktemp(f"{mode}-{scenario.id}"))
        assert [s["error"] for s in record["steps"]] == [None] * len(record["steps"]), [s["error"] for s in record["steps"]]
        return Played(record)

    return run
