"""The crash sweep: a plan of jobs from each column's uninterrupted runs, the jobs run on a local pool of column
processes (or as Ray tasks: ``on_ray``), each run judged against the column's own uninterrupted run, and the rows of
``evidence/sweep.json``.

A sweep directory holds ``plan.json`` (the job list and the uninterrupted runs it came from), ``scenarios/<column>/
<mode>/`` (every job as a scenario file) and ``jobs/<id>.json`` (one finished job each, written by temp file and
rename: a run again skips it). Jobs run as the comparison runs scenarios: a column process per chunk of one column's
jobs, its workers forked from it warm, each job under the schedules its column declares for it.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from harness import columns as registry
from harness.canonical_io import write_json
from harness.columns import Column
from harness.runner_side.explore.jobs import job_id, job_scenario, kill_points, lock_digest, swept
from harness.runner_side.run.runner import run_column
from harness.scenarios import Scenario, load_scenarios, scenario_files

PLAN, SCENARIOS, JOBS = "plan.json", "scenarios", "jobs"
CHUNK = 40  # jobs per column process: its import is paid once for them
NAMED = ("completed", "awaiting_approval", "reconcile_required", "stopped_max_steps", "model_unavailable", "refused")
"""The final statuses a run may end in by name; the others (``crashed``, ``stalled``, ``error``) may be stuck (``stuck``)."""
Log = Callable[[str], None]


def make_plan(columns: list[Column], modes: list[str], source: Path, out: Path, workers: int, log: Log) -> dict[str, Any]:
    """Play every swept scenario of ``source`` uninterrupted in each column (its kill points recorded), write each job
    as a scenario file and ``plan.json`` into ``out``; return the plan."""
    documents = {s.id: json.loads(p.read_text(encoding="utf-8")) for s, p in _swept_files(source)}
    scenarios = {s.id: s for s in load_scenarios(source) if s.id in documents}
    scratch = Path(tempfile.mkdtemp(prefix="sweep-plan-"))
    try:
        corpus = scratch / "corpus"
        corpus.mkdir()
        for _, path in _swept_files(source):
            shutil.copyfile(path, corpus / path.name)

        def one(column: Column) -> Any:
            return run_column(column, modes, corpus, scratch / "columns", scenario_count=len(scenarios), record_passes=True,
                              log=lambda m: log(f"[{column.name}] {m}"))  # fmt: skip

        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, columns))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    plan: dict[str, Any] = {"modes": modes, "scenarios": sorted(scenarios), "columns": {}, "not_measured": {}, "jobs": []}
    for column, result in zip(columns, results, strict=True):
        if result.status != "measured":
            plan["not_measured"][column.name] = result.reason or "not measured"
            continue
        lock = lock_digest(column)
        plan["columns"][column.name] = {"lock": lock, "modes": {}}
        for mode in sorted(result.modes):
            rows: dict[str, Any] = {}
            for sid in sorted(scenarios):
                records = {r["schedule"] or "": r for r in result.modes[mode].values() if r["scenario"] == sid}
                if not records:
                    continue  # not played in this mode (a tool boundary the column lacks)
                passes = [p for r in records.values() for p in r.get("passes", [])]
                kills = kill_points(scenarios[sid], passes) if all(r["status"] == "ok" for r in records.values()) else []
                rows[sid] = {"uninterrupted": {k: summary(r) for k, r in sorted(records.items())}, "kill_points": [k.to_json() for k in kills]}
                for kill in kills:
                    job = job_scenario(documents[sid], kill)
                    write_json(out / SCENARIOS / column.name / mode / f"{job['id']}.json", job)
                    plan["jobs"].append({"id": job_id(job, column.name, mode, kill, lock), "column": column.name, "mode": mode, "scenario": sid,
                                         "name": job["id"], "kill": kill.to_json(), "fault": len(job["faults"]) - 1})  # fmt: skip
            plan["columns"][column.name]["modes"][mode] = rows
    write_json(out / PLAN, plan)
    return plan


def _swept_files(source: Path) -> list[tuple[Scenario, Path]]:
    files = {p.stem: p for p in scenario_files(source)}
    return [(s, files[s.id]) for s in load_scenarios(source) if swept(s) and s.id in files]


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """What the judge reads of one run: its final status, effects per call, pauses (every step that ended waiting for a
    decision, with its pending calls: a restore or a snapshot of a paused state too, whose pause the comparison's
    observables leave to the step that paused, because a kill in a restore leaves that pause to the resume after it),
    approvals given, killed steps."""
    observables = record["observables"]
    effects = observables["side_effects"] if isinstance(observables["side_effects"], dict) else {}
    approval = observables["pre_approval_state"] if isinstance(observables["pre_approval_state"], dict) else {}
    statuses = [s["status"] for s in record["steps"]]
    return {
        "status": observables["status"],
        "error": record["error"],
        "effects": {c: v["effects"] for c, v in sorted(effects.items()) if v["effects"]},
        "pauses": [[f["step"], f["pending"]] for f in record["facts"] if f.get("pending") and statuses[f["step"]] == "awaiting_approval"],
        "approved": [[d["step"], d["call_id"]] for d in approval.get("decisions", [])
                     if d["action"] == "approve" and statuses[d["step"]] not in ("refused", "error")],  # fmt: skip
        "killed": [f["step"] for f in record["facts"] if f.get("killed")],
        "fired": sorted(record.get("fired", [])),  # [step, fault index]
        "steps": len(record["steps"]),
    }


def select(plan: dict[str, Any], shard: tuple[int, int] | None) -> list[dict[str, Any]]:
    """The plan's jobs in its order, or the ``i``-th of ``n`` contiguous slices (a column's jobs stay together)."""
    jobs: list[dict[str, Any]] = plan["jobs"]
    if shard is None:
        return jobs
    i, n = shard
    return jobs[(i - 1) * len(jobs) // n : i * len(jobs) // n]


Played = dict[str, Any]
"""What a chunk of one column's jobs did: ``runs`` (job name -> schedule -> ``summary``), ``failed`` (what could not be
measured -> why) and ``log`` (the lines its column process said)."""
Call = tuple[str, str, str, dict[str, str], bool]
"""One chunk's arguments of ``play_chunk`` but its log: column, mode, the plan's lock digest, the job scenarios' text, ``twice``."""


