"""Activation layers: ReLU, GELU, Tanh, Sigmoid, Softmax, LogSoftmax, the layers of the
composed activations (LeakyReLU, ELU, SiLU, ...), and MultiheadAttention (where PyTorch
keeps it)."""

from .. import init
from .linear import NonDynamicallyQuantizableLinear
from .module import Module
from .utils import _factory

__all__ = ["Softmax2d", "ReLU", "GELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU",
           "CELU", "SELU", "SiLU", "Mish", "Hardtanh", "ReLU6", "Hardsigmoid", "Hardswish",
           "LogSigmoid", "Softsign", "Tanhshrink", "Hardshrink", "Softshrink", "Softplus", "Threshold", "GLU", "Softmin",
           "PReLU", "MultiheadAttention", "RReLU"]


class ReLU(Module):
    """``max(x, 0)``. ``inplace=True`` is accepted; the result is computed out of place."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # (the row's function itself: no F.relu frame on a layer)
        from ...ops.elementwise import relu

        return relu(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""



class GELU(Module):
    """Gaussian error linear unit (``approximate='none'`` or ``'tanh'``)."""

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        from .. import functional as F

        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"



class Tanh(Module):
    def forward(self, input):
        from .. import functional as F

        return F.tanh(input)



class Sigmoid(Module):
    def forward(self, input):
        from .. import functional as F

        return F.sigmoid(input)


class Softmax(Module):
    """``softmax`` along ``dim`` (None: PyTorch's legacy choice of dim, with its warning).

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn import Softmax
        >>> Softmax(dim=1)(nbgrad.zeros(1, 4))
        tensor([[0.2500, 0.2500, 0.2500, 0.2500]])
    """

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        from .. import functional as F

        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """``log_softmax`` along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        from .. import functional as F

        return F.log_softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


def _layer(name, fn_name, params=(), doc=""):
    """A layer that calls ``F.<fn_name>(input, *params)``; its constructor takes ``params``
    (name, default) and ``inplace`` where PyTorch's does."""
    names = [p for p, _ in params]

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        values = dict(params)
        for (p, _), a in zip(params, args):
            values[p] = a
        for k, a in kwargs.items():
            if k not in values and k != "inplace":
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{k}'")
            values[k] = a
        for p in names:
            setattr(self, p, values[p])
        if "inplace" in values:
            self.inplace = values["inplace"]

    def forward(self, input):
        from .. import functional as F

        return getattr(F, fn_name)(input, *[getattr(self, p) for p in names])

    def extra_repr(self):
        parts = [f"{p}={getattr(self, p)}" for p in names if p != "inplace"]
        if getattr(self, "inplace", False):
            parts.append("inplace=True")
        return ", ".join(parts)

    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc,
                                  "__module__": __name__})


LeakyReLU = _layer("LeakyReLU", "leaky_relu", (("negative_slope", 0.01), ("inplace", False)),
                   "``input`` where positive, else ``negative_slope * input``.")
ELU = _layer("ELU", "elu", (("alpha", 1.0), ("inplace", False)), "Exponential linear unit.")
CELU = _layer("CELU", "celu", (("alpha", 1.0), ("inplace", False)), "Continuous ELU.")
SELU = _layer("SELU", "selu", (("inplace", False),), "Scaled ELU (self-normalizing).")
SiLU = _layer("SiLU", "silu", (("inplace", False),), "``input * sigmoid(input)``.")
Mish = _layer("Mish", "mish", (("inplace", False),), "``input * tanh(softplus(input))``.")
Hardtanh = _layer("Hardtanh", "hardtanh",
                  (("min_val", -1.0), ("max_val", 1.0), ("inplace", False)),
                  "``input`` clipped to ``[min_val, max_val]``.")
ReLU6 = _layer("ReLU6", "relu6", (("inplace", False),), "``min(max(input, 0), 6)``.")
Hardsigmoid = _layer("Hardsigmoid", "hardsigmoid", (("inplace", False),),
                     "Piecewise-linear sigmoid.")
