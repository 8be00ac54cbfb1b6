"""``evidence/FINDINGS.md``: what each framework hides, generated from the evidence documents.

Every line comes from the reasons the rules (``harness.runner_side.judge``) derived and stored in
the evidence: per framework, each behaviour its defaults show where the contract would do otherwise,
with the scenarios, the mode and the counts behind it, sorted into those every framework shares, those
some share and those unique to one, each linked to the probe that shows it with the framework alone;
then, for a framework measured at two pins, what changed between them (``publish.pins``: a rule table of its own);
then the glue each contract column needed and what still differs there.

A framework measured at two pins is two columns (``langgraph`` and ``langgraph@0.6.11``) but one framework: the
findings are sorted into "every", "some" and "one" framework by adapter (``Column.adapter``), and each column's
findings link the probes that run in that column (``probes_of``: at its pin).
"""

from __future__ import annotations

import re
import tomllib
from collections import defaultdict
from functools import cache
from typing import Any

from harness.columns import ROOT, Column, known_columns
from harness.runner_side.judge import UNEXPLAINED, consequences, differing_paths, mcp_rules, titles, wire_rules
from harness.runner_side.publish.pins.diff import pairs, versions
from harness.runner_side.publish.pins.lines import by_scenario, change_head, leaves_text
from harness.runner_side.publish.pins.rules import Change, changes, pin_titles, probes_behind
from harness.runner_side.publish.probes import Probe, probes_of
from harness.runner_side.publish.sections.mcp_clients import fault_table, sent_table
from harness.runner_side.publish.sections.sweep import sweep_lines
from harness.runner_side.run.environments import direct_pins
from harness.scenarios import BINDINGS

Entry = tuple[str, list[str], str, list[tuple[str, ...]]]
"""(scenario key, observables the reason explains there, reason text, the differing leaves it accounts for)."""
Findings = dict[str, dict[str, list[Entry]]]
"""rule -> framework -> its entries."""

SCOPE = (
    "**Scope.** The model is scripted: every column receives the same tool calls, decisions and faults, so these findings "
    "show how each framework handles the harness's contract (validation, policy, approval, checkpoints, idempotency, bounds), "
    "not how well a live model plans."
)


def collect(documents: dict[str, dict[str, Any]], mode: str) -> Findings:
    """Each rule's reasons in one mode, per framework and scenario (consequences left out)."""
    found: Findings = defaultdict(lambda: defaultdict(list))
    known, after = titles(), consequences()
    for name, document in sorted(documents.items()):
        for key, record in sorted(document.get("modes", {}).get(mode, {}).get("scenarios", {}).items()):
            for reason in record.get("reasons", ()):
                if reason["rule"] not in known:  # a finding without a heading would be left out of the report silently
                    raise ValueError(f"{name}/{mode}/{key}: rule {reason['rule']!r} is no rule of harness.runner_side.judge")
                if reason["rule"] in after:
                    continue
                cells = sorted(n for n, c in record["columns"].items() if reason["rule"] in c.get("rules", ()))
                if cells:
                    claims = tuple(tuple(c.split(".")) for c in reason["claims"])
                    leaves = [(n, *leaf) for n in cells for leaf in differing_paths(record["columns"][n]["handwritten"], record["columns"][n]["framework"])
                              if _claimed((n, *leaf), claims)]
                    found[reason["rule"]][name].append((key, cells, reason["text"], leaves))
    return found


def _claimed(leaf: tuple[str, ...], claims: tuple[tuple[str, ...], ...]) -> bool:
    """Whether a stored reason's claims name the leaf (a claim is a path the leaf lies under)."""
    return any(leaf[: len(c)] == c for c in claims)


@cache
def _registry() -> dict[str, Column]:
    return known_columns()


def adapter_of(name: str) -> str:
    """The framework a column measures (``langgraph`` for ``langgraph@0.6.11``)."""
    column = _registry().get(name)
    return column.adapter if column else name.partition("@")[0]


def probes_in(probes: list[Probe], column: str) -> list[Probe]:
    """The probes that run in ``column`` (at its pin: ``probes_of``); a column the registry does not know (a test's
    own) has its framework's probes that name no pin."""
    if column in _registry():
        return probes_of(probes, column, _registry())
    return [p for p in probes if p.framework == column and not p.pins]


