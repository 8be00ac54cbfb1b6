"""The comparison, stage by stage: run every column (``run``), whose records arrive observed (``observe``), judge them
against the hand-written engine (``judge``), write or check the evidence and its views and print what a reader needs
(``publish``). ``scripts/run_framework_comparison.py`` parses the command line into a ``Request`` and calls
``compare`` or ``rederive``; everything it prints goes through ``publish.console``.
"""

from __future__ import annotations

import functools
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import columns as registry
from harness.canonical_io import as_written, dumps, write_files
from harness.columns import REFERENCE, Column
from harness.modes import compared_with, modes_played
from harness.runner_side.judge.case import contradicted_in
from harness.runner_side.publish import console
from harness.runner_side.publish.costs import timings_document
from harness.runner_side.publish.drift import collapse_common, diff_documents
from harness.runner_side.publish.evidence import (
    availability_document,
    availability_entry,
    column_document,
    handwritten_document,
    merge_modes,
    rederived,
    validation_errors,
)
from harness.runner_side.publish.findings import render as render_findings
from harness.runner_side.publish.output_dir import diff_text
from harness.runner_side.publish.probes import declared_probes
from harness.runner_side.publish.report.page import render_report
from harness.runner_side.publish.report.scorecard import scorecard, scorecard_svg
from harness.runner_side.run.processes import Stopped, stopping
from harness.runner_side.run.runner import ColumnResult, merge_results, processes, run_column
from harness.runner_side.run.servers.wire import WireServer
from harness.scenarios import Scenario

FINDINGS, REPORT, SCORECARD = "FINDINGS.md", "report.html", "scorecard.svg"
SWEEP = "sweep.json"
"""The crash sweep's rows (``scripts/sweep.py``): never written by the comparison, read for FINDINGS.md and the report."""


@dataclass(frozen=True)
class Request:
    """What the command line asked for: the columns (the engine runs too), the modes, the scenario directory, the
    evidence directory, and how (``whole``: the committed scenarios, whose evidence is kept whole across partial runs;
    ``check``: regenerate into scratch and compare; ``wide``: the wide table)."""

    columns: tuple[str, ...]
    modes: tuple[str, ...]
    scenarios: Path
    output: Path
    whole: bool
    check: bool = False
    wide: bool = False
    allow_not_measured: bool = False
    sample: tuple[str, ...] = ()
    """``--check --sample``: the committed scenarios played (copied into ``scenarios``); only their entries are compared
    with the committed evidence, which nothing rewrites."""


def compare(request: Request, scenarios: list[Scenario], expectations: dict[str, Any], before: dict[str, Any], scratch: Path) -> int:
    """Run the columns, write (or check) the evidence, FINDINGS.md and the teaching views (``before``: the output's
    files as they were), print the table and the closing lines; the exit status."""
    files, by_id = {s.id: s.file for s in scenarios}, {s.id: s for s in scenarios}
    compared = [compared_with(m)[0] for m in request.modes]  # the engine's columns each mode is compared with
    columns = [registry.known_columns()[n] for n in dict.fromkeys([REFERENCE, *compared, *request.columns])]
    target = scratch / "evidence" if request.check else request.output
    started = time.perf_counter()
    results = run_all(columns, list(request.modes), request.scenarios, scenarios, scratch / "columns", twice=request.check,
                      trace_glue=request.check and request.whole)
    if stopping():
        raise Stopped(signal.SIGINT)
    reference = results[REFERENCE]
    documents = {name: handwritten_document(result, expectations, files) if name == REFERENCE else column_document(result, reference, by_id, results)
                 for name, result in results.items()}
    shown = dict(documents)  # what this run measured: the table and the summaries show only that
    kept = before if request.whole else {}
    if request.whole:  # evidence of the committed scenarios stays whole: keep each column's modes not run (the engine's wire too)
        documents = {n: merge_modes(d, before.get(f"{n}.json")) for n, d in documents.items()}
    to_write = {**{f"{n}.json": d for n, d in documents.items()}, "availability.json": _availability(results, documents, before)}
    for file_name, document in to_write.items():  # every file is made before any is written
        if errors := validation_errors(document):
            raise AssertionError(f"harness bug: {file_name} breaks the evidence schema: {errors[:3]}")
    views = {FINDINGS: findings_text(documents, kept, kept.get(SWEEP)), **teaching_views(documents, kept, scenarios, kept.get(SWEEP))}  # --check compares them below
    wall_s = time.perf_counter() - started
    timings = timings_document({n: r.timings for n, r in results.items()}, wall_s)
    write_files(target, {**to_write, **views, "timings.json": timings})  # each replaced whole or not at all

    console.table(shown, [race for r in results.values() for race in r.undeclared_races], wide_table=request.wide)
    failures = console.closing(results, shown, wall_s, request.output, check=request.check, allow_not_measured=request.allow_not_measured,
                               sample=bool(request.sample))
    failures += _contradicted(target, request.scenarios, list(shown))
    if request.sample:
        drift = collapse_common({name: diff_documents(name, sampled(before[name], request.sample, document) if name in before else None,
                                                      sampled(document, request.sample, document))
                                 for name, document in to_write.items() if name != "availability.json"})
        console.drift(request.output, drift)
        failures += [f"the sample drifted from the committed evidence ({len(drift)} change{'s' if len(drift) > 1 else ''})"] if drift else []
    elif request.check:
        drift = collapse_common({name: diff_documents(name, before.get(name), document) for name, document in to_write.items()})
        drift += [f"{name} differs from what the evidence generates{':' if name == FINDINGS else ''}" for name, text in views.items()
                  if _read(request.output / name) != text]
        console.drift(request.output, drift + diff_text(FINDINGS, request.output / FINDINGS, views[FINDINGS]))
        failures += [f"evidence drifted ({len(drift)} change{'s' if len(drift) > 1 else ''})"] if drift else []
    return console.failed(failures)


