"""LangGraph's asynchronous checkpoint write against a kill, pinned by schedule (LangGraph and LangChain columns).

With LangGraph's default ``durability="async"`` the loop hands a finished super-step's
checkpoint (``checkpointer.put``) and each task's writes (``checkpointer.put_writes``) to
a background thread pool and starts the next super-step at once
(``langgraph/pregel/_loop.py``: ``put_writes``, ``_put_checkpoint``,
``_checkpointer_put_after_previous``; ``pregel/main.py`` waits for the checkpoint only when
``durability == "sync"``). A kill inside the next super-step's model call or tool therefore
races those writes, and a plain run flaps between outcomes. This module forces each
ordering instead, as its own deterministic sub-case:

- ``write_held``: the writes LangGraph handed over for the super-step before the killed one
  (its checkpoint and the writes of its tasks, including a ``Command(resume=...)`` answer
  saved at the start of the run) and any later ones never land: the background thread had
  not got to them when the process died. Everything older has landed.
- ``write_landed``: every write LangGraph submitted before the kill has landed before the
  process dies.

A write "belongs" to a super-step the way LangGraph numbers them: a checkpoint ``put`` to
``metadata["step"]``; the writes of a task that runs in step ``S`` (and the input or resume
writes that feed it) are saved against the checkpoint of step ``S - 1`` and belong to ``S``.

The orderings in between resume like ``write_landed`` (run for the three kill scenarios in
both columns, same statuses and effects): a checkpoint that landed without its tasks'
writes is resumed from as is (a resume reads the newest checkpoint, never the writes saved
against its parent), and task writes that landed without the checkpoint after them are
re-applied by LangGraph instead of running those tasks again. The race is also real
without the saver: plain runs of ``crash_resume`` showed both outcomes.

How: ``ScheduledSaver`` is LangGraph's own ``SqliteSaver`` that, under a schedule, keeps
every ``put`` / ``put_writes`` it is handed in memory (returning what ``SqliteSaver`` would
return) instead of writing it. The session flushes them all, in the order handed over,
when ``stream()`` returns or raises, which is what LangGraph's loop guarantees too (its
background executor waits for every pending write before the stream ends). At a kill,
the fault plan's kill hook (``FaultPlan.on_kill``) waits until LangGraph
has handed over every write it submitted to its background executor, then flushes what the
schedule lets land and drops the rest with the process.

A kill inside one call of a turn also races that call's siblings, which LangGraph runs at
the same time (``ToolNode`` in threads, ``create_agent`` one task per call) in both modes:
the sibling orders of ``harness.column_side.fixtures.sibling_order`` (``siblings_first``, ``kill_first``) pin
the tool bodies, and under ``siblings_first`` the kill hook also waits until the sibling
tasks of the super-step have finished and their writes are handed over (not the tasks of the
calls held behind the kill: ``held_behind``). A scenario that
has both races runs under each combination (``write_held+siblings_first``, ...).

The calls of a batch race each other even without a fault (a balance read beside an approved transfer reads before or
after it by chance): ``order_batches`` pins that race with one order, in every run and under every schedule, rather
than declaring it: each call of a super-step's batch is handed over after the calls before it have ended, in the
model's order (``harness.column_side.fixtures.sibling_order.BatchOrder``, which also says where the sibling orders above take
precedence). LangGraph still starts every call at once in its own thread or task; only the tool bodies wait.

Nothing in LangGraph reads the checkpointer during a run of these graphs, so holding the
writes back until the run ends changes nothing else: the saver is read when the loop
starts (``get_tuple``, and the ``DeltaChannel`` history, which ``MessagesState`` does not
use) and by ``get_state`` around the run, after the flush.
"""

from __future__ import annotations

import concurrent.futures
import sqlite3
import threading
import time
from collections.abc import Collection, Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata
from langgraph.checkpoint.sqlite import SqliteSaver

from harness.column_side.fixtures.sibling_order import ORDERS as SIBLING_ORDERS
from harness.column_side.fixtures.sibling_order import SIBLINGS_FIRST, BatchOrder, earlier_kills, multi_call_turns, sibling_orders

