"""Piece sets and boards as data files: shipped values and validation errors."""

import json

import pytest

from hardware.markers import marker_corners_world, marker_sheet_svg
from hardware.pieces import (
    DataFileError,
    load_board,
    load_piece_set,
    shipped_boards,
    shipped_piece_sets,
)


def test_shipped_sets_and_boards_load():
    assert {"gobblet", "gobblet-jr", "storer-clear"} <= set(shipped_piece_sets())
    assert {"storer-lid-4x4", "gobblet-4x4", "gobblet-jr-3x3", "grid-3x3", "grid-5x5"} <= set(shipped_boards())
    for name in shipped_piece_sets():
        s = load_piece_set(name)
        load_board(s.default_board)
    assert len(load_piece_set("gobblet").sizes) == 4
    assert len(load_piece_set("gobblet-jr").sizes) == 3


def test_storer_set_matches_the_seed():
    s = load_piece_set("storer-clear")
    inch = 25.4
    assert [round(z.outer_diameter_mm / inch, 4) for z in s.sizes] == [0.5, 0.75, 1.0, 1.25, 1.5]
    assert [round(z.height_mm / inch, 4) for z in s.sizes] == [1.0, 1.375, 1.75, 2.125, 2.5]
    assert s.sizes[0].solid and not any(z.solid for z in s.sizes[1:])
    assert s.clear
    assert s.logical_sizes == (None, 1, 2, 3, 4)
    assert abs(load_board("storer-lid-4x4").width_mm - 9.5 * inch) < 0.01


def _write(tmp_path, data):
    p = tmp_path / "set.json"
    p.write_text(json.dumps(data))
    return p


def test_set_validation_names_file_and_problem(tmp_path):
    good = json.loads((load_piece_set.__globals__["DATA_DIR"] / "sets" / "gobblet.json").read_text())
    bad = dict(good, version=7)
    with pytest.raises(DataFileError, match=r"set\.json: unsupported version 7"):
        load_piece_set(_write(tmp_path, bad))
    bad = {k: v for k, v in good.items() if k != "sizes"}
    with pytest.raises(DataFileError, match=r"set\.json: missing field 'sizes'"):
        load_piece_set(_write(tmp_path, bad))
    bad = dict(good, sizes=list(reversed(good["sizes"])))
    with pytest.raises(DataFileError, match="smallest first"):
        load_piece_set(_write(tmp_path, bad))
    p = tmp_path / "broken.json"
    p.write_text("{ not json")
    with pytest.raises(DataFileError, match=r"broken\.json: not valid JSON \(line 1"):
        load_piece_set(p)
    with pytest.raises(DataFileError, match="no set named 'nosuch'"):
        load_piece_set("nosuch")


def test_markers_sit_outside_the_corners():
    b = load_board("storer-lid-4x4")
    corners = marker_corners_world(b)
    assert sorted(corners) == [0, 1, 2, 3]
    a1 = corners[0]
    assert a1[:, 0].max() < 0 and a1[:, 1].max() < 0
    assert abs(a1[1, 0] - a1[0, 0] - b.markers.size_mm) < 1e-9
    svg = marker_sheet_svg(b)
    assert 'width="210.0mm"' in svg and "100 mm" in svg


def test_logical_sizes_follow_the_game():
    """Storer's 5-size set: its own mapping for 4-size games, all five for goblet-5; a set
    with fewer sizes than the game is refused by name."""
    clear = load_piece_set("storer-clear")
    assert clear.logical_sizes_for(4) == (None, 1, 2, 3, 4)
    assert clear.logical_sizes_for(5) == (1, 2, 3, 4, 5)
    assert clear.logical_sizes_for(3) == (None, None, 1, 2, 3)
    assert load_piece_set("gobblet").logical_sizes_for(4) == (1, 2, 3, 4)
    with pytest.raises(ValueError, match="'gobblet-jr' has 3 sizes; this game needs 4"):
        load_piece_set("gobblet-jr").logical_sizes_for(4)


def test_each_set_names_the_game_it_is_made_for():
    assert [load_piece_set(n).default_game for n in ("gobblet", "gobblet-jr", "storer-clear")] == [
        "gobblet", "gobblet-jr", "gobblet"]
