"""Measuring the user's own set at calibration (``vision.set_measure``) on rendered tables:
a set whose real cups differ from its file is read right once measured, the players' colours
come from the cups, and a picture that is not the layout is refused or advised on by name."""

import json
from dataclasses import replace

import numpy as np
import pytest

from calibration import calibrate
from calibration.model import CalibrationError, from_json, to_json
from hardware.pieces import load_board, load_piece_set
from hardware.render.scene import random_offsets
from hardware.synthetic import empty_scene, random_scene, render_scene
from vision.observation import CUP, EMPTY
from vision.evaluate import COMMIT, bench_cameras, layout_scene
from vision.recognise import Recogniser
from vision.set_measure import describe_layout, measure_set, set_layout

SHRINK = 0.88  # the real cups' diameters, as a share of what the set file says


def _table(pieces, board, seed):
    base = random_scene(pieces, board, seed, difficulty=0.6)
    return base, render_scene(empty_scene(base), seed + 1)[0]


def _with_cups(base, cups, seed):
    position = [() for _ in range(base.board.squares)]
    for square, cup in cups:
        position[square] = (cup,)
    pos = tuple(position)
    offsets = random_offsets(base.board, base.pieces, pos, np.random.default_rng(seed), 0.6)
    return render_scene(replace(base, position=pos, offsets=offsets), seed + 2)[0]


def _layout_frame(base, file_set, seed, swap=False, drop=()):
    cups = [(c.square, (1 - c.colour if swap else c.colour, c.size))
            for k, c in enumerate(set_layout(base.board, file_set)) if k not in drop]
    return _with_cups(base, cups, seed)


def _read(cal, image, square_net="default"):
    obs = Recogniser(cal, square_net=square_net).recognise(image)
    return [None if r.state == EMPTY else (r.colour, r.size) if r.state == CUP else "hidden" for r in obs.squares]


def test_the_layout_puts_every_size_in_both_colours_on_its_own_square():
    for name in ("gobblet", "gobblet-jr", "storer-clear"):
        pieces = load_piece_set(name)
        board = load_board(pieces.default_board)
        layout = set_layout(board, pieces)
        assert sorted((c.colour, c.size) for c in layout) == [(k, s) for k in (0, 1) for s in range(len(pieces.sizes))]
        assert len({c.square for c in layout}) == len(layout)
        shown = describe_layout(board, pieces)
        assert shown[0] == {"square": "a1", "colour": "light", "size": 1, "size_name": pieces.sizes[0].name}
        assert shown[-1]["colour"] == "dark" and shown[-1]["size"] == len(pieces.sizes)


def test_a_set_smaller_than_its_file_reads_right_once_measured():
    """The user's cups are 12 % narrower than the set file says (another maker, a rounded top):
    read with the file's numbers, a quarter of the squares go wrong; measured at calibration,
    the edge scales come out near 0.88 and the board reads right."""
    file_set = load_piece_set("gobblet")
    board = load_board(file_set.default_board)
    real = replace(file_set, sizes=tuple(replace(s, outer_diameter_mm=s.outer_diameter_mm * SHRINK,
                                                 top_diameter_mm=s.top_diameter_mm * SHRINK) for s in file_set.sizes))
    right = {"file": 0, "measured": 0}
    squares = 0
    for cam in range(2):
        base, empty = _table(real, board, 5000 + cam)
        cal = calibrate([empty], file_set, board, intrinsics=base.intrinsics)
        m = measure_set(cal, _layout_frame(base, file_set, cam))
        assert m.advice == () and all(m.found)
        scales = np.array(m.edge_scale)
        assert np.sum(np.abs(scales - SHRINK) < 0.04) >= 3, scales
        assert m.calibration.colour.source == "set"
        # the measurement survives the calibration file
        assert from_json(json.loads(json.dumps(to_json(m.calibration)))).sizes == m.calibration.sizes
        for j in range(3):
            sc = random_scene(real, board, 9000 + cam * 10 + j, intrinsics=base.intrinsics, pose=base.pose,
                              difficulty=0.6)
            image, truth = render_scene(replace(sc, table_bgr=base.table_bgr, texture_variant=base.texture_variant), j)
            squares += board.squares
            for key, c in (("file", cal), ("measured", m.calibration)):
                right[key] += sum(g == t for g, t in zip(_read(c, image), truth.tops))
    assert right["measured"] >= 0.95 * squares, right
    assert right["measured"] >= right["file"] + 0.1 * squares, right


@pytest.fixture(scope="module")
def jr_table():
    pieces = load_piece_set("gobblet-jr")
    board = load_board(pieces.default_board)
    base, empty = _table(pieces, board, 77)
    return pieces, base, calibrate([empty], pieces, board, intrinsics=base.intrinsics)