class Cluster(Protocol):
    """Somewhere else to play the chunks (``explore.on_ray``): ``play`` yields ``(index, played)`` as each chunk ends."""

    name: str

    def play(self, calls: list[Call], log: Log) -> Iterator[tuple[int, Played]]: ...


def run_jobs(jobs: list[dict[str, Any]], lock: dict[str, str], out: Path, workers: int, log: Log, twice: bool = False,
             cluster: Cluster | None = None) -> dict[str, str]:  # fmt: skip
    """Run the jobs not finished yet, a chunk of one column and mode per column process, ``workers`` at a time here (or
    one per CPU a cluster's nodes offer, with ``cluster``: ``explore.on_ray.RayCluster``); write what each run did
    (``summary``, per schedule) to ``jobs/<id>.json`` as each chunk ends: the merge judges it against the plan's
    uninterrupted runs. ``lock``: each column's lock digest in the plan, which the column must still have. With ``twice``
    every job runs twice, and a difference between the two runs is an undeclared race. Returns what could not be
    measured (a column, an undeclared race, a chunk whose process died), with why."""
    todo = [j for j in jobs if not (out / JOBS / f"{j['id']}.json").exists()]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for job in todo:
        groups.setdefault((job["column"], job["mode"]), []).append(job)
    chunks = [group[i : i + CHUNK] for group in groups.values() for i in range(0, len(group), CHUNK)]
    texts = [{j["name"]: (out / SCENARIOS / c[0]["column"] / c[0]["mode"] / f"{j['name']}.json").read_text(encoding="utf-8") for j in c} for c in chunks]
    calls = [(c[0]["column"], c[0]["mode"], lock[c[0]["column"]], t, twice) for c, t in zip(chunks, texts, strict=True)]
    failed: dict[str, str] = {}

    def record(chunk: list[dict[str, Any]], played: Played) -> None:
        failed.update(played["failed"])
        for job in chunk:
            runs = played["runs"].get(job["name"])
            if runs:
                write_json(out / JOBS / f"{job['id']}.json", {"id": job["id"], "runs": dict(sorted(runs.items()))})
            elif job["column"] not in played["failed"]:  # a column not measured names itself
                failed[f"{job['column']}/{job['mode']}/{job['name']}"] = "the column process played no run of this job"

    if cluster is not None:
        log(f"{len(todo)} of {len(jobs)} jobs to run ({len(chunks)} column processes, on {cluster.name})")
        for index, played in cluster.play(calls, log):
            record(chunks[index], played)
        return failed

    def one(index: int) -> None:
        column = calls[index][0]
        record(chunks[index], play_chunk(*calls[index], log=lambda m: log(f"[{column}] {m}")))

    log(f"{len(todo)} of {len(jobs)} jobs to run ({len(chunks)} column processes, {workers} at a time)")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(one, range(len(chunks))))
    return failed


