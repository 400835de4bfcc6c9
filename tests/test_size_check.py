"""The clear-set size check: its file is checked on load, its numpy net is the training
script's torch net, it only moves probability between cup sizes, and on rendered boards the
crop of a cup's true size scores best for nearly every cup."""

from dataclasses import replace

import numpy as np
import pytest

from vision.evaluate import evaluate
from vision.size_check import (
    CHECK_PATH,
    CheckFileError,
    load_size_check,
    save_size_check,
)


def test_shipped_check_loads_and_names_its_fit():
    check = load_size_check(CHECK_PATH)
    assert "fit_size_check.py" in check.note
    assert 0.5 < check.threshold <= 1.0 and check.weight > 0


def test_damaged_check_file_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "check.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(CheckFileError, match="check.npz"):
        load_size_check(bad)
    check = load_size_check(CHECK_PATH)
    weights = dict(check.weights)
    weights["fc1_w"] = weights["fc1_w"][:, :-1]
    short = tmp_path / "short.npz"
    save_size_check(replace(check, weights=weights), short)
    with pytest.raises(CheckFileError, match="short.npz: fc1_w has shape"):
        load_size_check(short)
    with pytest.raises(CheckFileError, match="missing.npz"):
        load_size_check(tmp_path / "missing.npz")


def test_numpy_net_is_the_torch_net():
    torch = pytest.importorskip("torch")
    from fit_size_check import CONVS, build_net

    check = load_size_check(CHECK_PATH)
    net = build_net(check.crop_px)
    layers = [m for m in net if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    with torch.no_grad():
        for name, m in zip([n for n, _, _ in CONVS] + ["fc1", "fc2"], layers):
            m.weight.copy_(torch.from_numpy(check.weights[f"{name}_w"]))
            m.bias.copy_(torch.from_numpy(check.weights[f"{name}_b"]))
        channels = check.weights["conv1_w"].shape[1]
        crops = np.random.default_rng(0).normal(0, 0.3, (3, 5, channels, check.crop_px, check.crop_px)).astype(np.float32)
        x = torch.from_numpy(np.clip(crops / check.input_scale, -5, 5).reshape(-1, channels, check.crop_px, check.crop_px))
        want = net(x).numpy().reshape(3, 5)
    assert np.allclose(check.scores(crops), want, atol=1e-4)


def _plain_net(check, crops):
    """The net written out the slow, obvious way: each output pixel a sum over its 3x3 window
    of the zero-padded input, then ReLU, 2x2 max pooling and the dense layers."""
    x = np.clip(crops / check.input_scale, -5.0, 5.0).astype(np.float64)
    for name in ("conv1", "conv2", "conv3"):
        w, b = check.weights[f"{name}_w"], check.weights[f"{name}_b"]
        padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        n, _, h, wd = x.shape
        y = np.zeros((n, len(w), h, wd))
        for i in range(h):
            for j in range(wd):
                y[:, :, i, j] = np.einsum("ncuv,ocuv->no", padded[:, :, i:i + 3, j:j + 3], w) + b
        y = np.maximum(y, 0.0)
        x = y.reshape(n, len(w), h // 2, 2, wd // 2, 2).max(axis=(3, 5))
    hidden = np.maximum(x.reshape(len(x), -1) @ check.weights["fc1_w"].T + check.weights["fc1_b"], 0.0)
    return (hidden @ check.weights["fc2_w"].T + check.weights["fc2_b"])[:, 0]


def test_numpy_net_is_the_plain_convolution():
    # (runs without torch, unlike the test above)
    check = load_size_check(CHECK_PATH)
    channels = check.weights["conv1_w"].shape[1]
    crops = np.random.default_rng(1).normal(0, 0.3, (4, channels, check.crop_px, check.crop_px)).astype(np.float32)
    assert np.allclose(check.scores(crops), _plain_net(check, crops), atol=1e-4)


def test_revision_keeps_the_empty_reading_and_sums_to_one():
    check = load_size_check(CHECK_PATH)
    probs = np.array([[0.1, 0.0, 0.0, 0.45, 0.45, 0.0], [0.02, 0.0, 0.5, 0.48, 0.0, 0.0]])
    # columns of probs: empty, then sizes; of scores: sizes
    scores = np.array([[0.0, 0.0, -3.0, 3.0, 0.0], [0.0, -2.0, 2.0, 0.0, 0.0]])
    out = check.revise(probs, scores)
    assert out[:, 0] == pytest.approx(probs[:, 0])
    assert out.sum(axis=1) == pytest.approx([1.0, 1.0])
    assert out[0].argmax() == 4 and out[1].argmax() == 3
    assert list(check.doubtful(np.array([[0.9, 0.05, 0.05, 0, 0, 0], [0.0, 0.0, 0.5, 0.5, 0, 0],
                                         [0.0, 0.0, 0.0, 1.0, 0, 0]]))) == [1]


def test_true_size_crop_scores_best_on_rendered_boards():
    check = load_size_check(CHECK_PATH)
    best, cups = 0, 0

    def observer(rec, obs, truth):
        nonlocal best, cups
        sq = [i for i, top in enumerate(truth.tops) if top is not None]
        scores = check.scores(rec.size_crops(np.array(sq)))
        best += sum(int(scores[j].argmax()) == truth.tops[i][1] for j, i in enumerate(sq))
        cups += len(sq)

    evaluate("storer-clear", boards=6, seed=3, observer=observer)
    assert cups > 40
    # the net alone, without the square model's evidence
    assert best >= 0.95 * cups, (best, cups)
