"""Answer groups (issue #15): how many decisions clear the review queue of a course.

A real server (`gradeformer serve`, a SQLite file) grades a synthetic course of 400 students
(benchmarks/answer_groups_course.py, deterministic seed). Then Chromium, driven by Playwright,
plays the instructor on the real pages: it opens the answer-groups index, goes to the first
item with answers needing review, decides the first group on the page (the one with the most
unreviewed answers) and repeats until the review queue is empty. The simulated instructor agrees
with the machine where its suggestions for the group agree ("accept", key `a`), and otherwise
sets the group's most common suggestion for all (points typed, Enter): the count of decisions
is the point here, not their content.

    python benchmarks/answer_groups.py [--students 400] [--seed 15] [--no-write]
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from answer_groups_course import course  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import Override, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.faultkit import Server  # noqa: E402

SLUG = "transformer-basics"
CHROMIUM = "/usr/bin/chromium"
SCREENSHOT = REPO / "docs" / "screenshots" / "answer-groups.png"


def _wait_graded(url: str, timeout: float) -> float:
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    started = time.monotonic()
    try:
        while time.monotonic() - started < timeout:
            with unit_of_work(sessions) as session:
                waiting = session.scalar(select(func.count()).where(
                    Submission.status.in_(("queued", "grading"))))
            if not waiting:
                return time.monotonic() - started
            time.sleep(1)
    finally:
        engine.dispose()
    raise SystemExit(f"grading did not finish within {timeout:.0f} s")


def _queue(base: str, token: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{base}/api/v1/assignments/{SLUG}/review", params={"limit": 5000},
                         headers={"Authorization": f"Bearer {token}"}, timeout=60)
    response.raise_for_status()
    body: list[dict[str, Any]] = response.json()
    return body


def _decide_first_group(page: Any) -> tuple[str, int]:
    """Decide the page's first group; returns (how, answers it still had to review)."""
    group = page.locator("section.group").first
    waiting = int(re.sub(r"\D", "", group.locator(".badge").inner_text()) or 0)
    spread = group.locator("p", has_text="Machine suggestions").inner_text()
    values = re.findall(r"([\d.]+) × (\d+)", spread)
    with page.expect_navigation() as navigation:
        if len(values) <= 1:
            page.keyboard.press("a")
            how = "accept"
        else:
            page.keyboard.press("s")
            page.keyboard.type(values[0][0])
            page.keyboard.press("Enter")
            how = "set"
    response = navigation.value
    if response is not None and response.status >= 400:
        return f"refused {response.status}: {page.inner_text('body')[:300]}", waiting
    return how, waiting