Hardswish = _layer("Hardswish", "hardswish", (("inplace", False),),
                   "``input * hardsigmoid(input)``.")
LogSigmoid = _layer("LogSigmoid", "logsigmoid", (), "``log(sigmoid(input))``.")
Softsign = _layer("Softsign", "softsign", (), "``input / (1 + |input|)``.")
Tanhshrink = _layer("Tanhshrink", "tanhshrink", (), "``input - tanh(input)``.")
Hardshrink = _layer("Hardshrink", "hardshrink", (("lambd", 0.5),),
                    "``input`` where ``|input| > lambd``, else 0.")
Softshrink = _layer("Softshrink", "softshrink", (("lambd", 0.5),),
                    "``input`` moved ``lambd`` towards 0, 0 within ``[-lambd, lambd]``.")
Softplus = _layer("Softplus", "softplus", (("beta", 1.0), ("threshold", 20.0)),
                  "``log(1 + exp(beta * input)) / beta`` (linear above ``threshold``).")
Threshold = _layer("Threshold", "threshold",
                   (("threshold", None), ("value", None), ("inplace", False)),
                   "``input`` where above ``threshold``, else ``value``.")
GLU = _layer("GLU", "glu", (("dim", -1),), "Gated linear unit along ``dim``.")
Softmin = _layer("Softmin", "softmin", (("dim", None),), "``softmax(-input, dim)``.")


class PReLU(Module):
    """``input`` where positive, else a learned slope times ``input`` (one slope, or one per
    channel), initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        from ... import dtypes
        from ...creation import full
        from ..parameter import Parameter

        super().__init__()
        self.num_parameters = num_parameters
        dt = dtype if dtype is not None else dtypes.get_default_dtype()
        self.weight = Parameter(full((num_parameters,), init, dtype=dt, device=device))

    def forward(self, input):
        from .. import functional as F

        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class MultiheadAttention(Module):
    """``MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False)``:
    ``in_proj_weight`` (3E, E) Xavier-uniform, ``in_proj_bias`` zeros, ``out_proj`` a
    Linear with a zero bias. ``forward(query, key, value, key_padding_mask=None,
    need_weights=True, attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(output, weights)``.

    Example::

        >>> import nbgrad
        >>> mha = nbgrad.nn.MultiheadAttention(8, 2, batch_first=True)
        >>> x = nbgrad.randn(3, 5, 8)
        >>> out, w = mha(x, x, x)
        >>> tuple(out.shape), tuple(w.shape)
        ((3, 5, 8), (3, 5, 5))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        new = _factory(device, dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = new(3 * embed_dim, embed_dim)
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:  # keys and values of other widths: a projection each
            self.q_proj_weight = new(embed_dim, embed_dim)
            self.k_proj_weight = new(embed_dim, self.kdim)
            self.v_proj_weight = new(embed_dim, self.vdim)
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = new(3 * embed_dim)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        device=device, dtype=dtype)
        if add_bias_kv:  # a learned key and value every query also attends to
            self.bias_k, self.bias_v = new(1, 1, embed_dim), new(1, 1, embed_dim)
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        for b in (self.bias_k, self.bias_v):
            if b is not None:
                init.xavier_normal_(b)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use "
                               "the Transformer module method `generate_square_subsequent_mask`"
                               " to create this mask.")
        if self.batch_first and query.ndim == 3:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        from .. import functional as F

        out, weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, self.training, key_padding_mask,
            need_weights, attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights)
        if self.batch_first and query.ndim == 3:
            out = out.transpose(0, 1)
        return out, weights


class RReLU(Module):
    """Randomized leaky ReLU (``F.rrelu``): random slopes in [lower, upper] while training,
    their mean in eval mode."""

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        from .. import functional as F

        return F.rrelu(input, self.lower, self.upper, self.training)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                             else "")


class Softmax2d(Module):
    """``softmax`` over the channels of (N, C, H, W) or (C, H, W) (dim -3)."""

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        from .. import functional as F

        return F.softmax(input, -3)