WRITE_ORDERS = ("write_held", "write_landed")
REACHABLE_KILLS = ("model.kill_before_turn", "tool.kill_before_effect", "tool.kill_after_effect")
"""Kill points inside the framework's own model call or tool; ``engine.kill_after_checkpoint``
is an engine-only point that never fires in defaults."""
HANDOVER_TIMEOUT_S = 10.0
_CALL = "__pregel_call"  # langgraph._internal._constants.CONFIG_KEY_CALL: the task's config entry for the runner
_TASK_ID = "__pregel_task_id"  # langgraph._internal._constants.CONFIG_KEY_TASK_ID


class ScheduleError(RuntimeError):
    """The ordering a schedule names could not be forced: the sub-case would not measure what it says."""


def schedules(scenario: Any, mode: str) -> tuple[str, ...]:
    """The orderings a scenario runs under, each ``<order>[+<order>]``:

    - the checkpoint write against the kill (``write_held`` / ``write_landed``): in ``defaults``
      (asynchronous durability) only, when a kill can land inside the framework's model call or tool.
      ``contract`` writes with ``durability="sync"``: the checkpoint of every finished super-step is
      on disk before the next one starts;
    - a killed call's concurrent siblings against the kill (``siblings_first`` / ``kill_first``,
      ``harness.column_side.fixtures.sibling_order``): in both modes, when a kill inside a tool shares its turn with other
      calls (``ToolNode`` runs a turn's calls in threads, ``create_agent`` one task per call).
    """
    writes = WRITE_ORDERS if mode != "contract" and any(f.point in REACHABLE_KILLS for f in scenario.faults) else ()
    siblings = sibling_orders(scenario)
    if writes and siblings:
        return tuple(f"{w}+{s}" for w in writes for s in siblings)
    return writes or siblings


def checkpointer(connection: sqlite3.Connection, schedule: str | None, faults: Any, scenario: Any = None) -> SqliteSaver:
    """LangGraph's ``SqliteSaver`` on ``connection``; under a write order, the ``ScheduledSaver`` that forces it.
    Under any schedule the fault plan's kill hook first settles the orderings the schedule names; ``scenario`` says
    which calls of a killed call's batch are held behind its kill (``held_behind``)."""
    parts = (schedule or "").split("+") if schedule else []
    unknown = [p for p in parts if p not in WRITE_ORDERS + SIBLING_ORDERS]
    if unknown:
        raise ValueError(f"unknown schedule {schedule!r}; known orders: {WRITE_ORDERS + SIBLING_ORDERS}")
    write = next((p for p in parts if p in WRITE_ORDERS), None)
    saver = ScheduledSaver(connection, write) if write else SqliteSaver(connection)
    if parts:
        later = earlier_kills(scenario) if scenario is not None else {}
        faults.on_kill(lambda call_id: _before_kill(saver, SIBLINGS_FIRST in parts, held_behind(later, faults, call_id)))
    return saver


def held_behind(earlier: dict[str, set[str]], faults: Any, call_id: str | None) -> set[str]:
    """The calls of the killed call's turn that wait for its kill and die with it: those with a kill of their own still
    armed that comes after it (``earlier_kills``: the fixture world holds such a call at its hand-over until the earlier
    kill's call has ended, and ``BatchOrder`` puts it after that call, under every schedule)."""
    return {c for c, before in earlier.items() if call_id in before and faults.armed(c)}


def _before_kill(saver: SqliteSaver, siblings_first: bool, held: Collection[str] = ()) -> None:
    """Right before the process dies: the concurrent sibling tasks finish first (``siblings_first``; under
    ``kill_first`` the fixture world holds them at the tool's entry), every write LangGraph submitted is
    handed over, and a ``ScheduledSaver`` lands what its write order lets land. The tasks of the ``held`` calls are
    not waited for: they wait for this kill."""
    if siblings_first:
        _wait_for_sibling_tasks(held)
    _wait_for_handover()
    if isinstance(saver, ScheduledSaver):
        saver.land_for_kill()


