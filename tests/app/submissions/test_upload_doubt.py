"""The answer to an upload graded before answering says when the document may not answer the
assignment at all (most questions not found): its items are in review, not graded 0."""

from __future__ import annotations

from tests.app.conftest import Api

UPLOAD = "/api/v1/assignments/transformer-basics/submissions"


def test_an_upload_answering_almost_nothing_is_said_to_need_review(api: Api) -> None:
    document = "Q1\n\nA perceptron draws one line, so XOR is not separable.\n"
    response = api.client.post(f"{UPLOAD}?wait=true&student=s1", content=document.encode(),
                               headers={**api.auth("prof"), "Content-Type": "text/markdown"})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["status"] == "needs_review"
    assert body["message"].startswith("Needs review: does this answer this assignment? 1 of")
    items = api.client.get(f"/api/v1/submissions/{body['id']}",
                           headers=api.auth("prof")).json()["items"]
    assert not [i for i in items if i["status"] == "missing"]


def test_a_complete_upload_has_no_message(api: Api) -> None:
    response = api.client.post(f"{UPLOAD}?wait=true&student=s2",
                               json={"answers": {"B1": "64"}}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    assert "message" not in response.json()
