"""Run the Alembic migrations programmatically (`gradeformer db upgrade`, tests, startup checks)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from app.db.session import make_engine

REPO = Path(__file__).resolve().parent.parent.parent
MIGRATIONS = REPO / "migrations"
ALEMBIC_INI = REPO / "alembic.ini"


def alembic_config(database_url: str) -> Config:
    config = Config(str(ALEMBIC_INI)) if ALEMBIC_INI.exists() else Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    # configparser treats % as interpolation; URLs carry %-escapes (passwords).
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    config.attributes["explicit_url"] = True
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def is_current(database_url: str) -> bool:
    """True when the database is at the newest migration."""
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision() == head
    finally:
        engine.dispose()
