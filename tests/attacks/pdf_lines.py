"""A one-page PDF of Helvetica lines, each drawn where the caller says (written by hand)."""

from __future__ import annotations


def _escaped(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def lines_pdf(lines: list[tuple[float, float, str]]) -> bytes:
    """`lines`: (x, y, text) in points on a 612 x 792 page (anywhere: off it too)."""
    return drawn_pdf([(x, y, text, "") for x, y, text in lines])


def drawn_pdf(lines: list[tuple[float, float, str, str]], size: float = 10) -> bytes:
    """`lines`: (x, y, text, how) as `lines_pdf`'s, each drawn after the operators `how`
    (a colour, a rendering mode, a font size: `1 g`, `3 Tr`, `/F1 0.2 Tf`) in its own q/Q."""
    stream = " ".join(f"q BT /F1 {size:g} Tf {how} {x:.2f} {y:.2f} Td ({_escaped(text)}) Tj ET Q"
                      for x, y, text, how in lines)
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
               "/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
               f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream"]
    return _pdf(objects, "1.4")


LAYERS = "/OCProperties << /OCGs [6 0 R 7 0 R] /D << /OFF [6 0 R] /ON [7 0 R] >> >>"


def wrapped_pdf(lines: list[tuple[float, float, str, str]]) -> bytes:
    """`lines`: (x, y, text, wrap), each drawn as `wrap % "BT ... ET"` (a clip before it, marked
    content around it: `/OC /off BDC q %s Q EMC`). The page names two layers, `/off` (hidden by
    default) and `/on`."""
    stream = " ".join(wrap % f"BT /F1 10 Tf {x:.2f} {y:.2f} Td ({_escaped(text)}) Tj ET"
                      for x, y, text, wrap in lines)
    objects = [f"<< /Type /Catalog /Pages 2 0 R {LAYERS} >>",
               "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
               "<< /F1 3 0 R >> /Properties << /off 6 0 R /on 7 0 R >> >> /Contents 5 0 R >>",
               f"<< /Length {len(stream.encode('latin-1'))} >>\nstream\n{stream}\nendstream",
               "<< /Type /OCG /Name (notes) >>", "<< /Type /OCG /Name (answers) >>"]
    return _pdf(objects, "1.5")


def _pdf(objects: list[str], version: str) -> bytes:
    """The numbered objects (1 the catalog) as a PDF file with its cross-reference table."""
    out = f"%PDF-{version}\n".encode()
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{offset:010d} 00000 n \n".encode() for offset in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n"
            "%%EOF\n").encode()
    return out