def test_the_set_as_the_file_says_is_measured_as_it_says_with_its_colours(jr_table):
    pieces, base, cal = jr_table
    m = measure_set(cal, _layout_frame(base, pieces, 1))
    assert np.allclose(m.edge_scale, 1.0, atol=0.03) and m.advice == ()
    light, dark = (np.array(c) for c in (m.calibration.colour.light_bgr, m.calibration.colour.dark_bgr))
    # Jr.'s light player is orange, its dark player blue: red over blue tells them apart
    assert light[2] > light[0] and dark[0] > dark[2]


def test_swapped_colours_are_refused_by_name(jr_table):
    pieces, base, cal = jr_table
    with pytest.raises(CalibrationError, match=r"a1, b1, c1 should be the \w+ ones.*swap them"):
        measure_set(cal, _layout_frame(base, pieces, 2, swap=True))


def test_a_missing_cup_is_named_and_most_missing_is_refused(jr_table):
    pieces, base, cal = jr_table
    m = measure_set(cal, _layout_frame(base, pieces, 3, drop=(1,)))
    assert m.found.count(False) == 1 and not m.found[1]
    assert len(m.advice) == 1 and "a light size 2 on b1" in m.advice[0]
    # light 1 and 2 and dark 1 and 2 gone: each player shows a top, most are missing
    with pytest.raises(CalibrationError, match="most of the set's cups were not found"):
        measure_set(cal, _layout_frame(base, pieces, 4, drop=(0, 1, 3, 4)))
    with pytest.raises(CalibrationError, match="most of the set's cups were not found"):
        measure_set(cal, _layout_frame(base, pieces, 4, drop=tuple(range(6))))


def test_a_calibration_file_with_an_implausible_edge_scale_is_refused(jr_table):
    _, _, cal = jr_table
    data = json.loads(json.dumps(to_json(cal)))
    data["size_classes"][1]["edge_scale"] = 3.0
    with pytest.raises(CalibrationError, match=r"size_classes\[1\]\.edge_scale"):
        from_json(data)
    del data["size_classes"][1]["edge_scale"]  # files from before the measurement read as 1.0
    assert from_json(data).sizes[1].edge_scale == 1.0


def test_a_lamp_mirrored_in_the_tops_is_advice_not_a_refusal():
    """Gobblet Jr.'s blue tops, glossy under a warm lamp right above the board, look white and
    brighter than the orange ones (the held-out shaded look, a table ``bench/adapt.py`` uses):
    the calibration is not refused for that light, and the advice says what to change."""
    pieces = load_piece_set("gobblet-jr")
    board = load_board(pieces.default_board)
    seed = 4_000_037
    base = random_scene(pieces, board, seed, style="shaded")
    cal = calibrate([render_scene(empty_scene(base), seed + 1)[0]], pieces, board, intrinsics=base.intrinsics)
    frame = render_scene(layout_scene(base, 1), seed + 2)[0]
    m = measure_set(cal, frame)
    assert any("dark cups' tops mirror the lamp" in a for a in m.advice), m.advice


def test_the_set_measured_teaches_the_model_on_tables_it_was_not_fitted_on():
    """Held-out tables (the shaded look, which the shipped model was not fitted on): the
    calibration measured on the set's layout carries a model trained further on that one
    picture, keeps it through its file, and misreads fewer squares of the tables' other
    boards than the shipped model does with the same calibration.  (The square model alone:
    the square net, a second reader, would hide what the model learnt.)  The gain shrank as
    the readings themselves got better (shipped 7 -> 4 misreads here once walls were read one
    size up and lamp shadows no longer taken for arms; learnt 3 either way)."""
    from vision.evaluate import bench_cameras

    pieces = load_piece_set("gobblet")
    board = load_board(pieces.default_board)
    errors = {"shipped": 0, "learnt": 0}
    for camera in bench_cameras(pieces, board, 12, seed=3, style="shaded", measure=True):
        learnt = from_json(json.loads(json.dumps(to_json(camera.calibration))))
        assert learnt.square_model is not None and learnt.square_model == camera.calibration.square_model
        for name, cal in (("shipped", replace(learnt, square_model=None)), ("learnt", learnt)):
            for image, truth in camera.frames:
                errors[name] += sum(seen != (None if top is None else tuple(top))
                                    for seen, top in zip(_read(cal, image, None), truth.tops))
    print(errors)
    assert errors["learnt"] < errors["shipped"]


