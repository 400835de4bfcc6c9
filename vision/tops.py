"""What the set's measurement at calibration (``vision.set_measure``) and the adaptation to a
table's frames (``vision.adapt``) share about tops: where a score over tried edge radii
peaks, a top's own colour under its sheen, and a calibration with its tops' edges moved."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from calibration.model import Calibration

BODY_SHARE = 70  # percentile of brightness below which a top's pixels give its colour


def peak_scale(scores: np.ndarray, scales: np.ndarray) -> float:
    """The scale at the best of ``scores`` (one per entry of the evenly spaced ``scales``),
    refined by a parabola through its neighbours."""
    i = int(np.argmax(scores))
    if 0 < i < len(scores) - 1:
        a, b, c = scores[i - 1], scores[i], scores[i + 1]
        den = a - 2 * b + c
        if den < 0:
            step = float(scales[1] - scales[0])
            return float(scales[i] + np.clip(0.5 * (a - c) / den, -0.5, 0.5) * step)
    return float(scales[i])


def body_colour(pixels: np.ndarray) -> np.ndarray:
    """The colour of a top's body from its BGR pixels (n, 3), n > 0: the median of those below
    the ``BODY_SHARE`` percentile of brightness (a lamp's reflection only ever brightens)."""
    lum = pixels.astype(np.float64).sum(axis=1)
    keep = pixels[lum <= np.percentile(lum, BODY_SHARE)]
    return np.median((keep if len(keep) else pixels).astype(np.float64), axis=0)


def with_edge_scales(cal: Calibration, scales: Sequence[float]) -> Calibration:
    """``cal`` with each size class's edge scale (``SizeClass.edge_scale``) replaced."""
    return replace(cal, sizes=tuple(replace(sc, edge_scale=float(f)) for sc, f in zip(cal.sizes, scales)))
