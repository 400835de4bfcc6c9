"""The numpy layers of the project's two small convolutional nets (the size check,
``size_check.py``, and the square net, ``square_net.py``): both are fitted with torch by their
scripts and run here with numpy alone, on float32 pictures of shape (n, channels, h, w)."""

from __future__ import annotations

import numpy as np

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
    nine contiguous slices and the convolution is one matrix product."""
    n, c, h, wd = x.shape
    row = wd + 2
    flat = np.zeros((n, c, (h + 2) * row + 2), np.float32)
    flat[:, :, :(h + 2) * row].reshape(n, c, h + 2, row)[:, :, 1:-1, 1:-1] = x
    span = h * row  # outputs at (y, x) for x < row: the last two of each row are discarded
    cols = np.concatenate([flat[:, :, i * row + j:i * row + j + span] for i in range(3) for j in range(3)], axis=1)
    y = np.matmul(w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c), cols)  # (n, out, span)
    # pooled before the bias and ReLU, which commute with the max: a quarter of the work
    y = y.reshape(n, len(w), h // 2, 2 * row)  # each pair of rows side by side
    m = np.maximum(y[..., :row], y[..., row:])
    p = np.maximum(m[..., 0:wd:2], m[..., 1:wd:2])
    p += b[:, None, None]
    return np.maximum(p, 0.0, out=p)


def conv_stride2_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """3x3 convolution with a stride of 2 (torch's layout and sampling: zero padding of one
    pixel, outputs at the even pixels), then ReLU; h and w even.  The nine taps are nine
    strided views; the convolution is one matrix product."""
    n, c, h, wd = x.shape
    pad = np.zeros((n, c, h + 2, wd + 2), np.float32)
    pad[:, :, 1:-1, 1:-1] = x
    cols = np.concatenate([pad[:, :, i:i + h:2, j:j + wd:2] for i in range(3) for j in range(3)], axis=1)
    y = np.matmul(w.transpose(0, 2, 3, 1).reshape(len(w), 9 * c), cols.reshape(n, 9 * c, -1))
    y += b[:, None]
    np.maximum(y, 0.0, out=y)
    return y.reshape(n, len(w), h // 2, wd // 2)


def dense_score(x: np.ndarray, weights: dict[str, np.ndarray]) -> np.ndarray:
    """The nets' head: the last convolution's output (n, ...) flattened, a dense layer with
    ReLU, then one score per picture (n,)."""
    h = x.reshape(len(x), -1) @ weights["fc1_w"].T + weights["fc1_b"]
    np.maximum(h, 0.0, out=h)
    return (h @ weights["fc2_w"].T + weights["fc2_b"])[:, 0]
