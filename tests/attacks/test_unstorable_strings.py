"""Strings PostgreSQL cannot store (NUL) or no UTF-8 encoder takes (lone surrogates), and
control characters, in every string field of every JSON body and every string query
parameter the API declares, sent by staff and by a student, on SQLite and PostgreSQL: each
is a 4xx or taken cleaned, never a 500, and what was taken reads back. An override's comment
holding NUL was a 500 on PostgreSQL through the API (the web form cleaned it, the API did not)."""

from __future__ import annotations

import json

from tests.app.conftest import Api
from tests.attacks import test_oversized_numbers as sweep
from tests.attacks.conftest import SLUG, UPLOAD

ODD = ("a\\u0000b", "x\\ud800y", "\\udfff", "\\u001b[2J\\u0007", "\\u202etxt\\u200b")
QUERY_ODD = "%00%ED%A0%80%1B"


def _string(spec: dict[str, object], schema: dict[str, object]) -> bool:
    return sweep._resolve(spec, schema).get("type") == "string"  # type: ignore[arg-type]


def test_every_string_field_takes_nul_and_surrogates_without_a_500(either: Api) -> None:
    sent = either.client.post(UPLOAD, params={"wait": "true"},
                              json={"answers": {"b1.d_head": "64"}}, headers=either.auth("alice"))
    assert sent.status_code == 201, sent.text
    sid = sent.json()["id"]
    sweep.SAMPLES["submission_id"] = str(sid)
    assert either.client.post(f"/api/v1/assignments/{SLUG}/publish",
                              headers=either.auth("prof")).status_code == 200
    spec = either.client.get("/openapi.json").json()
    failures, tried = [], 0
    for path, method, operation in sweep._operations(spec):
        params = operation.get("parameters", [])
        base = {p["name"]: sweep._sample(spec, p.get("schema", {}), p["name"]) for p in params}
        url = path.format(**{p["name"]: base[p["name"]] for p in params if p["in"] == "path"})
        for param in params:
            if param["in"] == "query" and _string(spec, param.get("schema", {})):
                tried += 1
                answer = either.client.request(method, f"{url}?{param['name']}={QUERY_ODD}",
                                               headers=either.auth("root"))
                if answer.status_code >= 500:
                    failures.append(f"{method} {url}?{param['name']}: {answer.status_code}")
        body_schema = (operation.get("requestBody", {}).get("content", {})
                       .get("application/json", {}).get("schema"))
        if not body_schema:
            continue
        body = sweep._sample(spec, body_schema, "")
        for field in sweep._resolve(spec, body_schema).get("properties", {}):
            for odd in ODD:
                raw = json.dumps({**body, field: "@@"}).replace('"@@"', f'"{odd}"')
                for who in ("root", "alice"):
                    tried += 1
                    try:
                        code = either.client.request(
                            method, url, content=raw.encode(),
                            headers={**either.auth(who), "content-type": "application/json"},
                        ).status_code
                    except Exception as exc:  # the server did not answer: a 500
                        code = 500
                        failures.append(f"{method} {url} {field}={odd} as {who}: {exc!r:.200}")
                        continue
                    if code >= 500:
                        failures.append(f"{method} {url} {field}={odd} as {who}: {code}")
    assert tried > 100, tried
    for path in (f"/api/v1/submissions/{sid}", f"/api/v1/assignments/{SLUG}/regrade-requests",
                 f"/api/v1/assignments/{SLUG}/export.csv", f"/api/v1/assignments/{SLUG}/review"):
        for who in ("prof", "alice"):
            code = either.client.get(path, headers=either.auth(who)).status_code
            if code >= 500:
                failures.append(f"GET {path} as {who}: {code}")
    assert not failures, "\n".join(failures)


FORM_FIELDS = ("comment", "reply", "points", "item_id", "feedback", "student", "handout",
               "opens_at", "due_at", "late_until", "max_submissions", "counts", "group",
               "decision", "audit_id", "action", "disputed", "exclude", "next")


def test_every_web_form_takes_nul_and_surrogates_without_a_500(either: Api) -> None:
    """The web app's forms (not in the OpenAPI document) likewise, as staff and as a student,
    with their own session and CSRF token."""
    import re

    from fastapi.testclient import TestClient

    sent = either.client.post(UPLOAD, params={"wait": "true"},
                              json={"answers": {"b1.d_head": "64"}}, headers=either.auth("alice"))
    sid = sent.json()["id"]
    either.client.post(f"/api/v1/assignments/{SLUG}/publish", headers=either.auth("prof"))
    asked = either.client.post(f"/api/v1/submissions/{sid}/items/b1.d_head/regrade-requests",
                               json={"comment": "please"}, headers=either.auth("alice"))
    request_id = asked.json().get("id", 1)
    routes = [f"/submissions/{sid}/override/set", f"/submissions/{sid}/override/remove",
              f"/submissions/{sid}/override/undo", f"/assignments/{SLUG}/review/decide",
              f"/assignments/{SLUG}/review/undo", f"/submissions/{sid}/regrade-requests",
              f"/regrade-requests/{request_id}/answer", f"/assignments/{SLUG}/settings/schedule",
              f"/assignments/{SLUG}/groups/b1.d_head/decide",
              f"/assignments/{SLUG}/groups/b1.d_head/member",
              f"/assignments/{SLUG}/groups/b1.d_head/undo",
              f"/assignments/{SLUG}/active/b1.d_head/decide"]
    failures = []
    for who in ("prof", "alice"):
        browser = TestClient(either.client.app, client=("192.0.2.9", 4000),
                             follow_redirects=False)
        browser.post("/sign-in", data={"token": either.tokens[who], "next": "/"})
        page = browser.get(f"/submissions/{sid}")
        mark = re.search(r'name="csrf" value="([0-9a-f]{64})"', page.text)
        assert mark is not None, (who, page.status_code)
        for route in routes:
            form = {name: "a\x00b\ud800\x1b" for name in FORM_FIELDS}
            form.update(csrf=mark.group(1), submission_id=str(sid), member=str(sid))
            try:
                code = browser.post(route, data={k: v.encode("utf-8", "surrogatepass")
                                                 for k, v in form.items()}).status_code
            except Exception as exc:  # the server did not answer: a 500
                failures.append(f"{who} {route}: {exc!r:.200}")
                continue
            if code >= 500:
                failures.append(f"{who} {route}: {code}")
        for path in (f"/submissions/{sid}", f"/assignments/{SLUG}/review",
                     f"/regrade-requests/{request_id}", f"/assignments/{SLUG}/groups/b1.d_head"):
            code = browser.get(path + "?item_id=%00&saved=%00&state=%ED%A0%80").status_code
            if code >= 500:
                failures.append(f"{who} GET {path}: {code}")
    assert not failures, "\n".join(failures)
