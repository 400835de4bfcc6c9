"""A clear cup's walnut plug mirroring the lamp is read dark: its sheen is taken off in light,
not in display values (``Recogniser._sheen``, ``kernels.sheen_distance``; docs/geometry.md,
"How a top's colour is read")."""

import numpy as np

from vision.evaluate import evaluate
from vision.kernels import colour_vote
from vision.observation import CUP
from vision.recognise import GLARE_TINT, LUM_SIGMA, SHEEN_SIGMA, TINT_SIGMA

BOARD_BGR = np.array([120.0, 170.0, 205.0])
LIGHT_BGR, DARK_BGR = np.array([150.0, 200.0, 230.0]), np.array([40.0, 60.0, 95.0])
REFS = np.log(np.array([LIGHT_BGR, DARK_BGR]) / BOARD_BGR)
WARM_FROM = float((REFS[:, 2] - REFS[:, 0]).min()) - GLARE_TINT


def _in_light(bgr):
    return (np.asarray(bgr, np.float64) / 255.0) ** 2.2


def _plug(colour):
    view = np.empty((60, 60, 3), np.uint8)
    view[:] = BOARD_BGR
    yy, xx = np.mgrid[0:60, 0:60]
    view[(xx - 30) ** 2 + (yy - 30) ** 2 <= 144] = np.clip(np.round(colour), 0, 255)
    return view


def _vote(colour, sigma, gamma):
    return colour_vote(_plug(colour), 30.0, 30.0, 9.0, BOARD_BGR, REFS, WARM_FROM, LUM_SIGMA, TINT_SIGMA, sigma, gamma)


def test_a_sheen_added_in_light_is_taken_off_in_light():
    """A walnut plug under a lamp's mirror image: grey light as bright as the board's added to
    its own, then encoded as a camera does.  Taken off the display values the grey leaves it
    too grey for the dark player; taken off the light it leaves the walnut.  Light plugs, in
    full light or shaded, stay light; a dark one shaded or lit stays dark."""
    grey = _in_light(BOARD_BGR).mean()
    sheened = 255.0 * (_in_light(DARK_BGR) + grey) ** (1 / 2.2)
    assert _vote(sheened, 3.0, 1.0) > 0  # a display grey leaves it nearer the light player's
    assert _vote(sheened, 3.0, 2.2) < 0
    for colour, sign in ((LIGHT_BGR, 1), (LIGHT_BGR * 0.8, 1), (LIGHT_BGR * 0.6, 1),
                         (DARK_BGR, -1), (DARK_BGR * 0.7, -1), (DARK_BGR * 1.3, -1)):
        assert sign * _vote(colour, 3.0, 2.2) > 0, colour
    # the light player's colour under a sheen stays light
    assert _vote(255.0 * (_in_light(LIGHT_BGR) + 0.5 * grey) ** (1 / 2.2), 3.0, 2.2) > 0


def test_walnut_plugs_mirroring_the_lamp_are_read_dark():
    """Storer's set on the shaded look, tuning seed 7's 6th camera: a ceiling lamp's mirror
    image lies over four walnut plugs (a 3, two 4s and a 5), grey all over; past a grey taken
    off their display values they read light (main read them light at 0.5).  Read past a
    sheen taken off in light they are dark, and so is every other dark plug; the light plugs
    stay light."""
    sheened, dark, light = [], [], []

    def observer(rec, obs, truth):
        f = rec._last
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            if top is None or rec._solid[top[1]] or r.state != CUP or r.size != top[1]:
                continue
            (dark if top[0] == 1 else light).append(r.colour)
            if top[0] == 1:
                cx, cy = rec._top_centre(sq, top[1])
                display = colour_vote(f.view, float(cx), float(cy), 0.8 * rec._edge_px(top[1]), f.board_now,
                                      rec.colour_refs, rec._coolest_player - GLARE_TINT, LUM_SIGMA, TINT_SIGMA,
                                      SHEEN_SIGMA)
                if display >= 0:  # a grey taken off its display values leaves it light
                    sheened.append((r.colour, r.confidence))

    evaluate("storer-clear", 2, seed=7, first_camera=5, measure=True, style="shaded", observer=observer)
    assert len(sheened) >= 3, "the walnut plugs read dark past a display grey: the case this test is about is gone"
    assert all(colour == 1 for colour, _ in sheened), sheened
    assert all(c == 1 for c in dark), dark
    assert len(light) >= 4 and all(c == 0 for c in light), light