class ScheduledSaver(SqliteSaver):
    """``SqliteSaver`` whose writes wait in memory until the run ends or the schedule decides at a kill."""

    def __init__(self, connection: sqlite3.Connection, schedule: str) -> None:
        super().__init__(connection)
        self.schedule = schedule
        self._held: list[tuple[str, tuple[Any, ...]]] = []  # ("put" | "put_writes", arguments), in hand-over order
        self._held_lock = threading.Lock()

    # -- what LangGraph hands over (from its background threads) -------------------------

    def put(self, config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions) -> RunnableConfig:
        with self._held_lock:
            self._held.append(("put", (config, checkpoint, metadata, new_versions)))
        configurable = config["configurable"]
        return {"configurable": {"thread_id": configurable["thread_id"], "checkpoint_ns": configurable.get("checkpoint_ns", ""), "checkpoint_id": checkpoint["id"]}}

    def put_writes(self, config: RunnableConfig, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        with self._held_lock:
            self._held.append(("put_writes", (config, list(writes), task_id, task_path)))

    # -- when they land ------------------------------------------------------------------

    def flush(self) -> None:
        """Write everything held, in the order LangGraph handed it over (the run ended: every write lands)."""
        self._write(self._take())

    def land_for_kill(self) -> None:
        """Called right before the process is killed inside super-step ``S`` (every submitted write handed
        over): land what the schedule lets land."""
        step = _current_step()
        held = self._take()
        if self.schedule == "write_landed":
            self._write(held)
            return
        steps = {args[1]["id"]: args[2]["step"] for kind, args in held if kind == "put"}
        self._write([(kind, args) for kind, args in held if self._step_of(kind, args, steps) < step - 1])

    def _take(self) -> list[tuple[str, tuple[Any, ...]]]:
        with self._held_lock:
            held, self._held = self._held, []
        return held

    def _write(self, held: list[tuple[str, tuple[Any, ...]]]) -> None:
        for kind, args in held:
            if kind == "put":
                SqliteSaver.put(self, *args)
            else:
                SqliteSaver.put_writes(self, *args)

    def _step_of(self, kind: str, args: tuple[Any, ...], steps: dict[str, int]) -> int:
        """The super-step a held write belongs to (see the module docstring)."""
        if kind == "put":
            return int(args[2]["step"])
        configurable = args[0]["configurable"]
        parent = configurable["checkpoint_id"]
        if parent not in steps:  # saved against a checkpoint already on disk (the one this run started from)
            saved = SqliteSaver.get_tuple(self, {"configurable": {k: configurable.get(k, "") for k in ("thread_id", "checkpoint_ns", "checkpoint_id")}})
            if saved is None:
                raise ScheduleError(f"writes of task {args[2]} are saved against checkpoint {parent}, which is neither held nor on disk")
            steps[parent] = int(saved.metadata["step"])
        return steps[parent] + 1


def _current_step() -> int:
    """The super-step the killed model call or tool runs in, from the config LangGraph gives every task."""
    from langgraph.config import get_config

    try:
        return int(get_config()["metadata"]["langgraph_step"])
    except (RuntimeError, KeyError) as exc:
        raise ScheduleError(f"a kill outside a LangGraph task: no super-step to order the checkpoint writes against ({exc})") from exc


def dispatched_calls() -> set[str]:
    """The tool call ids LangGraph dispatched in the running super-step: the inputs of the step's tasks that
    run (a ``ToolNode`` task's list of calls or its state's last ``AIMessage``, ``create_agent``'s one
    list of one call, or ``ToolCallWithContext``, per task), read from the loop's own ``tasks`` (the runner submits
    them one by one, so its ``futures`` may not list a sibling yet). A task restored with its writes does not run; a
    task that finished in this step has writes too, and has started, which is all a wait needs. The fixture world
    orders a kill's siblings only among these, so it never waits for a call that is not coming."""
    return {cid for cid, _ in dispatched_batch()[1]}


def dispatched_batch() -> tuple[tuple[str, int], list[tuple[str, str]]]:
    """The running call's batch for ``harness.column_side.fixtures.sibling_order.BatchOrder``: its super-step (the graph's
    checkpoint namespace, the task's own last part left out, and ``langgraph_step``) and the ``(id, tool)`` of the
    calls ``dispatched_calls`` counts, in the model's order: the loop's ``tasks`` in the order LangGraph prepared them
    (``create_agent``'s ``Send`` per call, in the order of the ``AIMessage``'s ``tool_calls``), each task's calls in
    the order of its input."""
    from langgraph.config import get_config

    try:
        whole = get_config()
        config = whole["configurable"]
        loop = config[_CALL].keywords["schedule_task"].__self__  # the runner's schedule_task is loop.accept_push
        running = [t for t in list(loop.tasks.values()) if not t.writes or t.id == config[_TASK_ID]]
        step = ("|".join(str(config["checkpoint_ns"]).split("|")[:-1]), int(whole["metadata"]["langgraph_step"]))  # ns: ...|<node>:<task id>
    except (RuntimeError, KeyError, AttributeError, TypeError) as exc:
        raise ScheduleError(f"cannot force the schedule: LangGraph's tasks of this step are not reachable from the call ({exc!r})") from exc
    return step, [call for task in running for call in _calls(task.input)]


def _calls(value: Any) -> list[tuple[str, str]]:
    if isinstance(value, dict) and value.get("__type") == "tool_call_with_context":
        return [(value["tool_call"]["id"], value["tool_call"]["name"])]
    if isinstance(value, list):
        return [(c["id"], c["name"]) for c in value if isinstance(c, dict) and c.get("type") == "tool_call"]
    messages = value.get("messages", []) if isinstance(value, dict) else []
    last = next((m for m in reversed(messages) if getattr(m, "tool_calls", None) is not None and m.type == "ai"), None)
    return [(c["id"], c["name"]) for c in last.tool_calls] if last is not None else []


def order_batches(world: Any, scenario: Any, schedule: str | None) -> list[BaseCallbackHandler]:
    """Pin the order of a batch's calls (``harness.column_side.fixtures.sibling_order.BatchOrder``): every call of a super-step's
    batch is handed over after the calls before it have ended, in the model's order, in both modes. ``ToolNode`` (the
    LangGraph column's, and ``create_agent``'s for its task per call) starts every call of a batch at once, so without
    this a read beside a write reads before or after the write by chance. Returns the callbacks to pass in each run's
    config (empty for a scenario without a batch of two calls): LangChain's tool callbacks say when the framework is
    done with a call whose arguments its tool refused before the body ran, a call the fixture world never sees."""
    if not multi_call_turns(scenario):
        return []
    order = BatchOrder(scenario, schedule, world.faults, dispatched_batch, set(scenario.tools))
    order.attach(world)
    return [_ToolsDone(order)]


class _ToolsDone(BaseCallbackHandler):
    """LangChain's tool callbacks for ``BatchOrder.passed``: ``on_tool_end`` / ``on_tool_error`` after every tool run
    (its argument validation included), run in the tool's own thread; every other event is ignored."""

    ignore_llm = ignore_chat_model = ignore_chain = ignore_retriever = ignore_retry = ignore_custom_event = True

    def __init__(self, order: BatchOrder) -> None:
        self._order = order
        self._calls: dict[Any, str] = {}  # run id -> tool call id

    def on_tool_start(self, serialized: Any, input_str: str, *, run_id: Any, **kwargs: Any) -> None:
        if kwargs.get("tool_call_id"):
            self._calls[run_id] = kwargs["tool_call_id"]

    def on_tool_end(self, output: Any, *, run_id: Any, **kwargs: Any) -> None:
        self._passed(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: Any, **kwargs: Any) -> None:
        self._passed(run_id)

    def _passed(self, run_id: Any) -> None:
        if (call_id := self._calls.pop(run_id, None)) is not None:
            self._order.passed(call_id)


def _wait_for_sibling_tasks(held: Collection[str] = ()) -> None:
    """Wait until every other task of this super-step has finished and LangGraph has committed its writes, except the
    tasks of the ``held`` calls, which wait for this kill at their hand-over and die with it (``held_behind``).

    The runner's ``futures`` (a ``FuturesDict``) counts the tasks whose done-callback has not yet run:
    that callback (``PregelRunner.commit``) submits the task's writes, and only then is the task
    uncounted (a future's waiters are woken before its callbacks, so ``done`` alone is too early).
    The fixture world has already waited for the siblings' tool bodies, so every sibling task is
    registered by now. The tasks that stay counted (this one and the held ones, which never finish here) are known
    from the loop's ``tasks``; each is counted once ``FuturesDict.__setitem__`` has registered it (the count goes up
    before the done-callback is added, so a future with its callback is counted), and the wait ends when the count is
    down to them. Waiting for a held task instead would wait for a call that waits for this kill: neither goes on."""
    from langgraph.config import get_config

    try:
        config = get_config()["configurable"]
        futures = config[_CALL].keywords["futures"]()  # a one-task super-step runs inline: empty, counter 0
        loop = config[_CALL].keywords["schedule_task"].__self__  # the runner's schedule_task is loop.accept_push
        mine = config[_TASK_ID]
        staying = {t.id for t in list(loop.tasks.values()) if t.id != mine and not t.writes and not set(held).isdisjoint(c for c, _ in _calls(t.input))}
        if not isinstance(futures.counter, int):  # the count this wait relies on (an AttributeError if it is gone)
            raise TypeError(f"FuturesDict.counter is {futures.counter!r}")
        if staying or futures or futures.counter or futures.done:  # not the inline one-task path: this task is counted too
            staying.add(mine)
        _counted_tasks(futures)
    except (RuntimeError, KeyError, AttributeError, TypeError) as exc:
        raise ScheduleError(f"cannot force the schedule: LangGraph's tasks of this step are not reachable from the task ({exc!r})") from exc
    deadline = time.monotonic() + HANDOVER_TIMEOUT_S
    # Every line of the loop runs whether or not the siblings are done at the first look: which lines run must not
    # depend on timing (scripts/check_glue_coverage.py compares the lines each mode ran).
    while True:
        time.sleep(0.001)
        if _handed_over(staying, futures) or time.monotonic() > deadline:
            break
    if not _handed_over(staying, futures):
        raise ScheduleError(f"cannot force the schedule: sibling tasks did not finish within {HANDOVER_TIMEOUT_S} s")


def siblings_committed(held: Collection[str]) -> None:
    """For ``SiblingGate.committed``, in a raising call's thread: wait until every other task of this super-step has
    finished and LangGraph has committed its writes (the ``held`` calls' tasks excepted: they wait for this call).
    ``create_agent`` runs one task per call: a sibling's body ends, then its task returns and its done-callback submits
    its writes; a raise before that ends the step (``_panic_or_proceed``) while the writes may or may not be saved."""
    _wait_for_sibling_tasks(held)


def _handed_over(staying: set[str], futures: Any) -> bool:
    """Every task that stays is registered, and the count is down to them (registered first, then the count)."""
    return staying <= _counted_tasks(futures) and futures.counter <= len(staying)


def _counted_tasks(futures: Any) -> set[str]:
    """The ids of the tasks whose future ``futures`` has counted (registered with its done-callback: see above)."""
    return {task.id for fut, task in list(futures.items()) if task is not None and fut._done_callbacks}


def _wait_for_handover() -> None:
    """Wait until LangGraph has handed over every write it submitted before the kill.

    LangGraph submits ``put`` / ``put_writes`` to the run's ``BackgroundExecutor`` (a thread pool); a
    submitted write reaches the saver only when a pool thread gets to it. The executor is the
    ``submit`` the runner puts in every task's config (``CONFIG_KEY_CALL``, a ``functools.partial``
    of ``pregel._runner._call`` carrying ``submit`` and this tick's task ``futures``); its ``tasks``
    are the futures not yet done. Everything there except this super-step's own tasks (the killed
    one may itself run on the pool) is a write, or a cache write, LangGraph submitted before now.
    """
    from langgraph.config import get_config

    try:
        call = get_config()["configurable"][_CALL]
        executor = call.keywords["submit"]().__self__
        this_tick = call.keywords["futures"]() or {}
        pending = [f for f in executor.tasks.copy() if f not in this_tick]
    except (RuntimeError, KeyError, AttributeError, TypeError) as exc:
        raise ScheduleError(f"cannot force the schedule: LangGraph's background executor is not reachable from the task ({exc!r})") from exc
    done, not_done = concurrent.futures.wait(pending, timeout=HANDOVER_TIMEOUT_S)
    if not_done:
        raise ScheduleError(f"cannot force the schedule: {len(not_done)} checkpoint writes LangGraph submitted were not handed over within {HANDOVER_TIMEOUT_S} s")
