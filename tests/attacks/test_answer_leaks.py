"""The reference answers of numeric and written items, before the rubric releases them: a
student answers with the known mistakes whose staff feedback names the right value (49,152 is
one head's slice "so it is 768 × 768 = 589,824"), with the right value to another item's
question, and with a wrong value and its unit; nothing any student answer or page carries
before publication (the upload's own answer, the submission, the listing, results.json, the
assignment, the submission's page and the home page) names a reference value, a known
mistake's feedback or hint, or an item title that gives the answer. Staff see them."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

DOCUMENT = {"answers": {"b1.d_head": "65", "b1.per_matrix": "49152", "b1.total": "2359296",
                        "B2": "normaliser 3.1, probabilities 0.5, 0.3, 0.2"}}
# The right values and what the rubric says about the mistakes, in the forms it writes them.
SECRETS = ["589,824", "589824", "1,769,472", "1769472", "one head's", "four matrices",
           "d_head = 64", "768 x 768", "768 × 768", "includes a bias"]


def _student_texts(target: Api, sid: int, upload_text: str) -> dict[str, str]:
    texts = {"upload": upload_text}
    for path in (f"/api/v1/submissions/{sid}", UPLOAD, f"/api/v1/submissions/{sid}/results.json",
                 f"/api/v1/assignments/{SLUG}"):
        answer = target.client.get(path, headers=target.auth("alice"))
        assert answer.status_code == 200, (path, answer.status_code)
        texts[path] = answer.text
    browser = TestClient(target.client.app, follow_redirects=False)
    signed = browser.post("/sign-in", data={"token": target.tokens["alice"], "next": "/"})
    cookie = {"cookie": f"gf_session={signed.cookies['gf_session']}"}
    for path in (f"/submissions/{sid}", "/", f"/assignments/{SLUG}/submit"):
        answer = target.client.get(path, headers=cookie)
        assert answer.status_code == 200 and 'name="token"' not in answer.text, path
        texts[path] = answer.text
    return texts


def test_no_reference_value_reaches_a_student_before_publication(target: Api) -> None:
    answer = target.client.post(UPLOAD, params={"wait": "true"}, json=DOCUMENT,
                                headers=target.auth("alice"))
    assert answer.status_code == 201, answer.text
    sid = answer.json()["id"]
    staff = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("prof")).text
    assert "589,824" in staff  # the mistake was recognised: there is something to leak
    leaks = {path: [s for s in SECRETS if s in text]
             for path, text in _student_texts(target, sid, answer.text).items()}
    assert not any(leaks.values()), leaks


def test_after_publication_the_student_reads_what_the_rubric_releases(target: Api) -> None:
    answer = target.client.post(UPLOAD, params={"wait": "true"}, json=DOCUMENT,
                                headers=target.auth("alice"))
    sid = answer.json()["id"]
    published = target.client.post(f"/api/v1/assignments/{SLUG}/publish",
                                   headers=target.auth("prof"))
    assert published.status_code == 200, published.text
    try:
        own = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("alice"))
        assert "589,824" in own.text or "589824" in own.text  # released: the test can see it
    finally:
        target.client.delete(f"/api/v1/assignments/{SLUG}/publish", headers=target.auth("prof"))
    withdrawn = _student_texts(target, sid, "")
    assert not any(s in t for s in SECRETS for t in withdrawn.values()), "withdrawn, still shown"
