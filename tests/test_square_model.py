"""The square model: its file is checked on load (a damaged or foreign file is refused with
the file's name and the problem), its fit recovers a known rule and is deterministic, and on
rendered boards a confident reading is a right one."""

import json
from pathlib import Path

import numpy as np
import pytest
from fit_square_model import Samples, fit_choice, fit_logistic

from vision.evaluate import evaluate
from vision.square_model import (
    MODEL_PATH,
    N_FEATURES,
    N_POLAR,
    ModelFileError,
    SquareEvidence,
    alternatives,
    load_model,
)


def test_shipped_model_has_both_materials():
    model = load_model(MODEL_PATH)
    assert set(model.materials) == {"opaque", "clear"}
    assert "fit_square_model.py" in model.note


def _write(tmp_path: Path, data) -> Path:
    path = tmp_path / "model.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _shipped() -> dict:
    return json.loads(MODEL_PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize("damage,message", [
    (lambda d: d.update(format="cupboard-confidence"), "format"),
    (lambda d: d.update(version=99), "version 99"),
    (lambda d: d["features"]["cup"].pop(), "features differ"),
    (lambda d: d["materials"]["clear"]["linear"].pop(), "clear.linear has shape"),
    (lambda d: d["materials"]["opaque"].pop("colour"), "should hold exactly"),
    (lambda d: d["materials"]["opaque"]["scale"].__setitem__(0, -1.0), "positive"),
    (lambda d: d["materials"]["opaque"]["hidden_b"].__setitem__(0, "x"), "not a number"),
    (lambda d: d.update(materials={}), "no 'materials'"),
])
def test_damaged_model_file_is_refused_with_its_name(tmp_path, damage, message):
    data = _shipped()
    damage(data)
    path = _write(tmp_path, data)
    with pytest.raises(ModelFileError, match=message) as err:
        load_model(path)
    assert str(path) in str(err.value)


def test_truncated_or_missing_model_file_is_refused(tmp_path):
    path = _write(tmp_path, MODEL_PATH.read_text(encoding="utf-8")[:500])
    with pytest.raises(ModelFileError, match=r"line \d+: not valid JSON"):
        load_model(path)
    with pytest.raises(ModelFileError, match="fit_square_model.py"):
        load_model(tmp_path / "nowhere.json")


def test_alternatives_put_empty_first_and_cups_after():
    rng = np.random.default_rng(0)
    nsq, nsz = 3, 4
    ev = SquareEvidence(rng.normal(size=(nsq, nsz)), rng.normal(size=(nsq, nsz, 2)),
                        *(rng.normal(size=(nsq, nsz)) for _ in range(9)),
                        polar=rng.normal(size=(nsq, nsz, N_POLAR)),
                        centre_change=rng.random(nsq), solid=np.ones(nsz, bool))
    x = alternatives(ev)
    assert x.shape == (nsq, 1 + nsz, N_FEATURES)
    # the empty row has its own columns, the cup rows theirs
    assert (x[:, 0, :N_FEATURES - 7] == 0).all() and (x[:, 0, -7] == 1).all()
    assert (x[:, 1:, -7:] == 0).all()


def _toy_choices(seed: int) -> Samples:
    """Three alternatives whose utility is 2·x0 - x1 (plus a bonus on alternative 0's own
    feature): the fit should pick the right one about as often as that rule."""
    rng = np.random.default_rng(seed)
    n = 3000
    x = np.zeros((n, 3, N_FEATURES))
    x[:, :, 0] = rng.normal(size=(n, 3))
    x[:, :, 1] = rng.normal(size=(n, 3))
    u = 2 * x[:, :, 0] - x[:, :, 1]
    p = np.exp(u) / np.exp(u).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=row) for row in p])
    return Samples(x, np.ones((n, 3), bool), y, np.zeros((0, 2)), np.zeros(0))


def test_choice_fit_recovers_a_known_rule_and_is_deterministic():
    data = _toy_choices(1)
    a = fit_choice(data, hidden=4, seed=5, steps=400)
    b = fit_choice(data, hidden=4, seed=5, steps=400)
    for name in ("linear", "hidden_w", "hidden_b", "out", "mean", "scale"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    test = _toy_choices(2)
    picked = a.utilities(test.x).argmax(axis=1)
    best = (2 * test.x[:, :, 0] - test.x[:, :, 1]).argmax(axis=1)
    assert (picked == best).mean() >= 0.95


def test_logistic_fit_recovers_a_known_rule():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4000, 2))
    y = (rng.random(4000) < 1 / (1 + np.exp(-(0.5 + 3 * x[:, 0] - 2 * x[:, 1])))).astype(float)
    w = fit_logistic(x, y, l2=1e-6)
    assert w == pytest.approx([0.5, 3, -2], abs=0.4)


@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr", "storer-clear"])
def test_confident_readings_are_right(name):
    res = evaluate(name, boards=16, seed=3)
    sure = [right for conf, right in res.conf_right if conf >= 0.8]
    assert len(sure) >= 0.9 * len(res.conf_right)
    assert sum(sure) / len(sure) >= 0.995, res.reliability()


def test_collecting_in_parts_gives_the_boards_of_one_run(monkeypatch, tmp_path):
    """The fit's boards are rendered in cached parts (so more boards render only the new
    ones); the parts must be exactly the boards of one run of the seed."""
    import fit_square_model

    whole = fit_square_model.collect("gobblet-jr", 4, 21, 4)
    monkeypatch.setattr(fit_square_model, "CHUNK", 2)
    parts = fit_square_model.collect("gobblet-jr", 4, 21, 4, cache=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gobblet-jr-21-from0-2.npz", "gobblet-jr-21-from2-2.npz"]
    again = fit_square_model.collect("gobblet-jr", 4, 21, 4, cache=tmp_path)  # read back
    for got in (parts, again):
        for name in ("x", "valid", "y", "colour_x", "colour_right"):
            assert np.array_equal(getattr(got, name), getattr(whole, name)), name


@pytest.mark.parametrize("material", ["opaque", "clear"])
def test_colour_confidence_follows_the_margin(material):
    """A colour read halfway between the players' colours is a coin toss, however sure the
    fit on rendered boards was; confidence grows with the margin and only a clear margin
    reaches the tracker's commit level."""
    from vision.square_model import margin_bound

    m = load_model().for_material(material)
    margins = np.linspace(0.0, 1.5, 31)
    conf = [m.colour_confidence(x) for x in margins]
    assert conf[0] <= 0.5 + 1e-9
    assert all(b >= a - 1e-12 for a, b in zip(conf, conf[1:]))
    assert m.colour_confidence(0.13) < 0.8  # the walnut plug of issue 19, once 0.998
    assert m.colour_confidence(1.0) > 0.99
    assert all(c <= margin_bound(x) + 1e-12 for c, x in zip(conf, margins))
