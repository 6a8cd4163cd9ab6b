"""Devices: ``cpu`` and ``cuda:N``.

This module knows the names only. Storage for each device type lives in a backend
(``nbgrad.backends``); ``numba.cuda`` is imported by the CUDA backend alone, and only when
the first CUDA tensor is made.
"""


class device:
    """A device, as ``torch.device``: ``device("cpu")``, ``device("cuda:0")``."""

    __slots__ = ("type", "index")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if not isinstance(type, str):
            raise TypeError(f"device(): expected a string like 'cpu' or 'cuda:0', got {type!r}")
        if ":" in type:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
            type, _, idx = type.partition(":")
            try:
                index = int(idx)
            except ValueError:
                raise RuntimeError(f"Invalid device string: '{type}:{idx}'") from None
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}"
            )
        if type == "cuda" and index is None:
            index = 0
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = as_device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = device("cpu")
_cache = {"cpu": CPU}


def as_device(d):
    """Normalise ``None``, a string or a ``device`` to a ``device`` (``None`` is the CPU)."""
    if d is None:
        return CPU
    if isinstance(d, device):
        return d
    r = _cache.get(d)
    if r is None:
        if isinstance(d, int):
            r = device("cuda", d)
        else:
            r = device(d)
        _cache[d] = r
    return r