def play_chunk(column: str, mode: str, lock: str, scenarios: dict[str, str], twice: bool, log: Log) -> Played:
    """Play the job scenarios ``scenarios`` (name -> file text) of ``column`` in ``mode`` in one column process (built
    or reused from its lock here, which must be the plan's ``lock``); return what they did (``Played``). Only JSON
    in and out: a Ray task on another node runs it as it is."""
    said: list[str] = []

    def tell(line: str) -> None:
        said.append(line)
        log(line)

    known = registry.known_columns()
    if column not in known:
        return {"runs": {}, "failed": {column: "no such column here"}, "log": said}
    if lock_digest(known[column]) != lock:
        return {"runs": {}, "failed": {column: "its lock differs from the plan's: plan again (--plan) after a lock changes"}, "log": said}
    scratch = Path(tempfile.mkdtemp(prefix="sweep-jobs-"))
    try:
        corpus = scratch / "corpus"
        corpus.mkdir()
        for name, text in scenarios.items():
            (corpus / f"{name}.json").write_text(text, encoding="utf-8")
        result = run_column(known[column], [mode], corpus, scratch / "columns", scenario_count=len(scenarios), record_passes=True, twice=twice, log=tell)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if result.status != "measured":
        return {"runs": {}, "failed": {column: result.reason or "not measured"}, "log": said}
    runs: dict[str, dict[str, Any]] = {}
    for r in result.modes.get(mode, {}).values():
        runs.setdefault(r["scenario"], {})[r["schedule"] or ""] = summary(r)
    races = {race: "an undeclared race: the two runs of the job differ here" for race in result.undeclared_races}  # <column>/<mode>/<key>/<part>
    return {"runs": {n: runs[n] for n in scenarios if n in runs}, "failed": races, "log": said}