def probes_for(probes: list[Probe], framework: str, entries: list[Entry], mode: str = "defaults") -> list[Probe]:
    """The probes that run in the column ``framework`` (at its pin) and reproduce one of these scenarios and print a value
    that differs there and that the finding's reason accounts for (or a value holding one)."""
    def shows(probe: Probe, leaves: list[tuple[str, ...]]) -> bool:  # a printed value holding a differing leaf, or inside one
        paths = [tuple(path.split(".")) for path in probe.shows]
        return any(path[: len(leaf)] == leaf or leaf[: len(path)] == path for path in paths for leaf in leaves)

    return [p for p in probes_in(probes, framework) if p.mode == mode and any(p.scenario == key and shows(p, leaves) for key, _, _, leaves in entries)]


def missing_probes(documents: dict[str, dict[str, Any]], probes: list[Probe]) -> list[str]:
    """``<framework>/<rule>`` for every defaults finding, and every finding of the wire's or the mcp mode's own rules, no
    probe stands behind."""
    missing = []
    own = {"defaults": None, "wire": wire_rules(), "mcp": mcp_rules()}
    for mode, rules in own.items():
        found = collect(documents, mode)
        missing += [f"{fw}/{rule}" + ("" if mode == "defaults" else f" ({mode})") for rule, by_fw in found.items() for fw, entries in by_fw.items()
                    if (rules is None or (rule in rules and rule not in consequences())) and not probes_for(probes, fw, entries, mode)]
    return sorted(missing)


def render(documents: dict[str, dict[str, Any]], probes: list[Probe], sweep: dict[str, Any] | None = None) -> str:
    """The whole of ``evidence/FINDINGS.md`` (``sweep``: the crash sweep's rows, ``evidence/sweep.json``)."""
    measured = sorted(n for n, d in documents.items() if d.get("status") == "measured" and "defaults" in d.get("modes", {}))
    found = collect(documents, "defaults")
    lines = [
        "# What each framework hides",
        "",
        "Generated by `scripts/run_framework_comparison.py` from the evidence in this directory, by the rules of "
        "`harness/runner_side/judge/`; `--check` fails when it drifts. Do not edit it by hand.",
        "",
        SCOPE,
        "",
        "Measured in `defaults` mode (each framework as its documentation teaches it): "
        + ", ".join(f"{n} ({_versions(documents[n])})" for n in measured) + ".",
        "Each finding names the scenarios by id (`@<schedule>`: an ordering the column forced on a race), "
        "the observables it explains and the counts behind it, and links the probe that shows it with the framework alone "
        "(`python scripts/check_probes.py` runs every probe in its pinned environment and compares its counts with the evidence).",
    ]
    lines += ["", *_bindings(documents, measured)]
    frameworks = len({adapter_of(n) for n in measured})  # two pins of one framework are one framework
    for heading, sharing in (("Every framework", range(frameworks, frameworks + 1)), ("Some frameworks", range(2, frameworks)),
                             ("One framework", range(1, 2))):
        rules = [r for r in titles() if r in found and len({adapter_of(fw) for fw in found[r]}) in sharing]
        lines += ["", f"## {heading}", ""]
        lines += [line for rule in rules for line in _finding(rule, found[rule], probes)] or ["(none)"]
    sections = [_pins(documents, probes), _wire(documents, probes), _mcp(documents, probes), sweep_lines(sweep, probes),
                _unexplained(documents), _contract(documents)]
    return "\n".join(lines + [line for section in sections for line in ("", *section)]) + "\n"


PINS_INTRO = (
    "A framework measured at two pins runs the same adapter on the same scenarios in two pinned environments; what differs "
    "between its two evidence files is the framework's. Found by the rules of `harness/runner_side/publish/pins/rules.py`: "
    "a default that moved (a constant read in each pinned environment whose value differs), a behaviour that appeared "
    "(a rule explains a cell at the newer pin and did not at the older one, same mode, scenario and observable) and a "
    "behaviour that went (the other way round); consequences are left out, as above. The values are the framework's at "
    "each pin, older vs newer. A probe is linked when one runs at both pins and prints a value that differs between them (a "
    "`defaults` probe stands for a `wire` cell of any observable but the wire's own: the model's transport is all that differs); "
    "`python scripts/compare_pins.py <framework> <version> <version>` prints every differing cell with the rules behind each side."
)


