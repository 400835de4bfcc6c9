"""The Cups set-up (``calibration.cups``) on rendered Cups tables: the play area's four corners
tapped (their true projections plus a tap's noise) give the camera, each container tapped
lands where the renderer put it, the rims are found by themselves, and the set-up saved in a
data folder is read back whole, or refused with the file and the field named.

The finding was tuned on seeds 0-29; these tests use seeds from 100."""

import json
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.cups import (
    BEAN_MM,
    SETUP_FILE,
    CupsSetupError,
    check_placed,
    check_taps,
    container_label,
    find_containers,
    fix_from_corners,
    fix_from_markers,
    load_cups_setup,
    make_setup,
    play_area_board,
    play_area_corners,
    save_cups_setup,
    taps_to_table,
    tap_order,
    template_layout,
)
from engine.files import TMP_SUFFIX
from hardware.camera_model import project
from hardware.markers import marker_corners_world, marker_image, tile_side
from hardware.pieces import load_board
from hardware.cups.layout import load_layout
from hardware.cups.state import TableState, start_state
from hardware.render.cups import arrange, random_cups_scene, render_cups
from vision.cups.reader import CupsReader

TAP_PX = 1.5  # a careful tap on a still shown at full size


def in_view(layout, seed: int) -> bool:
    """Whether the rendered camera of ``seed`` sees the play area's four corners."""
    scene = random_cups_scene(layout, start_state(layout.cups_per_row), seed)
    uv = project(play_area_corners(layout), scene.intrinsics, scene.pose)
    w, h = scene.intrinsics.width, scene.intrinsics.height
    return bool((uv[:, 0] > 5).all() and (uv[:, 1] > 5).all() and (uv[:, 0] < w - 5).all() and (uv[:, 1] < h - 5).all())


def tables(name: str, count: int, start: int = 100):
    """``count`` rendered tables of layout ``name`` whose play area is wholly in view: (layout,
    scene, image, truth, seed), both looks in turn."""
    layout = load_layout(name)
    out = []
    seed = start
    while len(out) < count:
        if in_view(layout, seed):
            scene = random_cups_scene(layout, start_state(layout.cups_per_row), seed,
                                      style=("daylight", "lamplight")[len(out) % 2])
            image, truth = render_cups(scene, seed)
            out.append((layout, scene, image, truth, seed))
        seed += 1
    return out


def true_centres(scene) -> np.ndarray:
    return np.array([scene.centre(i) for i in range(len(scene.layout.containers))])


def tapped_corners(layout, truth, rng) -> list:
    return (project(play_area_corners(layout), truth.intrinsics, truth.pose) + rng.normal(0, TAP_PX, (4, 2))).tolist()


def tapped_rims(scene, truth, rng) -> list:
    lay = scene.layout
    rims = np.column_stack([true_centres(scene), [c.height_mm for c in lay.containers]])
    return (project(rims, truth.intrinsics, truth.pose) + rng.normal(0, TAP_PX, (len(rims), 2))).tolist()


@pytest.fixture(scope="module")
def rendered():
    return tables("cups-4", 3) + tables("cups-6", 3)


def test_tapped_corners_give_the_camera_and_tapped_containers_land_where_they_stand(rendered):
    worst_px, offs = [], []
    for k, (layout, scene, image, truth, _) in enumerate(rendered):
        rng = np.random.default_rng(k)
        fix = fix_from_corners(tapped_corners(layout, truth, rng), layout, image.shape[1], image.shape[0],
                               truth.intrinsics.model)
        assert fix.error_px < 6 and fix.lens == "named"
        assert abs(fix.pose.height - truth.pose.height) < 0.03 * truth.pose.height
        # the table plane: a grid over the play area lands within a few pixels of the truth
        grid = np.array([[x, y, 0.0] for x in np.linspace(0, layout.width_mm, 6) for y in np.linspace(0, layout.depth_mm, 5)])
        drift = np.linalg.norm(project(grid, fix.intrinsics, fix.pose) - project(grid, truth.intrinsics, truth.pose), axis=1)
        worst_px.append(drift.max())
        centres = taps_to_table(tapped_rims(scene, truth, rng), layout, fix)
        offs += list(np.hypot(*(centres - true_centres(scene)).T))
    assert max(worst_px) < 8, worst_px
    assert np.median(offs) < 4 and max(offs) < 12, (np.median(offs), max(offs))


