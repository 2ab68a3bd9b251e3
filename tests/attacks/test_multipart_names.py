"""Multipart framing, other spellings, and the names a student gives their file: a quoted
boundary with blanks and semicolons, a part without a name, a second `file` part, a
Content-Disposition given twice, folded part headers, 10,000 parts without headers, a 60 KiB
preamble, an epilogue, bare LF line ends, a base64 transfer encoding; file names with folders
(POSIX and Windows), NUL, CR LF and a header after it, direction overrides, an RFC 5987
`filename*` hiding an override, only dots. Each is a 4xx or taken; what is stored and shown as
the file name holds no control, invisible or direction-changing character."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

DOC = b"B1: 64\r\n"


def _disposition(filename: str) -> bytes:
    return (f'Content-Disposition: form-data; name="file"; filename="{filename}"\r\n'
            "Content-Type: text/plain").encode("utf-8", "surrogatepass")


def _form(boundary: str, parts: list[bytes], *, eol: bytes = b"\r\n", preamble: bytes = b"",
          epilogue: bytes = b"") -> bytes:
    mark = boundary.encode()
    return (preamble + b"".join(b"--" + mark + eol + p for p in parts) + b"--" + mark + b"--"
            + eol + epilogue)


def _part(head: bytes, body: bytes = DOC, eol: bytes = b"\r\n") -> bytes:
    return head.replace(b"\r\n", eol) + eol + eol + body + eol


FILE = _disposition("a.txt")
FRAMES: dict[str, tuple[str, bytes]] = {
    "a quoted boundary with blanks and semicolons": (
        '"a b;c=d"', _form("a b;c=d", [_part(FILE)])),
    "a part without a name": ("zz", _form("zz", [_part(b"Content-Disposition: form-data"),
                                                 _part(FILE)])),
    "two file parts": ("zz", _form("zz", [_part(FILE), _part(FILE, b"B1: 65\r\n")])),
    "Content-Disposition twice": ("zz", _form("zz", [_part(
        FILE + b'\r\nContent-Disposition: form-data; name="student"')])),
    "a folded part header": ("zz", _form("zz", [_part(
        b'Content-Disposition: form-data;\r\n name="file";\r\n\tfilename="a.txt"')])),
    "10,000 parts without headers": ("zz", _form("zz", [b"\r\n\r\nx\r\n"] * 10_000
                                                 + [_part(FILE)])),
    "a 60 KiB preamble and an epilogue": ("zz", _form("zz", [_part(FILE)],
                                                      preamble=b"p" * 60_000 + b"\r\n",
                                                      epilogue=b"e" * 10_000)),
    "bare LF line ends": ("zz", _form("zz", [_part(FILE, eol=b"\n")], eol=b"\n")),
    "a base64 transfer encoding": ("zz", _form("zz", [_part(
        FILE + b"\r\nContent-Transfer-Encoding: base64", b"QjE6IDY0")])),
}


@pytest.mark.parametrize("name", list(FRAMES))
def test_odd_multipart_framing_is_4xx_or_read(target: Api, name: str) -> None:
    boundary, body = FRAMES[name]
    answer = target.client.post(UPLOAD, content=body, headers={
        **target.auth("alice"), "content-type": f"multipart/form-data; boundary={boundary}"})
    assert answer.status_code in (202, 400, 413, 422), (name, answer.status_code, answer.text)
    assert answer.headers["content-type"].startswith("application/")


NAMES = ["../../../../etc/passwd", "C:\\Windows\\System32\\a.txt", "a\x00b.txt",
         "\u202etxt.exe", "a.txt\r\nX-Injected: 1", "\u2066evil\u2069.txt", "..", ".",
         "a\x1b]0;title\x07.txt", "\ud800.txt", "tag\U000e0041\U000e0042.txt",
         "con.txt", "a" * 4000 + ".txt"]
BAD = {chr(c) for c in [*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F),
                        *range(0x2066, 0x206A), 0x200B, 0xE0041, 0xE0042]}


def _shown_names(target: Api, sid: int) -> list[str]:
    staff = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("prof")).json()
    own = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("alice")).json()
    listed = target.client.get(UPLOAD, headers=target.auth("prof")).json()
    return [staff["filename"] or "", own["filename"] or "",
            *[s["filename"] or "" for s in listed if s["id"] == sid]]


@pytest.mark.parametrize("filename", NAMES, ids=range(len(NAMES)))
def test_a_hostile_file_name_is_stored_and_shown_clean(target: Api, filename: str) -> None:
    body = _form("zz", [_part(_disposition(filename))])
    answer = target.client.post(UPLOAD, content=body, headers={
        **target.auth("alice"), "content-type": "multipart/form-data; boundary=zz"})
    assert answer.status_code in (202, 400, 422), (filename[:40], answer.status_code)
    if answer.status_code != 202:
        return
    for shown in _shown_names(target, answer.json()["id"]):
        assert not set(shown) & BAD, (filename[:40], shown[:80])
        assert len(shown) <= 500


def test_an_rfc5987_file_name_hiding_an_override_is_shown_clean(target: Api) -> None:
    head = (b"Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"; "
            b"filename*=UTF-8''%E2%80%AEtxt.exe%00\r\nContent-Type: text/plain")
    answer = target.client.post(UPLOAD, content=_form("zz", [_part(head)]), headers={
        **target.auth("alice"), "content-type": "multipart/form-data; boundary=zz"})
    assert answer.status_code in (202, 400, 422), answer.text
    if answer.status_code == 202:
        for shown in _shown_names(target, answer.json()["id"]):
            assert not set(shown) & BAD, shown
