"""Reading a class list CSV: header variants (ours, an SIS export, Canvas's gradebook export),
a byte-order mark, hostile bytes; every problem names its row, and one bad row refuses the file.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

from app.errors import InvalidInput, PayloadTooLarge
from app.sanitize import clean

# A class list of a few thousand students is a few hundred kilobytes.
MAX_BYTES = 2 * 1024 * 1024
MAX_ROWS = 20_000
MAX_COLUMNS = 200
# The longest value each field keeps (the table's column widths).
LIMITS = {
    "student_id": 200,
    "name": 300,
    "email": 320,
    "sis_user_id": 200,
    "sis_login_id": 200,
    "section": 200,
    "canvas_user_id": 50,
}
FIELDS = tuple(LIMITS)

# Header spellings, compared with case, spaces, dashes, underscores and dots removed.
HEADERS: dict[str, str] = {
    **dict.fromkeys(
        ["studentid", "student", "userid", "username", "user", "login", "netid", "uid",
         "studentidentifier", "gradeformerid"], "student_id"),
    **dict.fromkeys(["name", "fullname", "studentname", "displayname", "sortablename"], "name"),
    **dict.fromkeys(["email", "emailaddress", "mail", "studentemail"], "email"),
    **dict.fromkeys(["sisid", "sisuserid", "sisstudentid", "studentnumber", "matriculation",
                     "matriculationnumber", "integrationid"], "sis_user_id"),
    **dict.fromkeys(["sisloginid", "loginid"], "sis_login_id"),
    **dict.fromkeys(["section", "sections", "sectionname"], "section"),
    **dict.fromkeys(["canvasid", "canvasuserid"], "canvas_user_id"),
}
NAME_PARTS = {"firstname": "first", "givenname": "first", "lastname": "last",
              "surname": "last", "familyname": "last"}
_NORMALISE = re.compile(r"[\s_.\-]+")
# Not an address check (that is the mail server's): one @, something either side, no spaces.
_EMAIL = re.compile(r"[^@\s]{1,200}@[^@\s]{1,200}")
_DIGITS = re.compile(r"\d{1,50}")


@dataclass(frozen=True)
class RosterRow:
    student_id: str
    name: str = ""
    email: str = ""
    sis_user_id: str = ""
    sis_login_id: str = ""
    section: str = ""
    canvas_user_id: str = ""


@dataclass
class ParsedRoster:
    rows: list[RosterRow] = field(default_factory=list)
    # Header cells that were not recognised (kept out, listed back to the user).
    ignored_columns: list[str] = field(default_factory=list)


def _key(header: str) -> str:
    return _NORMALISE.sub("", header.strip().lower())


def _columns(header: list[str]) -> tuple[dict[str, int], dict[str, int], list[str]]:
    """Field -> column index, name part -> column index, the ignored headers. In a Canvas
    export `Student` is the name and `ID` Canvas's user id; elsewhere `Student` is the id."""
    keys = [_key(h) for h in header]
    canvas = "sisloginid" in keys or ("id" in keys and "student" in keys)
    columns: dict[str, int] = {}
    parts: dict[str, int] = {}
    ignored: list[str] = []
    for index, key in enumerate(keys):
        target = HEADERS.get(key)
        if canvas and key == "student":
            target = "name"
        elif key == "id":
            target = "canvas_user_id" if canvas else "student_id"
        if target is not None and target not in columns:
            columns[target] = index
        elif key in NAME_PARTS and NAME_PARTS[key] not in parts:
            parts[NAME_PARTS[key]] = index
        elif header[index].strip():
            ignored.append(clean(header[index].strip(), 100))
    if "student_id" not in columns:
        # A Canvas export names a student by login; an SIS export by its number.
        for fallback in ("sis_login_id", "sis_user_id", "email"):
            if fallback in columns:
                columns["student_id"] = columns[fallback]
                break
    return columns, parts, ignored


