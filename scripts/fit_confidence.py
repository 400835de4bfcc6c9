"""Fit the confidence model of ``vision/confidence.py`` on rendered boards and write
``vision/data/confidence.json``.

    python scripts/fit_confidence.py [--boards 300] [--seed 11]

The boards come from the same random cameras, lights and placements as ``vision-eval`` but
from other seeds (the evaluation uses seed 0, the tests seed 3), so the model is not judged
on what it was fitted on.  Deterministic for a given seed.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.confidence import (  # noqa: E402
    MODEL_PATH,
    ConfidenceModel,
    expand,
    load_model,
    save_model,
)
from vision.evaluate import evaluate  # noqa: E402
from vision.observation import CUP, EMPTY  # noqa: E402

SETS = ("gobblet", "gobblet-jr", "storer-clear")
L2 = 1e-3


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, iterations: int = 50) -> np.ndarray:
    """Weights (bias first) of a logistic regression fitted by Newton's method with a small
    ridge penalty (not on the bias), so separable data still gives finite weights."""
    X = np.column_stack([np.ones(len(x)), x])
    w = np.zeros(X.shape[1])
    reg = np.full(X.shape[1], l2 * len(x))
    reg[0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(X @ w, -30, 30)))
        grad = X.T @ (p - y) + reg * w
        hess = (X * (p * (1 - p))[:, None]).T @ X + np.diag(reg) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def collect(boards: int, seed: int) -> dict[str, tuple[list, list]]:
    """Evidence and correctness of every labelled reading, keyed ``material/kind``."""
    data: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))

    def observer(rec, obs, truth) -> None:
        for sq, (reading, ev) in enumerate(zip(obs.squares, rec.last_evidence)):
            if ev is None or reading.state not in (CUP, EMPTY) or truth.occluded[sq]:
                continue
            xs, ys = data[f"{rec.material}/{ev.kind}"]
            xs.append(ev.values)
            ys.append(reading.top == truth.tops[sq])

    for name in SETS:
        evaluate(name, boards, seed=seed, observer=observer)
    return data


def main() -> int:
    """Collect, fit, report and save."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--boards", type=int, default=300)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    args = ap.parse_args()
    # the evidence does not depend on the model; start from none so a stale file cannot stop us
    save_model(ConfidenceModel({}), args.out, note="being fitted")
    load_model.cache_clear()
    data = collect(args.boards, args.seed)
    weights = {}
    for key, (xs, ys) in sorted(data.items()):
        x, y = expand(np.array(xs, float)), np.array(ys, float)
        w = fit_logistic(x, y)
        weights[key] = tuple(w)
        p = 1.0 / (1.0 + np.exp(-np.clip(np.column_stack([np.ones(len(x)), x]) @ w, -30, 30)))
        hi = p >= 0.8
        print(f"{key}: {len(y)} readings, {100 * y.mean():.2f} % right; "
              f"conf >= 0.8: {hi.sum()} readings, {100 * y[hi].mean() if hi.any() else 0:.2f} % right")
    save_model(ConfidenceModel(weights), args.out,
               note=f"fitted by scripts/fit_confidence.py --boards {args.boards} --seed {args.seed}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
