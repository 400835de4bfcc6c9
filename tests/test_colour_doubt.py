"""A top's colour on the held-out shaded look: read past a glossy top's sheen, and not trusted
where the other player's colour under a strong sheen would explain it as well
(``Recogniser.sure_colour_of``; docs/geometry.md, "How a top's colour is read")."""

import sys

from vision.evaluate import COMMIT, evaluate
from vision.observation import CUP
from vision.square_model import margin_bound


def test_a_walnut_plug_mirroring_the_light_is_not_read_light_with_confidence(monkeypatch):
    """Storer's set, the shaded look, seed 7's 19th camera: walnut plugs facing the light look
    pale grey.  With their sheen taken off display values, as a solid top's is (no longer a
    plug's: tests/test_plug_sheen.py), they are read as the light player's maple; measured
    plainly their colour margin (0.43-0.45) alone would allow a confidence of 0.98, but a
    walnut top with a strong sheen explains them as well, so they fall under the confidence the
    referee acts on."""
    recognise_module = sys.modules["vision.recognise"]
    monkeypatch.setattr(recognise_module, "PLUG_GAMMA", 1.0)
    monkeypatch.setattr(recognise_module, "PLUG_SHEEN_SIGMA", recognise_module.SHEEN_SIGMA)
    monkeypatch.setattr(recognise_module, "PLUG_SHEEN_DOUBT", recognise_module.SHEEN_DOUBT)
    misread, right = [], []

    def observer(rec, obs, truth):
        for sq, (r, top) in enumerate(zip(obs.squares, truth.tops)):
            if top is None or r.state != CUP:
                continue
            if top[0] == 1 and r.colour == 0:
                misread.append((r.confidence, rec.colour_of(sq, r.size)[1]))
            elif r.top == top:  # the confidence its colour is read with (the size has its own doubts)
                right.append(rec.model.colour_confidence(rec.sure_colour_of(sq, r.size)[1]))

    evaluate("storer-clear", 2, seed=7, first_camera=18, measure=True, style="shaded", observer=observer)
    assert misread, "the camera's dark plugs all read dark past a display grey: the case this test is about is gone"
    for confidence, plain_margin in misread:
        assert margin_bound(plain_margin) >= COMMIT  # without the doubt it would be acted on
        assert confidence < COMMIT
    # the tops read right keep their colour's confidence
    assert len(right) >= 10
    assert sum(c >= COMMIT for c in right) >= 0.9 * len(right)


def test_a_glossy_dark_top_facing_the_light_is_read_dark(monkeypatch):
    """Storer's set, the shaded look, seed 3's third camera: walnut plugs mirroring the light
    look grey, plainly nearer maple.  Past the grey a sheen adds (``kernels.sheen_distance``)
    each reads dark; with the sheen left in (``PLUG_SHEEN_SIGMA`` and ``SHEEN_SIGMA`` 0, the
    plain comparison) at least one reads light."""
    recognise_module = sys.modules["vision.recognise"]
    dark, plain = [], []

    def observer(rec, obs, truth):
        for sq, top in enumerate(truth.tops):
            if top is not None and top[0] == 1:
                dark.append(rec.colour_of(sq, top[1])[0])
                with monkeypatch.context() as m:
                    m.setattr(recognise_module, "SHEEN_SIGMA", 0.0)
                    m.setattr(recognise_module, "PLUG_SHEEN_SIGMA", 0.0)
                    plain.append(rec.colour_of(sq, top[1])[0])

    evaluate("storer-clear", 2, seed=3, first_camera=2, measure=True, style="shaded", observer=observer)
    assert len(dark) >= 4
    assert 0 in plain, "every dark plug reads dark even plainly: the case this test is about is gone"
    assert all(c == 1 for c in dark), dark