def test_a_damaged_learnt_model_in_a_calibration_file_is_named(jr_table):
    pieces, base, cal = jr_table
    data = json.loads(json.dumps(to_json(measure_set(cal, _layout_frame(base, pieces, 1)).calibration)))
    data["square_model"]["materials"]["opaque"]["linear"] = [1.0, 2.0]
    with pytest.raises(CalibrationError, match=r"square_model: opaque\.linear has shape"):
        Recogniser(from_json(data))
    data["square_model"] = "weights"
    with pytest.raises(CalibrationError, match="square_model must be an object"):
        from_json(data)


def test_light_tops_as_pale_as_the_board_are_measured_with_advice_not_refused():
    """Shaded look, Gobblet on its cream board under a soft lamp (the vision bench's seed 5,
    camera 13): the light tops show no edge the search can find, yet stand there plainly.  The
    calibration is kept, their colour read where they were put, and the advice says so."""
    pieces = load_piece_set("gobblet")
    board = load_board(pieces.default_board)
    cam_seed = 5 * 1_000_003 + 13 * 7919
    base = random_scene(pieces, board, cam_seed, style="shaded")
    cal = calibrate([render_scene(empty_scene(base), cam_seed + 1)[0]], pieces, board, intrinsics=base.intrinsics)
    m = measure_set(cal, render_scene(layout_scene(base, board.squares), cam_seed + 2)[0])
    layout = set_layout(board, pieces)
    assert not any(ok for c, ok in zip(layout, m.found) if c.colour == 0)  # no light edge found
    assert all(ok for c, ok in zip(layout, m.found) if c.colour == 1)
    faint = [a for a in m.advice if "edges hardly show" in a]
    assert len(faint) == 1 and "a light size 4 on d1" in faint[0]
    assert not any(a.startswith("no top was found") for a in m.advice)  # said once, not twice
    light, dark = np.asarray(m.calibration.colour.light_bgr), np.asarray(m.calibration.colour.dark_bgr)
    assert light.sum() > 2 * dark.sum()  # the light tops' own colour, not refused as missing


def test_pale_light_tops_and_one_dark_cup_unseen_are_advice_not_a_refusal():
    """The same table as above (seed 5, camera 13, light tops without an edge) with the dark
    size 3 left off: the light player is read where its cups were put, and the picture is
    judged on the dark cups, three of four found.  It was refused as "most of the set's cups
    were not found" (5 of 8), which refused the light."""
    pieces = load_piece_set("gobblet")
    board = load_board(pieces.default_board)
    cam_seed = 5 * 1_000_003 + 13 * 7919
    base = random_scene(pieces, board, cam_seed, style="shaded")
    cal = calibrate([render_scene(empty_scene(base), cam_seed + 1)[0]], pieces, board, intrinsics=base.intrinsics)
    layout = set_layout(board, pieces)
    scene = layout_scene(base, board.squares)
    dark_3 = next(c.square for c in layout if c.colour == 1 and c.size == 2)
    scene = replace(scene, position=tuple(() if k == dark_3 else p for k, p in enumerate(scene.position)))
    m = measure_set(cal, render_scene(scene, cam_seed + 2)[0])
    assert not any(ok for c, ok in zip(layout, m.found) if c.colour == 0)
    assert [ok for c, ok in zip(layout, m.found) if c.colour == 1] == [True, True, False, True]
    assert any("edges hardly show" in a for a in m.advice)
    assert any(a.startswith("no top was found for a dark size 3 on b4") for a in m.advice), m.advice


def test_light_plugs_read_on_their_shadow_do_not_make_the_light_player_dark():
    """Shaded look, Storer's clear set under a dim lamp from a high camera (the vision bench's
    tuning seed 97, camera 0): three of the five light tops' places were found on their shadow
    (a pale plug's white rim barely shows, the tall solid smallest shows its wall), and their
    near-black colour made the light player's: the light cups of the camera's first position
    were then read dark at commit confidence.  Those tops are left out of the light player's
    colour (``_light_looking``); the two read on their plugs give it, and no light cup in
    play is read dark with confidence."""
    pieces = load_piece_set("storer-clear")
    board = load_board(pieces.default_board)
    camera = next(bench_cameras(pieces, board, 1, 97, measure=True, style="shaded"))  # measures the set
    colour = camera.calibration.colour
    light, dark = np.asarray(colour.light_bgr), np.asarray(colour.dark_bgr)
    assert light.sum() > 2 * dark.sum(), (light, dark)
    image, truth = camera.frames[0]
    obs = Recogniser(camera.calibration).recognise(image)
    light_tops = [sq for sq, top in enumerate(truth.tops) if top is not None and top[0] == 0]
    assert len(light_tops) >= 5
    wrong = [sq for sq in light_tops if obs.squares[sq].state == CUP and obs.squares[sq].colour == 1
             and obs.squares[sq].confidence >= COMMIT]
    assert not wrong, wrong
