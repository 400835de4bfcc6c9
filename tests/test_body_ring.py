"""A glossy dark top facing the lamp is read dark from its body ring, the rounded rim and wall
across its edge that do not mirror the lamp (``Recogniser.sure_colour_of``,
``kernels.ring_vote``; docs/geometry.md, "How a top's colour is read")."""

from vision.evaluate import COMMIT, evaluate
from vision.observation import CUP


def test_dark_tops_grey_with_sheen_are_read_dark_from_their_rims():
    """Gobblet on the shaded look, tuning seed 5's 16th camera: a ceiling lamp mirrors in three
    dark tops (a 1, a 3 and a 4), grey over their whole flat tops and nearer the light player's
    colour even past a typical sheen; main read them light (at 0.47-0.5).  Their rims are dark:
    each is read dark and, the rim's lead being plain, with confidence.  Light tops stay light."""
    sheened, dark, light = [], [], []

    def observer(rec, obs, truth):
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            if top is None or r.state != CUP or r.size != top[1]:
                continue
            if top[0] == 1:
                dark.append(r.colour)
                if rec.colour_of(sq, r.size)[0] == 0:  # its disc alone reads it light
                    sheened.append((r.colour, r.confidence))
            else:
                light.append(r.colour)

    evaluate("gobblet", 2, seed=5, first_camera=15, measure=True, style="shaded", observer=observer)
    assert len(sheened) >= 3, "the dark tops' discs read dark: the case this test is about is gone"
    for colour, confidence in sheened:
        assert colour == 1
        assert confidence >= COMMIT
    assert all(c == 1 for c in dark), dark
    assert len(light) >= 5 and all(c == 0 for c in light), light


def test_light_tops_burnt_white_read_dark_are_doubted_by_their_rims():
    """Gobblet Jr. on the shaded look, tuning seed 103's 2nd camera: a lamp burns a light 1's
    flat face (c3) out to white in both frames, nearer the blue player than its own orange,
    and main read it dark at 0.97.  Its body ring leads for the light player (0.35 and 0.49
    against a disc margin of 0.38 and 0.37), which takes the margin (``_dark_body_margin``):
    read dark still, but under the referee's commit.  The dark tops read right stay confident."""
    got, dark = [], []

    def observer(rec, obs, truth):
        got.append((truth.tops[7], obs.squares[7]))
        dark.extend(r.confidence for r, top in zip(obs.squares, truth.tops)
                    if top is not None and top[0] == 1 and r.state == CUP and r.top == top)

    evaluate("gobblet-jr", 2, seed=103, first_camera=1, measure=True, style="shaded", observer=observer)
    for truth, reading in got:
        assert truth == (0, 0), "the boards changed: the case this test is about is gone"
        assert reading.state == CUP and reading.size == 0, reading
        assert reading.top == (0, 0) or reading.confidence < COMMIT, reading
    assert len(dark) >= 3 and min(dark) >= COMMIT, dark