def run_all(
    columns: list[Column], modes: list[str], scenarios_dir: Path, scenarios: list[Scenario], scratch: Path, twice: bool, trace_glue: bool = False
) -> dict[str, ColumnResult]:
    """Columns run in parallel, each in one process or two (``runner.processes``: a third-party column's ``wire`` mode
    beside its other modes), on the scenarios of ``scenarios_dir`` (``scenarios``: as the command line loaded them,
    once); a progress line as each column ends. With ``twice``
    every scenario runs twice in every column, and any difference is an undeclared race; with ``trace_glue`` too, the
    second runs of each column with both modes are line-traced to check its glue count (scripts/check_glue_coverage.py
    does the same alone): coverage of the whole count needs the committed scenarios, so only they are traced."""
    started, count = time.perf_counter(), len(scenarios)
    groups = {c.name: processes(c, modes_played(c.name, modes)) for c in columns}
    progress = {c.name: console.Progress(c.name, count, started) for c in columns}
    parts: dict[str, dict[int, ColumnResult]] = {c.name: {} for c in columns}
    results: dict[str, ColumnResult] = {}
    lock = threading.Lock()

    def one(job: tuple[Column, int]) -> None:
        column, index = job
        began = time.perf_counter() - started
        root = scratch / "-".join(groups[column.name][index]) if index else scratch  # a second process: a scratch of its own
        result = run_column(column, groups[column.name][index], scenarios_dir, root, scenario_count=count, twice=twice, trace_glue=trace_glue,
                            log=progress[column.name].log, on_progress=progress[column.name].line, wire=wire)
        result.timings.update(started_at_s=began, finished_at_s=time.perf_counter() - started)
        with lock:
            parts[column.name][index] = result
            if len(parts[column.name]) < len(groups[column.name]):
                return  # the column's other process is still running
            done = functools.reduce(merge_results, [parts[column.name][i] for i in range(len(groups[column.name]))])
            done.timings.update(started_at_s=min(r.timings["started_at_s"] for r in parts[column.name].values()),
                                finished_at_s=max(r.timings["finished_at_s"] for r in parts[column.name].values()))
            results[column.name] = done
        if not stopping():  # a stopped run says so once, in main
            progress[column.name].ended(done)

    jobs = [(c, index) for c in columns for index in range(len(groups[c.name]))]
    # The scripted OpenAI-compatible server of the wire mode: the runner's, shared by every column (each its own token).
    with WireServer(scenarios) as wire, ThreadPoolExecutor(max_workers=len(jobs) or 1) as pool:
        list(pool.map(one, jobs))  # every process at once: the machine, not a cap, decides
    results = {c.name: results[c.name] for c in columns if c.name in results}  # in the columns' order
    if wire.errors:
        raise AssertionError(f"harness bug: the scripted wire server raised: {wire.errors[:3]}")
    return results


