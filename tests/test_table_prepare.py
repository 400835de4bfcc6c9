"""A Cups game small enough for an exact table, started on a server that prepares tables: the
table is built in the background (a separate process, never in the request), hints search
until it is on disk and then answer from it; a game too big for a quick table builds nothing."""

import pytest

from companion.app import create_app
from companion.services import CompanionConfig
from engine.cups import hints as cups_hints
from engine.families import variant

TOKEN = "tables-token"
AUTH = {"X-Cupboard-Token": TOKEN}
SMALL = "cups[cups=3,beans=6]"


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CUPBOARD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cups_hints, "_SOLVERS", {})
    monkeypatch.setattr(cups_hints, "_COLD", set())
    return tmp_path / "cache"


def _app(tmp_path, prepare=True):
    return create_app(CompanionConfig(tmp_path / "data", token=TOKEN, hint_seconds=0.5, prepare_tables=prepare))


def test_a_small_cups_game_gets_its_table_built_in_the_background(tmp_path, cache):
    app = _app(tmp_path)
    services = app.extensions["cupboard"]
    try:
        client = app.test_client()
        assert client.post("/api/game/new", json={"variant": SMALL}, headers=AUTH).status_code == 201
        table = cups_hints.table_path(variant(SMALL))
        services.tables.wait(120)
        assert table.exists() and not list(cache.glob("*.tmp"))
        assert services.tables.ensure(variant(SMALL)) is False  # there now: nothing more to build
        hint = client.post("/api/hint", json={"level": 5}, headers=AUTH).get_json()
        assert hint["move"] and "perfect play" in hint["value"]
        assert cups_hints.solver_for(variant(SMALL)).entries > 0 and SMALL not in cups_hints._COLD
    finally:
        services.tables.stop()
        services.jr_table.stop()  # (the server also starts the Gobblet Jr. table's build)
        services.hub.close()


def test_a_big_game_or_a_server_that_does_not_prepare_builds_nothing(tmp_path, cache):
    app = _app(tmp_path)
    services = app.extensions["cupboard"]
    try:
        app.test_client().post("/api/game/new", json={"variant": "cups"}, headers=AUTH)
        assert services.tables.ensure(variant("cups")) is False
    finally:
        services.jr_table.stop()
        services.hub.close()
    app = _app(tmp_path / "other", prepare=False)
    services = app.extensions["cupboard"]
    try:
        app.test_client().post("/api/game/new", json={"variant": SMALL}, headers=AUTH)
        services.tables.wait(5)
        assert not cups_hints.table_path(variant(SMALL)).exists()
    finally:
        services.hub.close()
