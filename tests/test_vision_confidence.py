"""The confidence model: its file loads, its fit is sound, and on rendered boards a
confident reading is a right one."""

import sys
from pathlib import Path

import numpy as np
import pytest

from vision.confidence import (
    MODEL_PATH,
    ConfidenceModel,
    Evidence,
    expand,
    load_model,
    n_inputs,
)
from vision.evaluate import evaluate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from fit_confidence import fit_logistic  # noqa: E402


def test_shipped_model_has_every_material_and_kind():
    model = load_model(MODEL_PATH)
    for key in ("opaque/cup", "opaque/empty", "clear/cup", "clear/empty"):
        assert key in model.weights


def test_logistic_fit_recovers_a_known_rule():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 2))
    y = (rng.random(2000) < 1 / (1 + np.exp(-(0.5 + 3 * x[:, 0] - 2 * x[:, 1])))).astype(float)
    w = fit_logistic(expand(x), y, l2=1e-6)
    assert len(w) == n_inputs(2)
    assert w[1] == pytest.approx(3, abs=0.6) and w[2] == pytest.approx(-2, abs=0.6)


def test_unknown_material_is_a_coin_toss():
    assert ConfidenceModel({}).confidence("paper", Evidence("cup", (1.0,))) == 0.5


@pytest.mark.parametrize("name", ["gobblet", "gobblet-jr"])
def test_confident_readings_are_right(name):
    res = evaluate(name, boards=16, seed=3)
    sure = [right for conf, right in res.conf_right if conf >= 0.8]
    assert len(sure) >= 0.9 * len(res.conf_right)
    assert sum(sure) / len(sure) >= 0.995, res.reliability()
