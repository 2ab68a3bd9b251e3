"""Whom a staff upload is filed under, the one rule behind the web app's bulk upload, the API's
upload and the CLI's submit and import: the student named, else the file's name (alice.txt:
alice), never nobody (an upload without a student would reach the exports as "submission-N"),
and, when the assignment has a roster, only a student on it. A document's own `student_id` is
never trusted for this: staff upload other people's files."""

from __future__ import annotations

from pathlib import PurePath

from sqlalchemy.orm import Session

from app.errors import InvalidInput
from app.roster.service import roster_for_assignment

MAX_STUDENT = 200


def student_from_name(filename: str) -> str:
    """The student a file is named after: its name without folders and without its last
    ending (alice.txt, C:\\fakepath\\alice.txt: alice; alice.v2.md: alice.v2; .txt: none)."""
    name = PurePath(filename.replace("\\", "/")).name
    return (name[: name.rfind(".")] if "." in name else name).strip()


def staff_student(
    session: Session, slug: str, named: str | None, filename: str | None, how: str
) -> str:
    """The student a staff upload of `slug` is filed under. `named` is the student the uploader
    chose (None: take it from `filename`; blank: none was chosen); `how` says, in the words of
    the caller's transport, how to name one ("add ?student=ID"). InvalidInput (422) otherwise."""
    what = filename or "this upload"
    if named is None:
        chosen = student_from_name(filename or "")
        if not chosen:
            raise InvalidInput(f"No student for {what}: the upload has no file name to take "
                               f"the student from; {how}.", field="student")
    else:
        chosen = named.strip()
        if not chosen:
            raise InvalidInput(f"No student for {what}: {how}.", field="student")
    if len(chosen) > MAX_STUDENT or not chosen.isprintable():
        raise InvalidInput(f"A student id is 1 to {MAX_STUDENT} printable characters; {how}.",
                           field="student")
    roster = roster_for_assignment(session, slug)
    if roster and chosen not in roster:
        raise InvalidInput(f"{chosen} is not on the roster of {slug}: {how}, or add them to "
                           "the roster first.", field="student")
    return chosen