def _decode(raw: bytes) -> str:
    if len(raw) > MAX_BYTES:
        raise PayloadTooLarge(f"The roster is larger than {MAX_BYTES} bytes.",
                              limit_bytes=MAX_BYTES)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidInput(
            f"row {line}: the roster is not UTF-8 (byte {exc.start}); save it as "
            "\"CSV UTF-8\"", row=line
        ) from None


def _cell(row: list[str], index: int | None) -> str:
    if index is None or index >= len(row):
        return ""
    return row[index].strip()


def parse_roster(raw: bytes) -> ParsedRoster:
    """Every row of a class list, or InvalidInput naming the first bad row (nothing partial)."""
    text = _decode(raw).replace("\x00", "\ufffd")
    # The csv module reads without backtracking; its field limit bounds one cell.
    reader = csv.reader(io.StringIO(text, newline=""), strict=False)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        raise InvalidInput(f"row 1: not a CSV header: {exc}", row=1) from None
    if header is None or not any(h.strip() for h in header):
        raise InvalidInput("row 1: the roster is empty; it needs a header row", row=1)
    if len(header) > MAX_COLUMNS:
        raise InvalidInput(f"row 1: more than {MAX_COLUMNS} columns", row=1)
    columns, parts, ignored = _columns(header)
    if "student_id" not in columns:
        raise InvalidInput(
            "row 1: no student id column (accepted: student_id, student id, username, login, "
            "SIS Login ID, SIS User ID, email); found: "
            + ", ".join(clean(h, 60) for h in header[:20]), row=1
        )
    parsed = ParsedRoster(ignored_columns=ignored)
    first_row: dict[str, int] = {}
    while True:
        try:
            row = next(reader, None)
        except csv.Error as exc:
            line = reader.line_num
            raise InvalidInput(f"row {line}: not valid CSV: {exc}", row=line) from None
        if row is None:
            break
        line = reader.line_num
        if not any(cell.strip() for cell in row):
            continue
        # Canvas's export has a "Points Possible" row under the header: not a student.
        if _cell(row, columns.get("name")) == "Points Possible" and not _cell(
            row, columns["student_id"]
        ):
            continue
        if len(parsed.rows) >= MAX_ROWS:
            raise InvalidInput(f"row {line}: more than {MAX_ROWS} students", row=line)
        parsed.rows.append(_row(row, line, columns, parts, first_row))
    if not parsed.rows:
        raise InvalidInput("the roster has a header but no students", row=1)
    return parsed


def _row(
    row: list[str], line: int, columns: dict[str, int], parts: dict[str, int],
    first_row: dict[str, int],
) -> RosterRow:
    values: dict[str, str] = {}
    for name in FIELDS:
        raw_value = _cell(row, columns.get(name))
        if len(raw_value) > LIMITS[name]:
            raise InvalidInput(
                f"row {line}: {name} is longer than {LIMITS[name]} characters", row=line
            )
        values[name] = clean(raw_value, LIMITS[name])
    if not values["name"] and parts:
        values["name"] = clean(
            " ".join(v for v in (_cell(row, parts.get("first")), _cell(row, parts.get("last")))
                     if v), LIMITS["name"])
    student = values["student_id"]
    if not student:
        raise InvalidInput(f"row {line}: the student id is empty", row=line)
    if any(ch in student for ch in "\n\t\ufffd"):
        raise InvalidInput(f"row {line}: the student id {student!r} holds control characters",
                           row=line)
    if student in first_row:
        raise InvalidInput(
            f"row {line}: student {student!r} is already on row {first_row[student]}", row=line
        )
    first_row[student] = line
    if values["email"] and not _EMAIL.fullmatch(values["email"]):
        raise InvalidInput(f"row {line}: {values['email']!r} is not an email address",
                           row=line)
    if values["canvas_user_id"] and not _DIGITS.fullmatch(values["canvas_user_id"]):
        raise InvalidInput(
            f"row {line}: the Canvas user id {values['canvas_user_id']!r} is not a number",
            row=line)
    return RosterRow(**values)
