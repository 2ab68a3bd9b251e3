"""The class roster over HTTP (staff only): import a CSV, read the list back."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import InstructorUser
from app.deps import SessionDep, SettingsDep
from app.roster import service
from app.roster.csvfile import MAX_BYTES
from app.submissions.upload import read_upload

router = APIRouter(prefix="/api/v1", tags=["roster"])


class RosterEntryOut(BaseModel):
    student_id: str
    name: str
    email: str
    sis_user_id: str
    sis_login_id: str
    section: str
    canvas_user_id: str


class RosterOut(BaseModel):
    scope: str
    students: list[RosterEntryOut]


class ImportOut(BaseModel):
    scope: str
    students: int
    ignored_columns: list[str]


async def _import(
    request: Request, target: str, session: SessionDep, user: InstructorUser, settings: SettingsDep
) -> ImportOut:
    upload = await read_upload(request, min(MAX_BYTES, settings.max_request_bytes))
    # In a worker thread, as every other route's database work: the import waits for the
    # write lock, which on the event loop stopped the whole server meanwhile (another import
    # holding it could not even commit: both waited out the 30 s lock timeout).
    result = await run_in_threadpool(service.import_roster, session, target, upload.raw, user)
    return ImportOut(scope=result.scope, students=result.students,
                     ignored_columns=result.ignored_columns)


def _listing(session: SessionDep, target: str) -> RosterOut:
    rows = service.roster_of(session, target)
    return RosterOut(
        scope=target,
        students=[RosterEntryOut.model_validate(r, from_attributes=True) for r in rows],
    )


@router.put("/roster", response_model=ImportOut, summary="Import the course roster (CSV)")
async def import_course_roster(
    request: Request, session: SessionDep, user: InstructorUser, settings: SettingsDep
) -> ImportOut:
    """Replace the course's class list with a CSV (raw body or multipart `file`).

    Columns: a student id (`student_id`, `username`, `login`, ... or Canvas's `SIS Login ID`),
    and optionally name, email, SIS user id, SIS login id, section, Canvas user id; header
    spellings vary (Canvas's gradebook export is accepted as it is). A bad row is a 422 naming
    the row, and nothing is stored.

    Errors: 401 no or an unknown token; 403 not an instructor; 413 the file is too large; 422 a bad
    file or row (named), nothing stored.
    """
    return await _import(request, service.COURSE, session, user, settings)


@router.put(
    "/assignments/{slug}/roster", response_model=ImportOut,
    summary="Import an assignment's own roster (CSV)",
)
async def import_assignment_roster(
    slug: str, request: Request, session: SessionDep, user: InstructorUser, settings: SettingsDep
) -> ImportOut:
    """Replace one assignment's own class list (used instead of the course's for its exports).

    Same CSV rules as `PUT /api/v1/roster`.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 413 the file
    is too large; 422 a bad file or row (named), nothing stored.
    """
    return await _import(request, slug, session, user, settings)


@router.get("/roster", response_model=RosterOut, summary="The course roster")
def course_roster(session: SessionDep, user: InstructorUser) -> RosterOut:
    """The course's class list, by student id.

    Errors: 401 no or an unknown token; 403 not an instructor."""
    return _listing(session, service.COURSE)


@router.get(
    "/assignments/{slug}/roster", response_model=RosterOut, summary="An assignment's roster"
)
def assignment_roster(slug: str, session: SessionDep, user: InstructorUser) -> RosterOut:
    """An assignment's own class list (empty when it uses the course's).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return _listing(session, slug)
