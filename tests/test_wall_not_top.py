"""A light solid top whose edges were found on its own shaded wall is read light, by the
lighter outline beside that dark disc (``Recogniser._light_top_beside``; docs/geometry.md,
"How a top's colour is read")."""

from vision.evaluate import COMMIT, evaluate
from vision.observation import CUP


def _storer_reads(seed: int, camera: int) -> list[tuple[tuple[int, int], object, float]]:
    """(truth's top, the reading's top or state, confidence) of every occupied square of the
    two frames of camera ``camera`` of the shaded look's Storer bench of ``seed``."""
    out = []

    def observer(rec, obs, truth):
        for r, top in zip(obs.squares, truth.tops):
            if top is not None:
                out.append((top, r.top if r.state == CUP else r.state, r.confidence))

    evaluate("storer-clear", 2, seed=seed, first_camera=camera, measure=True, style="shaded", observer=observer)
    return out


def test_small_light_cups_seen_by_their_wall_are_read_light():
    """Storer's set on the shaded look, tuning seed 13's first camera (a wide lens 30 cm up)
    and seed 7's 6th: the smallest cup, solid maple and twice as tall as it is wide, shows its
    shaded wall and the shade at its foot as a dark disc of its top's size beside the top, with
    a stronger edge than the light top on the light board.  Main read four of them dark 1s at
    0.98-1.0.  Each is read a light 1, and no top read at its size is read confidently the
    other colour (the dark 1s stay dark).  (A fifth, read a dark 2, is left: its size is wrong.)"""
    reads = _storer_reads(13, 0) + _storer_reads(7, 5)
    small_light = [(got, conf) for top, got, conf in reads if top == (0, 0) and got in ((0, 0), (1, 0))]
    assert len(small_light) >= 4, small_light
    for got, conf in small_light:
        assert got == (0, 0), small_light
    for top, got, conf in reads:
        if isinstance(got, tuple) and got[1] == top[1]:
            assert got == top or conf < COMMIT, (top, got, conf)
    assert any(top == (1, 0) and got == top for top, got, _ in reads), "no dark 1 read dark: nothing pinned"
