"""graders/ is a pure library: importing all of it pulls in no web or database framework."""

import subprocess
import sys

FORBIDDEN = ("app", "fastapi", "sqlalchemy", "starlette", "alembic", "celery", "uvicorn")


def test_graders_import_no_service_code() -> None:
    code = (
        "import pkgutil, importlib, sys, graders\n"
        "for m in pkgutil.walk_packages(graders.__path__, 'graders.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"graders imported: {out.stdout.strip()}"
