"""Storage is Optuna's: pick a backend from what the user wrote, nothing of our own.

- nothing → an SQLite file next to the results (``sqlite:///bench_results/<slug>/tuning/<spec>.db``);
- ``journal:PATH`` or a path ending ``.log``/``.journal`` → JournalStorage on a JournalFileBackend
  (safe for many processes on one machine, no server);
- any SQLAlchemy URL Optuna accepts (``sqlite:///…``, ``postgresql://…``) → RDBStorage with a
  heartbeat, so a worker that dies leaves its RUNNING trial marked FAIL, not stuck.
"""

from __future__ import annotations

from pathlib import Path

import optuna
from optuna.storages import BaseStorage, JournalStorage, RDBStorage, RetryFailedTrialCallback
from optuna.storages.journal import JournalFileBackend

from gencl.errors import GenclError

HEARTBEAT_S = 10


def storage_url(storage: str | None, default_path: str | Path) -> str:
    """The URL a run uses (written into the results so a rerun can attach to it)."""
    if storage:
        return storage
    Path(default_path).parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{default_path}"


def open_storage(url: str, *, attempts: int = 3) -> BaseStorage:
    """The Optuna storage behind *url*; workers starting together on a fresh database race to
    create its tables, so a creation conflict is retried."""
    import time

    for attempt in range(attempts):
        try:
            return _open(url)
        except Exception as exc:  # noqa: BLE001 -- SQLAlchemy: unknown dialect, refused connection
            if _creation_race(exc) and attempt < attempts - 1:
                time.sleep(0.5 * (attempt + 1))
                continue
            if isinstance(exc, (ValueError, ImportError, optuna.exceptions.StorageInternalError)):
                raise GenclError(f"--storage {url}: {str(exc).splitlines()[0][:200]}") from None
            raise GenclError(f"--storage {url}: {type(exc).__name__}: "
                             f"{str(exc).splitlines()[0][:200]}") from None
    raise AssertionError("unreachable")


# PostgreSQL's SQLSTATEs for a table, type or index another session created first
# (duplicate_table, duplicate_object); a unique violation on pg_type, when two CREATE TABLEs
# collide, arrives as an IntegrityError.
_DUPLICATE_SQLSTATES = {"42P07", "42710"}


def _creation_race(exc: BaseException) -> bool:
    """Whether *exc* is another worker having created Optuna's tables first."""
    import sqlalchemy.exc

    if isinstance(exc, sqlalchemy.exc.IntegrityError):
        return True
    orig = getattr(exc, "orig", None)  # psycopg2 names it pgcode, psycopg 3 sqlstate
    code = getattr(orig, "pgcode", None) or getattr(orig, "sqlstate", None)
    return isinstance(exc, sqlalchemy.exc.ProgrammingError) and code in _DUPLICATE_SQLSTATES


def _open(url: str) -> BaseStorage:
    if url.startswith("journal:") or url.endswith((".log", ".journal")):
        path = url.removeprefix("journal:")
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        return JournalStorage(JournalFileBackend(path))
    import warnings

    url = _postgres_driver(url)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # heartbeat options are marked experimental
        return RDBStorage(
            url, heartbeat_interval=HEARTBEAT_S, grace_period=3 * HEARTBEAT_S,
            failed_trial_callback=RetryFailedTrialCallback(max_retry=1),
            engine_kwargs={"pool_pre_ping": True} if url.startswith("postgres") else None)


def _postgres_driver(url: str) -> str:
    """SQLAlchemy 2.1 maps ``postgresql://`` to psycopg 3; use psycopg2 where only it exists."""
    import importlib.util

    if url.startswith(("postgresql://", "postgres://")) and \
            importlib.util.find_spec("psycopg") is None and \
            importlib.util.find_spec("psycopg2") is not None:
        return "postgresql+psycopg2://" + url.split("://", 1)[1]
    return url
