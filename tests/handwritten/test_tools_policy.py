"""The tool registry (rendering, lookup, duplicates) and the policy over the four risk classes."""

from __future__ import annotations

import copy

import pytest

from handwritten.canonical import canonical_json
from handwritten.policy import Decision, Policy
from handwritten.schema import Checked
from handwritten.tools import RiskClass, ToolRegistry, ToolSpec, UnknownTool
from harness.fixture_tools import FIXTURE_TOOLS

R, W, H, D = RiskClass.READ_ONLY, RiskClass.REVERSIBLE_WRITE, RiskClass.HIGH_RISK, RiskClass.ALWAYS_DENY


def test_registry_renders_openai_tools_in_registration_order(world):
    registry = ToolRegistry(world.tool_specs(["transfer_funds", "get_weather"]))
    assert registry.openai_tools() == [
        {
            "type": "function",
            "function": {
                "name": "transfer_funds",
                "description": "Move money between accounts. High risk: needs a human approval.",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "from_account": {"type": "string", "minLength": 1},
                        "to_account": {"type": "string", "minLength": 1},
                        "amount_cents": {"type": "integer", "minimum": 1},
                        "memo": {"type": "string"},
                    },
                    "required": ["from_account", "to_account", "amount_cents"],
                    "additionalProperties": False,
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Current weather for a city.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "minLength": 1}},
                    "required": ["city"],
                    "additionalProperties": False,
                },
            },
        },
    ]
    assert registry.names == ("transfer_funds", "get_weather")


def test_registry_lookup(world):
    specs = world.tool_specs(["get_weather", "put_note"])
    registry = ToolRegistry(specs)
    assert (registry.get("put_note"), "put_note" in registry, "drop_database" in registry) == (specs[1], True, False)
    with pytest.raises(UnknownTool) as info:
        registry.get("drop_database")
    assert (isinstance(info.value, KeyError), info.value.args) == (True, ("drop_database",))


def test_registry_compiles_the_strict_validator_per_tool(world):
    registry = ToolRegistry(world.tool_specs(["put_note"]))
    assert registry.validator("put_note").check({"key": "k", "text": "t", "priority": "2"}) == Checked(
        {"key": "k", "text": "t", "priority": "2"}, ("priority: '2' is not of type 'integer'",)
    )


def test_duplicate_tool_names_are_refused(world):
    weather = world.tool_specs(["get_weather"])[0]
    impostor = ToolSpec("get_weather", "Something else.", {"type": "object"}, RiskClass.ALWAYS_DENY, weather.executor)
    with pytest.raises(ValueError) as info:
        ToolRegistry([weather, *world.tool_specs(["search_kb"]), impostor])
    assert str(info.value) == "duplicate tool name: get_weather"


def test_openai_tools_is_a_fresh_copy_each_time(world):
    """A caller (a model adapter) changing what it was given changes nothing in the registry or the spec."""
    weather = world.tool_specs(["get_weather"])[0]
    schema = copy.deepcopy(dict(weather.input_schema))  # a private schema: a leak cannot reach the shared fixture tools
    spec = ToolSpec(weather.name, weather.description, schema, weather.risk, weather.executor)
    registry = ToolRegistry([spec])
    before = registry.openai_tools()
    given = registry.openai_tools()
    given[0]["function"]["description"] = "changed by a caller"
    given[0]["function"]["parameters"]["properties"]["city"]["minLength"] = 99
    given.append({"type": "function", "function": {"name": "extra"}})
    assert (registry.openai_tools(), spec.input_schema) == (before, FIXTURE_TOOLS["get_weather"].schema)


# -- policy -------------------------------------------------------------------------------

BY_RISK = {R: Decision.RUN, W: Decision.RUN_IDEMPOTENT, H: Decision.NEEDS_APPROVAL, D: Decision.DENY}


@pytest.mark.parametrize(("risk", "decision"), BY_RISK.items(), ids=[r.value for r in BY_RISK])
def test_policy_decision_per_risk_class(risk, decision):
    assert Policy().decide("any_tool", risk) is decision


