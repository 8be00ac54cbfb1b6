"""LangGraph resumes a run killed after a tool's effect by running the tool's task again: the resume does not ask
again (the checkpoint after the approval names ``tools`` as next) and the transfer happens twice. ``approval_survives``
asks only about approvals given and not yet used at the kill (one is used once its call's executor was entered): the
probe reports ``None`` when c1's executor was entered in the killed step (as here: the kill follows the transfer),
else whether the resume went on without asking again.

Schedule ``write_landed`` (every checkpoint written before the kill is on disk): the approving run uses the
documented ``durability="sync"``, which saves each step's checkpoint before the next step starts; under the
default ``"async"`` that write races the kill. Documented API only: ``interrupt()`` / ``Command(resume=...)``
(https://docs.langchain.com/oss/python/langgraph/interrupts#approve-or-reject), ``invoke(None, config)``
(https://docs.langchain.com/oss/python/langgraph/persistence), durability modes
(https://docs.langchain.com/oss/python/langgraph/durable-execution); the graph with its review node, ``SqliteSaver`` on a
file and the scripted model (a task run again gets the same answer) are the kit's (``probes/langgraph/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent_graph, call, fixture_tools, flat, ledger, on_disk, status, thread, user
from langgraph.types import Command

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "side_effect_before_checkpoint@write_landed"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume", "checkpoint_after_interrupt.final_status", "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume", "checkpoint_after_interrupt.interrupts.0.pending_call.call_id",
    "checkpoint_after_interrupt.interrupts.0.resume_position", "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries",
    "step_statuses.1",
)
PINS = ("1.2.24", "0.6.11")

tools = fixture_tools(world(Fault("tool.kill_after_effect", call_id="c1")).call, "transfer_funds")
model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
graph, config = agent_graph(model, tools, review=True), thread("sess-side_effect_before_checkpoint")

on_disk(graph).invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
granted = counts().get("c1", {}).get("executor_entries", 0)  # c1's executor entries when the approval is given
killed = in_child(lambda: on_disk(graph).invoke(Command(resume=APPROVE), config, durability="sync")) == FAULT_EXIT_CODE
after_kill, effects_before = on_disk(graph).get_state(config), {cid: c["effects"] for cid, c in counts().items()}
used = counts().get("c1", {}).get("executor_entries", 0) > granted  # c1's executor entered before the kill used its approval
resumed = on_disk(graph).invoke(None, config)  # continue the thread the way LangGraph does

report(SCENARIO, {
    "step_statuses.1": "crashed" if killed and after_kill.next else "not killed",  # died with tasks left
    "checkpoint_after_interrupt.interrupts.0.resume_position": "before_execute" if after_kill.next == ("tools",) else list(after_kill.next),
    "checkpoint_after_interrupt.interrupts.0.pending_call.call_id": after_kill.values["messages"][-1].tool_calls[0]["id"],
    "checkpoint_after_interrupt.interrupts.0.approval_survives": None if used else "__interrupt__" not in resumed,  # none open, or not asked again
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume": effects_before,
    "checkpoint_after_interrupt.effects_after_resume": {cid: c["effects"] for cid, c in counts().items()},
    "checkpoint_after_interrupt.final_status": status(on_disk(graph), config),
    **flat("side_effects", {"c1": ledger()["c1"]}),
})