def lay_markers(image: np.ndarray, layout, truth, markers) -> np.ndarray:
    """``image`` with the marker sheet's four tiles laid at the play area's corners (drawn over
    the rendered frame through the true camera, lens included)."""
    out = image.copy()
    board = play_area_board(layout, markers)
    grow = tile_side(board) / markers.size_mm
    for mid, corners in marker_corners_world(board).items():
        centre = corners.mean(axis=0)
        tile = project(centre + (corners - centre) * grow, truth.intrinsics, truth.pose)
        cv2.fillConvexPoly(out, np.round(tile).astype(np.int32), (235, 238, 240))
        side = 120
        mark = cv2.cvtColor(marker_image(markers.dictionary, mid, side), cv2.COLOR_GRAY2BGR)
        uv = project(corners, truth.intrinsics, truth.pose).astype(np.float32)
        square = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
        H = cv2.getPerspectiveTransform(square, uv)
        size = (image.shape[1], image.shape[0])
        warped = cv2.warpPerspective(mark, H, size, flags=cv2.INTER_AREA)
        inside = cv2.warpPerspective(np.full((side, side), 255, np.uint8), H, size) > 127
        out[inside] = (warped[inside] * 0.85 + 20).astype(np.uint8)  # printed black is not black
    return out


def markers_in_view(layout, seed: int, markers) -> bool:
    """Whether the rendered camera of ``seed`` sees the four marker tiles at the play area's corners."""
    scene = random_cups_scene(layout, start_state(layout.cups_per_row), seed)
    corners = np.concatenate(list(marker_corners_world(play_area_board(layout, markers)).values()))
    uv = project(corners, scene.intrinsics, scene.pose)
    w, h = scene.intrinsics.width, scene.intrinsics.height
    return bool((uv > 5).all() and (uv[:, 0] < w - 5).all() and (uv[:, 1] < h - 5).all())


def marked_tables(name: str, count: int, start: int = 100):
    """Rendered tables whose camera sees the four marker tiles at the play area's corners."""
    layout = load_layout(name)
    markers = load_board("gobblet-4x4").markers
    out, seed = [], start
    while len(out) < count:
        if markers_in_view(layout, seed, markers):
            scene = random_cups_scene(layout, start_state(layout.cups_per_row), seed)
            image, truth = render_cups(scene, seed)
            out.append((layout, scene, lay_markers(image, layout, truth, markers), truth, markers))
        seed += 1
    return out


def test_the_marker_sheets_tiles_at_the_corners_give_the_camera():
    """The markers give 16 corners instead of four taps: the camera within a per cent through
    the right lens; ``auto`` picks it or says it assumed the standard one (as from a board's
    markers, a camera looking nearly straight down cannot tell it)."""
    for layout, scene, image, truth, markers in marked_tables("cups-4", 2) + marked_tables("cups-6", 2):
        found = fix_from_markers(image, layout, markers)
        assert found.intrinsics.model == truth.intrinsics.model or found.lens == "assumed"
        fix = fix_from_markers(image, layout, markers, truth.intrinsics.model)
        assert fix.lens == "named" and fix.error_px < 2
        assert abs(fix.pose.height - truth.pose.height) < 0.01 * truth.pose.height
        grid = np.array([[x, y, 0.0] for x in np.linspace(0, layout.width_mm, 6) for y in np.linspace(0, layout.depth_mm, 5)])
        drift = np.linalg.norm(project(grid, fix.intrinsics, fix.pose) - project(grid, truth.intrinsics, truth.pose), axis=1)
        assert drift.max() < 3, drift.max()
        # without the tiles: refused, saying to tap the corners
        with pytest.raises(CupsSetupError, match=r"markers \[0, 1, 2, 3\] .* none seen: tap the corners instead"):
            fix_from_markers(render_cups(scene, 1)[0], layout, markers)


