"""Pydantic AI's history is written when a run returns: a process killed inside the approved transfer, before its
effect, leaves the history of the pause, and the resume asks for the same approval again (the approval is lost,
nothing stops for reconciliation); the contract resumes at the reconciliation with the approval kept. The kill is
inside c1's executor, so the approval was used (``approval_survives`` is ``None``: see the kit's ``approval_survives``).

Documented API only, through the kit (``_kit.py``): ``requires_approval=True`` and a run with the history and
``DeferredToolResults`` (https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval);
the history written with ``ModelMessagesTypeAdapter`` when a run returns and resumed with no new prompt
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json); a scripted ``FunctionModel``.
"""

from _kit import approval_survives, approve_all, effects, executor_entries, model_counts, run_saved, status, support_agent, waiting
from pydantic_ai import DeferredToolResults
from pydantic_ai.messages import TextPart, ToolCallPart

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, counts, in_child, report, world

SCENARIO = "kill_before_effect"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.approval_survives",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.unused_turns",
    "pre_approval_state.undecided_at_end",
    "side_effects.c1.effects",
    "step_statuses.1",
    "step_statuses.2",
)

SCRIPT = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_before_effect", call_id="c1")), "transfer_funds")
approvals = approve_all(run_saved(agent, user_prompt="Send 25.00 from ACC-1 to ACC-2.").output)  # driver step 0: c1 waits
granted = executor_entries()  # when the approvals are given
killed = in_child(lambda: run_saved(agent, deferred_tool_results=DeferredToolResults(approvals=approvals))) == FAULT_EXIT_CODE  # step 1
effects_before, entered = effects(), executor_entries()
resumed = status(run_saved(agent).output)  # step 2, the resume: the saved history, no new prompt
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": effects_before, f"{interrupt}.resume_position": resumed,
                  f"{interrupt}.approval_survives": approval_survives(approvals, granted, entered, waiting()),
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": resumed,
                  "pre_approval_state.undecided_at_end": list(waiting()), **model_counts(SCRIPT, "unused_turns"),
                  "side_effects.c1.effects": counts()["c1"]["effects"], "step_statuses.1": "crashed" if killed else "not killed",
                  "step_statuses.2": resumed})
