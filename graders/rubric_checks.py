"""What a rubric's schema alone cannot see: references between items (carry-forward to an item
that does not exist, that is not numeric, or that leads back to itself), points that cannot be
reached or are worth more than their item, and the line of the YAML each problem comes from."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from decimal import Decimal

import yaml
from pydantic import BaseModel

from graders.registry import get_kind
from graders.rubric_model import Finding, Loc, Rubric, RubricItem


def compose(raw: bytes) -> yaml.Node | None:
    """The document's node tree (marks, no constructed values), or None when it is not YAML."""
    try:
        return yaml.compose(raw, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return None


def line_of(root: yaml.Node | None, loc: Loc) -> int | None:
    """The 1-based line of the deepest node along `loc` that the document has: the key's line
    for a mapping entry (`points: -1`), the element's for a list index, the parent's when the
    key is missing (a required field)."""
    if root is None:
        return None
    node: yaml.Node = root
    line = node.start_mark.line
    for key in loc:
        if isinstance(node, yaml.MappingNode):
            found = next(
                ((k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode)
                 and k.value == str(key)),
                None,
            )
            if found is None:
                break
            line, node = found[0].start_mark.line, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(key, int):
            if not 0 <= key < len(node.value):
                break
            node = node.value[key]
            line = node.start_mark.line
        else:
            break
    return line + 1


def item_locs(rubric: Rubric) -> Iterator[tuple[Loc, RubricItem]]:
    for qi, question in enumerate(rubric.questions):
        for ii, item in enumerate(question.items):
            yield ("questions", qi, "items", ii), item


def _more_than(points: Decimal, item: RubricItem, what: str) -> str:
    return (f"{what} is worth {points} points, more than its item {item.id!r} "
            f"({item.points}); it can never be given in full")


def _bounds(loc: Loc, item: RubricItem, config: BaseModel) -> Iterator[Finding]:
    """Points inside an item's config that exceed the item's own points."""
    conf = (*loc, "config")
    cap = item.points
    for i, mistake in enumerate(getattr(config, "known_mistakes", ())):
        if mistake.points > cap:
            yield Finding((*conf, "known_mistakes", i, "points"),
                          _more_than(mistake.points, item, "a known mistake"))
        expected = getattr(config, "expected", None)
        if expected is not None and mistake.value == expected:
            yield Finding((*conf, "known_mistakes", i, "value"),
                          "a known mistake has the expected value itself")
    carry = getattr(config, "carry_forward", None)
    if carry is not None and carry.points > cap:
        yield Finding((*conf, "carry_forward", "points"),
                      _more_than(carry.points, item, "carry-forward credit"))
    penalty = getattr(config, "sum_to_one_penalty", Decimal(0))
    if isinstance(penalty, Decimal) and penalty > cap:
        yield Finding((*conf, "sum_to_one_penalty"),
                      _more_than(penalty, item, "the sum-to-one penalty"))
    for field in ("partial", "contradictions", "exemplars"):
        for i, entry in enumerate(getattr(config, field, ())):
            if entry.points > cap:
                what = {"partial": "partial credit", "contradictions": "a contradiction's cap",
                        "exemplars": "an exemplar"}[field]
                yield Finding((*conf, field, i, "points"), _more_than(entry.points, item, what))
    without = getattr(config, "without_scalar_points", None)
    if isinstance(without, Decimal) and without > cap:
        yield Finding((*conf, "without_scalar_points"),
                      _more_than(without, item, "credit without the scalar"))


def _references(
    rubric: Rubric, configs: dict[str, BaseModel], locs: dict[str, Loc]
) -> Iterator[Finding]:
    kinds = {item.id: item.grader for item in rubric.items()}
    edges: dict[str, str] = {}
    for item_id, config in configs.items():
        carry = getattr(config, "carry_forward", None)
        if carry is None:
            continue
        where = (*locs[item_id], "config", "carry_forward", "from_item")
        target = carry.from_item
        if target == item_id:
            yield Finding(where, f"carry-forward from {target!r} points to its own item")
        elif target not in kinds:
            close = difflib.get_close_matches(target, list(kinds), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            yield Finding(where, f"carry-forward from {target!r}: no item has that id{hint}")
        elif not _carries_value(kinds[target]):
            yield Finding(where, f"carry-forward from {target!r}, a {kinds[target]} item: only "
                                 "a numeric item's value can be carried forward")
        else:
            edges[item_id] = target
    reported: set[str] = set()
    for start in edges:
        path = [start]
        while path[-1] in edges and edges[path[-1]] not in path:
            path.append(edges[path[-1]])
        if path[-1] in edges and edges[path[-1]] in path:
            cycle = path[path.index(edges[path[-1]]):]
            if reported.isdisjoint(cycle):
                reported.update(cycle)
                first = min(cycle, key=lambda i: locs[i])
                ring = cycle[cycle.index(first):] + cycle[:cycle.index(first)]
                yield Finding((*locs[first], "config", "carry_forward", "from_item"),
                              "carry-forward cycle: " + " -> ".join([*ring, first]))


def _carries_value(kind: str) -> bool:
    strategy = get_kind(kind)
    return strategy is not None and strategy.carries_value


def _subparts(rubric: Rubric, configs: dict[str, BaseModel]) -> Iterator[Finding]:
    """Two items of one question that claim the same marked sub-answer (`subpart`)."""
    for qi, question in enumerate(rubric.questions):
        seen: dict[str, str] = {}
        for ii, item in enumerate(question.items):
            label = getattr(configs.get(item.id), "subpart", None)
            if not isinstance(label, str):
                continue
            other = seen.setdefault(label.lower(), item.id)
            if other != item.id:
                yield Finding(("questions", qi, "items", ii, "config", "subpart"),
                              f"sub-part {label!r} is already read by item {other!r}")


def cross_checks(rubric: Rubric, configs: dict[str, BaseModel]) -> list[Finding]:
    """Problems between items and against points, for the items whose config validated."""
    locs = {item.id: loc for loc, item in item_locs(rubric)}
    findings: list[Finding] = []
    for loc, item in item_locs(rubric):
        config = configs.get(item.id)
        if config is not None:
            findings.extend(_bounds(loc, item, config))
    findings.extend(_references(rubric, configs, locs))
    findings.extend(_subparts(rubric, configs))
    if rubric.max_points <= 0:
        findings.append(Finding(("questions",), "the rubric's items are worth 0 points in total"))
    return findings
