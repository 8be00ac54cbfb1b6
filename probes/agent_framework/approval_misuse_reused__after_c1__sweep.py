"""The crash sweep's worst case for Agent Framework: a kill right after an approved transfer took effect, and the
transfer happens again. The session is saved with ``to_dict()`` when a run returns; the approving run dies after
``c1``'s effect, before it returned, so the saved session still waits on ``c1``'s approval request. The resume (a run
with no new input) finds that request still open and the scenario's next step hands the approval used before the kill
over again (a reused token, made for ``c1``): the framework takes it as the answer to the open request and runs the
transfer a second time, where the uninterrupted run ignored the reused approval and moved the money once.

Documented API only, through the kit (``_kit.py``): ``tool(..., approval_mode="always_require")``,
``response.user_input_requests`` answered with ``request.to_function_approval_response(approved=True)`` as a new run on
the session saved with ``to_dict()`` (https://learn.microsoft.com/en-us/agent-framework/agents/tools/tool-approval,
https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session); the kit's scripted chat client.
"""

from _kit import answer, call, deliver, effects, resume, support_agent, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "approval_misuse_reused__after_c1"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

move = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 2500}
SCRIPT = [[call("c1", "transfer_funds", **move)], [call("c2", "transfer_funds", **move)], [text("Sent twice.")]]

agent = support_agent(SCRIPT, world(Fault("tool.kill_after_effect", call_id="c1")), "transfer_funds")
deliver(agent, "Send 25.00 from ACC-1 to ACC-2.")  # driver step 0: c1 waits, the session saved
assert in_child(lambda: answer(agent, {"c1": True})) == FAULT_EXIT_CODE  # step 1: the approval of c1, killed after its effect
print(f"resume: {resume(agent)}")  # step 2: the saved session, which still waits on c1
answer(agent, {"c1": True})  # step 3: the approval used before the kill, handed over again
report(SCENARIO, {"side_effects.c1.effects": effects()["c1"]})
