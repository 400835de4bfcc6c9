"""Hands and their shadows on the board view of a real calibration (the demo camera's, made
from a rendered frame of its empty board): what is a hand, and which squares it hides."""

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.hands import ARM_HALF_MM
from vision.observation import OCCLUDED


@pytest.fixture(scope="module")
def detector_and_view():
    """The hand detector of the demo gobblet camera and that board's own empty view."""
    from companion.demo import calibrate_demo, demo_camera
    from vision.recognise import Recogniser

    camera, _ = demo_camera("gobblet", seed=5, loop=False)
    rec = Recogniser(calibrate_demo(camera))
    camera.close()
    return rec.hands, rec.cal.reference.copy()


def _band(view):
    h, w = view.shape[:2]
    return (slice(int(h * 0.4), int(h * 0.6)), slice(0, int(w * 0.6)))


def _scaled(view, region, bgr):
    out = view.copy()
    out[region] = np.clip(out[region].astype(float) * np.array(bgr), 0, 255).astype(view.dtype)
    return out


def test_a_bluish_shadow_is_no_arm(detector_and_view):
    """A long shadow from a warm lamp, filled by cooler light, darkens red most and blue
    least (here by 0.5, 0.6 and 0.75): it is shade, not an arm reaching in."""
    hands, view = detector_and_view
    found = hands.find(_scaled(view, _band(view), (0.75, 0.6, 0.5)))
    assert found.mask is None


