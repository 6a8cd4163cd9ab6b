"""Padding layers (``F.pad`` with a fixed padding and mode): ZeroPad, ConstantPad,
ReflectionPad, ReplicationPad and CircularPad for 1-d, 2-d and 3-d inputs, with PyTorch's
reprs."""

from .module import Module

__all__ = []


def _layer(name, mode, dims, constant):
    def __init__(self, padding, *args, **kwargs):
        Module.__init__(self)
        if isinstance(padding, int):
            padding = (padding,) * (2 * dims)
        self.padding = tuple(padding)
        if constant:
            self.value = kwargs.pop("value", args[0] if args else 0.0) if name.startswith(
                "Constant") else 0.0

    def forward(self, input):
        from .. import functional as F

        if mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, mode)

    def extra_repr(self):
        if name.startswith("Constant"):
            return f"padding={self.padding}, value={self.value}"
        return f"{self.padding}"

    doc = (f"Pad the last {dims} dim(s) by ``padding`` (an int for every side, or "
           f"{2 * dims} ints: left, right{', top, bottom' if dims > 1 else ''}"
           f"{', front, back' if dims > 2 else ''}), mode ``{mode}``.")
    cls = type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc,
                                  "__module__": __name__})
    __all__.append(name)
    return cls


ZeroPad1d, ZeroPad2d, ZeroPad3d = (_layer(f"ZeroPad{d}d", "constant", d, True)
                                   for d in (1, 2, 3))
ConstantPad1d, ConstantPad2d, ConstantPad3d = (_layer(f"ConstantPad{d}d", "constant", d, True)
                                               for d in (1, 2, 3))
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (
    _layer(f"ReflectionPad{d}d", "reflect", d, False) for d in (1, 2, 3))
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (
    _layer(f"ReplicationPad{d}d", "replicate", d, False) for d in (1, 2, 3))
CircularPad1d, CircularPad2d, CircularPad3d = (_layer(f"CircularPad{d}d", "circular", d, False)
                                               for d in (1, 2, 3))
