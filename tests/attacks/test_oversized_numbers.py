"""Oversized integers in every numeric field of every endpoint the API declares (path and query
parameters and JSON body fields): each is a 4xx problem (or accepted within range), never a 500
and never a stored number the database cannot hold."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.app.conftest import Api

HUGE = (10**30, 2**63, -(2**63) - 1, 2**64 + 5)
SAMPLES = {"slug": "transformer-basics", "item_id": "b1.d_head", "question": "b1"}
METHODS = ("get", "post", "put", "patch", "delete")


def _resolve(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        schema = spec["components"]["schemas"][name]
    for option in schema.get("anyOf", []):
        if option.get("type") != "null":
            return _resolve(spec, option)
    return schema


def _numeric(schema: dict[str, Any]) -> bool:
    return schema.get("type") in ("integer", "number")


def _sample(spec: dict[str, Any], schema: dict[str, Any], name: str) -> Any:
    schema = _resolve(spec, schema)
    kind = schema.get("type")
    if "enum" in schema:
        return schema["enum"][0]
    if kind in ("integer", "number"):
        return 1
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object":
        return {k: _sample(spec, v, k) for k, v in schema.get("properties", {}).items()
                if k in schema.get("required", [])}
    return SAMPLES.get(name, "1")


def _operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def _requests(spec: dict[str, Any], values: tuple[object, ...] = HUGE,
              wanted: Any = _numeric) -> Iterator[tuple[str, str, dict[str, Any], Any, str]]:
    """(method, path, query, JSON body, which field is set) for every field `wanted` picks
    (numeric ones), each set to each of `values`."""
    for path, method, operation in _operations(spec):
        params = operation.get("parameters", [])
        body_schema = (operation.get("requestBody", {}).get("content", {})
                       .get("application/json", {}).get("schema"))
        body: dict[str, Any] = _sample(spec, body_schema, "") if body_schema else {}
        base = {p["name"]: _sample(spec, p.get("schema", {}), p["name"]) for p in params}
        numeric = [p for p in params if wanted(_resolve(spec, p.get("schema", {})))]
        for param in numeric:
            for value in values:
                # (named apart from `values`: reusing the name made every parameter after the
                # first sweep the previous one's field names, never a number: no id in a path
                # was ever set past 2^31)
                chosen = {**base, param["name"]: value}
                url = path.format(**{p["name"]: chosen[p["name"]] for p in params
                                     if p["in"] == "path"})
                query = {p["name"]: chosen[p["name"]] for p in params if p["in"] == "query"}
                yield method, url, query, body or None, f"{param['name']}={value}"
        if not body_schema:
            continue
        schema = _resolve(spec, body_schema)
        url = path.format(**{p["name"]: base[p["name"]] for p in params if p["in"] == "path"})
        query = {p["name"]: base[p["name"]] for p in params
                 if p["in"] == "query" and p.get("required")}
        for field, field_schema in schema.get("properties", {}).items():
            if wanted(_resolve(spec, field_schema)):
                for value in values:
                    yield method, url, query, {**body, field: value}, f"body.{field}={value}"


def test_every_numeric_field_of_every_endpoint_refuses_what_the_database_cannot_hold(
        target: Api) -> None:
    # Something to point at: a stored submission and a graded item.
    uploaded = target.client.post(
        "/api/v1/assignments/transformer-basics/submissions", params={"wait": "true"},
        json={"answers": {"b1.d_head": "64"}}, headers=target.auth("alice"))
    assert uploaded.status_code == 201, uploaded.text
    SAMPLES["submission_id"] = str(uploaded.json()["id"])
    spec = target.client.get("/openapi.json").json()
    tried, failures = 0, []
    for method, url, query, body, what in _requests(spec):
        tried += 1
        answer = target.client.request(method, url, params=query, json=body,
                                       headers=target.auth("root"))
        if answer.status_code >= 500:
            failures.append(f"{method.upper()} {url} {what}: {answer.status_code}")
    assert tried > 20, "the sweep found too few numeric fields to mean anything"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("value", ["1e400", "-0", "0x10", "1_000", "١٢", "9" * 5000])
def test_numbers_written_oddly_in_a_query_are_4xx(target: Api, value: str) -> None:
    answer = target.client.get("/api/v1/assignments/transformer-basics/submissions",
                               params={"limit": value}, headers=target.auth("prof"))
    assert answer.status_code in (200, 422), (value[:20], answer.status_code, answer.text[:200])
