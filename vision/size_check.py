"""A second look at clear cups whose size the square model is unsure of.

On Storer's clear set a light plug on light wood shows almost no edge, and the square model
sometimes wavers between two sizes next to each other.  For those squares only, the
recogniser takes a crop around where each size's top was found, scaled to that size's outer
radius (``Recogniser.size_crops``): the right size's crop has its white rim on the same
circle whatever the camera.  A small convolutional net scores every crop; the score, times
a weight, is added to the square model's log-probability of that size, and the empty
reading keeps the square model's probability.  Where the search for a size went astray, its
crop misses the cup; so each size is also scored at the places where the other sizes' tops
were found (``Recogniser.candidate_crops``), less a fixed handicap (``combine``).

``scripts/fit_size_check.py`` trains the net (with torch) on rendered boards and writes
``vision/data/size_check.npz``; here it runs with numpy alone.  ``load_size_check`` checks
the file's format, version and every array's shape, and names the file and the problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from .convnet import conv_relu_pool, dense_score, net_shapes, read_net_file, write_net_file

CHECK_PATH = Path(__file__).resolve().parent / "data" / "size_check.npz"
CHECK_FORMAT = "cupboard-size-check"
CHECK_VERSION = 2  # 2: the handicap of crops placed where another size was found
# the net: 3x3 convolutions (each followed by ReLU and 2x2 max pooling), then two dense layers
CONVS = (("conv1", 2, 8), ("conv2", 8, 16), ("conv3", 16, 16))
HIDDEN = 32


class CheckFileError(ValueError):
    """The size check's file is missing, damaged or of another format or version."""


def _shapes(crop_px: int) -> dict[str, tuple[int, ...]]:
    return net_shapes(CONVS, HIDDEN, crop_px)


@dataclass(frozen=True)
class SizeCheck:
    """The net's weights, the scale its inputs are divided by, the weight of its score
    against the square model's log-probability, the doubt (the square model's best size
    probability among cups below ``threshold``) that calls it, and the handicap of a score
    taken where another size's top was found (``elsewhere``)."""

    weights: dict[str, np.ndarray]
    input_scale: float
    weight: float
    threshold: float
    elsewhere: float
    crop_px: int
    note: str = ""

    def scores(self, crops: np.ndarray) -> np.ndarray:
        """The net's score of every crop; ``crops`` is (..., channels, crop_px, crop_px)."""
        lead = crops.shape[:-3]
        x = np.clip(crops.reshape((-1,) + crops.shape[-3:]).astype(np.float32) / self.input_scale, -5.0, 5.0)
        for name, _, _ in CONVS:
            x = conv_relu_pool(x, self.weights[f"{name}_w"], self.weights[f"{name}_b"])
        return dense_score(x, self.weights).reshape(lead)

    def combine(self, own: np.ndarray, places: np.ndarray) -> np.ndarray:
        """Each size's score (squares, sizes): the better of its crop where that size's top
        was found (``own``, (squares, sizes)) and its best crop at any of the places where
        a top of some size was found (``places``, (squares, places, sizes)) less the
        handicap ``elsewhere``."""
        return np.maximum(own, places.max(axis=1) - self.elsewhere)

    def doubtful(self, probs: np.ndarray) -> np.ndarray:
        """Squares (indices) read as a cup whose size the square model is unsure of; ``probs``
        is (squares, 1 + sizes), empty first."""
        return np.flatnonzero((probs[:, 1:].max(axis=1) > probs[:, 0]) & (size_share(probs) < self.threshold))

    def revise(self, probs: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """``probs`` (squares, 1 + sizes) of the doubtful squares with the cup sizes' share
        of the probability redistributed by the net's ``scores`` (squares, sizes)."""
        cups = probs[:, 1:]
        total = cups.sum(axis=1, keepdims=True)
        u = np.log(np.maximum(cups, 1e-12)) + self.weight * scores
        u -= u.max(axis=1, keepdims=True)
        e = np.exp(u)
        out = probs.copy()
        out[:, 1:] = total * e / e.sum(axis=1, keepdims=True)
        return out


def size_share(probs: np.ndarray) -> np.ndarray:
    """Per square of ``probs`` (squares, 1 + sizes; empty first), the best size's share of
    the probability of a cup: how sure the square model is of the size, were it a cup."""
    cups = probs[:, 1:]
    return cups.max(axis=1) / np.maximum(cups.sum(axis=1), 1e-12)


def save_size_check(check: SizeCheck, path: Path = CHECK_PATH) -> None:
    """Write the check as an .npz (atomically: a new file, then a rename)."""
    write_net_file(path, {"format": CHECK_FORMAT, "version": CHECK_VERSION, "note": check.note,
                          "input_scale": check.input_scale, "weight": check.weight, "threshold": check.threshold,
                          "elsewhere": check.elsewhere, "crop_px": check.crop_px}, check.weights)


@lru_cache(maxsize=4)
def load_size_check(path: Path = CHECK_PATH) -> SizeCheck:
    """Read and check the file; CheckFileError names the file and what is wrong."""
    values, weights, note = read_net_file(path, "size check", CHECK_FORMAT, CHECK_VERSION,
                                          ("input_scale", "weight", "threshold", "elsewhere", "crop_px"), _shapes,
                                          "scripts/fit_size_check.py", CheckFileError)
    return SizeCheck(weights, values["input_scale"], values["weight"], values["threshold"],
                     values["elsewhere"], int(values["crop_px"]), note)