def test_the_lens_is_told_by_the_corners_where_they_can_tell_it():
    """The rendered cameras are mostly the wide module, at a slant: through the standard lens
    four corners put it 1.6 times too high.  ``auto`` keeps the lens the corners fit plainly
    best; where none stands out (nearly straight down), the standard one."""
    picked = []
    for k, (layout, scene, image, truth, _) in enumerate(tables("cups-6", 6, 0)):
        fix = fix_from_corners(tapped_corners(layout, truth, np.random.default_rng(k)), layout, 1280, 720, "auto")
        picked.append((fix.intrinsics.model, truth.intrinsics.model))
        assert fix.lens == ("assumed" if fix.intrinsics.model == "pi3" else "corners")
        if fix.intrinsics.model == truth.intrinsics.model:
            assert abs(fix.pose.height - truth.pose.height) < 0.03 * truth.pose.height
    assert sum(a == b for a, b in picked) >= 4, picked


def test_a_rim_tapped_is_placed_at_its_height_not_where_its_picture_meets_the_table(rendered):
    layout, scene, image, truth, _ = rendered[0]
    fix = fix_from_corners(project(play_area_corners(layout), truth.intrinsics, truth.pose).tolist(), layout,
                           image.shape[1], image.shape[0], truth.intrinsics.model)
    rims = np.column_stack([true_centres(scene), [c.height_mm for c in layout.containers]])
    exact = taps_to_table(project(rims, truth.intrinsics, truth.pose).tolist(), layout, fix)
    assert np.abs(exact - true_centres(scene)).max() < 0.5
    # the same pixels read on the table plane would be off by the rim's parallax: centimetres
    flat = cv2.perspectiveTransform(project(rims, truth.intrinsics, truth.pose)[None],
                                    np.linalg.inv(make_setup(layout, fix, exact, image, 10.5).calibration.H))[0]
    assert np.hypot(*(flat - true_centres(scene)).T).max() > 10


def test_the_rims_are_found_where_the_renderer_put_them(rendered):
    offs = []
    for k, (layout, scene, image, truth, _) in enumerate(rendered):
        fix = fix_from_corners(tapped_corners(layout, truth, np.random.default_rng(k)), layout,
                               image.shape[1], image.shape[0], truth.intrinsics.model)
        found = find_containers(image, layout, fix)
        assert all(f is not None for f in found), (k, found)
        offs += list(np.hypot(*(np.array(found) - true_centres(scene)).T))
    assert np.median(offs) < 4 and max(offs) < 10, (np.median(offs), max(offs))


def test_nothing_is_found_where_the_table_has_no_container(rendered):
    layout, scene, image, truth, _ = rendered[1]
    fix = fix_from_corners(project(play_area_corners(layout), truth.intrinsics, truth.pose).tolist(), layout,
                           image.shape[1], image.shape[0], truth.intrinsics.model)
    # every container expected half a cup's pitch east of where it stands: between two cups, or
    # on bare table, no rim of its size is centred within reach
    shifted = replace(layout, containers=tuple(replace(c, x_mm=c.x_mm + 47) for c in layout.containers))
    assert sum(f is not None for f in find_containers(image, shifted, fix, reach_mm=20)) <= 1
    assert all(f is not None for f in find_containers(image, layout, fix, reach_mm=20))


def test_the_taps_are_checked_and_named():
    layout = load_layout("cups-4")
    assert tap_order(layout)[:2] == ["South's cup 1 (from South's left)", "South's cup 2 (from South's left)"]
    assert tap_order(layout)[4] == "North's cup 1 (from North's left)"
    assert tap_order(layout)[8:] == ["South's bowl", "North's bowl", "South's stock", "North's stock"]
    with pytest.raises(CupsSetupError, match=r"tap 2 \(South's cup 2 \(from South's left\)\) .* outside the 1280x720"):
        check_taps([[10, 10], [1300, 10]], layout, 1280, 720)
    with pytest.raises(CupsSetupError, match="12 containers; got 13"):
        check_taps([[10, 10]] * 13, layout, 1280, 720)
    with pytest.raises(CupsSetupError, match=r"\[x, y\]"):
        check_taps([[10, "a"]], layout, 1280, 720)
    with pytest.raises(CupsSetupError, match="South's cup 2 .* overlaps South's cup 1 .* by 45 mm"):
        check_placed(layout, np.array([[232.5, 222.5], [262.5, 222.5]]))
    with pytest.raises(CupsSetupError, match="South's cup 1 .* outside the play area"):
        check_placed(layout, np.array([[-100.0, 222.5]]))
    with pytest.raises(CupsSetupError, match="tap exactly four corners"):
        fix_from_corners([[1, 1], [100, 1], [100, 100]], layout, 1280, 720)
    with pytest.raises(CupsSetupError, match="wrong way: start at South's left"):
        fix_from_corners([[100, 600], [100, 100], [1100, 100], [1100, 600]], layout, 1280, 720)
    with pytest.raises(CupsSetupError, match="unknown camera module"):
        fix_from_corners([[100, 600], [1100, 600], [1100, 100], [100, 100]], layout, 1280, 720, "webcam")
    assert container_label(layout.bowl("north")) == "North's bowl"


