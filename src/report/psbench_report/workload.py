"""The sample shape and class count `psbench model predict` needs (--input, --classes, --sample-bytes), found
from what a results file records: the bytes each sample takes on disk and the model's parameter count."""

from dataclasses import dataclass
from math import isqrt


@dataclass(frozen=True)
class InputShape:
    """A sample's shape C x H x W, the class count K and the stored bytes per sample (uint8 image + label)."""

    channels: int
    height: int
    width: int
    classes: int
    sample_bytes: int

    @property
    def text(self) -> str:
        """"C,H,W" as --input takes it."""
        return f"{self.channels},{self.height},{self.width}"


def _square(features: int) -> tuple:
    """(C, H, W) with H = W and C = 1 or 3 where that divides evenly, else (1, 1, features)."""
    for channels in (1, 3):
        side = isqrt(features // channels) if features % channels == 0 else 0
        if side > 0 and channels * side * side == features:
            return channels, side, side
    return 1, 1, features


def _mlp_classes(spec: str, features: int, parameters: int) -> int | None:
    """K from P = sum over layers of (inputs x outputs + outputs), with the hidden widths of mlp:H1,H2,..."""
    try:
        hidden = [int(h) for h in spec.removeprefix("mlp:").split(",") if h]
    except ValueError:
        return None
    widths = [features] + hidden
    known = sum(a * b + b for a, b in zip(widths, widths[1:]))
    rest, last = parameters - known, widths[-1] + 1
    return rest // last if rest > 0 and rest % last == 0 else None


def input_shape(spec: str, parameters: int, sample_bytes: int | None) -> InputShape | None:
    """The shape of an MLP run's samples (one label byte per sample, uint8 pixels), or of a CNN run on 28 x 28
    images with 10 classes; None when the record does not determine it."""
    if sample_bytes is None or sample_bytes < 2:
        return None
    features = sample_bytes - 1
    if spec.startswith("mlp:"):
        classes = _mlp_classes(spec, features, parameters)
        return InputShape(*_square(features), classes, sample_bytes) if classes and classes >= 2 else None
    if spec == "cnn" and features == 28 * 28:
        return InputShape(1, 28, 28, 10, sample_bytes)
    return None
