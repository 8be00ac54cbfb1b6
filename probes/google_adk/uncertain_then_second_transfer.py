"""ADK runs an approved call as soon as its confirmation arrives, while the other call of its turn still waits: the
approved transfer ``t1`` moves money before ``t2`` is decided, then times out after its effect, and with no
``on_tool_error_callback`` the ``TimeoutError`` ends the run with nothing recorded as uncertain. The approval of
``t2`` that follows runs it and completes the run (the contract holds the turn until both are decided, then stops
for the reconciliation of ``t1``); the second approval of ``t2`` answers a request already answered and is dropped.

Documented API only, through the kit (``_kit.py``): ``FunctionTool(..., require_confirmation=True)`` answered with the
``adk_request_confirmation`` call's ``FunctionResponse`` sent with its ``invocation_id``
(https://google.github.io/adk-docs/tools-custom/confirmation/), no tool callback set
(https://google.github.io/adk-docs/callbacks/types-of-callbacks/#tool-execution-callbacks), a resumable ``App`` over
``SqliteSessionService`` (https://google.github.io/adk-docs/runtime/resume/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/).
"""

from _kit import answer, call, deliver, effects, executor_entries, scripted_app, side_effects, text

from harness.column_side.probes.kit import Fault, report, world

SCENARIO = "uncertain_then_second_transfer"
SHOWS = (
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "side_effects.t1",
    "side_effects.t2",
    "step_statuses.0",
    "step_statuses.1",
    "step_statuses.2",
    "step_statuses.4",
)

SCRIPT = [[call("t1", "transfer_funds", from_account="ACC-1", to_account="ACC-2", amount_cents=2500),
           call("t2", "transfer_funds", from_account="ACC-1", to_account="ACC-3", amount_cents=100)],
          [text("done")]]

app = scripted_app(SCRIPT, world(Fault("tool.timeout_after_effect", call_id="t1")), "transfer_funds")
statuses = {0: deliver(app, "Send 25.00 to ACC-2 and 1.00 to ACC-3 from ACC-1.")}  # driver step 0: t1 and t2 wait
statuses[1] = answer(app, {"t1": True}, errors=(TimeoutError,))  # step 1: approve t1; it moves the money, then times out
before = {2: effects()}
statuses[2] = answer(app, {"t2": True})  # step 2: approve t2
# step 3, reconcile t1: ADK has no such step
before[4], entered = effects(), executor_entries()
statuses[4] = answer(app, {"t2": True})  # step 4: approve t2 again, answered already
print(f"driver step 4: executors entered in it: {sorted(c for c, k in executor_entries().items() if k > entered.get(c, 0))}")
report(SCENARIO, {"pre_approval_state.decisions.1.effects_before": before[2], "pre_approval_state.decisions.2.effects_before": before[4],
                  "side_effects.t1": side_effects("t1"), "side_effects.t2": side_effects("t2"), **{f"step_statuses.{n}": s for n, s in statuses.items()}})
