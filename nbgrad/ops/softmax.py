"""softmax and log_softmax along a dim, and their backward steps: four ``deffunc`` rows
(``ops/funcdef.py``), each one fused kernel of the kernel table over the ``(A, R, B)``
layout (``dim`` in the middle). The backward steps are rows with nodes of their own
(PyTorch's ``_softmax_backward_data`` and ``_log_softmax_backward_data``), so derivatives
of any order come from the formulas."""

import math

from ..amp.policy import autocast_op
from ..storage import for_device as backend
from ..storage.layout import c_data
from ._core import SCALAR_TYPE, Tensor, kernel, same_device
from .elementwise import exp, mul, neg, sub  # noqa: F401  (the formulas name them)
from .funcdef import deffunc, surface
from .reduce import sum as _sum  # noqa: F401  (the formulas name it)
from .shape import _wrap_dim


def _rows(a, odt, dev, dim):
    """Array ``a`` as a C-contiguous ``(A, R, B)`` array of dtype ``odt`` with ``dim`` in the
    middle (a copy only when it is not one already)."""
    a = c_data(a, dev, odt)
    shape = a.shape
    return a.reshape(math.prod(shape[:dim]), shape[dim] if shape else 1,
                     math.prod(shape[dim + 1:]))


def _forward(kname):
    def forward(*arrays_odt_dev_dim):
        *arrays, odt, dev, dim = arrays_odt_dev_dim
        out = backend(dev).empty(arrays[-1].shape, odt.np)
        if out.size:
            views = [_rows(a, odt, dev, dim) for a in arrays]
            kernel(kname, dev)(*views, out.reshape(views[-1].shape))
        return out

    forward.__name__ = "_" + kname + "_forward"
    return forward


def _float_dtype(op):
    def dtype(*dtypes_dim):
        dt = dtypes_dim[-2]  # the input's (the output's, for a backward step)
        if not dt.is_floating_point:
            raise NotImplementedError(f'"{op}_lastdim_kernel_impl" not implemented for '
                                      f"'{SCALAR_TYPE[dt.name]}'")
        return dt

    return dtype


def _same_shape(*shapes_dim):
    return tuple(shapes_dim[-2])


SOFTMAX = deffunc("softmax", kernels=("softmax",), forward=_forward("softmax"),
                  dtype=_float_dtype("softmax"), shape=_same_shape, args=("dim",),
                  grads=("_softmax_backward_data(grad, result, dim)",), functional=True)
LOG_SOFTMAX = deffunc("log_softmax", kernels=("log_softmax",), forward=_forward("log_softmax"),
                      dtype=_float_dtype("log_softmax"), shape=_same_shape, args=("dim",),
                      grads=("_log_softmax_backward_data(grad, result, dim)",), functional=True)
# the backward steps: d/d grad_output is the step itself on ``grad``; d/d output is the
# derivative of ``output * (grad_output - sum(grad_output * output))`` (softmax) or of
# ``grad_output - exp(output) * sum(grad_output)`` (log_softmax) in ``output``
SOFTMAX_BACKWARD = deffunc(
    "_softmax_backward_data", params=("grad_output", "output"),
    kernels=("softmax_backward",), forward=_forward("softmax_backward"),
    dtype=_float_dtype("softmax_backward"), shape=_same_shape, args=("dim",),
    grads=("_softmax_backward_data(grad, output, dim)",
           "sub(mul(grad, sub(grad_output, _sum(mul(grad_output, output), dim, keepdim=True))),"
           " mul(grad_output, _sum(mul(grad, output), dim, keepdim=True)))"),
    node="SoftmaxBackwardDataBackward0", method=False)
LOG_SOFTMAX_BACKWARD = deffunc(
    "_log_softmax_backward_data", params=("grad_output", "output"),
    kernels=("log_softmax_backward",), forward=_forward("log_softmax_backward"),
    dtype=_float_dtype("log_softmax_backward"), shape=_same_shape, args=("dim",),
    grads=("sub(grad, _sum(mul(grad, exp(output)), dim, keepdim=True))",
           "neg(mul(mul(grad, exp(output)), _sum(grad_output, dim, keepdim=True)))"),
    node="LogSoftmaxBackwardDataBackward0", method=False)


def _dim(x, dim, op):
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    if dim is None:
        # PyTorch's legacy implicit dim (deprecated there, with this warning)
        import warnings

        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if x.ndim in (0, 1, 3) else 1
    return _wrap_dim(dim, x.ndim) if x.ndim else 0


@surface(SOFTMAX)
@autocast_op("softmax")
def softmax(input, dim=None, dtype=None):
    r"""Apply softmax along ``dim``: :math:`\text{softmax}(x)_i = \exp(x_i) / \sum_j \exp(x_j)`.

    The slices along ``dim`` come out in :math:`[0, 1]` and sum to 1. The maximum is subtracted
    first, so any finite logits work; one fused kernel computes it.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int, optional): the dimension along which the result sums to 1. ``None``
            (deprecated, with a warning) picks PyTorch's legacy choice: 0 for 0-, 1- and
            3-D inputs, else 1.
            Default: ``None``.
        dtype (nbgrad.dtype, optional): if given, ``input`` is converted to this dtype first
            (the result has it), e.g. to compute in float64. Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> nbgrad.softmax(nbgrad.tensor([[1.0, 2.0, 3.0]]), dim=1)
        tensor([[0.0900, 0.2447, 0.6652]])
        >>> import nbgrad.nn.functional as F
        >>> F.softmax(nbgrad.tensor([[1.0, 2.0], [3.0, 5.0]]), dim=0, dtype=nbgrad.float64)
        tensor([[0.1192, 0.0474],
                [0.8808, 0.9526]], dtype=nbgrad.float64)
    """
    d = _dim(input, dim, "softmax")
    return SOFTMAX.call(input if dtype is None else input.to(dtype), d)


