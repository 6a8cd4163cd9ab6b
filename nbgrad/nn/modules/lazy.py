"""What the lazy layers share (``LazyModuleMixin``, and the forms of the convolution and
normalization families; each family's module defines its own lazy layers, where PyTorch
keeps them: ``LazyLinear`` in ``linear``, ``LazyConv2d`` in ``conv``, ...). A lazy layer's
input size (features, channels) is read from the first input: until then its weights are
uninitialized parameters (``nn.UninitializedParameter``); the first call gives them their
shapes in place, initializes them as the ordinary layer does, and turns the module into
that layer (``type(m)`` becomes ``Linear``, ...), as PyTorch's lazy modules do."""

from ...autograd.grad_mode import no_grad
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy, materialize

__all__ = ["LazyModuleMixin"]


def _infer_parameters(module, args):
    """The first call's pre-hook: shape the parameters from the input, then become the
    ordinary layer."""
    module.initialize_parameters(*args)
    if module.has_uninitialized_params():
        raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
    module._initialize_hook.remove()
    del module._initialize_hook
    module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """What every lazy layer adds to its ordinary one: ``has_uninitialized_params``, the
    first call's hook, and a ``load_state_dict`` that shapes uninitialized parameters from
    the checkpoint's tensors."""

    cls_to_become = None
    _in_attr = None  # the attribute holding the input size ("in_features", ...)

    def _lazy_start(self, names, device, dtype):
        """Make parameters ``names`` uninitialized; hook the first call."""
        for name in names:
            setattr(self, name, UninitializedParameter(device=device, dtype=dtype))
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def _in_size(self):
        return getattr(self, self._in_attr)

    def _set_in_size(self, n):
        setattr(self, self._in_attr, n)

    def has_uninitialized_params(self):
        """Whether some parameter or buffer of this module is not shaped yet."""
        return any(is_lazy(t) for t in list(self._parameters.values())
                   + list(self._buffers.values()) if t is not None)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self._in_size() != 0:
            super().reset_parameters()

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, unexpected_keys,
                              error_msgs, assign):
        with no_grad():
            for table in (self._parameters, self._buffers):
                for name, t in table.items():
                    key = prefix + name
                    if t is not None and is_lazy(t) and key in state_dict:
                        materialize(t, tuple(state_dict[key].shape))
        super()._load_from_state_dict(state_dict, prefix, missing_keys, unexpected_keys,
                                      error_msgs, assign)

    def _shape(self, input, size, shapes):
        """Set the input size the layer reads from ``input`` and give each uninitialized
        tensor its shape (``shapes``: name -> shape), then initialize as the layer does."""
        if not self.has_uninitialized_params():
            if self._in_size() == 0:  # (shaped by load_state_dict: the size from the input)
                self._set_in_size(size)
            return
        with no_grad():
            self._set_in_size(size)
            for name, shape in shapes.items():
                t = getattr(self, name)
                if t is not None and is_lazy(t):
                    materialize(t, shape)
            self.reset_parameters()


class _LazyConvXdMixin(LazyModuleMixin):
    _in_attr = "in_channels"

    def _init_lazy(self, out_channels, bias, device, dtype):
        self.out_channels = out_channels
        self._lazy_start(("weight", "bias") if bias else ("weight",), device, dtype)

    def initialize_parameters(self, input, *args):
        n = self._dims
        if input.ndim not in (n + 1, n + 2):
            raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to "
                               f"{self._get_name()}, but got input of size: {input.shape}")
        c = input.shape[1] if input.ndim == n + 2 else input.shape[0]
        if self.transposed:
            shape = (c, self.out_channels // self.groups) + self.kernel_size
        else:
            shape = (self.out_channels, c // self.groups) + self.kernel_size
        self._shape(input, c, {"weight": shape, "bias": (self.out_channels,)})


def lazy_conv(name, base):
    """The lazy form of convolution layer ``base`` (its arguments, without in_channels)."""

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, dilation, groups, False,
                      padding_mode, device, dtype)
        self._init_lazy(out_channels, bias, device, dtype)

    doc = f"A ``{base.__name__}`` whose ``in_channels`` is the first input's channel count."
    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base,
                                                 "__doc__": doc, "__module__": base.__module__})


def lazy_conv_transpose(name, base):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                 groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                 dtype=None):
        base.__init__(self, 0, 0, kernel_size, stride, padding, output_padding, groups, False,
                      dilation, padding_mode, device, dtype)
        self._init_lazy(out_channels, bias, device, dtype)

    doc = f"A ``{base.__name__}`` whose ``in_channels`` is the first input's channel count."
    return type(name, (_LazyConvXdMixin, base), {"__init__": __init__, "cls_to_become": base,
                                                 "__doc__": doc, "__module__": base.__module__})


class _LazyNormMixin(LazyModuleMixin):
    _in_attr = "num_features"

    def _init_lazy(self, affine, track_running_stats, device, dtype, bias=True):
        self.affine, self.track_running_stats = affine, track_running_stats
        if track_running_stats:
            from ... import dtypes
            from ...creation import tensor

            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=dtypes.int64, device=device)
        self._lazy_start((("weight", "bias") if bias else ("weight",)) if affine else (),
                         device, dtype)

    def initialize_parameters(self, input, *args):
        n = input.shape[1]  # (as PyTorch's, for unbatched instance norm too)
        self._shape(input, n, dict.fromkeys(("weight", "bias", "running_mean", "running_var"),
                                            (n,)))


def lazy_norm(name, base):
    # (affine and running statistics by default for the instance norms too, as PyTorch's)
    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        base.__init__(self, 0, eps, momentum, False, False, device, dtype)
        self._init_lazy(affine, track_running_stats, device, dtype, bias)

    doc = f"A ``{base.__name__}`` whose ``num_features`` is the first input's dim 1."
    return type(name, (_LazyNormMixin, base), {"__init__": __init__, "cls_to_become": base,
                                               "__doc__": doc, "__module__": base.__module__})
