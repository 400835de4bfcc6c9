"""Fitting the square model's weights (``square_model.MaterialModel``): the full-batch Adam
loop both the fit on rendered boards (``scripts/fit_square_model.py``) and the adaptation to a
user's own frames (``vision.adapt``) use.

The data are standardised alternatives ``z`` (squares, alternatives, features), which of them
are real (``valid``) and the true one's index ``y``; the loss is the cross-entropy of the true
alternatives plus ``l2`` times the squared distance of the weights from ``anchor`` (zero for a
fit from scratch; the weights adapted from, so a few hundred squares move them only as far as
they must).
"""

from __future__ import annotations

import numpy as np

RATE = 0.02
PARAMS = ("linear", "hidden_w", "hidden_b", "out")


def train_choice(z: np.ndarray, valid: np.ndarray, y: np.ndarray, params: dict[str, np.ndarray], steps: int,
                 l2: float, anchor: dict[str, np.ndarray] | None = None, rate: float = RATE) -> dict[str, np.ndarray]:
    """``params`` (float32 arrays of ``PARAMS``) after ``steps`` of Adam on the choice's
    cross-entropy, the learning rate falling linearly to 5 % of ``rate``; no penalty on
    ``hidden_b``.  Returns new arrays; ``params`` is left alone."""
    params = {k: v.copy() for k, v in params.items()}
    m1 = {k: np.zeros_like(v) for k, v in params.items()}
    m2 = {k: np.zeros_like(v) for k, v in params.items()}
    n = len(y)
    d = z.shape[-1]
    onehot = np.zeros(valid.shape, np.float32)
    onehot[np.arange(n), y] = 1.0
    z2 = z.reshape(-1, d)
    for t in range(1, steps + 1):
        hh = np.tanh(z2 @ params["hidden_w"] + params["hidden_b"])  # (squares * alternatives, hidden)
        u = (z2 @ params["linear"] + hh @ params["out"]).reshape(valid.shape)
        u = np.where(valid, u, -1e9)
        u -= u.max(axis=1, keepdims=True)
        p = np.exp(u) * valid
        p /= p.sum(axis=1, keepdims=True)
        g = ((p - onehot) / n).reshape(-1)
        dh = g[:, None] * params["out"] * (1.0 - hh ** 2)
        grads = {"linear": z2.T @ g, "out": hh.T @ g, "hidden_w": z2.T @ dh, "hidden_b": dh.sum(axis=0)}
        step = rate * (0.05 + 0.95 * (1 - t / steps))
        for k, value in params.items():
            pull = value if anchor is None else value - anchor[k]
            grad = grads[k] + (l2 * pull if k != "hidden_b" else 0.0)
            m1[k] = 0.9 * m1[k] + 0.1 * grad
            m2[k] = 0.999 * m2[k] + 0.001 * grad ** 2
            params[k] = value - step * (m1[k] / (1 - 0.9 ** t)) / (np.sqrt(m2[k] / (1 - 0.999 ** t)) + 1e-8)
    return params