# (declared class, override) -> decision: the stricter of the two always wins.
OVERRIDES = {
    (R, R): Decision.RUN, (R, W): Decision.RUN_IDEMPOTENT, (R, H): Decision.NEEDS_APPROVAL, (R, D): Decision.DENY,
    (W, R): Decision.RUN_IDEMPOTENT, (W, W): Decision.RUN_IDEMPOTENT, (W, H): Decision.NEEDS_APPROVAL, (W, D): Decision.DENY,
    (H, R): Decision.NEEDS_APPROVAL, (H, W): Decision.NEEDS_APPROVAL, (H, H): Decision.NEEDS_APPROVAL, (H, D): Decision.DENY,
    (D, R): Decision.DENY, (D, W): Decision.DENY, (D, H): Decision.DENY, (D, D): Decision.DENY,
}  # fmt: skip


@pytest.mark.parametrize(("classes", "decision"), OVERRIDES.items(), ids=[f"{a.value}->{b.value}" for a, b in OVERRIDES])
def test_override_can_tighten_but_never_loosen(classes, decision):
    declared, override = classes
    policy = Policy({"the_tool": override})
    assert (policy.decide("the_tool", declared), policy.decide("other_tool", declared)) == (decision, BY_RISK[declared])


@pytest.mark.parametrize(
    ("decision", "needs_key"),
    [(Decision.RUN, False), (Decision.RUN_IDEMPOTENT, True), (Decision.NEEDS_APPROVAL, True), (Decision.DENY, False)],
)
def test_every_effectful_decision_needs_an_idempotency_key(decision, needs_key):
    assert Policy.needs_idempotency(decision) is needs_key


def test_fixture_tools_policy(world):
    """The fixture world's declared classes land in the decisions the scenarios rely on."""
    registry = ToolRegistry(world.tool_specs(list(FIXTURE_TOOLS)))
    decisions = {name: Policy().decide(name, registry.get(name).risk).value for name in registry.names}
    assert decisions == {
        "get_weather": "run",
        "get_balance": "run",
        "search_kb": "run",
        "fetch_page": "run",
        "calculator": "run",
        "list_orders": "run",
        "put_note": "run_idempotent",
        "transfer_funds": "needs_approval",
        "send_email": "needs_approval",
        "drop_database": "deny",
    }


# -- the policy inside the engine -----------------------------------------------------------------

TRANSFER = {"from_account": "ACC-1", "to_account": "ACC-2", "amount_cents": 100}
NOTE = {"key": "k", "text": "t"}

# tool, arguments, override -> (run status, what the model is told (None: nothing yet), ledger, idempotency key used)
ENGINE_OVERRIDES = {
    "read-only tightened to always_deny": (
        "get_weather", {"city": "Oslo"}, D, ("completed", canonical_json({"error": "refused by policy: get_weather is never allowed"}), {}, None),
    ),
    "read-only tightened to high_risk": ("get_weather", {"city": "Oslo"}, H, ("awaiting_approval", None, {}, "sess-1/c1")),
    "high_risk loosened to read_only (ignored)": ("transfer_funds", TRANSFER, R, ("awaiting_approval", None, {}, "sess-1/c1")),
    "reversible write loosened to read_only (ignored)": (
        "put_note",
        NOTE,
        R,
        ("completed", canonical_json({"key": "k", "stored": True}), {"c1": {"tool": "put_note", "tool_entries": 1, "executor_entries": 1, "effects": 1}}, "sess-1/c1"),
    ),
}


@pytest.mark.parametrize(("tool", "arguments", "override", "expected"), ENGINE_OVERRIDES.values(), ids=ENGINE_OVERRIDES.keys())
def test_engine_applies_overrides_only_to_tighten(make_rig, tool, arguments, override, expected):
    script = [{"tool_calls": [{"id": "c1", "name": tool, "arguments": arguments}]}, {"text": "Done."}]
    rig = make_rig(script, [tool], policy=Policy({tool: override}))
    result = rig.engine.run("sess-1", "go", "e1")
    told = next((m["content"] for m in result.state.messages if m["role"] == "tool"), None)
    key = result.state.pending_approval[0].idempotency_key if result.state.pending_approval else (
        "sess-1/c1" if rig.idempotency.get("sess-1/c1") is not None else None
    )
    assert (result.status, told, rig.ledger(), key) == expected
