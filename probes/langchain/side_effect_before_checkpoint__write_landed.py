"""A resume after a crash runs the approved transfer again: the process died right after the transfer, LangGraph's
latest checkpoint (written before the tool ran) still has c1's tools task to run, and nothing records that its
executor was entered, so the resume moves the money a second time and completes; nothing stops for reconciliation.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill follows the transfer), else whether the resume went on without asking again.

Schedule ``write_landed``: the default ``durability="async"`` writes a checkpoint from a background thread while the
next super-step runs, so the kill races the write that saved the approval.
The approving run passes ``durability="sync"`` (each checkpoint is written before the next step starts) to
pin that side; the other runs use the default.

Documented API only: langgraph/durable-execution under https://docs.langchain.com/oss/python/ (a resume is
``invoke(None)``) and the durability modes (https://reference.langchain.com/python/langgraph/types/Durability); the
agent with ``HumanInTheLoopMiddleware`` over a ``SqliteSaver``, the ``@tool`` and the scripted chat model are the kit's
(``probes/langchain/_kit.py``).
"""

from _kit import APPROVE, Scripted, agent, call, decide, fixture_tools, flat, ledger, on_disk, resume_readings, status, thread, user

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "side_effect_before_checkpoint@write_landed"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume", "checkpoint_after_interrupt.final_status", "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume", "checkpoint_after_interrupt.interrupts.0.resume_position",
    "side_effects.c1.effects", "side_effects.c1.executor_entries", "side_effects.c1.tool_entries", "step_statuses.0", "step_statuses.1", "step_statuses.2",
)

tools = fixture_tools(world(Fault(point="tool.kill_after_effect", call_id="c1")).call, "transfer_funds")  # the process dies right after the transfer
model = Scripted(script=[[call("c1", "transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500})], "Sent 25.00 from ACC-1 to ACC-2."])
config = thread("sess-side_effect_before_checkpoint")


def app():
    """The agent over the checkpoint file, with a connection of this process's own."""
    return agent(model, tools, reviewed=("transfer_funds",), checkpointer=on_disk())


app().invoke(user("Send 25.00 from ACC-1 to ACC-2."), config)
statuses = [status(app(), config)]
granted = counts().get("c1", {}).get("executor_entries", 0)  # c1's executor entries when the approval is given
killed = in_child(lambda: app().invoke(decide(APPROVE), config, durability="sync")) == FAULT_EXIT_CODE  # each checkpoint lands before the next step
statuses.append("crashed" if killed else status(app(), config))
before = counts()["c1"]  # the ledger when the resume starts
app().invoke(None, config)  # the driver's resume
statuses.append(status(app(), config))

c1 = ledger()["c1"]
report(SCENARIO, {**resume_readings("c1", granted, before, app().get_state(config)), **flat("side_effects.c1", c1), **flat("step_statuses", statuses),
                  "checkpoint_after_interrupt.effects_after_resume": {"c1": c1["effects"]}, "checkpoint_after_interrupt.final_status": statuses[-1]})
