"""Pydantic AI's history is written when a run returns: a process killed inside the approved transfer, before its
effect, leaves the history of the pause, and the resume asks for the same approval again (the approval is lost,
nothing stops for reconciliation); the contract resumes at the reconciliation with the approval kept.
``approval_survives`` asks only about approvals given and not yet used at the kill (one is used once its call's
executor was entered): the probe reports ``None`` when c1's executor was entered in the killed step (as here: the
kill is inside it), else whether the resume did not ask for an approval given before it.

Documented API only: ``requires_approval=True`` and a run with the history and ``DeferredToolResults``
(https://pydantic.dev/docs/ai/tools-toolsets/deferred-tools/#human-in-the-loop-tool-approval); the history written
with ``ModelMessagesTypeAdapter`` when a run returns and resumed with no new prompt
(https://pydantic.dev/docs/ai/core-concepts/message-history/#storing-and-loading-messages-to-json); typed function
tools (https://pydantic.dev/docs/ai/tools-toolsets/tools/); a scripted ``FunctionModel`` (https://pydantic.dev/docs/ai/guides/testing/).
"""

import json

from pydantic_ai import Agent, DeferredToolRequests, DeferredToolResults, ModelMessagesTypeAdapter, RunContext, Tool
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from harness.column_side.probe_kit import FAULT_EXIT_CODE, SCRATCH, Fault, counts, in_child, report, world

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

fixture = world(Fault("tool.kill_before_effect", call_id="c1"))
script = [[ToolCallPart("transfer_funds", {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}, tool_call_id="c1")],
          [TextPart("Sent 25.00 from ACC-1 to ACC-2.")]]
state = SCRATCH
saved, asked_log = state / "messages.json", state / "asked.log"  # both outlive a killed process


async def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The script's turn is the number of model responses in the conversation so far."""
    turn = sum(isinstance(m, ModelResponse) for m in messages)
    with asked_log.open("a") as log:
        log.write(f"{turn}\n")
    return ModelResponse(parts=script[turn])


async def transfer_funds(ctx: RunContext[None], from_account: str, to_account: str, amount_cents: int) -> str:
    """Move money between accounts (high risk: needs a human approval)."""
    args = {"from_account": from_account, "to_account": to_account, "amount_cents": amount_cents}
    return json.dumps(fixture.call("transfer_funds", ctx.tool_call_id, args))


agent = Agent(FunctionModel(scripted), output_type=[str, DeferredToolRequests],
              tools=[Tool(transfer_funds, requires_approval=True)],
              system_prompt="You are a support agent for a small bank. Use the tools when they help.")


def run(**kwargs) -> DeferredToolRequests | str:
    """One run on the saved history, written back when it returns, as the documentation persists a session."""
    history = ModelMessagesTypeAdapter.validate_json(saved.read_bytes()) if saved.exists() else None
    result = agent.run_sync(message_history=history, **kwargs)
    saved.write_bytes(ModelMessagesTypeAdapter.dump_json(result.all_messages()))
    return result.output


def waiting(output: DeferredToolRequests | str) -> list[str]:
    return [call.tool_call_id for call in output.approvals] if isinstance(output, DeferredToolRequests) else []


paused = run(user_prompt="Send 25.00 from ACC-1 to ACC-2.")
approvals = {call_id: True for call_id in waiting(paused)}
granted = {c: e["executor_entries"] for c, e in counts().items()}  # executor entries when the approvals are given
killed = in_child(lambda: run(deferred_tool_results=DeferredToolResults(approvals=approvals))) == FAULT_EXIT_CODE
effects_before = {c: e["effects"] for c, e in counts().items()}
open_at_kill = {c for c in approvals if counts().get(c, {}).get("executor_entries", 0) == granted.get(c, 0)}  # not used by the kill
resumed = run()  # the resume: the saved history, no new prompt
status = "awaiting_approval" if waiting(resumed) else "completed"

asked = [int(line) for line in asked_log.read_text().split()]
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": effects_before, f"{interrupt}.resume_position": status,
                  f"{interrupt}.approval_survives": not open_at_kill & set(waiting(resumed)) if open_at_kill else None,
                  "checkpoint_after_interrupt.effects_after_resume": {c: e["effects"] for c, e in counts().items()},
                  "checkpoint_after_interrupt.final_status": status,
                  "pre_approval_state.undecided_at_end": waiting(resumed),
                  "model.unused_turns": sorted(set(range(len(script))) - set(asked)),
                  "side_effects.c1.effects": counts()["c1"]["effects"],
                  "step_statuses.1": "crashed" if killed else "not killed", "step_statuses.2": status})
