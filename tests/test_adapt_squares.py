"""Adapting the players' colours square by square (``vision.adapt.measure_square_colours``,
``Calibration.square_colours``): a lamp mirrored in the glossy tops of a few squares, on
rendered tables of the held-out look; and the adaptation file's optional field."""

import json
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from calibration.model import CalibrationError
from tests.test_adapt import _table, _tiny_table
from vision.adapt import AdaptationFileError, adapt, adapted_calibration, load_adaptation, save_adaptation
from vision.evaluate import evaluate_folder
from vision.frames_folder import open_folder
from vision.recognise import Recogniser
from vision.square_model import load_model

TABLE_20 = 4_000_037 + 7919 * 20  # ``bench/adapt.py``'s tuning table 20


def _read_both_ways(piece_set: str, seed: int, test_frames: int):
    """Adapt to 30 frames of a rendered table, then read ``test_frames`` others of it through
    the table's colours alone and through each square's: (the adaptation, both results)."""
    with tempfile.TemporaryDirectory() as tmp:
        learn, test = _table(Path(tmp), piece_set, seed, 30, test_frames)
        full = adapt(learn, load_model())
        assert full.adapted and full.table is not None and full.table.square_colours is not None
        table_only = evaluate_folder(test, full.model, replace(full.calibration, square_colours=None))
        squares = evaluate_folder(test, full.model, full.calibration)
    return full, table_only, squares


def test_a_table_whose_lamp_mirrors_in_some_squares_tops_is_read_by_each_squares_colours():
    """Storer, ``bench/adapt.py``'s tuning table 20: the lamp mirrors in the dark plugs on a
    few squares (a2's plugs look nearly as pale as a light one), so the table's one pair of
    colours, even as adapting measured it, read dark plugs there light at 0.9-0.99.  Adapting
    measures each square's own colours (checked on frames left out); reading the frames
    through them, the same adaptation leaves none of its readings confidently wrong, and
    misreads fewer squares, than through the table's colours alone."""
    full, table_only, squares = _read_both_ways("storer-clear", TABLE_20, 13)
    assert table_only.confidently_wrong >= 3
    assert squares.confidently_wrong == 0
    assert squares.square_accuracy > table_only.square_accuracy
    # the dark colour on a2, where the lamp mirrors most, is far paler than the table's
    assert sum(full.table.square_colours[4][1]) > 1.5 * sum(full.table.colour.dark_bgr)


def test_a_square_lit_white_reads_doubtful_not_confidently_wrong():
    """Jr., ``bench/adapt.py``'s tuning table 0: one square (b3) is lit so that both players'
    tops look white there, and the adapted recogniser, with the table's one pair of colours,
    read its light tops dark at 0.75-0.89.  Square colours that read no more of the tops'
    colours wrong there and fewer at the commit confidence are kept: that square's two colours
    come close, and its readings become doubtful rather than confidently wrong.  Since a dark
    reading's body ring may say light (``Recogniser._dark_body_margin``, stop 42) the table's
    colours alone leave those tops doubtful too: neither reading may be confidently wrong, and
    the square's colours must read as many squares right."""
    full, table_only, squares = _read_both_ways("gobblet-jr", 4_000_037, 10)
    assert table_only.confidently_wrong == 0
    assert squares.confidently_wrong == 0
    assert squares.square_accuracy >= table_only.square_accuracy
    light, dark = (np.array(c) for c in full.table.square_colours[7])  # b3
    assert np.abs(np.log(light / dark)).max() < 0.5 * np.abs(np.log(np.array(full.table.colour.light_bgr)
                                                                     / np.array(full.table.colour.dark_bgr))).max()


def test_square_colours_read_back_apply_and_older_files_have_none(tmp_path):
    folder, table = _tiny_table(tmp_path)
    cal = open_folder(folder)[0]
    pale = [(tuple(table.colour.light_bgr), tuple(table.colour.dark_bgr))] * cal.board.squares
    pale[4] = (tuple(table.colour.light_bgr), (180.0, 170.0, 160.0))
    table = replace(table, square_colours=tuple(pale))
    path = tmp_path / "adaptation.json"
    save_adaptation(table, path)
    back = load_adaptation(path)
    assert back.square_colours is not None and np.allclose(back.square_colours, table.square_colours, atol=0.01)
    adapted = adapted_calibration(cal, back)
    rec = Recogniser(adapted)
    # square 4 compares with its own dark colour; the others with the table's
    assert not np.allclose(rec._refs(4)[0], rec._refs(None)[0])
    assert np.allclose(rec._refs(3)[0], rec._refs(None)[0])
    assert evaluate_folder(folder, "shipped", adapted).boards == 1
    # a file written before the field was measured reads, with none
    data = json.loads(path.read_text())
    data.pop("square_colours")
    path.write_text(json.dumps(data))
    assert load_adaptation(path).square_colours is None
    assert adapted_calibration(cal, load_adaptation(path)).square_colours is None
    # one of another board's squares is refused, naming the problem
    with pytest.raises(CalibrationError, match="colours for 3 squares, the board 9"):
        adapted_calibration(cal, replace(table, square_colours=table.square_colours[:3]))


@pytest.mark.parametrize("value, says", [
    ([[[1, 2, 3]]], r"'square_colours' must list, per square, the light and the dark"),
    ([[[1, 2, 3], [1, 2]]], r"square_colours\[0\]\[1\]: expected three numbers"),
    ("grey", r"'square_colours' must list"),
])
def test_damaged_square_colours_are_named(tmp_path, value, says):
    _, table = _tiny_table(tmp_path)
    path = tmp_path / "adaptation.json"
    save_adaptation(table, path)
    data = json.loads(path.read_text())
    data["square_colours"] = value
    path.write_text(json.dumps(data))
    with pytest.raises(AdaptationFileError, match=says):
        load_adaptation(path)