def _pins(documents: dict[str, dict[str, Any]], probes: list[Probe]) -> list[str]:
    """What changed between the pins of each framework measured at two (``publish.pins.rules``), by kind of change."""
    found = [(pair, changes(pair)) for pair in pairs(documents, _registry())]
    lines = ["## What changed between pins", "", PINS_INTRO, ""]
    if not found:
        return [*lines, "(no framework is measured at two pins)"]
    for pair, _ in found:
        moved = "; ".join(f"{m.name} {m.older or 'not installed'} vs {m.newer or 'not installed'}" for m in versions(pair))
        lines.append(f"- **{pair.adapter}**: {pair.older.version} (`{pair.older.name}`) and {pair.newer.version} (`{pair.newer.name}`); "
                     f"the directly pinned versions that differ: {moved or 'none'}.")
    for rule, title in pin_titles().items():
        lines += ["", f"### {title} (`{rule}`)", ""]
        lines += [line for _, found_changes in found for change in found_changes if change.rule == rule for line in change_lines(change, probes)] or ["(none)"]
    return lines


def change_lines(change: Change, probes: list[Probe]) -> list[str]:
    """One change as FINDINGS.md lists it: what changed, at which pins, the probe behind it, a line per scenario."""
    linked = probes_behind(change, probes, _registry())
    names = ", ".join(f"[{p.file.rsplit('/', 1)[-1]}](../{p.file})" for p in linked)
    head = change_head(change, f"**{change.pair.adapter}**", f"probe: {names}" if linked else "no probe yet")
    return [f"- {head}"] + [f"  - `{key}` ({', '.join(observables)}): {leaves_text(leaves)}" for key, observables, leaves in by_scenario(change.cells)]


def _wire(documents: dict[str, dict[str, Any]], probes: list[Probe]) -> list[str]:
    """The wire mode's own findings (``harness/runner_side/judge/rules/wire.py``): what each framework's model client does with an
    OpenAI-compatible endpoint, measured against the engine's client on the same scripted server. Every scenario of the
    scenario directory runs over the wire; the wire's scenarios (the ones with a fault of the endpoint) are listed with
    their reasons, the others counted."""
    measured = sorted(n for n, d in documents.items() if d.get("status") == "measured" and "wire" in d.get("modes", {}) and n in _third_party())
    found = collect(documents, "wire")
    lines = ["## On the wire", "",
             "Measured in `wire` mode: `defaults` with each framework's own OpenAI-compatible model (every client setting at its default) "
             "against the runner's scripted OpenAI-compatible server, beside the engine's own client on the same server "
             "(`docs/contract.md`, \"The model's endpoint\"): " + (", ".join(measured) or "no framework") + ". "
             "The findings above hold over the wire as well; these are the ones only the wire shows."]
    own = [r for r in titles() if r in wire_rules() and r in found and r not in consequences()]
    for rule in own:
        lines += ["", f"### {titles()[rule]} (`{rule}`)", ""]
        for framework, entries in sorted(found[rule].items()):
            links = ", ".join(f"[{p.file.rsplit('/', 1)[-1]}](../{p.file})" for p in probes_for(probes, framework, entries, "wire")) or "**no probe**"
            lines.append(f"- **{framework}**, wire (probe: {links}):")
            lines += _grouped(entries)
    return lines if own else [*lines, "", "(none)"]


def _mcp(documents: dict[str, dict[str, Any]], probes: list[Probe]) -> list[str]:
    """The mcp mode (``harness.modes``): per framework, what the ledger and the runner's server counted where the server
    died after the effect, dropped the connection mid-call or answered late, beside the engine's own client; then the
    findings of the mcp mode's own rules (``harness/runner_side/judge/rules/mcp.py``) with their probes."""
    measured = sorted(n for n, d in documents.items() if d.get("status") == "measured" and "mcp" in d.get("modes", {}) and n in _third_party())
    lines = ["## Frameworks as MCP clients", "",
             "Measured in `mcp` mode: `defaults` with every tool from the runner's MCP server (the engine's tools behind schema, policy, "
             "server-side approval and idempotency records) through each framework's own MCP client, every client setting at its default, "
             "beside the engine's own client (`handwritten_mcp`) on the same server (`docs/mcp.md`): " + (", ".join(measured) or "no framework") + "."]
    if not measured:
        return [*lines, "", "(none)"]
    lines += fault_table(documents, measured) + sent_table(documents, measured)
    found = collect(documents, "mcp")
    for rule in [r for r in titles() if r in mcp_rules() and r in found and r not in consequences()]:
        lines += ["", f"### {titles()[rule]} (`{rule}`)", ""]
        for framework, entries in sorted(found[rule].items()):
            links = ", ".join(f"[{p.file.rsplit('/', 1)[-1]}](../{p.file})" for p in probes_for(probes, framework, entries, "mcp")) or "**no probe**"
            lines.append(f"- **{framework}**, mcp (probe: {links}):")
            lines += _grouped(entries)
    return lines


