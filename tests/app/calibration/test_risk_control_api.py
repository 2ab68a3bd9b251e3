"""Risk control and exemplars through the real app: an instructor grades some answers of a
written question, the question's threshold and exemplars follow, a regrade uses them, and the
dashboard shows the numbers. Then the same through the `gradeformer risk` command."""

from __future__ import annotations

import time
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.calibration.service import FLOOR
from app.cli.main import app as cli
from app.settings import get_settings
from graders.written.calibration import AGREEMENT
from graders.written.risk import risk_threshold
from tests.app.conftest import Api

SLUG = "transformer-basics"
ITEM, OTHER = "a5.why_heads", "a5.dims"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
RISK = f"/api/v1/assignments/{SLUG}/risk"
MAX = Decimal(5)
# Answers to A5 and the points an instructor gives them (some differ from the machine's).
GRADED = [
    ("Several heads attend in parallel to different positions and representation subspaces, "
     "which a single head would average.", "5"),
    ("Each head can focus on different relationships, all at the same time.", "5"),
    ("Heads are good because more heads means more parameters, I think.", "1"),
    ("Multiple heads let the model look at different parts of the sentence.", "1"),
    ("It is faster on GPUs.", "0"),
    ("Different heads capture different features like syntax and semantics in parallel.", "5"),
    ("Because one head is not enough.", "2"),
    ("Each head learns its own attention pattern; a single head averages them away.", "5"),
    ("Using many heads lets the model attend to information from different representation "
     "subspaces at different positions.", "5"),
    ("I don't know.", "0"),
    ("Heads split the input sequence into chunks and each head processes a different chunk.",
     "1"),
    ("More heads means more capacity.", "0"),
]
FRESH = [
    "Every head attends to different relations between the words, and they run in parallel.",
    "More heads make the model bigger.",
    "Multi-head attention looks at different subspaces of the representation.",
    "Attention heads are parallel so training is quicker.",
]