@pytest.mark.parametrize("bgr", [(0.5, 0.6, 0.75), (0.45, 0.45, 0.7), (1.2, 0.6, 0.5)])
def test_a_darkening_a_shadow_cannot_make_is_an_arm(detector_and_view, bgr):
    """The same band darkened warmer (red least: skin), or with one channel brighter (a
    blue sleeve), is not shade: it is found as an arm."""
    hands, view = detector_and_view
    h, w = view.shape[:2]
    found = hands.find(_scaled(view, _band(view), bgr))
    assert found.mask is not None and found.mask[h // 2, w // 4] > 0


def _covering(hands, view):
    change = hands.changed(view)
    found = hands.from_changed(change.mask, change.light, None, change.shade)
    assert found.small is not None
    covering = hands.covering(change.mask, change.mask, found.small, change.cool_shade())
    return found, covering.core, covering.palm


def test_what_covers_is_the_sleeve_not_its_bluish_shadow(detector_and_view):
    """A grey sleeve reaching in, its shadow (bluish) beside it: the sleeve covers what
    lies under it, the shadow covers nothing (the squares there stay readable)."""
    hands, view = detector_and_view
    h, w = view.shape[:2]
    painted = view.copy()
    sleeve = (slice(int(h * 0.35), int(h * 0.45)), slice(0, int(w * 0.5)))
    painted[sleeve] = (90, 95, 100)
    shadow = (slice(int(h * 0.45), int(h * 0.75)), slice(0, int(w * 0.45)))
    painted = _scaled(painted, shadow, (0.7, 0.55, 0.45))
    found, core, _ = _covering(hands, painted)
    small_h, small_w = core.shape
    assert core[int(small_h * 0.4), small_w // 4]  # the sleeve
    assert not core[int(small_h * 0.7), small_w // 4]  # its shadow, beyond an arm's half-width


def test_a_blurred_picture_does_not_spread_the_hand_over_the_board(detector_and_view):
    """Out of focus, every grid line and grain of the board changes, and the hand's region,
    joined up from fragments, can spread over the whole board; what covers stays the arm and
    what lies within half an arm's width of it."""
    hands, view = detector_and_view
    h, w = view.shape[:2]
    painted = cv2.GaussianBlur(view, (0, 0), 3.0)
    band = (slice(int(h * 0.4), int(h * 0.5)), slice(0, int(w * 0.3)))
    painted[band] = (60, 90, 150)
    found, core, _ = _covering(hands, painted)
    px = ARM_HALF_MM / hands.mm_per_px
    far = int(h * 0.5 / 4 + px + 3)
    assert core[int(h * 0.45 / 4), int(w * 0.15 / 4)]
    assert not core[far:, :].any() and not core[:, int(w * 0.3 / 4 + px + 3):].any()


# -- the cups' own shadows under a low lamp ------------------------------------------------


def test_a_long_cup_shadow_reaching_the_views_edge_is_no_hand():
    """The bench's camera 6 of polygon seed 7 (Gobblet): a low lamp casts the large dark
    cups' shadows past the view's edge, and with the cups' sides they made a region that
    reached the edge as an arm does; 16 squares were said occluded with no hand anywhere.
    The shadows start at cups that are read, have their width and point away from the lamp:
    no hand, nothing hidden."""
    from hardware.pieces import load_board, load_piece_set
    from vision.evaluate import bench_cameras
    from vision.recognise import Recogniser

    pieces = load_piece_set("gobblet")
    board = load_board(pieces.default_board)
    (camera,) = bench_cameras(pieces, board, 2, seed=7, per_camera=2, first_camera=6, measure=True)
    rec = Recogniser(camera.calibration)
    for image, truth in camera.frames:
        assert not any(truth.occluded)
        obs = rec.recognise(image)
        assert not obs.hand
        assert not any(r.state == OCCLUDED for r in obs.squares)


def _low_lamp(name: str, seed: int = 1, azimuth_deg: float = 0.0, elevation_deg: float = 32.0):
    """A random scene of set ``name`` lit by one lamp low over the table (long shadows),
    its board and a recogniser calibrated on its empty board."""
    from calibration import calibrate
    from hardware.pieces import load_board, load_piece_set
    from hardware.render.scene import Imaging, Lighting
    from hardware.synthetic import empty_scene, random_scene, render_scene
    from vision.recognise import Recogniser

    pieces = load_piece_set(name)
    board = load_board(pieces.default_board)
    el, az = np.radians(elevation_deg), np.radians(azimuth_deg)
    lamp = Lighting(direction=(float(np.cos(el) * np.cos(az)), float(np.cos(el) * np.sin(az)), float(np.sin(el))),
                    ambient=0.4, shadow=0.45)
    scene = replace(random_scene(pieces, board, seed), lighting=lamp, imaging=Imaging(blur=0.5, noise=2.0))
    cal = calibrate([render_scene(empty_scene(scene), seed + 1)[0]], pieces, board, intrinsics=scene.intrinsics)
    return scene, board, Recogniser(cal)


@pytest.fixture(scope="module", params=["gobblet", "storer-clear"])
def low_lamp(request):
    return request.param, *_low_lamp(request.param)


def test_long_shadows_alone_are_no_hand(low_lamp):
    """Under the low lamp the cups' shadows run long over the board: no hand is seen and no
    square is said occluded."""
    from hardware.synthetic import render_scene

    _, scene, _, rec = low_lamp
    obs = rec.recognise(render_scene(scene, 6)[0])
    assert not obs.hand
    assert not any(r.state == OCCLUDED for r in obs.squares)


@pytest.mark.parametrize("skin,sleeve", [((170, 190, 235), (225, 228, 230)), ((60, 80, 120), (40, 40, 45))],
                         ids=["pale", "dark"])
def test_a_hand_along_the_long_shadows_is_still_found(low_lamp, skin, sleeve):
    """A pale hand in a white sleeve and a dark hand in a dark sleeve, reaching in from the
    side the shadows point to (so the arm lies along them, and a dark sleeve is as dark as
    they are): the hand is found and the square under the palm is hidden."""
    from hardware.render.scene import Hand
    from hardware.synthetic import render_scene

    _, scene, board, rec = low_lamp
    target = board.squares // 2 + 1
    tx, ty = board.square_centre(target)
    # the lamp is at azimuth 0 (+x): the shadows, and the arm, come from -x
    hand = Hand(target=(tx, ty), height=90.0, entry=(board.width_mm / 2 - 400.0, board.depth_mm / 2),
                skin_bgr=skin, sleeve_bgr=sleeve)
    image, truth = render_scene(replace(scene, hands=(hand,)), 6)
    assert truth.occluded[target]
    obs = rec.recognise(image)
    assert obs.hand
    assert obs.squares[target].state == OCCLUDED


# -- the shaded look: dark cups' long shadows over much of the board -------------------------


def _shaded_camera(seed: int, first: int, hands: int, name: str = "gobblet"):
    """Camera ``first`` of the bench's shaded look for ``seed`` (the set ``name``, measured),
    its two frames with ``hands`` hands, and its recogniser."""
    from hardware.pieces import load_board, load_piece_set
    from vision.evaluate import bench_cameras
    from vision.recognise import Recogniser

    pieces = load_piece_set(name)
    board = load_board(pieces.default_board)
    (camera,) = bench_cameras(pieces, board, 2, seed=seed, per_camera=2, hands=hands, first_camera=first,
                              measure=True, style="shaded")
    return camera, Recogniser(camera.calibration)


@pytest.mark.parametrize("seed,first", [(43, 6), (44, 16)], ids=["pale-board", "black-board"])
def test_the_cups_shadows_over_much_of_the_board_are_no_hand(seed, first):
    """Seed 43 camera 6: dark cups cast long shadows over most of a pale board; its second
    frame had all 16 squares said occluded with no hand anywhere (the light's change, fitted
    to every point first, dipped under the cups and their shadows, so the lit board beside
    them read as changed and joined them to the view's edge).  Seed 44 camera 16: long
    shadows over a black board and on out over the table; its first frame had 9 (a piece of
    shadow the cups' shadows were not followed onto, taken for an arm's own part).  No hand
    is seen and no square is said occluded."""
    camera, rec = _shaded_camera(seed, first, 0)
    for image, truth in camera.frames:
        assert not any(truth.occluded)
        obs = rec.recognise(image)
        assert not obs.hand
        assert not any(r.state == OCCLUDED for r in obs.squares)


def test_a_hand_among_the_cups_long_shadows_is_still_seen():
    """Seed 43 camera 6's frames with a hand reaching in among those shadows: the hand is
    seen and every square it hides is said occluded or read right (none read wrong under
    it; a fingertip over the edge of one light cup in the first frame, whose shadow no
    longer counts as covering, leaves it read right, as the bench counts it)."""
    camera, rec = _shaded_camera(43, 6, 1)
    for image, truth in camera.frames:
        assert any(truth.occluded)
        obs = rec.recognise(image)
        assert obs.hand
        assert all(r.state == OCCLUDED or r.top == top
                   for r, hidden, top in zip(obs.squares, truth.occluded, truth.tops) if hidden)


# -- the shaded look: two lamps' shadows, and an arm beside the board ---------------------------


def test_two_lamps_shadows_that_keep_the_boards_texture_are_no_hand():
    """Seed 11 camera 12: two lamps over a brown board, each cup casting two long shadows; where
    they cross the board is lit by the room's fill alone, darker than one shadow can be, and
    the fill (3,190 K) is warmer than one lamp (3,730 K), so the shadows turned redder: not
    shade by colour.  With the cups and the checked table they reached the view's edge and its
    first frame had all 16 squares said occluded with no hand anywhere.  The board's grain
    and lines show through them: no hand, nothing hidden."""
    camera, rec = _shaded_camera(11, 12, 0)
    for image, truth in camera.frames:
        assert not any(truth.occluded)
        obs = rec.recognise(image)
        assert not obs.hand
        assert not any(r.state == OCCLUDED for r in obs.squares)


@pytest.mark.parametrize("first,frame", [(8, 1), (13, 0), (16, 0)])
def test_an_arm_beside_the_board_is_seen(first, frame):
    """Seed 11 with a hand: a hand reaching in over a corner (camera 8), an arm lying beside
    the board (camera 13) and a pale hand over a pale table (camera 16), each over under
    1,800 mm2 of the board once the cups read under it are taken out, so taken for no hand;
    the squares under the fingers were read (wrongly on cameras 8 and 13).  The arm is solid
    change of its own colour beside the board: the hand is seen and every square it hides is
    said occluded."""
    camera, rec = _shaded_camera(11, first, 1)
    image, truth = camera.frames[frame]
    assert any(truth.occluded)
    obs = rec.recognise(image)
    assert obs.hand
    assert all(r.state == OCCLUDED for r, hidden in zip(obs.squares, truth.occluded) if hidden)


# -- the shaded look: what a hand found covers (issue 19) ----------------------------------------


def test_the_cloth_and_cups_a_false_hand_joined_hide_no_square():
    """Seed 97 camera 3, second frame: no hand; a checked cloth changed beside the board and
    the tall light cups' unexplained sides joined it to the view's edge, and 8 squares were
    said occluded.  The board's and the cloth's texture show through all of it but the cups,
    which no covering part reaches: no square is said occluded."""
    camera, rec = _shaded_camera(97, 3, 0)
    image, truth = camera.frames[1]
    assert not any(truth.occluded)
    obs = rec.recognise(image)
    assert not any(r.state == OCCLUDED for r in obs.squares)


def test_a_hands_shadow_over_the_board_hides_nothing_the_hand_does_not():
    """Seed 97 camera 4, first frame: a hand over the near corner (3 squares hidden) casts a
    wide grey shadow over most of the board, no shade by colour under that table's lamps;
    9 squares the shadow only darkened were said occluded.  The board's lines show through
    the shadow: every hidden square is said occluded, and at most one more."""
    camera, rec = _shaded_camera(97, 4, 1)
    image, truth = camera.frames[0]
    assert any(truth.occluded)
    obs = rec.recognise(image)
    assert obs.hand
    said = [r.state == OCCLUDED for r in obs.squares]
    assert all(s for s, hidden in zip(said, truth.occluded) if hidden)
    assert sum(s and not hidden for s, hidden in zip(said, truth.occluded)) <= 1


def test_a_top_in_a_hands_shadow_is_not_read_wrong_with_confidence():
    """Storer's clear set, tuning seed 109 camera 7, second frame: a hand beside the board,
    hiding no square, casts its shadow over two light tops (a 1 and a 2), which read dark
    at 0.86 and 0.89, over the referee's commit.  Where the cups read leave a change of light
    over a square, the reading is doubted: nothing is read wrong at or above the commit,
    and the tops in the shadow keep their labels under it."""
    from vision.evaluate import COMMIT
    from vision.recognise import SHADOW_DOUBT

    camera, rec = _shaded_camera(109, 7, 1, "storer-clear")
    image, truth = camera.frames[1]
    obs = rec.recognise(image)
    assert obs.hand
    assert not [sq for sq, (r, top) in enumerate(zip(obs.squares, truth.tops))
                if r.state != OCCLUDED and r.top != top and r.confidence >= COMMIT]
    assert {1, 3} <= set(rec.last_shadowed.tolist())
    assert all(obs.squares[sq].confidence <= SHADOW_DOUBT for sq in (1, 3))


# -- the shaded look: squares beside a hand, said occluded though no hand hid them (stop 43) --------


def _said_and_hidden(rec, image, truth):
    obs = rec.recognise(image)
    said = {sq for sq, r in enumerate(obs.squares) if r.state == OCCLUDED}
    hidden = {sq for sq, h in enumerate(truth.occluded) if h}
    return obs, said, hidden


def test_the_shade_round_cups_beside_an_arm_hides_nothing():
    """Tuning seed 5 camera 0, first frame: an arm over the first two rows; the dark cups
    beyond it stand in its shade.  The board's texture shows through that shade, but the
    windows it was judged over held the cups' sides, which hide the board under them, so
    the shade round the cups read as covered and 5 squares no hand hid were said occluded
    (10, 11, 13, 14 and 15).  The cups read are left out of those windows: 13, 14 and 15
    are read, and every square the arm hides is still said occluded."""
    camera, rec = _shaded_camera(5, 0, 1)
    image, truth = camera.frames[0]
    obs, said, hidden = _said_and_hidden(rec, image, truth)
    assert obs.hand
    assert hidden <= said
    assert not said & {13, 14, 15}


def test_a_square_the_arms_reach_only_grazes_keeps_its_label_doubted():
    """Tuning seed 7 camera 3, second frame: an arm along the first column.  The hand's
    region within half an arm's width (45 mm) of what is seen solid covers 4-15 % of the
    squares 1 and 5 beside it, which no hand hides; both were said occluded.  They keep
    their labels (read right), under the referee's commit; the column the arm lies on is
    still said occluded."""
    from vision.recognise import REACH_DOUBT

    camera, rec = _shaded_camera(7, 3, 1)
    image, truth = camera.frames[1]
    obs, said, hidden = _said_and_hidden(rec, image, truth)
    assert obs.hand
    assert hidden <= said
    assert {1, 5} <= set(rec.last_grazed.tolist())
    for sq in (1, 5):
        assert obs.squares[sq].state != OCCLUDED
        assert obs.squares[sq].top == truth.tops[sq]
        assert obs.squares[sq].confidence <= REACH_DOUBT


# -- the shaded look: the cups' shadows a hand's region joined (stop 44) ---------------------------


def test_the_cups_shadows_joined_to_a_hand_hide_nothing():
    """Storer's clear set, tuning seed 149 camera 3, first frame: a hand over the far two rows;
    the dark cups' long shadows reach across the board and join the hand's region.  They are
    no bluish shade and the board's texture did not show through them enough, so they counted
    as covering, and squares 3, 7 and 11 that no hand hid were said occluded.  The read cups'
    cast shadows (``HandDetector.cast_shadows``) cover nothing: those squares are read, and
    every square the hand hides is still said occluded."""
    camera, rec = _shaded_camera(149, 3, 1, "storer-clear")
    image, truth = camera.frames[0]
    obs, said, hidden = _said_and_hidden(rec, image, truth)
    assert obs.hand
    assert hidden <= said
    assert not said & {3, 7, 11}
