"""The exact Gobblet Jr. table prepared in the background (``companion.jr_prepare``): the app
starts the engine's build once, at the lowest priority, only when the table is missing; the
hint answer says "exact table being prepared" until it is there, then uses it; ``cupboard
prepare`` builds it explicitly.  The builds are real, made tiny with the engine's own
``--plies``/``--horizon`` options (the horizon-limited table: the plumbing is the same as for
the exact table, which ``tests/test_jr_exact.py`` builds), in a temporary $CUPBOARD_CACHE."""

import os
import subprocess
import sys
import time

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from companion.jr_prepare import BUILDING, FAILED, MISSING, READY, JrTablePreparer
from engine.gobblet import hints
from engine.gobblet.jr.table import FILE_NAME, load

TOKEN = "prep-token"
AUTH = {"X-Cupboard-Token": TOKEN}
TINY = {"plies": 0, "horizon": 3}  # the start position alone, three plies deep: under a second


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUPBOARD_CACHE", str(tmp_path / "cache"))
    # a tiny table handed to the hints must not outlive the test (the engine keeps one solver)
    monkeypatch.setattr(hints, "_SOLVERS", {})
    return tmp_path / "cache"


def test_the_build_starts_once_at_low_priority_and_finishes(cache):
    prep = JrTablePreparer(**TINY)
    assert prep.path == cache / FILE_NAME and prep.status() == MISSING
    assert prep.start() is True
    # the child lowers its own priority as it starts (it is not reaped before the next poll)
    deadline = time.monotonic() + 10
    while os.getpriority(os.PRIO_PROCESS, prep.process.pid) != 19:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    assert prep.start() is False  # already building
    assert prep.status() in (BUILDING, READY)
    assert prep.wait(120) == READY
    table = load(prep.path)
    assert (table.plies, table.horizon, len(table.values)) == (0, 3, 1)
    assert prep.start() is False and prep.status() == READY
    assert "1 positions" in prep.log_path.read_text()
    again = JrTablePreparer(**TINY)  # a later start-up finds the table and builds nothing
    assert again.start() is False and again.process is None and again.status() == READY


def test_a_failed_build_is_reported(cache):
    cache.mkdir()
    (cache / "not-a-dir").write_text("")
    prep = JrTablePreparer(cache / "not-a-dir" / FILE_NAME, **TINY)
    with pytest.raises(OSError):
        prep.start()  # the cache cannot even be made
    prep = JrTablePreparer(plies=0, horizon="x")  # type: ignore[arg-type]  # the engine's CLI refuses it
    assert prep.start() and prep.wait(120) == FAILED
    assert "invalid int value" in prep.log_path.read_text()


def ask(client, level=5):
    return client.post("/api/hint", json={"level": level}, headers=AUTH)


def test_the_app_builds_the_table_and_hints_say_so(tmp_path, cache):
    prep = JrTablePreparer(**TINY)
    app = create_app(CompanionConfig(tmp_path / "data", token=TOKEN, hint_seconds=0.3,
                                     default_variant="gobblet-jr", prepare_tables=True, jr_table=prep))
    try:
        services = app.extensions["cupboard"]
        assert services.jr_table is prep and prep.process is not None
        client = app.test_client()
        first = ask(client).get_json()
        assert first["move"] and first["table"] == BUILDING
        assert first["table_note"].startswith("exact table being prepared")
        assert prep.wait(120) == READY
        body = ask(client).get_json()
        # the tiny table is the horizon-limited one (the exact one takes a minute of CPU)
        assert body["table"] == READY and prep.used and not prep.exact
        assert body["table_note"].startswith("the table near the start is ready, not the exact one")
        client.post("/api/game/new", json={"variant": "gobblet"}, headers=AUTH)
        assert "table" not in ask(client, level=1).get_json()  # only Gobblet Jr. uses the table
    finally:
        app.extensions["cupboard"].hub.close()


def test_without_serve_the_app_builds_nothing(tmp_path, cache):
    app = create_app(CompanionConfig(tmp_path / "data", token=TOKEN, hint_seconds=0.3,
                                     default_variant="gobblet-jr"))
    try:
        services = app.extensions["cupboard"]
        assert services.jr_table.process is None and services.jr_table.path == cache / FILE_NAME
        body = ask(app.test_client()).get_json()
        assert body["table"] == MISSING and "cupboard prepare" in body["table_note"]
        assert not cache.exists()
    finally:
        app.extensions["cupboard"].hub.close()


def test_cupboard_prepare_reports_a_table_that_is_there(cache):
    env = {**os.environ, "CUPBOARD_CACHE": str(cache)}
    done = subprocess.run([sys.executable, "-m", "engine.gobblet.jr.table", "build", "--plies", "0", "--horizon", "3"],
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0
    out = subprocess.run([sys.executable, "-m", "companion.cli", "prepare"], env=env, capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert "table is ready" in out.stdout and "1 positions within 0 plies" in out.stdout


def test_a_damaged_table_is_moved_aside_and_built_again(cache, capsys):
    cache.mkdir()
    path = cache / FILE_NAME
    path.write_bytes(b"CUPJRX1\n" + bytes(200))  # an exact table's magic, nothing valid after it
    prep = JrTablePreparer(**TINY)
    assert prep.start() is True
    err = capsys.readouterr().err
    assert f"{path}: a table of another version" in err and "building it again" in err
    assert (cache / (FILE_NAME + ".damaged")).exists()
    assert prep.wait(120) == READY
    assert len(load(prep.path).values) == 1


def test_the_build_command_passes_the_engine_options(cache):
    from companion.background import child_command
    from companion.jr_prepare import BUILD, build_args

    cmd = child_command(BUILD, build_args(cache / FILE_NAME, min_pieces=12))
    assert cmd[-4:] == ["--out", str(cache / FILE_NAME), "--min-pieces", "12"]
    assert "os.nice(19)" in cmd[2]
