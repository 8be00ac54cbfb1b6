"""Agent Framework's session is what ``to_dict()`` saved when a run returned: a process killed before the second model
turn, inside the first run, has saved nothing, so there is no session to resume and the run stays crashed with the
note of ``c1`` written (the contract resumes at the next model turn and completes).

Documented API only, through the kit (``_kit.py``): ``session.to_dict()`` / ``AgentSession.from_dict(...)``
(https://learn.microsoft.com/en-us/agent-framework/agents/conversations/session, "Serialization and restoration"),
typed ``async`` function tools (https://learn.microsoft.com/en-us/agent-framework/agents/tools/function-tools), a
scripted chat client that meets the scenario's model fault (the ``BaseChatClient`` docstring,
``agent_framework/_clients.py``), the kit's pass-through function middleware (there only to hand the tool its call id
for the ledger). The run goes in a child process, as a killed one would.
"""

from _kit import call, deliver, effects, every_side_effect, model_counts, position, resume, support_agent, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "crash_resume"
SHOWS = (
    "checkpoint_after_interrupt.effects_after_resume",
    "checkpoint_after_interrupt.final_status",
    "checkpoint_after_interrupt.interrupts.0.effects_before_resume",
    "checkpoint_after_interrupt.interrupts.0.resumable",
    "checkpoint_after_interrupt.interrupts.0.resume_position",
    "model.calls_per_turn",
    "model.unused_turns",
    "side_effects",
    "status",
    "step_statuses",
)

SCRIPT = [[call("c1", "put_note", key="followup", text="Call the customer back on Monday.")], [call("c2", "get_weather", city="Paris")],
          [text("Saved; Paris is sunny.")]]

agent = support_agent(SCRIPT, world(Fault("model.kill_before_turn", turn=1)), "put_note", "get_weather")
killed = in_child(lambda: deliver(agent, "Save a follow-up note, then tell me the weather in Paris.")) == FAULT_EXIT_CODE  # driver step 0
before, (at, _) = effects(), position()  # what the killed step left: c1's note, and no saved session
statuses = ["crashed" if killed else "not killed", resume(agent)]  # step 1: nothing was saved, so nothing to resume
final = statuses[0] if statuses[1] == "refused" else statuses[1]  # a refused step leaves the run as it was
interrupt = "checkpoint_after_interrupt.interrupts.0"
report(SCENARIO, {f"{interrupt}.effects_before_resume": before, f"{interrupt}.resumable": statuses[1] not in ("refused", "crashed", "error"),
                  f"{interrupt}.resume_position": at,
                  "checkpoint_after_interrupt.effects_after_resume": effects(), "checkpoint_after_interrupt.final_status": final,
                  **model_counts(SCRIPT, "calls_per_turn", "unused_turns"), "side_effects": every_side_effect(), "status": final, "step_statuses": statuses})
