"""A regrade's score comparison over plain rows equals the ORM read path's, overrides included."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

from sqlalchemy import select

from app.assignments.service import sync_rubric_dir
from app.db.models import Override, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.grading.repository import current_item_rows, current_runs
from app.regrade.changes import stored_score
from app.regrade.runner import run_regrade
from app.submissions.repository import overrides_for
from app.submissions.scoring import effective_score
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"
ANSWERS = [
    {"B1": "d_head = 64. Each: 589824. Together: 1769472.", "B2": "Sum = 11.107"},
    {"B1": "d_head = 12", "A5": "More heads means more parameters and so a better model."},
    {"B2": "softmax = [0.665, 0.245, 0.090]"},
]


def test_plain_rows_compare_like_the_orm(sqlite_db: str) -> None:
    sessions = make_sessionmaker(make_engine(sqlite_db))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
        for index, answers in enumerate(ANSWERS):
            raw = json.dumps({"student_id": f"s{index}", "answers": answers}).encode()
            accept(session, SLUG, Upload(raw, f"s{index}.json", "application/json", f"s{index}"),
                   None, 1 << 20)
    with ThreadPoolExecutor(1) as pool:
        first = run_regrade(sessions, SLUG, pool)
        assert first.changed == len(ANSWERS)
        with unit_of_work(sessions) as session:
            submission = session.scalars(select(Submission).order_by(Submission.id)).first()
            assert submission is not None
            session.add(Override(submission_id=submission.id, item_id="b1.d_head",
                                 points=Decimal("1.5"), comment="partly"))
        again = run_regrade(sessions, SLUG, pool)
    assert again.changed == 0, again.changes
    with unit_of_work(sessions) as session:
        ids = list(session.scalars(select(Submission.id)))
        statuses = dict(session.execute(select(Submission.id, Submission.status)).all())
        runs, rows = current_runs(session, ids), current_item_rows(session, ids)
        overrides = overrides_for(session, ids)
        for sid in ids:
            own = overrides.get(sid, {})
            orm = effective_score(statuses[sid], runs.get(sid), own)
            plain = stored_score(rows.get(sid, []), own, statuses[sid])
            assert (plain.status, plain.total, plain.max_points) == (
                orm.status, orm.total, orm.max_points)
            assert [(i.item_id, i.points, i.status, i.machine_points) for i in plain.items] == [
                (i.item_id, i.points, i.status, i.machine_points) for i in orm.items]
        assert any(i.override is not None for i in stored_score(
            rows[ids[0]], overrides[ids[0]], statuses[ids[0]]).items)
