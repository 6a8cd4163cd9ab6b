"""Activations: gelu (exact and tanh-approximated) as elementwise rows with fused backward
steps, whose per-element bodies live in ``kernels/scalar.py``; silu and the rest (leaky_relu,
elu, hardtanh, ...) composed of ops."""

import functools
import inspect
import math

from .. import dtypes as _dt
from ..amp.policy import autocast_op
from ..kernels import scalar as S
from ..tensor import _wrap_dim
from .dispatch import apply1
from .elementwise import (
    abs,  # noqa: A004
    add,
    div,
    exp,
    expm1,
    ge,
    gt,
    le,
    log1p,
    mul,
    neg,
    refuse_integers,
    rsub,
    sigmoid,
    sub,
    tanh,
    where,
)
from .inplace import inplace_binary
from .opdef import TABLE, defop

_FLOAT = "float"
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_BETA = math.sqrt(2 / math.pi)
_KAPPA = 0.044715


def _inplace_flag(result_float=True, kernel=None):
    """Make PyTorch's ``inplace`` argument of an activation computed out of place real.

    With ``inplace=True`` the result is written into ``input``, which is returned (the same
    object, its version bumped), as ``Tensor.relu_`` and the other in-place forms of the
    table's ops do, through ``ops/inplace.inplace_binary``: PyTorch's checks first (a leaf
    that requires grad, a view of one, an inference tensor), then, when autograd records,
    the function runs on a clone of ``input``, whose history ``input`` takes. What its
    nodes save is the clone's, which no later write to ``input`` touches, so backward after
    the in-place call works as after the out-of-place one.

    ``result_float``: the result is floating point, so an integer ``input`` is refused
    (PyTorch has no integer kernel for these); ``False`` keeps ``input``'s dtype
    (hardtanh, relu6 and threshold take integers in PyTorch too). ``kernel``: PyTorch's
    kernel name, in the ``NotImplementedError`` an integer or bool ``input`` gets.
    """
    bound = 0.0 if result_float else False  # (only decides inplace_binary's dtype check)

    def wrap(fn):
        at = list(inspect.signature(fn).parameters).index("inplace")
        name = fn.__name__ + "_"

        @functools.wraps(fn)
        def front(*args, **kwargs):
            if kernel is not None:
                refuse_integers(args[0] if args else kwargs.get("input"), kernel)
            inplace = args[at] if len(args) > at else kwargs.get("inplace", False)
            if not inplace:
                return fn(*args, **kwargs)
            if args:
                input, rest = args[0], args[1:]
            else:
                input, rest = kwargs.pop("input"), ()
            return inplace_binary(name, lambda a, _: fn(a, *rest, **kwargs), input, bound)

        return front

    return wrap


