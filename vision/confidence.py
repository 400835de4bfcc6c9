"""How sure a reading is: a small logistic model over the evidence margins of one square.

The recogniser measures, per square, how strongly the chosen reading beats its rivals (the
ring score against the empty threshold, against the best other size class and against the
neighbouring size classes, the colour margin, how far the top sits from where its square
puts it, and for clear cups the radial profile's plug and rim steps and the white rim's lead
over its sides).  ``scripts/fit_confidence.py`` fits the weights on rendered boards, per cup
material and per reading kind (cup or empty), and writes ``vision/data/confidence.json``;
the probability it gives is the reading's confidence, so a confidence of 0.9 should be right
nine times in ten.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

MODEL_PATH = Path(__file__).resolve().parent / "data" / "confidence.json"
MODEL_FORMAT = "cupboard-confidence"
MODEL_VERSION = 4

CUP_FEATURES = ("log_score", "margin_other", "margin_neighbour", "colour_margin", "offset", "size",
                "plug_step", "rim_step", "rim_lead", "rim_margin")
EMPTY_FEATURES = ("log_top", "log_second", "profile_lift", "rim_lead")


@dataclass(frozen=True)
class Evidence:
    """The margins behind one square's reading; ``kind`` is ``cup`` or ``empty``."""

    kind: str
    values: tuple[float, ...]


def cup_evidence(scores: np.ndarray, s: int, threshold: float, colour_margin: float,
                 offset: float, plug_step: float = 0.0, rim_step: float = 0.0,
                 rim_leads: np.ndarray | None = None) -> Evidence:
    """Margins of reading size class ``s`` from its ring ``scores`` (one per class), the raw
    colour margin, the top's distance from its expected place (as a share of the reach) and,
    for clear cups, the radial profile's plug and rim steps against the board and the rim
    search's leads per class in units of its threshold (0 otherwise): size ``s``'s own, and
    its margin over the best other class."""
    rim_lead = rim_margin = 0.0
    if rim_leads is not None:
        rim_lead = float(np.clip(rim_leads[s], -5.0, 5.0))
        others_r = np.delete(rim_leads, s)
        rim_margin = float(np.clip(rim_leads[s] - (others_r.max() if len(others_r) else 0.0), -5.0, 5.0))
    best = float(scores[s])
    others = np.delete(scores, s)
    second = float(others.max()) if len(others) else 0.0
    near = [float(scores[j]) for j in (s - 1, s + 1) if 0 <= j < len(scores)]
    neighbour = max(near) if near else 0.0
    scale = max(best, threshold)
    return Evidence("cup", (float(np.log(scale / threshold)), (best - second) / scale,
                            (best - neighbour) / scale, float(np.clip(colour_margin, -1.0, 2.0)),
                            float(offset), s / max(1, len(scores) - 1), float(plug_step), float(rim_step),
                            rim_lead, rim_margin))


def empty_evidence(scores: np.ndarray, threshold: float, profile_lift: float = 0.0,
                   rim_lead: float = 0.0) -> Evidence:
    """Margins of reading a square empty: how far its best rings stay under the threshold
    and, for clear cups, the strongest plug-plus-rim lift of its radial profiles (a light cup
    the rings missed still lifts it) and the best rim lead in units of its threshold (0 for
    opaque sets)."""
    top = np.sort(scores)[::-1]
    second = float(top[1]) if len(top) > 1 else 0.0
    return Evidence("empty", (float(top[0]) / threshold, second / threshold, float(profile_lift),
                              float(np.clip(rim_lead, -5.0, 5.0))))


def expand(values: np.ndarray) -> np.ndarray:
    """The model's inputs from evidence values (rows): the values and all their pairwise
    products and squares, so a margin can matter more when the score is weak."""
    x = np.atleast_2d(np.asarray(values, np.float64))
    i, j = np.triu_indices(x.shape[1])
    return np.column_stack([x, x[:, i] * x[:, j]])


def n_inputs(n_features: int) -> int:
    """Number of weights (bias included) for ``n_features`` evidence values."""
    return 1 + n_features + n_features * (n_features + 1) // 2


@dataclass(frozen=True)
class ConfidenceModel:
    """Logistic weights (bias first) per (material, kind); a missing entry falls back to a
    fixed conservative guess."""

    weights: dict[str, tuple[float, ...]]

    def confidence(self, material: str, ev: Evidence) -> float:
        """The probability that the reading is right."""
        w = self.weights.get(f"{material}/{ev.kind}")
        if w is None:
            return 0.5
        z = w[0] + float(expand(ev.values)[0] @ np.asarray(w[1:]))
        return float(1.0 / (1.0 + np.exp(-np.clip(z, -30.0, 30.0))))


def save_model(model: ConfidenceModel, path: Path = MODEL_PATH, note: str = "") -> None:
    """Write the weights as versioned JSON."""
    data = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "note": note,
            "features": {"cup": CUP_FEATURES, "empty": EMPTY_FEATURES},
            "weights": {k: [round(float(v), 6) for v in w] for k, w in sorted(model.weights.items())}}
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> ConfidenceModel:
    """Read the weights; a missing file gives a model that says 0.5 to everything."""
    if not path.exists():
        return ConfidenceModel({})
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != MODEL_FORMAT or data.get("version") != MODEL_VERSION:
        raise ValueError(f"{path}: not a {MODEL_FORMAT} file of version {MODEL_VERSION}")
    sizes = {"cup": n_inputs(len(CUP_FEATURES)), "empty": n_inputs(len(EMPTY_FEATURES))}
    weights = {}
    for key, w in data["weights"].items():
        if len(w) != sizes.get(key.split("/")[-1], -1):
            raise ValueError(f"{path}: weights {key!r} should have {sizes.get(key.split('/')[-1])} numbers")
        weights[key] = tuple(float(v) for v in w)
    return ConfidenceModel(weights)
