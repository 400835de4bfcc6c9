"""``bench/confident.py``: every reading of a tuning seed kept with its evidence, so that a doubt
can be weighed on confidently right readings as well as wrong ones (issue 19)."""

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np


def test_every_read_or_held_top_is_kept_with_both_readers(tmp_path):
    """Two shaded boards of Gobblet Jr.: one record per square holding or read as a top, each with
    its truth and reading, the confidence, and the square model's and the square net's
    probabilities (each summing to one over empty and the sizes)."""
    root = Path(__file__).resolve().parents[1]
    out_file = tmp_path / "conf.pkl"
    out = subprocess.run([sys.executable, str(root / "bench" / "confident.py"), "--seed", "0", "--boards", "2",
                          "--sets", "gobblet-jr", "--out", str(out_file)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "== gobblet-jr on gobblet-jr-3x3: 2 boards" in out.stdout
    records = pickle.loads(out_file.read_bytes())
    assert records
    for r in records:
        assert r["truth"] != "empty" or r["read"] != "empty"
        assert 0.0 <= r["conf"] <= 1.0
        assert r["model"].shape == r["net"].shape == (4,)
        np.testing.assert_allclose([r["model"].sum(), r["net"].sum()], 1.0, atol=1e-6)