def _submit(api: Api, who: str, answer: str) -> int:
    response = api.client.post(
        f"{UPLOAD}?wait=true", json={"answers": {"A5": answer}}, headers=api.auth(who)
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _item(api: Api, submission_id: int, item_id: str = ITEM, who: str = "prof") -> dict[str, Any]:
    body = api.client.get(f"/api/v1/submissions/{submission_id}", headers=api.auth(who)).json()
    # by position in the staff view: a student reads an unreleased item by its place (A5 part 1)
    staff = api.client.get(f"/api/v1/submissions/{submission_id}", headers=api.auth("prof"))
    place = next(n for n, i in enumerate(staff.json()["items"]) if i["id"] == item_id)
    found: dict[str, Any] = body["items"][place]
    return found


def _risk(api: Api, item_id: str = ITEM) -> dict[str, Any]:
    rows = api.client.get(RISK, headers=api.auth("prof")).json()
    found: dict[str, Any] = next(r for r in rows if r["item"] == item_id)
    return found


def _override(api: Api, submission_id: int, points: str) -> None:
    response = api.client.put(
        f"/api/v1/submissions/{submission_id}/items/{ITEM}/override",
        json={"points": points}, headers=api.auth("prof"),
    )
    assert response.status_code == 200, response.text


def _regrade(api: Api) -> dict[str, Any]:
    started = api.client.post(f"/api/v1/assignments/{SLUG}/regrade", headers=api.auth("prof"))
    assert started.status_code == 202, started.text
    job: dict[str, Any] = started.json()
    deadline = time.monotonic() + 300
    while job["status"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.1)
        job = api.client.get(job["status_url"], headers=api.auth("prof")).json()
    assert job["status"] == "done", job
    return job


def _wrong(machine: Any, instructor: str) -> bool:
    return abs(Decimal(str(machine)) - Decimal(instructor)) > MAX * Decimal(str(AGREEMENT))


def test_instructor_grades_set_the_threshold_and_become_exemplars(api: Api) -> None:
    assert api.client.get(RISK, headers=api.auth("alice")).status_code == 403
    too_high = api.client.put(f"{RISK}/questions/A5/target", json={"target": 0.9},
                              headers=api.auth("prof"))
    assert too_high.status_code == 422
    unknown = api.client.put(f"{RISK}/questions/Z9/target", json={"target": 0.2},
                             headers=api.auth("prof"))
    assert unknown.status_code == 404 and unknown.headers["content-type"].startswith(
        "application/problem+json")
    # 0.2: five instructor grades (1 / 0.2) are enough to set a threshold.
    set_a5 = api.client.put(f"{RISK}/questions/A5/target", json={"target": 0.2},
                            headers=api.auth("prof"))
    assert set_a5.status_code == 200, set_a5.text

    graded = [_submit(api, "alice", answer) for answer, _ in GRADED]
    fresh = [_submit(api, "bob", answer) for answer in FRESH]
    machine = {sid: _item(api, sid) for sid in graded}
    # Nothing learned yet: the items were graded without exemplars, and the default stands.
    assert all("Exemplars:" not in m["feedback"] for m in machine.values())

    for sid, (_, points) in zip(graded[:3], GRADED[:3], strict=True):
        _override(api, sid, points)
    few = _risk(api)
    assert few["instructor_graded"] == 3 and few["exemplars"] == 3 and not few["calibrated"]
    assert few["threshold"] == few["default_threshold"] == 0.6
    assert "Too few instructor grades" in few["note"] and "3 of the 5 needed" in few["note"]

    for sid, (_, points) in zip(graded[3:], GRADED[3:], strict=True):
        _override(api, sid, points)
    row = _risk(api)
    confidence = [machine[sid]["confidence"] for sid in graded]
    wrong = [_wrong(machine[sid]["machine_points"], p) for sid, (_, p) in zip(graded, GRADED,
                                                                                strict=True)]
    threshold, bound, share = risk_threshold(confidence, wrong, 0.2)
    floored = threshold < FLOOR
    threshold = max(threshold, FLOOR)  # the grader's own alarms still reach a person
    auto = [w for c, w in zip(confidence, wrong, strict=True) if c >= threshold]
    if floored:
        bound, share = (sum(auto) + 1) / (len(auto) + 1), len(auto) / 12
    else:
        assert bound <= 0.2
    assert row["calibrated"] and row["target"] == 0.2 and row["calibrated_on"] == 12
    assert row["threshold"] == threshold and row["expected_error"] == bound
    assert row["instructor_graded"] == row["exemplars"] == 12
    assert (sum(auto) + 1) / (len(auto) + 1) == bound and share == len(auto) / 12
    # The other item of A5 has no instructor grades: its default threshold stands.
    other = _risk(api, OTHER)
    assert not other["calibrated"] and other["exemplars"] == 0 and other["threshold"] == 0.6

    # A new upload is graded with what was learned at once.
    late = _submit(api, "bob", FRESH[0])
    item = _item(api, late)
    assert "Exemplars: compared with 12 instructor-graded answers" in item["feedback"]
    assert (item["machine_status"] == "graded") == (item["confidence"] >= threshold)
    fresh.append(late)

    first = _regrade(api)
    assert first["done"] == len(graded) + len(fresh)
    after = {sid: _item(api, sid) for sid in graded + fresh}
    for sid in fresh:
        item = after[sid]
        # The calibrated threshold decides; the fresh answer is compared with all 12.
        assert (item["machine_status"] == "graded") == (item["confidence"] >= threshold), item
        if item["machine_status"] == "needs_review":
            assert "below the question's calibrated threshold" in item["feedback"]
        assert "Exemplars: compared with 12 instructor-graded answers" in item["feedback"]
        assert "was graded" in item["feedback"] and " of 5." in item["feedback"]
    for sid in graded:
        # Its own answer is never its exemplar: 11 others.
        assert "compared with 11 instructor-graded answers" in after[sid]["feedback"]
        assert after[sid]["override"] is not None
    # Students see neither exemplars nor other students' answers.
    mine = _item(api, graded[0], who="alice")
    assert "xemplar" not in str(mine) and GRADED[1][0] not in str(mine)
    assert all(a not in str(mine) for a in FRESH)

    # Regrading again with the same decisions changes nothing.
    second = _regrade(api)
    assert second["changed"] == 0
    again = {sid: _item(api, sid) for sid in graded + fresh}
    assert {s: (i["machine_points"], i["machine_status"], i["confidence"], i["feedback"])
            for s, i in again.items()} == {
        s: (i["machine_points"], i["machine_status"], i["confidence"], i["feedback"])
        for s, i in after.items()}

    # The dashboard: per written item, graded count, threshold, measured error, automated share.
    board = api.client.get(f"/api/v1/assignments/{SLUG}/dashboard", headers=api.auth("prof"))
    assert board.status_code == 200
    shown = next(r for r in board.json()["risk_control"] if r["item"] == ITEM)
    assert shown == _risk(api)
    auto_graded = [(again[sid]["machine_points"], p) for sid, (_, p) in zip(graded, GRADED,
                                                                            strict=True)
                   if again[sid]["machine_status"] == "graded"]
    assert shown["measured_on"] == len(auto_graded)
    if auto_graded:
        measured = sum(_wrong(m, p) for m, p in auto_graded) / len(auto_graded)
        assert shown["measured_error"] == round(measured, 4)
    statuses = [again[sid]["machine_status"] for sid in graded + fresh]
    assert shown["automated_share"] == round(statuses.count("graded") / len(statuses), 4)
    url = f"/assignments/{SLUG}/dashboard"
    browser = TestClient(api.client.app)  # its own cookie jar, the running app
    assert browser.post("/sign-in", data={"token": api.tokens["prof"], "next": url}).is_success
    page = browser.get(url).text
    assert 'id="risk"' in page and '"risk_control"' in page and "measured error" in page

    # Removing a decision removes its exemplar and recalibrates (below 4: the default again).
    for sid in graded[:9]:
        response = api.client.delete(f"/api/v1/submissions/{sid}/items/{ITEM}/override",
                                     headers=api.auth("prof"))
        assert response.status_code == 204
    fewer = _risk(api)
    assert fewer["exemplars"] == fewer["instructor_graded"] == 3 and not fewer["calibrated"]


CHROMIUM = Path("/usr/bin/chromium")


def test_the_dashboard_page_renders_the_risk_table(api: Api) -> None:
    """The page in a real browser: its script draws one row per written item from the JSON."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not CHROMIUM.exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    url = f"/assignments/{SLUG}/dashboard"
    browser = TestClient(api.client.app)
    assert browser.post("/sign-in", data={"token": api.tokens["prof"], "next": url}).is_success
    html = browser.get(url).text
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM),
                                              args=["--no-sandbox"])
        try:
            page = chromium.new_page()
            page.set_content(html)  # self-contained: no request leaves the page
            cells = page.eval_on_selector_all(
                "#risk tbody tr", "rows => rows.map(r => Array.from(r.cells, c => c.innerText))")
        finally:
            chromium.close()
    rows = {c[0].split("\n")[0]: c for c in cells}
    expected = api.client.get(RISK, headers=api.auth("prof")).json()
    assert set(rows) == {r["item"] for r in expected}
    a5 = next(r for r in expected if r["item"] == ITEM)
    shown = rows[ITEM]
    assert shown[1] == str(a5["instructor_graded"]) and shown[2] == str(a5["exemplars"])
    assert shown[3] == f"{round(a5['target'] * 100)}%"
    assert shown[4].startswith(f"{a5['threshold']:g}")
    assert shown[4].endswith("(calibrated)" if a5["calibrated"] else "(default)")
    assert a5["note"] in shown[7]


runner = CliRunner()


@pytest.fixture
def cli_database(api: Api, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", api.settings.database_url)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_the_risk_command_sets_targets_and_shows_them(api: Api, cli_database: None) -> None:
    result = runner.invoke(cli, ["risk", "set", SLUG, "--target", "0.25"])
    assert result.exit_code == 0, result.output
    # The assignment's target applies to questions without their own (A1, not A5).
    assert _risk(api, "a1.nonseparable")["target"] == 0.25
    result = runner.invoke(cli, ["risk", "set", SLUG, "A5", "--target", "0.1"])
    assert result.exit_code == 0, result.output
    assert f"A5 {ITEM}: target 10.0%" in result.output
    assert _risk(api)["target"] == 0.1
    shown = runner.invoke(cli, ["risk", "show", SLUG])
    assert shown.exit_code == 0 and "a1.nonseparable: target 25.0%" in shown.output
    refused = runner.invoke(cli, ["risk", "set", SLUG, "Z9", "--target", "0.1"])
    assert refused.exit_code == 1 and "no question 'Z9'" in refused.output
    assert runner.invoke(cli, ["risk", "set", SLUG, "--target", "0.9"]).exit_code == 2
