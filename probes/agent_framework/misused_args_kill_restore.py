"""Agent Framework saves the session only when a run returns and takes an approval whose call carries other arguments
as the approval of the request it names. The process killed inside the approved transfer ``t1`` (before its effect)
saved nothing; the approval sent next with the amount edited is taken at once: ``t1`` runs (with the model's
arguments), then the model's next turn, the note ``n1``, and the run completes (the contract refuses it: ``t1`` is not
waiting, its outcome is unknown). The resume then asks the model for a turn beyond its script, and the approval of
``t1`` that follows, its request answered already, is neither refused nor acted on (the framework only logs "Ignored an
approval response"; the model is asked for another turn). The saved files of the first pause, delivered again (a
restore), wait on ``t1`` once more, and approving it runs the transfer a second time and the note with it.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)`` or built with
``Content.from_function_approval_response(approved=True, id=<the request's id>, function_call=<the call with edited
arguments>)`` (``agent_framework/_types.py``; https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval),
an ``AgentSession`` saved with ``to_dict()`` after every run that returns, resumed with ``agent.run(None, session=...)``
and its saved file copied and put back (https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session);
the kit's scripted chat client and pass-through function middleware (there only to hand the tool its call id for the
ledger).
"""

from _kit import (
    answer,
    call,
    deliver,
    effects,
    every_side_effect,
    kept,
    model_counts,
    position,
    restore,
    resume,
    send,
    snapshot,
    support_agent,
    text,
)
from agent_framework import Content

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "misused_args_kill_restore"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.pending_call",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "idempotent_replay.n1.effects",
    "idempotent_replay.t1.effects",
    "model.calls_per_turn",
    "model.missing_turns",
    "pre_approval_state.decisions.1.effects_before",
    "pre_approval_state.decisions.2.effects_before",
    "pre_approval_state.decisions.3.effects_before",
    "side_effects",
    "status",
    "step_statuses",
)

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[call("b1", "get_balance", account="ACC-1")], [call("t1", "transfer_funds", **move)], [call("n1", "put_note", key="n", text="x")],
          [text("done")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_before_effect", call_id="t1")), "get_balance", "transfer_funds", "put_note")
statuses = [deliver(agent, "Check ACC-1, then send 25.00 to ACC-2 and note it.")]  # driver step 0: b1 runs, t1 waits
statuses.append(snapshot("p"))  # step 1: the files of the pause, copied
statuses.append("crashed" if in_child(lambda: answer(agent, {"t1": True})) == FAULT_EXIT_CODE else "not killed")  # step 2: approve t1; dies in it
landed = effects()  # what the killed step left
request, before = kept()["t1"], {3: effects()}
edited = Content.from_function_call(call_id="t1", name="transfer_funds", arguments={**move, "amount_cents": 2501}, id=request.function_call.id)
statuses.append(send(agent, [Content.from_function_approval_response(approved=True, id=request.id, function_call=edited)]))  # step 3: other args
at, pending_call = position()  # where the first resume after the kill continues: the run completed at step 3
statuses.append(resume(agent))  # step 4: a run on the completed session
before[5] = effects()
statuses.append(answer(agent, {"t1": True}))  # step 5: approve t1, answered already
statuses.append(restore("p"))  # step 6: the pause's files delivered again
before[7] = effects()
statuses.append(answer(agent, {"t1": True}))  # step 7: approve t1: it runs again, and n1
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": landed, f"{interrupt}.resume_position": at,
                  f"{interrupt}.pending_call": pending_call,  # None: no call open at the resume
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": statuses[-1],
                  "idempotent_replay.n1.effects": effects()["n1"], "idempotent_replay.t1.effects": effects()["t1"],
                  **model_counts(SCRIPT, "calls_per_turn", "missing_turns"),
                  **{f"pre_approval_state.decisions.{i}.effects_before": before[n] for i, n in ((1, 3), (2, 5), (3, 7))},
                  "side_effects": every_side_effect(), "status": statuses[-1], "step_statuses": statuses})