@surface(LOG_SOFTMAX)
@autocast_op("log_softmax")
def log_softmax(input, dim=None, dtype=None):
    r"""Apply :math:`\log(\text{softmax}(x))` along ``dim``: :math:`x_i - \log \sum_j \exp(x_j)`.

    Computed stably in one fused kernel; prefer it to ``log(softmax(x))``, which underflows.
    It is the input that :func:`nll_loss` expects.

    Args:
        input (Tensor): the input tensor (floating point).
        dim (int, optional): the dimension to normalize along. ``None`` (deprecated, with
            a warning) picks PyTorch's legacy choice: 0 for 0-, 1- and 3-D inputs, else 1.
            Default: ``None``.
        dtype (nbgrad.dtype, optional): if given, ``input`` is converted to this dtype first
            (the result has it). Default: ``None``.

    Shape:
        - Input: :math:`(*)`, any shape.
        - Output: :math:`(*)`, the shape of the input.

    Example::

        >>> import nbgrad
        >>> nbgrad.log_softmax(nbgrad.tensor([0.0, 0.0]), dim=0)
        tensor([-0.6931, -0.6931])
        >>> import nbgrad.nn.functional as F
        >>> F.log_softmax(nbgrad.tensor([[1.0, 2.0, 3.0]]), dim=1)
        tensor([[-2.4076, -1.4076, -0.4076]])
    """
    d = _dim(input, dim, "log_softmax")
    return LOG_SOFTMAX.call(input if dtype is None else input.to(dtype), d)


def _backward_step(row, grad, output, dim, input_dtype):
    same_device(row.name, output, grad)
    if tuple(grad.shape) != tuple(output.shape):
        raise RuntimeError(f"{row.name}: grad_output of shape {list(grad.shape)} does not match "
                           f"output of shape {list(output.shape)}")
    out = row.call(grad, output, _wrap_dim(dim, output.ndim) if output.ndim else 0)
    return out if input_dtype is None or input_dtype is out._dtype else out.to(input_dtype)


@surface(SOFTMAX_BACKWARD)
def _softmax_backward_data(grad_output, output, dim, input_dtype=None):
    """``output * (grad_output - (grad_output * output).sum(dim))``: softmax's backward as
    one kernel, differentiable again; ``input_dtype`` (the forward input's, when softmax
    ran with ``dtype=``) converts the result."""
    return _backward_step(SOFTMAX_BACKWARD, grad_output, output, dim, input_dtype)


@surface(LOG_SOFTMAX_BACKWARD)
def _log_softmax_backward_data(grad_output, output, dim, input_dtype=None):
    """``grad_output - exp(output) * grad_output.sum(dim)``: log_softmax's backward as one
    kernel, differentiable again; ``input_dtype`` as ``_softmax_backward_data``'s."""
    return _backward_step(LOG_SOFTMAX_BACKWARD, grad_output, output, dim, input_dtype)


def _float_input(x, op):
    """``x``, a floating-point Tensor (PyTorch's errors otherwise)."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    _float_dtype(op)(x._dtype, None)
    return x


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    r"""Draw a sample of the Gumbel-softmax (concrete) distribution over ``dim``.

    The sample is :math:`\text{softmax}((\text{logits} + g) / \tau)` with independent
    Gumbel(0, 1) noise :math:`g` from the default generator. With ``hard=True`` the result is
    the one-hot of the sample's argmax in the forward pass, while the gradient is the soft
    sample's (the straight-through estimator).

    Args:
        logits (Tensor): unnormalized log-probabilities.
        tau (float, optional): the temperature :math:`\tau > 0`. Default: ``1``.
        hard (bool, optional): return one-hot samples (see above). Default: ``False``.
        eps (float, optional): unused; kept for PyTorch's signature. Default: ``1e-10``.
        dim (int, optional): the dimension of the categories. Default: ``-1``.

    Returns:
        Tensor: a sample of the shape of ``logits``, summing to 1 along ``dim``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.functional as F
        >>> _ = nbgrad.manual_seed(0)
        >>> logits = nbgrad.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]])
        >>> F.gumbel_softmax(logits, tau=0.5).sum(-1)
        tensor([1., 1.])
        >>> F.gumbel_softmax(logits, hard=True)
        tensor([[0., 0., 1.],
                [0., 0., 1.]])
    """
    from ..autograd.grad_mode import no_grad
    from .index import scatter

    with no_grad():
        gumbels = -logits.new_empty(tuple(logits.shape)).exponential_().log()
    y = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y
    index = y.max(dim, keepdim=True)[1]
    one_hot = scatter(logits.new_zeros(tuple(logits.shape)), dim, index, 1.0)
    return one_hot - y.detach() + y