def judge(job: dict[str, Any], run: dict[str, Any], uninterrupted: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """One run of a job against the column's uninterrupted runs of the scenario (every schedule of theirs): whether its
    kill fired (``reached``; where the plan put it, or a step earlier or later under another ordering than the plan's, or
    never, where the run went elsewhere before it), calls with more effects than any uninterrupted run had
    (``duplicates``), calls approved before the kill and asked about after it more often than any uninterrupted run asked
    about them from that step on (``approvals_lost``: the killed step reports no pause, so a pause it would have reported,
    a restore of a paused state say, comes with the resume after it), and whether it is stuck where no uninterrupted run
    was."""
    planned = job["kill"]["step"]
    fired = [step for step, index in run["fired"] if index == job["fault"]]
    step = fired[0] if fired else planned
    before = step if step <= planned else step - 1  # the uninterrupted run's step: the inserted resume shifts later ones
    most, asked_before = Counter[str](), Counter[str]()
    for base in uninterrupted.values():
        for call, n in base["effects"].items():
            most[call] = max(most[call], n)
        for call, n in Counter(c for s, calls in base["pauses"] if s >= before for c in calls).items():  # the killed step's own pause too
            asked_before[call] = max(asked_before[call], n)
    asked = Counter(c for s, calls in run["pauses"] if s > step for c in calls)
    approved = {c for s, c in run["approved"] if s <= step}
    return {
        "status": run["status"],
        "error": run["error"].splitlines()[0] if run["error"] else None,
        "reached": bool(fired),
        "duplicates": {c: n - most[c] for c, n in sorted(run["effects"].items()) if n > most[c]},
        "effects": run["effects"],
        "approvals_lost": sorted(c for c in approved if asked[c] > asked_before[c]),
        "stuck": stuck(run) and not any(stuck(u) for u in uninterrupted.values()),
    }


def stuck(run: dict[str, Any]) -> bool:
    """Whether a measured run ended neither resumable nor in a named final status: in ``error`` or ``stalled``, or
    ``crashed`` of a state the column found (a run whose last step a kill fault ended is one resume short, not stuck)."""
    if run["status"] in NAMED or run["error"] is not None:
        return False
    return run["status"] != "crashed" or run["steps"] - 1 not in run["killed"]


def merge(dirs: list[Path]) -> dict[str, Any]:
    """``sweep.json`` from the plan and the finished jobs of ``dirs`` (one plan, every planned job exactly once); raises
    ``ValueError`` naming what is missing, repeated or foreign."""
    plans = [json.loads((d / PLAN).read_text(encoding="utf-8")) for d in dirs]
    if any(p != plans[0] for p in plans[1:]):
        raise ValueError("the directories hold different plans: merge shards of one plan")
    plan = plans[0]
    found: dict[str, list[Path]] = {}
    for d in dirs:
        for path in sorted((d / JOBS).glob("*.json")) if (d / JOBS).is_dir() else []:
            found.setdefault(path.stem, []).append(path)
    planned = {j["id"] for j in plan["jobs"]}
    missing = sorted(planned - set(found))
    repeated = sorted(i for i, paths in found.items() if len(paths) > 1)
    foreign = sorted(set(found) - planned)
    for what, ids in (("missing", missing), ("present more than once", repeated), ("not in the plan", foreign)):
        if ids:
            raise ValueError(f"{len(ids)} jobs {what} (first: {ids[0]})")
    ran = {i: json.loads(paths[0].read_text(encoding="utf-8"))["runs"] for i, paths in found.items()}
    outcomes = {j["id"]: {k: judge(j, r, plan["columns"][j["column"]]["modes"][j["mode"]][j["scenario"]]["uninterrupted"]) for k, r in ran[j["id"]].items()}
                for j in plan["jobs"]}  # fmt: skip
    columns: dict[str, Any] = {}
    for column, entry in sorted(plan["columns"].items()):
        for mode, rows in sorted(entry["modes"].items()):
            jobs = [j for j in plan["jobs"] if (j["column"], j["mode"]) == (column, mode)]
            for sid, planned_row in sorted(rows.items()):
                columns.setdefault(column, {}).setdefault(mode, {})[sid] = row(planned_row, [(j, outcomes[j["id"]]) for j in jobs if j["scenario"] == sid])
    document: dict[str, Any] = {"columns": columns}
    return document | ({"not_measured": dict(sorted(plan["not_measured"].items()))} if plan["not_measured"] else {})


def row(planned: dict[str, Any], jobs: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    """One scenario's row in one column and mode: its uninterrupted runs, the kill points tried, and what the kills did."""
    found: dict[str, list[dict[str, Any]]] = {k: [] for k in ("duplicates", "approvals_lost", "stuck", "not_reached", "errors")}
    runs = exactly_once = 0
    ended = Counter[str]()
    for job, outcome in jobs:
        for schedule, run in sorted(outcome.items()):
            at = {"job": job["name"], "kill_point": job["kill"]["label"], **({"schedule": schedule} if schedule else {})}
            runs += 1
            ended[run["status"]] += 1
            if run["error"]:
                found["errors"].append({**at, "error": run["error"]})
                continue
            if not run["reached"]:  # no kill of the job's: what the run did is the scenario's own, with one resume more
                found["not_reached"].append({**at, "status": run["status"]})
                continue
            found["duplicates"] += [{**at, "call_id": c, "effects": run["effects"][c], "extra_effects": n} for c, n in run["duplicates"].items()]
            found["approvals_lost"] += [{**at, "call_id": c} for c in run["approvals_lost"]]
            if run["stuck"]:
                found["stuck"].append({**at, "status": run["status"]})
            exactly_once += run["reached"] and not run["duplicates"]
    uninterrupted = {k or "plain": {"status": u["status"], "effects": u["effects"], **({"error": u["error"].splitlines()[0]} if u["error"] else {})}
                     for k, u in planned["uninterrupted"].items()}  # fmt: skip
    return {"uninterrupted": uninterrupted, "kill_points": [k["label"] for k in planned["kill_points"]], "runs": runs, "exactly_once": exactly_once,
            "ended": dict(sorted(ended.items())),
            **{k: sorted(v, key=lambda e: json.dumps(e, sort_keys=True)) for k, v in found.items()}}  # fmt: skip