def _gelu(input, approximate="none"):
    r"""Apply the Gaussian error linear unit elementwise: :math:`\text{GELU}(x) = x \Phi(x)`.

    :math:`\Phi` is the standard normal cumulative distribution function. With
    ``approximate="tanh"`` it is estimated as
    :math:`0.5 x (1 + \tanh(\sqrt{2 / \pi} (x + 0.044715 x^3)))`.

    Args:
        input (Tensor): the input tensor (floating point).
        approximate (str, optional): ``"none"`` (the exact form, through ``erf``) or
            ``"tanh"`` (the tanh approximation). Default: ``"none"``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([-1.0, 0.0, 1.0])
        >>> F.gelu(x)
        tensor([-0.1587,  0.0000,  0.8413])
        >>> F.gelu(x, approximate="tanh")
        tensor([-0.1588,  0.0000,  0.8412])
    """
    refuse_integers(input, "GeluKernelImpl")
    if approximate == "none":
        return apply1(_GELU, input)
    if approximate == "tanh":
        return apply1(_GELU_TANH, input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def _gelu_dd(x):
    """d/dx of gelu's derivative ``cdf(x) + x * pdf(x)``: ``pdf(x) * (2 - x**2)``."""
    x2 = mul(x, x)
    return mul(mul(exp(mul(x2, -0.5)), _INV_SQRT_2PI), rsub(x2, 2.0))


def _gelu_tanh_dd(x):
    """d/dx of the tanh approximation's derivative: with ``u = b * (x + k * x**3)``,
    ``t = tanh(u)``: ``(1 - t**2) * (u' - x * t * u'**2 + 3 * b * k * x**2)``."""
    x2 = mul(x, x)
    t = tanh(mul(mul(rsub(mul(x2, -_KAPPA), 1.0), x), _BETA))
    du = mul(rsub(mul(x2, -3 * _KAPPA), 1.0), _BETA)
    inner = rsub(mul(mul(x, t), mul(du, du)), du)
    inner = rsub(mul(x2, -3 * _BETA * _KAPPA), inner)
    return mul(rsub(mul(t, t), 1.0), inner)


# PyTorch saves the input for both (not intermediates); both nodes are GeluBackward0
gelu = defop("gelu", S.gelu, cpu_body=S.gelu_v, dtype=_FLOAT, front=_gelu, grad_once=True,
             fn=False, method=False, node="GeluBackward0",
             grads=("gelu_backward(grad, input)",))
_GELU = TABLE["gelu"]
gelu_tanh = defop("gelu_tanh", S.gelu_tanh, cpu_body=S.gelu_tanh_v, dtype=_FLOAT,
                  grad_once=True, fn=False, method=False, node="GeluBackward0",
                  grads=("gelu_tanh_backward(grad, input)",),
                  doc="``gelu(input, approximate='tanh')``.")
_GELU_TANH = TABLE["gelu_tanh"]
gelu_backward = defop(
    "gelu_backward", S.gelu_bwd, cpu_body=S.gelu_bwd_v, dtype=_FLOAT, fn=False, method=False,
    params=("grad_output", "input"),
    grads=("gelu_backward(grad, input)", "mul(mul(grad, grad_output), _gelu_dd(input))"),
    doc="``grad_output * (cdf(input) + input * pdf(input))``: gelu's backward step as one "
        "kernel.")
gelu_tanh_backward = defop(
    "gelu_tanh_backward", S.gelu_tanh_bwd, cpu_body=S.gelu_tanh_bwd_v, dtype=_FLOAT,
    fn=False, method=False, params=("grad_output", "input"), node="GeluBackwardBackward0",
    grads=("gelu_tanh_backward(grad, input)",
           "mul(mul(grad, grad_output), _gelu_tanh_dd(input))"),
    doc="The tanh-approximated gelu's backward step as one kernel.")


@_inplace_flag(kernel="silu_cpu")
def silu(input, inplace=False):
    r"""Apply the sigmoid linear unit (swish) elementwise: :math:`\text{SiLU}(x) = x \sigma(x)`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.silu(nbgrad.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.2689,  0.0000,  0.7311])
    """
    return mul(input, sigmoid(input))


# ----- activations composed of table ops (their nodes are the parts'; the gradients at the
# kinks are PyTorch's: the ``where`` picks the branch PyTorch's backward takes there) ------
@_inplace_flag(kernel="leaky_relu_cpu")
def leaky_relu(input, negative_slope=0.01, inplace=False):
    r"""Apply the leaky ReLU elementwise: :math:`\max(0, x) + \text{negative\_slope} \min(0, x)`.

    Args:
        input (Tensor): the input tensor.
        negative_slope (float, optional): the slope for negative inputs. Default: ``0.01``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.leaky_relu(nbgrad.tensor([-2.0, 0.0, 3.0]), negative_slope=0.1)
        tensor([-0.2000,  0.0000,  3.0000])
    """
    return where(gt(input, 0), input, mul(input, negative_slope))


@_inplace_flag(kernel="elu_cpu")
def elu(input, alpha=1.0, inplace=False):
    r"""Apply the exponential linear unit elementwise.

    :math:`\text{ELU}(x) = x` for :math:`x > 0`, else :math:`\alpha (\exp(x) - 1)`.

    Args:
        input (Tensor): the input tensor.
        alpha (float, optional): the :math:`\alpha` of the negative branch. Default: ``1.0``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.elu(nbgrad.tensor([-2.0, 0.0, 3.0]))
        tensor([-0.8647,  0.0000,  3.0000])
    """
    return where(gt(input, 0), input, mul(expm1(input), alpha))


@_inplace_flag(kernel="elu_cpu")
def celu(input, alpha=1.0, inplace=False):
    r"""Apply the continuously differentiable ELU elementwise.

    :math:`\text{CELU}(x) = \max(0, x) + \min(0, \alpha (\exp(x / \alpha) - 1))`.

    Args:
        input (Tensor): the input tensor.
        alpha (float, optional): the :math:`\alpha` of the negative branch. Default: ``1.0``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.celu(nbgrad.tensor([-2.0, 0.0, 3.0]), alpha=2.0)
        tensor([-1.2642,  0.0000,  3.0000])
    """
    if alpha == 0:  # (PyTorch's message names the Python error it avoids)
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return where(gt(input, 0), input, mul(expm1(div(input, alpha)), alpha))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


@_inplace_flag(kernel="elu_cpu")
def selu(input, inplace=False):
    r"""Apply the scaled exponential linear unit elementwise.

    :math:`\text{SELU}(x) = \text{scale} (\max(0, x) + \min(0, \alpha (\exp(x) - 1)))` with the
    self-normalizing constants :math:`\alpha \approx 1.6733` and
    :math:`\text{scale} \approx 1.0507`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.selu(nbgrad.tensor([-1.0, 0.0, 1.0]))
        tensor([-1.1113,  0.0000,  1.0507])
    """
    return mul(elu(input, _SELU_ALPHA), _SELU_SCALE)


@_inplace_flag(result_float=False)
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    r"""Clamp each element of ``input`` to :math:`[\text{min\_val}, \text{max\_val}]`.

    As in PyTorch, the gradient is 0 at the bounds and outside them.

    Args:
        input (Tensor): the input tensor.
        min_val (float, optional): the lower bound. Default: ``-1.0``.
        max_val (float, optional): the upper bound; must not be below ``min_val``.
            Default: ``1.0``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.hardtanh(nbgrad.tensor([-2.0, 0.5, 3.0]))
        tensor([-1.0000,  0.5000,  1.0000])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not input.dtype.is_floating_point and input.dtype is not _dt.bool_:
        min_val, max_val = int(min_val), int(max_val)  # (an integer input keeps its dtype)
    return where(le(input, min_val), min_val, where(ge(input, max_val), max_val, input))


@_inplace_flag(result_float=False)
def relu6(input, inplace=False):
    r"""Apply :math:`\min(\max(0, x), 6)` elementwise (``hardtanh(input, 0, 6)``).

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.relu6(nbgrad.tensor([-1.0, 3.0, 8.0]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0)


@_inplace_flag(kernel="hardsigmoid_cpu")
def hardsigmoid(input, inplace=False):
    r"""Apply the piecewise-linear sigmoid elementwise.

    :math:`0` for :math:`x \le -3`, :math:`1` for :math:`x \ge 3`, else :math:`x / 6 + 1 / 2`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.hardsigmoid(nbgrad.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.5000, 0.7500, 1.0000])
    """
    return where(le(input, -3.0), 0.0, where(ge(input, 3.0), 1.0, add(div(input, 6.0), 0.5)))


@_inplace_flag(kernel="hardswish_cpu")
def hardswish(input, inplace=False):
    r"""Apply the hard swish elementwise: :math:`x \cdot \text{hardsigmoid}(x)`.

    :math:`0` for :math:`x \le -3`, :math:`x` for :math:`x \ge 3`, else :math:`x (x + 3) / 6`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.hardswish(nbgrad.tensor([-4.0, 0.0, 1.5, 4.0]))
        tensor([0.0000, 0.0000, 1.1250, 4.0000])
    """
    return where(le(input, -3.0), 0.0,
                 where(ge(input, 3.0), input, div(mul(input, add(input, 3.0)), 6.0)))


def logsigmoid(input):
    r"""Apply :math:`\log(1 / (1 + \exp(-x)))` elementwise, finite for any input.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.logsigmoid(nbgrad.tensor([-100.0, 0.0, 2.0]))
        tensor([-100.0000,   -0.6931,   -0.1269])
    """
    refuse_integers(input, "log_sigmoid_cpu")
    ax = abs(input)
    return neg(add(log1p(exp(neg(ax))), mul(sub(ax, input), 0.5)))


def softsign(input):
    """Apply :math:`x / (1 + |x|)` elementwise.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.softsign(nbgrad.tensor([-3.0, 0.0, 1.0]))
        tensor([-0.7500,  0.0000,  0.5000])
    """
    return div(input, add(abs(input), 1.0))


def tanhshrink(input):
    r"""Apply :math:`x - \tanh(x)` elementwise.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.tanhshrink(nbgrad.tensor([-1.0, 0.0, 2.0]))
        tensor([-0.2384,  0.0000,  1.0360])
    """
    return sub(input, tanh(input))


@_inplace_flag(kernel="mish_cpu")
def mish(input, inplace=False):
    r"""Apply the Mish activation elementwise: :math:`x \tanh(\text{softplus}(x))`.

    Args:
        input (Tensor): the input tensor.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.mish(nbgrad.tensor([-1.0, 0.0, 1.0]))
        tensor([-0.3034,  0.0000,  0.8651])
    """
    from .elementwise import softplus

    return mul(input, tanh(softplus(input)))


@_inplace_flag(result_float=False)
def threshold(input, threshold, value, inplace=False):
    r"""Replace the elements of ``input`` not greater than ``threshold`` with ``value``.

    :math:`y = x` if :math:`x > \text{threshold}`, else :math:`\text{value}`.

    Args:
        input (Tensor): the input tensor.
        threshold (float): the threshold.
        value (float): the value that replaces the elements at or below the threshold.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.threshold(nbgrad.tensor([-1.0, 0.5, 2.0]), 0.5, -9.0)
        tensor([-9., -9.,  2.])
    """
    return where(gt(input, threshold), input, value)


def glu(input, dim=-1):
    r"""Apply the gated linear unit: :math:`a \otimes \sigma(b)`.

    ``input`` is split in two halves :math:`a` and :math:`b` along ``dim``.

    Args:
        input (Tensor): the input tensor; its size along ``dim`` must be even.
        dim (int, optional): the dimension to split. Default: ``-1``.

    Shape:
        - Input: :math:`(*_1, N, *_2)` with :math:`N` even, the size along ``dim``.
        - Output: :math:`(*_1, M, *_2)` with :math:`M = N / 2`.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.glu(nbgrad.tensor([[1.0, 2.0, 0.0, 100.0]]))
        tensor([[0.5000, 2.0000]])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = _wrap_dim(dim, input.ndim)
    n = input.shape[dim]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} "
                           f"is size {n}")
    refuse_integers(input, "glu_cpu")
    a, b = input.chunk(2, dim)
    return mul(a, sigmoid(b))


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    r"""Apply softmin along ``dim``: :math:`\exp(-x_i) / \sum_j \exp(-x_j)`, ``softmax(-input)``.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int, optional): the dimension along which the result sums to 1. ``None``
            (deprecated, with a warning) picks PyTorch's legacy choice: 0 for 0-, 1- and 3-D
            inputs, else 1. Default: ``None``.
        _stacklevel (int, optional): unused; kept for PyTorch's signature. Default: ``3``.
        dtype (nbgrad.dtype, optional): if given, ``input`` is converted to this dtype first.
            Default: ``None``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.softmin(nbgrad.tensor([1.0, 2.0, 3.0]), dim=0)
        tensor([0.6652, 0.2447, 0.0900])
    """
    from .softmax import softmax

    return softmax(neg(input), dim, dtype=dtype)


@autocast_op("prelu")
def prelu(input, weight):
    r"""Apply the parametric ReLU elementwise: :math:`\max(0, x) + w \min(0, x)`.

    Args:
        input (Tensor): the input tensor; dim 1 is the channel dimension.
        weight (Tensor): the learnable slopes :math:`w` of the negative inputs, a scalar or
            1-D: one element, or one per channel (``input.shape[1]``; an input of fewer
            than 2 dimensions has one channel). Its dtype must be the input's.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([[-1.0, -1.0], [2.0, -3.0]])
        >>> F.prelu(x, nbgrad.tensor([0.25]))
        tensor([[-0.2500, -0.2500],
                [ 2.0000, -0.7500]])
        >>> F.prelu(x, nbgrad.tensor([0.1, 0.5]))
        tensor([[-0.1000, -0.5000],
                [ 2.0000, -1.5000]])
    """
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got "
                           f"{input.dtype.scalar_type} and {weight.dtype.scalar_type}")
    if weight.numel() != 1:  # (PyTorch's checks, in its order)
        if input.ndim == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.ndim > 1 else 1
        if channels != weight.numel():
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {weight.numel()} and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError("prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    refuse_integers(input, "prelu_cpu")
    # one slope: a scalar, so that the result has the input's shape (a 0-d one included)
    w = weight.reshape(() if weight.numel() == 1 else
                       (1, -1) + (1,) * max(input.ndim - 2, 0))
    return where(gt(input, 0), input, mul(w, input))


def hardshrink(input, lambd=0.5):
    r"""Apply the hard shrinkage elementwise: :math:`x` where :math:`|x| > \lambda`, else 0.

    Args:
        input (Tensor): the input tensor.
        lambd (float, optional): the :math:`\lambda` of the formula. Default: ``0.5``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.hardshrink(nbgrad.tensor([-1.0, 0.3, 0.5, 2.0]))
        tensor([-1.,  0.,  0.,  2.])
    """
    refuse_integers(input, "hardshrink_cpu")
    return where(ge(input, -lambd) & le(input, lambd), 0.0, input)


def softshrink(input, lambd=0.5):
    r"""Apply the soft shrinkage elementwise: move each element ``lambd`` towards 0.

    :math:`x - \lambda` for :math:`x > \lambda`, :math:`x + \lambda` for :math:`x < -\lambda`,
    else 0.

    Args:
        input (Tensor): the input tensor.
        lambd (float, optional): the :math:`\lambda` of the formula, at least 0.
            Default: ``0.5``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> F.softshrink(nbgrad.tensor([-1.0, 0.3, 2.0]))
        tensor([-0.5000,  0.0000,  1.5000])
    """
    refuse_integers(input, "softshrink_check")
    import numpy as np

    if lambd < 0:
        fmax = np.finfo(np.float32 if input.dtype.low else input.dtype.np).max
        raise RuntimeError(f"lambda must be in range [0, {fmax:g}] for input dtype "
                           f"{input.dtype.scalar_type}, but found {lambd:g}")
    from .elementwise import sign

    return where(ge(input, -lambd) & le(input, lambd), 0.0,
                 sub(input, mul(sign(input), lambd)))


@_inplace_flag(kernel="leaky_relu_cpu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    r"""Apply the randomized leaky ReLU elementwise: :math:`x` for :math:`x > 0`, else :math:`a x`.

    While training, each element draws its own slope :math:`a` from
    :math:`\mathcal{U}(\text{lower}, \text{upper})` (the default generator); otherwise
    :math:`a = (\text{lower} + \text{upper}) / 2`.

    Args:
        input (Tensor): the input tensor.
        lower (float, optional): the lower bound of the slopes. Default: ``1 / 8``.
        upper (float, optional): the upper bound of the slopes. Default: ``1 / 3``.
        training (bool, optional): draw random slopes (``True``) or use the mean slope.
            Default: ``False``.
        inplace (bool, optional): write the result into ``input`` and return ``input``
            itself (not allowed on a leaf that requires grad). Default: ``False``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> x = nbgrad.tensor([-2.0, -1.0, 3.0])
        >>> F.rrelu(x, lower=0.1, upper=0.3)
        tensor([-0.4000, -0.2000,  3.0000])
        >>> _ = nbgrad.manual_seed(0)
        >>> F.rrelu(x, training=True).shape
        nbgrad.Size([3])
    """
    if not training:
        return leaky_relu(input, (lower + upper) / 2)
    from ..autograd.grad_mode import no_grad

    with no_grad():
        slopes = input.new_empty(tuple(input.shape)).uniform_(lower, upper)
    return where(gt(input, 0), input, mul(input, slopes))
