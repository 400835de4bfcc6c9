"""What the fit scripts of the small convolutional nets share (``fit_square_net.py``,
``fit_size_check.py``): the torch twin of a net that ``vision/convnet.py`` runs with numpy,
its optimiser, and the export of its weights by the names ``vision/convnet.py`` reads.

torch is imported only inside the functions: the module imports without it (the fit extra,
``pip install -e .[fit]``)."""

from __future__ import annotations

import numpy as np

from vision.convnet import Convs


def build_twin(convs: Convs, hidden: int, crop_px: int, stride2_first: bool = False):
    """The torch twin of a ``vision/convnet.py`` net: 3x3 convolutions with ReLU, each
    followed by 2x2 max pooling, but the first one with a stride of 2 and no pooling where
    ``stride2_first`` (``convnet.conv_stride2_relu``); then a dense layer of ``hidden`` units
    with ReLU and one score (``convnet.dense_score``)."""
    import torch.nn as nn

    layers: list = []
    for i, (_, cin, cout) in enumerate(convs):
        if i == 0 and stride2_first:
            layers += [nn.Conv2d(cin, cout, 3, stride=2, padding=1), nn.ReLU()]
        else:
            layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]
    side = crop_px // 2 ** len(convs)
    layers += [nn.Flatten(), nn.Linear(convs[-1][2] * side * side, hidden), nn.ReLU(), nn.Linear(hidden, 1)]
    return nn.Sequential(*layers)


def one_cycle_adam(net, rate: float, weight_decay: float, steps: int):
    """Adam with weight decay and a one-cycle rate schedule (a tenth of the steps warming up)
    over ``steps`` steps: (optimiser, scheduler)."""
    import torch

    opt = torch.optim.Adam(net.parameters(), lr=rate, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=rate, total_steps=steps, pct_start=0.1)
    return opt, sched


def export_weights(net, convs: Convs) -> dict[str, np.ndarray]:
    """The twin's weights as float32 arrays named as ``vision/convnet.py`` reads them: each
    convolution's ``<name>_w`` and ``<name>_b``, then ``fc1_*`` and ``fc2_*``."""
    import torch

    mods = [m for m in net if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear))]
    names = [name for name, _, _ in convs] + ["fc1", "fc2"]
    if len(mods) != len(names):
        raise ValueError(f"the twin has {len(mods)} weighted layers, the net {len(names)}")
    out = {}
    for name, m in zip(names, mods):
        out[f"{name}_w"] = m.weight.detach().numpy().astype(np.float32)
        out[f"{name}_b"] = m.bias.detach().numpy().astype(np.float32)
    return out
