"""The clear-set size check: its file is checked on load, its numpy net is the training
script's torch net, it only moves probability between cup sizes, and on rendered boards the
crop of a cup's true size scores best for nearly every cup, more often still when each size
is also scored where the other sizes' tops were found."""

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
    cut = tmp_path / "cut.npz"  # a copy that stops half-way (a full disk, a broken copy)
    cut.write_bytes(CHECK_PATH.read_bytes()[: CHECK_PATH.stat().st_size // 2])
    with pytest.raises(CheckFileError, match="cut.npz: not a valid .npz"):
        load_size_check(cut)


def test_check_file_without_its_handicap_is_refused(tmp_path):
    with np.load(CHECK_PATH) as f:
        data = {k: f[k] for k in f.files if k != "elsewhere"}
    np.savez(tmp_path / "old.npz", **data)
    with pytest.raises(CheckFileError, match="old.npz: 'elsewhere' should be one finite number"):
        load_size_check(tmp_path / "old.npz")
    data["version"] = np.array(1)
    np.savez(tmp_path / "v1.npz", **data)
    with pytest.raises(CheckFileError, match="v1.npz: version 1, this program reads 2"):
        load_size_check(tmp_path / "v1.npz")


def test_a_size_scored_elsewhere_pays_the_handicap():
    check = replace(load_size_check(CHECK_PATH), elsewhere=3.0)
    own = np.array([[1.0, -8.0, -9.0]])
    places = np.array([[[1.0, -8.0, -9.0], [-5.0, 6.0, -9.5], [0.0, 2.0, -1.0]]])  # (1, 3 places, 3 sizes)
    # size 0 keeps its own score, size 1 is taken from the second place less 3, size 2 from the third
    assert check.combine(own, places) == pytest.approx(np.array([[1.0, 3.0, -4.0]]))


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
    best, best_anywhere, cups = 0, 0, 0

    def observer(rec, obs, truth):
        nonlocal best, best_anywhere, cups
        sq = [i for i, top in enumerate(truth.tops) if top is not None]
        own = check.scores(rec.size_crops(np.array(sq)))
        places = check.scores(rec.candidate_crops(np.array(sq)))
        assert places.shape == (len(sq), 9, 5)  # the edges of 5 sizes, the rims of 4
        # (the same crops scored in other batches: equal to float rounding)
        assert np.allclose(rec.size_scores(np.array(sq)), check.combine(own, places), atol=1e-4)
        want = np.array([truth.tops[i][1] for i in sq])
        best += int((own.argmax(axis=1) == want).sum())
        best_anywhere += int((check.combine(own, places).argmax(axis=1) == want).sum())
        cups += len(sq)

    evaluate("storer-clear", boards=6, seed=3, observer=observer)
    assert cups > 40
    # the net alone, without the square model's evidence
    assert best >= 0.95 * cups, (best, cups)
    assert best_anywhere >= best, (best_anywhere, best)


def test_a_size_whose_search_went_astray_is_scored_where_the_others_found_the_top():
    # move where the true size's top was found (by its edges and its rim) one radius away:
    # its own crop then misses the cup, but the other sizes' searches still found the top
    check = load_size_check(CHECK_PATH)
    own_right, right, cups = 0, 0, 0

    def observer(rec, obs, truth):
        nonlocal own_right, right, cups
        sq = np.array([i for i, top in enumerate(truth.tops) if top is not None])
        want = np.array([truth.tops[i][1] for i in sq])
        last = rec._last
        for i, s in zip(sq, want):
            away = 1.2 * rec.edges_mm[s][-1] * rec.canvas.ppm * np.array([1.0, 0.0])
            last.hyp.centre[i, s] += away
            last.rim_centre[i, s] += away
        own_right += int((check.scores(rec.size_crops(sq)).argmax(axis=1) == want).sum())
        right += int((rec.size_scores(sq).argmax(axis=1) == want).sum())
        cups += len(sq)

    evaluate("storer-clear", boards=4, seed=3, observer=observer)
    assert cups > 30
    assert own_right < 0.5 * cups, (own_right, cups)  # 11 of 42
    assert right >= 0.8 * cups, (right, cups)  # 38 of 42
