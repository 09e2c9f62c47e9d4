"""Worker processes on one study: PostgreSQL (a throwaway cluster) and a journal file.

The workers are real ``gencl tune`` processes on real Optuna storages; measurements come from the
ReplayEngine (with a delay per evaluation so a worker can be killed mid-study).
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

PG_BIN = sorted(glob.glob("/usr/lib/postgresql/*/bin"))


FRESH_DATABASES = 2  # empty databases for the table-creation race tests


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@pytest.fixture(scope="module")
def postgres_url():
    if not PG_BIN or not Path(PG_BIN[-1], "initdb").exists():
        pytest.skip("PostgreSQL server binaries not installed (apt-get install postgresql)")
    bin_ = PG_BIN[-1]
    root = tempfile.mkdtemp(prefix="gencl-pg-", dir="/tmp")
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = f"{root}/data", _free_port()
    subprocess.run(_as_postgres([f"{bin_}/initdb", "-D", data, "-U", "gencl", "--auth=trust"]),
                   check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{bin_}/pg_ctl", "-D", data, "-l", f"{root}/log", "-w", "-o",
                                 f"-p {port} -k {root} -c listen_addresses=127.0.0.1", "start"]),
                   check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{bin_}/createdb", "-h", root, "-p", str(port), "-U", "gencl",
                                 "optuna"]), check=True, capture_output=True)
    for n in range(FRESH_DATABASES):
        subprocess.run(_as_postgres([f"{bin_}/createdb", "-h", root, "-p", str(port), "-U",
                                     "gencl", f"fresh{n}"]), check=True, capture_output=True)
    yield f"postgresql://gencl@127.0.0.1:{port}/optuna"
    subprocess.run(_as_postgres([f"{bin_}/pg_ctl", "-D", data, "-m", "immediate", "stop"]),
                   capture_output=True)
    shutil.rmtree(root, ignore_errors=True)


def _worker(cache, url, study, trials, *, delay=0.0, out):
    env = {**os.environ, "GENCL_TUNE_WORKER": "1", "GENCL_REPLAY_DELAY_S": str(delay),
           "GENCL_WORKERS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "gencl", "tune", "copy", "--replay", str(cache), "--storage", url,
         "--study", study, "--trials", str(trials), "--sampler", "random", "--out", str(out)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _finished(url, study):
    from gencl.tune import open_storage

    s = optuna.load_study(study_name=study, storage=open_storage(url))
    return s.get_trials(deepcopy=False)


def _check_two_workers(cache, url, tmp_path):
    procs = [_worker(cache, url, "two", 24, out=tmp_path) for _ in range(2)]
    for p in procs:
        assert p.wait(timeout=240) == 0, p.stderr.read().decode()[-2000:]
    trials = _finished(url, "two")
    numbers = sorted(t.number for t in trials)
    assert numbers == list(range(len(numbers)))            # none lost, none numbered twice
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    assert len(complete) == 24                             # the shared budget, exactly
    assert not [t for t in trials if t.state == TrialState.RUNNING]
    assert len({t._trial_id for t in trials}) == len(trials)
    return trials


def test_two_workers_postgres(cache, postgres_url, tmp_path):
    _check_two_workers(cache, postgres_url, tmp_path)


def test_worker_that_loses_the_table_creation_race_retries(postgres_url):
    """Another worker creates Optuna's tables while this one is creating them: this one's
    CREATE TABLE waits on the other's transaction, then fails ('duplicate key … pg_type'), and
    open_storage retries and finds the tables, instead of failing the run."""
    import threading

    import sqlalchemy
    from optuna.storages._rdb import models

    from gencl.tune import open_storage
    from gencl.tune._storage import _postgres_driver

    url = postgres_url.rsplit("/", 1)[0] + "/fresh0"
    other = sqlalchemy.create_engine(_postgres_driver(url))
    opened: list = []
    with other.begin() as conn:
        models.BaseModel.metadata.create_all(conn)         # not committed: invisible to ours
        ours = threading.Thread(target=lambda: opened.append(open_storage(url)))
        ours.start()
        time.sleep(2.0)                                     # ours sees no tables and blocks
        assert ours.is_alive()
    ours.join(timeout=60)                                   # the other commits: ours retries
    other.dispose()
    assert opened, "open_storage failed on the creation race"
    assert optuna.create_study(storage=opened[0]).study_name


def test_duplicate_table_from_postgresql_counts_as_the_creation_race(postgres_url):
    """The other order of the race: the table appeared between our check and our CREATE."""
    import sqlalchemy

    from gencl.tune._storage import _creation_race, _postgres_driver

    url = postgres_url.rsplit("/", 1)[0] + "/fresh1"
    engine = sqlalchemy.create_engine(_postgres_driver(url))
    with engine.begin() as conn:
        conn.execute(sqlalchemy.text("CREATE TABLE t (x int)"))
    with pytest.raises(sqlalchemy.exc.ProgrammingError) as dup, engine.begin() as conn:
        conn.execute(sqlalchemy.text("CREATE TABLE t (x int)"))
    with pytest.raises(sqlalchemy.exc.ProgrammingError) as missing, engine.begin() as conn:
        conn.execute(sqlalchemy.text("SELECT * FROM no_such_table"))
    engine.dispose()
    assert _creation_race(dup.value)
    assert not _creation_race(missing.value)                # other SQL errors still fail


def test_two_workers_journal(cache, tmp_path):
    _check_two_workers(cache, f"journal:{tmp_path}/study.journal", tmp_path)


def test_killed_worker_loses_nothing_finished(cache, postgres_url, tmp_path):
    p = _worker(cache, postgres_url, "kill", 30, delay=0.3, out=tmp_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.5)
        try:
            done = [t for t in _finished(postgres_url, "kill") if t.state == TrialState.COMPLETE]
        except KeyError:
            continue
        if len(done) >= 5:
            break
    p.send_signal(signal.SIGKILL)
    p.wait()
    before = {t.number: (t.params, t.value) for t in _finished(postgres_url, "kill")
              if t.state == TrialState.COMPLETE}
    assert len(before) >= 5
    p2 = _worker(cache, postgres_url, "kill", 30, out=tmp_path)
    assert p2.wait(timeout=240) == 0, p2.stderr.read().decode()[-2000:]
    after = {t.number: (t.params, t.value) for t in _finished(postgres_url, "kill")
             if t.state == TrialState.COMPLETE}
    assert all(after[n] == v for n, v in before.items())   # nothing finished is lost
    trials = _finished(postgres_url, "kill")
    assert sum(t.state == TrialState.COMPLETE for t in trials) == 30
    assert not [t for t in trials if t.state == TrialState.RUNNING]