def test_a_layout_for_the_users_own_play_area():
    own = template_layout(5, 800, 560)
    assert own.cups_per_row == 5 and (own.width_mm, own.depth_mm) == (800, 560)
    assert len(own.containers) == 14
    big = template_layout(4, 800, 560, cup_mm=90, cup_height_mm=40)
    assert {(c.diameter_mm, c.height_mm) for c in big.cups("south") + big.cups("north")} == {(90, 40)}
    with pytest.raises(CupsSetupError, match="4 cups 130 mm across and two bowls do not fit in a row 800 mm wide"):
        template_layout(4, 800, 560, cup_mm=130)
    with pytest.raises(CupsSetupError, match="a cup's height must be from 0 to 300 mm"):
        template_layout(4, 800, 560, cup_height_mm=-5)
    with pytest.raises(CupsSetupError, match="too narrow for 10 cups"):
        template_layout(10, 400, 560)
    with pytest.raises(CupsSetupError, match="cups a side"):
        template_layout(2, 800, 560)
    with pytest.raises(CupsSetupError, match="depth must be from 200"):
        template_layout(4, 800, 50)


@pytest.fixture(scope="module")
def setup(rendered):
    layout, scene, image, truth, seed = rendered[0]
    rng = np.random.default_rng(7)
    fix = fix_from_corners(tapped_corners(layout, truth, rng), layout, image.shape[1], image.shape[0],
                           truth.intrinsics.model)
    return make_setup(layout, fix, taps_to_table(tapped_rims(scene, truth, rng), layout, fix), image,
                      BEAN_MM[scene.look.beans.name]), scene, seed


def test_the_setup_is_saved_and_read_back_and_the_reader_sees_with_it(setup, tmp_path):
    made, scene, seed = setup
    path = save_cups_setup(tmp_path, made)
    assert path == tmp_path / SETUP_FILE and not list(tmp_path.glob(f"*{TMP_SUFFIX}"))
    frames = list(tmp_path.glob("cups-empty-*.png"))
    assert len(frames) == 1 and json.loads(path.read_text())["empty_frame"] == frames[0].name
    back = load_cups_setup(tmp_path)
    assert back.layout == made.layout
    assert np.allclose(back.calibration.H, made.calibration.H) and back.calibration.bean_mm == made.calibration.bean_mm
    assert back.calibration.intrinsics == made.calibration.intrinsics
    assert np.array_equal(back.empty, made.empty)
    # saved again with another frame: one frame beside the file, the new one
    save_cups_setup(tmp_path, type(made)(made.layout, made.calibration, made.empty[:, ::-1].copy()))
    assert len(list(tmp_path.glob("cups-empty-*.png"))) == 1
    assert np.array_equal(load_cups_setup(tmp_path).empty, made.empty[:, ::-1])

    # the reader built from the saved set-up sees which containers changed on the same table
    save_cups_setup(tmp_path, made)
    back = load_cups_setup(tmp_path)
    lay = scene.layout
    after = TableState((0, 3, 0, 0), (0,) * 4, (5, 0), (40, 40))
    beans = arrange(lay, after, scene.look, scene.offsets, np.random.default_rng(seed), scene.beans)
    image, _ = render_cups(replace(scene, beans=beans), 9)
    reading = CupsReader(back.layout, back.calibration, back.empty).read(image)
    changed = [i for i, r in enumerate(reading.containers) if r.changed]
    assert changed == [1, 8], changed