def rederive(request: Request, scenarios: list[Scenario], before: dict[str, Any]) -> int:
    """``--rederive``: every column document of the output judged again from its stored facts, and FINDINGS.md, the
    report and the scorecard made from them; written (each file replaced whole, or not at all), or with ``check``
    compared with the files as they are. Exit 2 when the evidence cannot be judged here."""
    engines = sorted({compared_with(m)[0] for d in before.values() if "framework" in d for m in d.get("modes", {})} | {REFERENCE})
    if absent := [e for e in engines if f"{e}.json" not in before]:  # each mode's records are judged against the engine run it names
        return console.error(f"{console.shown(request.output)} holds no {', '.join(f'{e}.json' for e in absent)}: nothing to judge against")
    by_id = {s.id: s for s in scenarios}
    missing = sorted({r.get("scenario", key) for d in before.values() if "framework" in d for b in d.get("modes", {}).values()
                      for key, r in b["scenarios"].items()} - set(by_id))
    if missing:
        return console.error(f"the evidence names scenarios {console.shown(request.scenarios)}/ does not hold: {', '.join(missing[:5])}")
    references = {name.removesuffix(".json"): d for name, d in before.items() if "framework" in d}  # each mode's engine run: compared_with
    documents = {name: rederived(d, references, by_id) if d.get("framework") != REFERENCE else d for name, d in references.items()}
    files = {f"{n}.json": as_written(dumps(d)) for n, d in documents.items()}
    files |= {FINDINGS: findings_text(documents, {}, before.get(SWEEP)), **teaching_views(documents, {}, scenarios, before.get(SWEEP))}
    changed = [name for name, text in files.items() if _read(request.output / name) != text]
    if not request.check:
        write_files(request.output, {n: files[n] for n in changed})
    return console.rederived(request.output, len(documents) - 1, changed, check=request.check)


def findings_text(documents: dict[str, dict[str, Any]], kept: dict[str, dict[str, Any] | None], sweep: dict[str, Any] | None = None) -> str:
    """FINDINGS.md from this run's documents and, from ``kept`` (the output's files as they were; empty for a run of
    one's own scenarios, whose FINDINGS.md holds this run only), the documents of the columns this run did not measure,
    and the crash sweep's rows (``sweep``: the output's ``sweep.json``, if any); as it is written (``as_written``), so that --check compares it with the file as it is."""
    return as_written(render_findings(_everything(documents, kept), declared_probes(), sweep))


def teaching_views(
    documents: dict[str, dict[str, Any]], kept: dict[str, dict[str, Any] | None], scenarios: list[Scenario], sweep: dict[str, Any] | None = None
) -> dict[str, str]:
    """The texts of ``report.html`` and ``scorecard.svg`` (``publish.report``) by file name, from the same documents
    as FINDINGS.md, as they are written."""
    merged, by_id = _everything(documents, kept), {s.id: s for s in scenarios}
    return {REPORT: as_written(render_report(merged, by_id, declared_probes(), sweep)), SCORECARD: as_written(scorecard_svg(scorecard(merged, by_id)))}


def _everything(documents: dict[str, dict[str, Any]], kept: dict[str, dict[str, Any] | None]) -> dict[str, dict[str, Any]]:
    """This run's column documents over the kept ones of the columns it did not run."""
    return {**{name.removesuffix(".json"): d for name, d in kept.items() if d and "framework" in d}, **documents}


def _availability(results: dict[str, ColumnResult], documents: dict[str, dict[str, Any]], before: dict[str, Any]) -> dict[str, Any]:
    """``availability.json``: this run's columns over the entries kept from the output for the columns it did not run."""
    previous = before.get("availability.json") or {"columns": {}}
    entries = {n: e for n, e in previous["columns"].items() if n in registry.known_columns()}
    entries.update({n: availability_entry(r) for n, r in results.items()})
    for name, document in documents.items():  # a column whose other mode was kept from the committed file has both
        if name in entries and document.get("status") == "measured":
            entries[name]["modes"] = sorted(document["modes"])
    return availability_document(entries)


def sampled(document: dict[str, Any], ids: tuple[str, ...], fresh: dict[str, Any]) -> dict[str, Any]:
    """Of an evidence document, only the entries of the scenarios ``ids`` (with every sub-case ``<id>@<schedule>``) in
    the modes the sample ran (``fresh``'s): what a sample's run can be compared with."""
    modes = {mode: {"scenarios": {k: v for k, v in body.get("scenarios", {}).items() if k.split("@")[0] in ids}}
             for mode, body in document.get("modes", {}).items() if mode in fresh.get("modes", {})}
    return {"modes": modes}


def _contradicted(evidence: Path, scenarios: Path, columns: list[str]) -> list[str]:
    """The sentence check of the evidence just written: every statement a reason makes about a trace (``judge.said``)
    against the record it was made from. One it contradicts is a rule's defect, never a finding: printed, and a failure."""
    _, contradicted = contradicted_in(evidence, scenarios, [n for n in columns if n != REFERENCE])
    console.contradicted(contradicted)
    return [f"{len(contradicted)} statements of reasons contradicted by their records"] if contradicted else []


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None