def drive(base: str, token: str, screenshot: bool) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    decisions: Counter[str] = Counter()
    per_item: Counter[str] = Counter()
    reviewed: Counter[str] = Counter()
    page_loads = 0
    opens: list[float] = []  # opening an item's page (groups computed, answers embedded)
    decide_seconds: list[float] = []  # a decision: post, overrides, the page again
    refused: list[str] = []  # decisions the server answered with a problem
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"])
        context = browser.new_context(base_url=base, viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.set_default_timeout(120_000)
        index = f"/assignments/{SLUG}/groups"
        page.goto(index)
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_load_state("load")
        started = time.monotonic()
        shot = screenshot
        while True:
            left = int(page.locator("#needs-review").inner_text())
            if left == 0:
                break
            if sum(decisions.values()) > 10_000:
                raise SystemExit("no progress: the pages stopped taking decisions")
            began = time.monotonic()
            with page.expect_navigation():
                page.locator("a.pending").first.click()
            opens.append(time.monotonic() - began)
            page_loads += 1
            item = page.url.rsplit("/", 1)[-1].split("?")[0]
            while page.locator("section.group .badge").count():
                if shot:
                    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SCREENSHOT), full_page=False)
                    shot = False
                began = time.monotonic()
                how, waiting = _decide_first_group(page)
                decide_seconds.append(time.monotonic() - began)
                if how.startswith("refused"):
                    print(f"{item}: {how}", flush=True)
                    refused.append(how)
                    break  # back to the index, which opens the item again
                if "/groups/" not in page.url:
                    raise SystemExit(f"a decision did not come back to the page: {page.url}")
                decisions[how] += 1
                per_item[item] += 1
                reviewed[item] += waiting
                page_loads += 1
            page.goto(index)
            page_loads += 1
        elapsed = time.monotonic() - started
        browser.close()
    return {"decisions": decisions, "per_item": per_item, "reviewed": reviewed,
            "seconds": elapsed, "page_loads": page_loads, "opens": opens,
            "decide_seconds": decide_seconds, "refused": refused}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=400)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--no-screenshot", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the database (path printed)")
    args = parser.parse_args()

    directory = Path(tempfile.mkdtemp(prefix="gf-groups-"))
    url = f"sqlite:///{directory / 'gradeformer.db'}"
    upgrade(url)
    engine = make_engine(url)
    with unit_of_work(make_sessionmaker(engine)) as session:
        token = create_token(session, "prof", "instructor").token
    engine.dispose()
    server = Server({"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "2"},
                    directory / "server.log")
    server.start()
    try:
        docs = course(args.students, args.seed)
        began = time.monotonic()
        with httpx.Client(base_url=server.base, timeout=60,
                          headers={"Authorization": f"Bearer {token}"}) as client:
            for student, raw, name, content_type in docs:
                response = client.post(f"/api/v1/assignments/{SLUG}/submissions",
                                       params={"student": student},
                                       files={"file": (name, raw, content_type)})
                response.raise_for_status()
        graded = _wait_graded(url, 900)
        print(f"uploaded and graded {len(docs)} in {time.monotonic() - began:.1f} s "
              f"(grading wait {graded:.1f} s)", flush=True)
        before = _queue(server.base, token)
        result = drive(server.base, token, not args.no_screenshot)
        after = _queue(server.base, token)
        engine = make_engine(url)
        with unit_of_work(make_sessionmaker(engine)) as session:
            overrides = int(session.scalar(select(func.count(Override.id))) or 0)
        engine.dispose()
    finally:
        server.signal_group(signal.SIGTERM, timeout=60)
    if args.keep:
        print(f"kept {url}")
    else:
        shutil.rmtree(directory, ignore_errors=True)

    decisions = sum(result["decisions"].values())
    items = len(before)
    by_item = Counter(e["item_id"] for e in before)
    rows = "\n".join(
        f"| {item} | {by_item[item]} | {result['per_item'][item]} |"
        for item in sorted(by_item, key=lambda i: (-by_item[i], i))
    )
    ratio = items / decisions if decisions else float("nan")
    seconds = result["seconds"]
    how = result["decisions"]
    header = ("| items needing review | group decisions | items per decision | review queue after "
              "| overrides written | time in the browser |")
    numbers = (f"| {items} | {decisions} ({how['accept']} accept, {how['set']} set points) "
               f"| {ratio:.1f} | {len(after)} | {overrides} | {seconds:.1f} s "
               f"({seconds / max(decisions, 1):.2f} s per decision, "
               f"{result['page_loads']} page loads) |")
    opens, decides = result["opens"], result["decide_seconds"]
    timing = (f"Opening an item's page: {min(opens):.1f} to {max(opens):.1f} s (the first open "
              f"of a written question embeds its distinct answers; the vectors are then cached, "
              f"in memory and on disk); a decision (post, one override per member, the page "
              f"again): median {statistics.median(decides):.1f} s, max {max(decides):.1f} s.")
    refused = result["refused"]
    refusals = ("No decision was refused by the server." if not refused else
                f"{len(refused)} decision(s) were refused by the server and taken again from "
                f"the reloaded page (not counted above): "
                + "; ".join(r[:160].replace("\n", " ") for r in refused))
    body = f"""## Answer groups: clearing the review queue

{len(docs)} synthetic transformer-basics submissions (one per student, seed {args.seed},
`benchmarks/answer_groups_course.py`: paraphrased written answers, common values and known
mistakes, code variants, a few copied files) graded by a real server; Chromium (Playwright)
then decides group by group on the answer-groups pages until the review queue is empty.

{header}
|---|---|---|---|---|---|
{numbers}

{timing}

Per item (needing review → decisions):

| item | needing review | decisions |
|---|---|---|
{rows}

The simulated instructor accepts the machine's suggestion when a group's suggestions agree and
otherwise sets the most common one for the whole group (its judgement is not what is measured).
A group decision also settles the confident members of the group (one override each), which is
why more overrides are written than items needed review. The time is the browser's wall time
on a shared 2-core machine (other engineers' jobs running): every page load regroups the
item. {refusals}
"""
    print(body)
    if after:
        raise SystemExit(f"the review queue still holds {len(after)} items")
    if not args.no_write:
        write_section("answer_groups", body)


if __name__ == "__main__":
    main()
