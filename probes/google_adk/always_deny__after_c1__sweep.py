"""The crash sweep's worst case for ADK: a kill right after a tool's effect, then a resume, and the effect happens
again. ADK appends the model's function call and the tool's response to the session as events; the process dies after
``drop_database`` took effect and before its response event was appended, so the resumed invocation finds the call
without a response and runs the tool again: two effects, where the uninterrupted run had one.

Documented API only, through the kit (``_kit.py``): a resumable ``App`` over ``SqliteSessionService`` resumed with
``run_async(invocation_id=..., new_message=None)`` (https://google.github.io/adk-docs/runtime/resume/,
https://google.github.io/adk-docs/sessions/session/), typed function tools
(https://google.github.io/adk-docs/tools-custom/function-tools/), a scripted ``BaseLlm``
(https://google.github.io/adk-docs/agents/models/). The run goes in a child process, which the kill ends.
"""

from _kit import call, deliver, effects, resume, scripted_app, text

from harness.column_side.probes.kit import FAULT_EXIT_CODE, Fault, in_child, report, world

SCENARIO = "always_deny__after_c1"
MODE = "sweep"
SHOWS = ("side_effects.c1.effects",)

SCRIPT = [[call("c1", "drop_database", name="prod")], [text("I am not allowed to drop databases.")]]

app = scripted_app(SCRIPT, world(Fault("tool.kill_after_effect", call_id="c1")), "drop_database")
assert in_child(lambda: deliver(app, "Drop the prod database.")) == FAULT_EXIT_CODE  # the run, killed after c1's effect
resume(app)  # the resume of the killed invocation, in this process: it knows only what the session service saved
report(SCENARIO, {"side_effects.c1.effects": effects()["c1"]})