def _write(tmp_path, made, edit):
    save_cups_setup(tmp_path, made)
    path = tmp_path / SETUP_FILE
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("edit, words", [
    (lambda d: d.update(version=2), r"unsupported version 2 .*set the Cups table up again"),
    (lambda d: d.update(format="cupboard-calibration"), "field 'format' must be 'cupboard-cups-setup'"),
    (lambda d: d["layout"]["cups"]["south"][1].update(x_mm=250.0), r": layout\.cups\.south\[1\]: overlaps cups\.south\[0\]"),
    (lambda d: d["layout"].update(cups_per_row=5), r": layout\.cups\.south: must list 5 cups"),
    (lambda d: d["layout"].update(version=9), r": layout: unsupported version 9"),
    (lambda d: d.update(homography=[[1, 0, 0], [0, 1, 0]]), r"\.homography: must be 3 rows of 3 numbers"),
    (lambda d: d.update(homography=[[1, 2, 3], [2, 4, 6], [0, 0, 1]]), r"\.homography: the table homography must be an invertible"),
    (lambda d: d.update(bean_mm=200), r"\.bean_mm: a bean must be 2-60 mm"),
    (lambda d: d.update(bean_mm="big"), r"bean_mm"),
    (lambda d: d["homography"][0].__setitem__(0, 10 ** 400), r"\.homography: must be 3 rows of 3 numbers"),
    (lambda d: d["intrinsics"]["dist"].__setitem__(0, 10 ** 400), r"\.intrinsics\.dist: must be 4, 5 or 8"),
    (lambda d: d["intrinsics"].update(width=640), r"the empty-table frame is 1280x720, .*intrinsics says 640x720"),
    (lambda d: d["intrinsics"].update(dist=[1, 2]), r"\.intrinsics\.dist: must be 4, 5 or 8"),
    (lambda d: d.update(empty_frame="../../etc/passwd"), r"\.empty_frame: must name a cups-empty-"),
    (lambda d: d.update(empty_frame="cups-empty-0000.png"), r"cups-empty-0000\.png: the empty-table frame named by .* is missing"),
])
def test_each_fault_of_a_saved_setup_is_named(setup, tmp_path, edit, words):
    made, _, _ = setup
    path = _write(tmp_path, made, edit)
    with pytest.raises(CupsSetupError, match=words) as e:
        load_cups_setup(tmp_path)
    assert str(path) in str(e.value) or "cups-empty-0000.png" in str(e.value)


def test_a_missing_or_broken_file_or_frame_is_named(setup, tmp_path):
    made, _, _ = setup
    with pytest.raises(CupsSetupError, match=f"{SETUP_FILE}: no Cups set-up saved"):
        load_cups_setup(tmp_path)
    save_cups_setup(tmp_path, made)
    frame = next(tmp_path.glob("cups-empty-*.png"))
    frame.write_bytes(b"not a png")
    with pytest.raises(CupsSetupError, match=f"{frame.name}: not a readable PNG"):
        load_cups_setup(tmp_path)
    frame.unlink()
    with pytest.raises(CupsSetupError, match=f"{frame.name}: the empty-table frame .* is missing"):
        load_cups_setup(tmp_path)
    (tmp_path / SETUP_FILE).write_text("{")
    with pytest.raises(CupsSetupError, match=SETUP_FILE):
        load_cups_setup(tmp_path)


def test_a_setup_needs_every_container_and_a_frame_of_the_stills_size(setup):
    made, scene, seed = setup
    layout = scene.layout
    fix_like = fix_from_corners(project(play_area_corners(layout), scene.intrinsics, scene.pose).tolist(), layout,
                                1280, 720, scene.intrinsics.model)
    centres = true_centres(scene)
    with pytest.raises(CupsSetupError, match="tap all 12 containers"):
        make_setup(layout, fix_like, centres[:5], made.empty, 10.5)
    with pytest.raises(CupsSetupError, match="1280x720 like the still"):
        make_setup(layout, fix_like, centres, made.empty[:100], 10.5)
    with pytest.raises(CupsSetupError, match="South's cup 1 .* overlaps|tap the containers in the order"):
        make_setup(layout, fix_like, centres[[1, 0, *range(2, 12)]], made.empty, 10.5)
    assert math.isclose(make_setup(layout, fix_like, centres, made.empty, 10.5).calibration.pose().height,
                        scene.pose.height, rel_tol=1e-6)
