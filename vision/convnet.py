"""The numpy layers of the project's two small convolutional nets (the size check,
``size_check.py``, and the square net, ``square_net.py``): both are fitted with torch by their
scripts and run here with numpy and the compiled column and pooling loops of ``kernels.py``
(one thread), on float32 pictures of shape (n, channels, h, w)."""

from __future__ import annotations

import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .kernels import dense_scores, pool_bias_relu, row_columns, stride2_columns

CHUNK = 16  # pictures a convolution takes at once (each picture's product is its own)
Convs = tuple[tuple[str, int, int], ...]  # (name, channels in, channels out) per 3x3 convolution


def net_shapes(convs: Convs, hidden: int, crop_px: int) -> dict[str, tuple[int, ...]]:
    """Every weight array's shape for a net of the 3x3 convolutions ``convs`` (each halving the
    picture), a dense layer of ``hidden`` units and one score, on crops of ``crop_px``."""
    out: dict[str, tuple[int, ...]] = {}
    for name, cin, cout in convs:
        out[f"{name}_w"] = (cout, cin, 3, 3)
        out[f"{name}_b"] = (cout,)
    side = crop_px // 2 ** len(convs)
    out["fc1_w"] = (hidden, convs[-1][2] * side * side)
    out["fc1_b"] = (hidden,)
    out["fc2_w"] = (1, hidden)
    out["fc2_b"] = (1,)
    return out


def conv_relu_pool(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution (torch's layout, a cross-correlation with zero padding of one pixel),
    ReLU, then 2x2 max pooling.  Each picture is kept as one padded row, so the nine taps are
    nine contiguous slices (``kernels.row_columns``) and the convolution is one matrix
    product; the pooling comes before the bias and ReLU, which commute with the max, so they
    act on a quarter of the outputs (``kernels.pool_bias_relu``)."""
    n, c, h, wd = x.shape
    x = np.ascontiguousarray(x, np.float32)
    taps = w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c)
    b = np.ascontiguousarray(b, np.float32)
    out = np.empty((n, len(w), h // 2, wd // 2), np.float32)
    # a few pictures at a time: their columns and outputs stay in the processor's cache
    for start in range(0, n, CHUNK):
        part = slice(start, start + CHUNK)
        pool_bias_relu(np.matmul(taps, row_columns(x[part])), b, h, wd, out[part])
    return out


def conv_stride2_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution with a stride of 2 (torch's layout and sampling: zero padding of one
    pixel, outputs at the even pixels), then ReLU; h and w even.  The nine taps' strided
    samples are gathered at once (``kernels.stride2_columns``); the convolution is one
    matrix product."""
    n, c, h, wd = x.shape
    y = np.matmul(w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c), stride2_columns(np.ascontiguousarray(x, np.float32)))
    y += b[:, None]
    np.maximum(y, 0.0, out=y)
    return y.reshape(n, len(w), h // 2, wd // 2)


def dense_score(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    """The nets' head: the last convolution's output (n, ...) flattened, a dense layer with
    ReLU, then one score per picture (n,) float32 (``kernels.dense_scores``: one thread)."""
    w = {k: np.ascontiguousarray(weights[k], np.float32) for k in ("fc1_w", "fc1_b", "fc2_w", "fc2_b")}
    return dense_scores(np.ascontiguousarray(x.reshape(len(x), -1), np.float32), w["fc1_w"], w["fc1_b"], w["fc2_w"],
                        w["fc2_b"])


def write_net_file(path: Path, meta: dict[str, object], weights: dict[str, np.ndarray]) -> None:
    """Write a net's ``meta`` (format, version, its numbers) and ``weights`` as an .npz,
    atomically: a new file, then a rename."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **{k: np.array(v) for k, v in meta.items()},
                        **{k: np.asarray(v, np.float32) for k, v in weights.items()})
    tmp.replace(path)


def read_net_file(path: Path, what: str, fmt: str, version: int, numbers: tuple[str, ...],
                  shapes: Callable[[int], dict[str, tuple[int, ...]]], script: str,
                  error: type[ValueError]) -> tuple[dict[str, float], dict[str, np.ndarray], str]:
    """Read and check a net's .npz written by ``write_net_file``: its format ``fmt`` and
    ``version``, the one finite number each of ``numbers`` names (``crop_px`` among them),
    and every weight array of ``shapes(crop_px)``, all finite.  Returns the numbers, the
    weights (float32) and the note; ``error`` (naming the file, ``what`` it holds and the fit
    ``script`` that makes it) for anything missing, damaged, of another format or version."""
    try:
        with np.load(path, allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
    except OSError as e:
        raise error(f"{path}: cannot read the {what} ({e}); it is made by {script}") from None
    except (ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
        raise error(f"{path}: not a valid .npz ({e})") from None
    if str(data.get("format", "")) != fmt:
        raise error(f"{path}: not a {fmt} file")
    if int(data.get("version", -1)) != version:
        raise error(f"{path}: version {data.get('version')}, this program reads {version} (refit with {script})")
    for key in numbers:
        if (key not in data or data[key].shape != () or data[key].dtype.kind not in "iuf"
                or not np.isfinite(data[key])):
            raise error(f"{path}: {key!r} should be one finite number")
    values = {key: float(data[key]) for key in numbers}
    weights = {}
    for name, shape in shapes(int(values["crop_px"])).items():
        if name not in data:
            raise error(f"{path}: no array {name!r}")
        a = data[name].astype(np.float32)
        if a.shape != shape:
            raise error(f"{path}: {name} has shape {a.shape}, expected {shape}")
        if not np.isfinite(a).all():
            raise error(f"{path}: {name} holds a number that is not finite")
        weights[name] = a
    return values, weights, str(data.get("note", ""))
