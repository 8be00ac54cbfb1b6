"""Whether the reasons explain a not-equal cell: every differing leaf must hold the value some claim derives there.

A claim explains a differing leaf when the leaf lies under the claim's path and the claim's value, followed down to
the leaf, is the value the framework's run recorded there. A reason that names the path but derives another value
(the cell says ``exploded`` where the steps say ``completed``) explains nothing: the leaf is reported as "no rule
explains this difference", in the cell, its document's summary and FINDINGS.md.
"""

from __future__ import annotations

from typing import Any

from harness.runner_side.judge.values import ABSENT, Claim, Path, Reason

UNEXPLAINED = "no rule explains this difference"


def differing_paths(a: Any, b: Any, where: Path = ()) -> list[Path]:
    """Every leaf where two values differ (dicts key by key, lists of one length item by item)."""
    if a == b:
        return []
    if isinstance(a, dict) and isinstance(b, dict):
        return [p for key in sorted(set(a) | set(b)) for p in differing_paths(a.get(key, ABSENT), b.get(key, ABSENT), (*where, str(key)))]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [p for i, (x, y) in enumerate(zip(a, b, strict=True)) for p in differing_paths(x, y, (*where, str(i)))]
    return [where]


def value_at(value: Any, path: Path) -> Any:
    """The node of ``value`` at ``path`` (dict keys, list indexes), ``ABSENT`` where there is none."""
    for key in path:
        if isinstance(value, dict):
            value = value.get(key, ABSENT)
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return ABSENT
    return value


def vouches(claim: Claim, leaf: Path, observed: Any) -> bool:
    """Whether ``claim`` explains the differing ``leaf`` (a path from the observable's name) whose framework value is
    ``observed``: the leaf lies under the claim's path, and the claim's value there is the one observed."""
    return leaf[: len(claim.path)] == claim.path and _same(value_at(claim.value, leaf[len(claim.path):]), observed)


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: ``True`` is not ``1``, as the evidence's JSON tells them apart."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b) and (a is ABSENT) == (b is ABSENT)


def explain(name: str, engine_value: Any, framework_value: Any, found: list[Reason]) -> tuple[str, list[str], bool]:
    """A not-equal cell's reason text, the rules behind it, and whether every differing leaf is explained. ``found`` is
    what ``reasons(case)`` returned for the case."""
    paths = [(name, *p) for p in differing_paths(engine_value, framework_value)]
    tree = _claim_tree(found)  # a tree of claims, not every claim against every leaf
    matched = [_claimants(p, tree, value_at(framework_value, p[1:])) for p in paths]
    used = [r for i, r in enumerate(found) if any(i in m for m in matched)]
    loose = [p for p, m in zip(paths, matched, strict=True) if not m]
    said = [r.text for r in dict.fromkeys(used)]
    if loose:
        said.append(f"{UNEXPLAINED} at {', '.join('.'.join(p) for p in loose[:3])}")
    return "; ".join(said), sorted({r.rule for r in used}), not loose


def _claim_tree(found: list[Reason]) -> dict[Any, Any]:
    """Every reason's claims as a tree of path keys; ``None`` under a node holds (reason index, claim) for each claim
    that ends there. Matching a leaf walks its path once, so the cost grows with the leaves plus the claims, not with
    their product (a long run has a leaf and a claim per call id)."""
    tree: dict[Any, Any] = {}
    for index, reason in enumerate(found):
        for claim in reason.claims:
            node = tree
            for key in claim.path:
                node = node.setdefault(key, {})
            node.setdefault(None, []).append((index, claim))
    return tree


def _claimants(path: Path, tree: dict[Any, Any], observed: Any) -> set[int]:
    """The indexes of the reasons with a claim that vouches for the value ``observed`` at ``path``."""
    out: set[int] = set()
    node: dict[Any, Any] | None = tree
    for depth in range(len(path) + 1):
        if node is None:
            break
        out |= {index for index, claim in node.get(None, ()) if index not in out and vouches(claim, path, observed)}
        node = node.get(path[depth]) if depth < len(path) else None
    return out