def _grouped(entries: list[Entry]) -> list[str]:
    """One line per distinct reason: the scenarios that gave it (the wire's own, the ones with a fault of the endpoint,
    by name; the others counted), the observables it explains there, and the reason."""
    texts: dict[str, list[Entry]] = defaultdict(list)
    for entry in entries:
        texts[entry[2]].append(entry)
    lines = []
    for text, group in texts.items():
        keys = list(dict.fromkeys(k for k, _, _, _ in group))
        named = [k for k in keys if k.startswith("wire_")] or keys[:1]
        others = len(keys) - len(named)
        cells = ", ".join(sorted({c for _, cs, _, _ in group for c in cs}))
        lines.append(f"  - {', '.join(f'`{k}`' for k in named)}{f' and {others} other scenarios' if others else ''} ({cells}): {text}")
    return lines


def _third_party() -> set[str]:
    return {name for name, column in _registry().items() if column.environment == "isolated"}


def _bindings(documents: dict[str, dict[str, Any]], measured: list[str]) -> list[str]:
    """What each framework's approval object binds an approval to, in ``defaults``: ``not carried`` (the object has no
    such field: read from the column's ``approval_fields``, located in the pinned environment), else measured from the
    driver's misuses that break the binding, expressed through the object: ``not enforced`` where one was taken
    (``misused_approval_accepted``), ``ignored`` where one was neither refused nor acted on (``misused_approval_ignored``:
    the call stayed waiting, or was not waiting, and nothing said no), ``enforced`` where every one was refused or raised on."""
    columns = [n for n in measured if "approval_fields" in documents[n]]
    lines = ["## Approval bindings", "",
             "What a framework's own approval object binds an approval to, in `defaults`: a misuse that breaks the binding is handed "
             "to the framework through that object (an approval made for another call, with edited arguments, handed over twice); "
             "`enforced`: every such misuse was refused or raised on; `ignored`: one was neither refused nor acted on (nothing said no; "
             "the call did not run on it); `not enforced`: one was taken; `not carried` means the object has no field for it, so the "
             "misuse can only go in as a plain approval.", "",
             "| binding | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    verdicts = {n: _verdicts(documents[n]) for n in columns}
    lines.append("| version | " + " | ".join(_framework_version(n, documents[n]) for n in columns) + " |")
    for binding in BINDINGS.values():
        lines.append(f"| {binding.replace('_', ' ')} | " + " | ".join(verdicts[n][binding] for n in columns) + " |")
    if nobody := [b.replace("_", " ") for b in BINDINGS.values() if columns and all(b not in documents[n]["approval_fields"] for n in columns)]:
        lines += ["", f"No framework's approval object carries the {', '.join(nobody)}: to every one of them such a misused approval is the plain approval."]
    lines.append("")
    for name in columns:
        missing = [b.replace("_", " ") for b in BINDINGS.values() if b not in documents[name]["approval_fields"]]
        fields = "; ".join(f"{b.replace('_', ' ')}: `{f['ref']}` {f['field']}" for b, f in sorted(documents[name]["approval_fields"].items()))
        lines.append(f"- **{name}** carries {fields or 'no binding'}; does not carry: {', '.join(missing) or 'nothing'}.")
    return lines


def _verdicts(document: dict[str, Any]) -> dict[str, str]:
    """binding -> its verdict for one framework, with the scenarios behind a measured one."""
    seen: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for key, record in sorted(document["modes"].get("defaults", {}).get("scenarios", {}).items()):
        rules = {r["rule"] for r in record.get("reasons", ())}
        verdict = "not enforced" if "misused_approval_accepted" in rules else "ignored" if "misused_approval_ignored" in rules else "enforced"
        for fact in record.get("facts", ()):
            if (obj := fact.get("approval_object")) and obj["carried"]:
                seen[obj["binding"]][verdict].append(f"`{key}`")
    out = {}
    for binding in BINDINGS.values():
        if binding not in document["approval_fields"]:
            out[binding] = "not carried"
        elif found := seen.get(binding):
            verdict = next(v for v in ("not enforced", "ignored", "enforced") if v in found)
            out[binding] = f"**{verdict}** ({', '.join(dict.fromkeys(found[verdict]))})"
        else:
            out[binding] = "carried, not measured (no scenario misuses it)"
    return out


def _framework_version(name: str, document: dict[str, Any]) -> str:
    """The measured version of the package a column pins first (its framework's, by the adapters' convention): what
    tells two pins of one framework apart in a table."""
    column = _registry().get(name)
    first = next(iter(direct_pins(column.environment_dir / "requirements.in")), None) if column and column.environment == "isolated" else None
    return f"{first} {document.get('versions', {}).get(first, '?')}" if first else "-"


def _versions(document: dict[str, Any]) -> str:
    """The versions of the packages the column pins directly (its ``requirements.in``), as measured, without the
    project's own core dependencies and the pinned pytest (every environment has them)."""
    column = _registry().get(document["framework"])
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    shared = {re.split(r"[<>=!~ \[;]", requirement, maxsplit=1)[0].lower() for requirement in project} | {"pytest"}
    direct = set(direct_pins(column.environment_dir / "requirements.in")) - shared if column else set()
    return ", ".join(f"{k} {v}" for k, v in sorted(document.get("versions", {}).items()) if k in direct)


def _finding(rule: str, by_framework: dict[str, list[Entry]], probes: list[Probe]) -> list[str]:
    lines = [f"### {titles()[rule]} (`{rule}`)", ""]
    for framework, entries in sorted(by_framework.items()):
        links = ", ".join(f"[{p.file.rsplit('/', 1)[-1]}](../{p.file})" for p in probes_for(probes, framework, entries)) or "**no probe**"
        lines.append(f"- **{framework}**, defaults (probe: {links}):")
        lines += _by_scenario(entries)
    return [*lines, ""]


def _by_scenario(entries: list[Entry]) -> list[str]:
    """One line per scenario: the observables the finding explains there and every reason it gave."""
    keys = list(dict.fromkeys(key for key, _, _, _ in entries))
    return [
        f"  - `{key}` ({', '.join(sorted({c for k, cells, _, _ in entries if k == key for c in cells}))}): "
        + "; ".join(text for k, _, text, _ in entries if k == key)
        for key in keys
    ]


def _unexplained(documents: dict[str, dict[str, Any]]) -> list[str]:
    """Every not-equal cell with a leaf no rule explains: printed, counted, never hidden."""
    lines = ["## Differences no rule explains", ""]
    for name, document in sorted(documents.items()):
        for mode, body in sorted(document.get("modes", {}).items()):
            for key, record in sorted(body.get("scenarios", {}).items()):
                for observable, cell in record.get("columns", {}).items():
                    if cell.get("unexplained"):
                        lines.append(f"- **{name}**, {mode}, `{key}`, {observable}: {cell['reason'][cell['reason'].index(UNEXPLAINED):]}")
    return lines if len(lines) > 2 else [*lines, "(none)"]


def _contract(documents: dict[str, dict[str, Any]]) -> list[str]:
    """The glue each contract column needed, and what still differs in contract mode."""
    lines = ["## Contract mode: the glue each framework needed", "",
             "| framework | glue lines | contract cells equal | still differs |", "|---|---:|---:|---|"]
    found = collect(documents, "contract")
    for name, document in sorted(documents.items()):
        body = document.get("modes", {}).get("contract")
        if body is None or "glue_lines" not in document:
            continue
        summary = body["summary"]
        left = sorted({f"`{rule}` ({', '.join(dict.fromkeys(k for k, _, _, _ in found[rule][name]))})" for rule in found if name in found[rule]})
        lines.append(f"| {name} | {document['glue_lines']['total']} | {summary['equal_cells']}/{summary['applicable_cells']} | {'; '.join(left) or '-'} |")
    for name in sorted(documents):
        for rule in (r for r in titles() if name in found.get(r, {})):
            lines += ["", f"- **{name}**, contract, {titles()[rule]} (`{rule}`):"]
            lines += _by_scenario(found[rule][name])
    return lines
