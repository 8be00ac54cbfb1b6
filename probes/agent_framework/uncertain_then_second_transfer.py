"""Agent Framework holds the approval of ``t1`` until ``t2``, the other call of its turn, is decided, then runs both:
``t1`` moves the money and times out after its effect, and its tool dispatch hands the ``TimeoutError`` to the model
as the call's result (``Error: Function failed.``), so the run completes with nothing recorded as uncertain (the
contract stops for the reconciliation of ``t1``; Agent Framework has no such step). The second approval of ``t2``,
whose request was answered already, is neither refused nor acted on (the framework only logs "Ignored an approval
response"): nothing runs, the model is asked for a turn
beyond its script, and the run completes again (the contract refuses it: ``t2`` is not waiting).

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)``
(https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval), the function invocation settings at
their defaults (``agent_framework/_tools.py``, ``_function_execution_error_result``), an ``AgentSession`` saved with
``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat
client and pass-through function middleware (there only to hand the tool its call id for the ledger).
"""

from _kit import answer, call, deliver, effects, every_side_effect, executor_entries, model_counts, pending, results, support_agent, text

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = (
    "model.calls_per_turn",
    "model.missing_turns",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.pauses.1.pending",
    "side_effects",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
    "step_statuses.4",
    "constants.tool_error",
)

SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500),
           call("t2", "transfer_funds", from_account="ACC-1", to_account="ACC-3", amount_cents=100)],
          [text("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.timeout_after_effect", call_id="t1")), "transfer_funds")
statuses = {0: deliver(agent, "Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1.")}  # driver step 0: t1 and t2 wait
statuses[1] = answer(agent, {"t1": True}, errors=(TimeoutError,))  # step 1: approve t1: held, t2 still waits
paused = pending()
before = {2: effects()}
statuses[2] = answer(agent, {"t2": True}, errors=(TimeoutError,))  # step 2: approve t2: t1 moves the money and times out, t2 runs
print("what the model got for t1:", results("t1"))
# step 3, reconcile t1: Agent Framework has no such step
before[4], entered = effects(), executor_entries()
statuses[4] = answer(agent, {"t2": True})  # step 4: approve t2 again, answered already
print(f"driver step 4: executors entered in it: {sorted(c for c, k in executor_entries().items() if k > entered.get(c, 0))}")
report(SCENARIO, {"constants.tool_error": "raise" if statuses[2] == "error" else "message", **model_counts(SCRIPT, "calls_per_turn", "missing_turns"),
                  "pre_approval_state.decisions.1.effects_before": before[2], "pre_approval_state.decisions.2.effects_before": before[4],
                  "pre_approval_state.pauses.1.pending": paused, "side_effects": every_side_effect(), **{f"step_statuses.{n}": s for n, s in statuses.items()}})
