"""Reading class-list CSVs: header variants, BOM, Canvas's export, hostile bytes, bad rows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.errors import InvalidInput, PayloadTooLarge
from app.roster.csvfile import MAX_BYTES, parse_roster
from app.sanitize import clean


def test_bom_and_header_variants() -> None:
    raw = ("\ufeffStudent ID, Full Name ,E-Mail,SIS-ID,section,Notes\r\n"
           "alice,Alice A,alice@uni.edu,S001,L01,likes tea\r\n"
           "\r\n"
           "bob,Bob B,,S002,L02,\r\n").encode()
    parsed = parse_roster(raw)
    assert [r.student_id for r in parsed.rows] == ["alice", "bob"]
    alice = parsed.rows[0]
    assert (alice.name, alice.email, alice.sis_user_id, alice.section) == (
        "Alice A", "alice@uni.edu", "S001", "L01")
    assert parsed.ignored_columns == ["Notes"]


def test_canvas_gradebook_export_is_a_roster() -> None:
    raw = (b"Student,ID,SIS User ID,SIS Login ID,Section,HW1 (77)\n"
           b"    Points Possible,,,,,100\n"
           b'"Doe, Jane",1234,S9,jdoe,Sec A,88\n')
    (row,) = parse_roster(raw).rows
    assert (row.student_id, row.name, row.canvas_user_id, row.sis_user_id, row.section) == (
        "jdoe", "Doe, Jane", "1234", "S9", "Sec A")


def test_first_and_last_name_columns() -> None:
    (row,) = parse_roster(b"username,first name,last name\nzed,Zed,Zedson\n").rows
    assert row.name == "Zed Zedson"


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"student_id,name\nalice,A\n,B\n", "row 3: the student id is empty"),
        (b"student_id,name\nalice,A\nbob,B\nalice,C\n",
         "row 4: student 'alice' is already on row 2"),
        (b"student_id,email\nalice,not-an-address\n", "row 2: 'not-an-address' is not an email"),
        (b"name,section\nAlice,L1\n", "row 1: no student id column"),
        (b"student_id\n" + b"x" * 201 + b"\n", "row 2: student_id is longer than 200"),
        (b"student_id,name\nalice,\xff\xfe\n", "row 2: the roster is not UTF-8"),
        (b"", "row 1: the roster is empty"),
        (b"student_id,name\n", "no students"),
        (b"Student,ID,SIS Login ID\nA,12x,a\n", "row 2: the Canvas user id '12x' is not a number"),
    ],
)
def test_a_bad_row_is_named(raw: bytes, words: str) -> None:
    with pytest.raises(InvalidInput) as info:
        parse_roster(raw)
    assert words in info.value.detail


def test_size_is_bounded() -> None:
    with pytest.raises(PayloadTooLarge):
        parse_roster(b"student_id\n" + b"a\n" * (MAX_BYTES // 2 + 1))


def test_control_characters_are_neutralised() -> None:
    raw = "student_id,name\nalice,\x1b[31mRed\u202eevil\x00\n".encode()
    (row,) = parse_roster(raw).rows
    assert row.name == clean(row.name) and "\x1b" not in row.name and "\u202e" not in row.name
    with pytest.raises(InvalidInput, match="row 2: the student id"):
        parse_roster(b"student_id\nal\x1bice\n")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([b"", b"student_id,name,email\n", b"\xef\xbb\xbf"
                                                 b"Student,ID,SIS User ID,SIS Login ID\n"]))
def test_any_bytes_parse_or_fail_as_a_clear_4xx(body: bytes, header: bytes) -> None:
    try:
        parsed = parse_roster(header + body)
    except (InvalidInput, PayloadTooLarge) as exc:
        assert "\n" not in exc.detail
        return
    for row in parsed.rows:
        for value in vars(row).values():
            assert value == clean(value), value
        assert row.student_id and row.student_id == row.student_id.strip()
