"""PyTorch's top-level forms of functions nbgrad has elsewhere: ``torch.exp_(x)`` is
``x.exp_()``, ``torch.dropout(x, p, train)`` is ``F.dropout``, ``torch.kl_div`` takes its
reduction as PyTorch's integer enum, ``torch.concat`` is ``cat``, ``torch.t_copy`` a copy of
``t``. Each name takes PyTorch's arguments for it (those of its C++ signature, which differ
from ``nn.functional``'s: ``torch.embedding(weight, indices)``, ``torch.batch_norm`` with
the parameters before the statistics).

The docstring of a generated form that is another function's alias, in-place or copying
form says so in one line that names that function (``Alias for :func:`nbgrad.chunk```,
``In-place version of :func:`nbgrad.exp```, ``Performs the same operation as ...``), as
PyTorch's do; ``tests/test_docs_coverage.py`` checks each such line against the function
it names."""

import functools

# ``torch.newaxis``: an index of None adds a dim of size 1, as NumPy's
newaxis = None

# in-place ops PyTorch also offers as functions of the tensor
_INPLACE_METHODS = (
    "abs_ acos_ acosh_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ "
    "atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ cos_ cosh_ deg2rad_ erf_ erfc_ exp2_ "
    "exp_ expm1_ fix_ floor_ frac_ gcd_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ "
    "nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_ sigmoid_ sin_ sinc_ "
    "sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ fill_ zero_ index_put_ detach_ mvlgamma_"
).split()
# Tensor methods PyTorch also offers as functions
_METHODS = ("detach msort ravel narrow_copy split_with_sizes is_nonzero is_same_size "
            "is_signed get_device is_complex is_conj is_neg resolve_conj resolve_neg "
            "conj adjoint unsafe_chunk unsafe_split unsafe_split_with_sizes geqrf orgqr "
            "ormqr").split()
# view ops whose ``*_copy`` form returns a copy that shares no storage
_COPIES = ("view permute t transpose squeeze unsqueeze expand diagonal select narrow "
           "unfold detach alias").split()
_COPIES_MULTI = ("split split_with_sizes unbind").split()
# (the view ops with no top-level function: their copies refer to the Tensor method)
_METHOD_ONLY = ("view", "unfold")
# forms of _METHODS that are another top-level function under a second name (PyTorch's
# ``unsafe_`` forms skip its checks of in-place changes to the views they return; here
# they are the same views)
_ALIASES = {"unsafe_chunk": "chunk", "unsafe_split": "split",
            "unsafe_split_with_sizes": "split_with_sizes"}

# (PyTorch's integer enum; its top-level forms default to 0, no reduction, unlike
# nn.functional's "mean")
_REDUCTION = {0: "none", 1: "mean", 2: "sum"}

# the docstrings of the generated forms that are no other function's alias, in-place or
# copying form (the others' are generated: ``_generated_doc``)
_DOCS = {
    "detach": """detach(input) -> Tensor

    A new tensor that shares ``input``'s data but is cut from the autograd graph: it does
    not require grad and no gradient flows back through it to ``input``.

    Changes made in place to either tensor are seen by the other (they share memory).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = nbgrad.detach(x)
        >>> y.requires_grad, y.data_ptr() == x.data_ptr()
        (False, True)
    """,
    "detach_": """detach_(input) -> Tensor

    Cut ``input`` itself from the autograd graph, in place: it becomes a leaf that does not
    require grad (:func:`nbgrad.detach` returns a new tensor instead). A view cannot be
    detached in place.

    Args:
        input (Tensor): the tensor to detach.

    Example::

        >>> import nbgrad
        >>> y = nbgrad.ones(2, requires_grad=True) * 2
        >>> nbgrad.detach_(y) is y, y.requires_grad, y.grad_fn
        (True, False, None)
    """,
    "zero_": """zero_(input) -> Tensor

    Fill ``input`` with zeros, in place, and return it.

    Args:
        input (Tensor): the tensor to fill.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.5, -2.0])
        >>> nbgrad.zero_(x)
        tensor([0., 0.])
        >>> x
        tensor([0., 0.])
    """,
    "alias_copy": """alias_copy(input) -> Tensor

    A copy of ``input`` of the same shape, dtype and values that shares no memory with it
    (PyTorch's copying form of its internal ``alias`` view: the same as
    :meth:`~nbgrad.Tensor.clone`).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0])
        >>> y = nbgrad.alias_copy(x)
        >>> _ = y.zero_()
        >>> x
        tensor([1., 2.])
    """,
    "msort": """msort(input) -> Tensor

    The values of ``input`` sorted in ascending order along its first dim:
    ``nbgrad.sort(input, dim=0).values``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.msort(nbgrad.tensor([[3, 1], [1, 2]]))
        tensor([[1, 1],
                [3, 2]])
    """,
    "ravel": """ravel(input) -> Tensor

    ``input`` flattened to one dim, in row-major order: a view when its strides allow
    one, else a copy (as :func:`nbgrad.reshape` with the shape ``(-1,)``).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.ravel(nbgrad.tensor([[1, 2], [3, 4]]))
        tensor([1, 2, 3, 4])
    """,
    "split_with_sizes": """split_with_sizes(input, split_sizes, dim=0) -> List of Tensors

    Split ``input`` along ``dim`` into pieces of the sizes ``split_sizes`` (views of
    ``input``), as :func:`nbgrad.split` with a list of sizes.

    Args:
        input (Tensor): the tensor to split.
        split_sizes (list of int): the size of each piece along ``dim``; they must add up
            to ``input.size(dim)``.
        dim (int, optional): the dim to split along. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.split_with_sizes(nbgrad.arange(5), [2, 3])
        (tensor([0, 1]), tensor([2, 3, 4]))
    """,
    "is_nonzero": """is_nonzero(input) -> bool

    Whether the one element of ``input`` is not zero (``False`` for ``0``, ``0.0`` and
    ``False``). A tensor of no element or of more than one raises ``RuntimeError``.

    Args:
        input (Tensor): a tensor of exactly one element (of any number of dims).

    Example::

        >>> import nbgrad
        >>> nbgrad.is_nonzero(nbgrad.tensor([0.0])), nbgrad.is_nonzero(nbgrad.tensor(1.5))
        (False, True)
    """,
    "is_same_size": """is_same_size(input, other) -> bool

    Whether ``input`` and ``other`` have the same shape.

    Args:
        input (Tensor): the first tensor.
        other (Tensor): the second tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_same_size(nbgrad.zeros(2, 3), nbgrad.ones(2, 3))
        True
        >>> nbgrad.is_same_size(nbgrad.zeros(2, 3), nbgrad.ones(3, 2))
        False
    """,
    "is_signed": """is_signed(input) -> bool

    Whether ``input``'s dtype is a signed type: every floating dtype and the signed
    integers (``int8`` to ``int64``); not ``uint8`` nor ``bool``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_signed(nbgrad.ones(2)), nbgrad.is_signed(nbgrad.ones(2, dtype=nbgrad.uint8))
        (True, False)
    """,
    "get_device": """get_device(input) -> int

    The index of the CUDA device ``input`` is on, or ``-1`` for a tensor in CPU memory.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.get_device(nbgrad.ones(2))
        -1
    """,
    "is_complex": """is_complex(input) -> bool

    Whether ``input``'s dtype is a complex type. nbgrad has no complex dtypes: always
    ``False``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_complex(nbgrad.ones(2))
        False
    """,
    "is_conj": """is_conj(input) -> bool

    Whether ``input`` is a lazily conjugated view (PyTorch's conjugate bit). nbgrad has no
    complex dtypes and never sets it: always ``False``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_conj(nbgrad.ones(2))
        False
    """,
    "is_neg": """is_neg(input) -> bool

    Whether ``input`` is a lazily negated view (PyTorch's negative bit, set by the
    conjugate views of complex tensors). nbgrad never sets it: always ``False``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_neg(nbgrad.ones(2))
        False
    """,
    "resolve_conj": """resolve_conj(input) -> Tensor

    ``input`` with a pending lazy conjugation carried out (a new tensor), or ``input``
    itself when there is none. nbgrad's tensors are real and never lazily conjugated: it
    returns ``input``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, -2.0])
        >>> nbgrad.resolve_conj(x) is x
        True
    """,
    "resolve_neg": """resolve_neg(input) -> Tensor

    ``input`` with a pending lazy negation carried out (a new tensor), or ``input`` itself
    when there is none. nbgrad never sets the negative bit: it returns ``input``.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, -2.0])
        >>> nbgrad.resolve_neg(x) is x
        True
    """,
    "conj": """conj(input) -> Tensor

    The complex conjugate of ``input`` as a view. Every nbgrad dtype is real, and a real
    number is its own conjugate: it returns ``input`` itself.

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.conj(nbgrad.tensor([1.0, -2.0]))
        tensor([ 1., -2.])
    """,
    "adjoint": """adjoint(input) -> Tensor

    The conjugate transpose of the last two dims of ``input``, a view: for nbgrad's real
    dtypes, ``input.transpose(-2, -1)``.

    Args:
        input (Tensor): a tensor of at least 2 dims.

    Example::

        >>> import nbgrad
        >>> nbgrad.adjoint(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]))
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
    """,
    "geqrf": """geqrf(input) -> (Tensor, Tensor)

    The QR decomposition of ``input`` in LAPACK's ``geqrf`` form: a tensor ``a`` whose
    upper triangle is ``R`` and whose part below the diagonal holds the Householder
    vectors of ``Q``, and the Householder scalars ``tau``. :func:`nbgrad.orgqr` makes ``Q``
    from them, :func:`nbgrad.ormqr` multiplies by it; :func:`nbgrad.linalg.qr` gives ``Q``
    and ``R`` directly. No gradient flows through it (as PyTorch's).

    Args:
        input (Tensor): a matrix of shape ``(m, n)``, or a batch of them ``(*, m, n)``.

    Returns:
        (Tensor, Tensor): ``(a, tau)``, of shapes ``(*, m, n)`` and ``(*, min(m, n))``.

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> a.triu()
        tensor([[-5.0000, -2.2000],
                [ 0.0000,  0.4000]])
        >>> tau
        tensor([1.6000, 0.0000])
    """,
    "orgqr": """orgqr(input, tau) -> Tensor

    The matrix ``Q`` of a QR decomposition from :func:`nbgrad.geqrf`'s output: the product
    of the Householder reflectors stored below the diagonal of ``input`` with the scalars
    ``tau`` (another name for :func:`nbgrad.linalg.householder_product`).

    Args:
        input (Tensor): the ``a`` of :func:`nbgrad.geqrf`, of shape ``(*, m, n)``.
        tau (Tensor): the Householder scalars, of shape ``(*, k)`` with ``k <= n``.

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> nbgrad.orgqr(a, tau)
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """,
    "ormqr": """ormqr(input, tau, other, left=True, transpose=False) -> Tensor

    ``other`` multiplied by the ``Q`` of a QR decomposition given in
    :func:`nbgrad.geqrf`'s form, without forming ``Q``: ``Q @ other``, ``Q.mT @ other``,
    ``other @ Q`` or ``other @ Q.mT``.

    Args:
        input (Tensor): the ``a`` of :func:`nbgrad.geqrf` (the Householder vectors below its
            diagonal), of shape ``(*, mn, k)``.
        tau (Tensor): the Householder scalars, of shape ``(*, min(mn, k))``.
        other (Tensor): the matrix to multiply, of shape ``(*, m, n)``.
        left (bool, optional): ``Q`` on the left of ``other`` (else on the right).
            Default: ``True``.
        transpose (bool, optional): use ``Q``'s transpose. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> a, tau = nbgrad.geqrf(nbgrad.tensor([[3.0, 1.0], [4.0, 2.0]]))
        >>> nbgrad.ormqr(a, tau, nbgrad.eye(2))
        tensor([[-0.6000, -0.8000],
                [-0.8000,  0.6000]])
    """,
}


def _args(name, base):
    """``(input, ...)``: the parameters of ``Tensor.<name>`` after ``self`` (or, where it
    takes ``*args, **kwargs``, of the function ``base`` after its first), read from the
    code as ``_methods._signature`` does (``inspect.signature`` would cost more at
    import)."""
    import types

    from ._methods import _signature
    from .tensor import Tensor

    sig = "(*args, **kwargs)"
    for fn, n in ((vars(Tensor).get(name), name), (base, base and base.__name__)):
        if fn.__class__ is types.FunctionType:
            sig = _signature(n, fn)[len(n):]
            if sig != "(*args, **kwargs)":
                break
    return "(input)" if sig == "()" else "(input, " + sig[1:]


def _generated_doc(name, of, kind, returns="Tensor"):
    """The docstring of a generated form ``name`` of ``of`` (``nbgrad.<of>``, or
    ``Tensor.<of>`` where there is no top-level function): ``kind`` is ``"alias"``,
    ``"inplace"``, ``"copy"`` or ``"copies"`` (a copying form returning several)."""
    import sys

    pkg = sys.modules[__name__.rsplit(".", 1)[0]]
    ref = f":meth:`nbgrad.Tensor.{of}`" if of in _METHOD_ONLY else f":func:`nbgrad.{of}`"
    text = {
        "alias": f"Alias for {ref}.",
        "inplace": f"In-place version of {ref}: ``input`` is overwritten with the result "
                   "and returned.",
        "copy": f"Performs the same operation as {ref}, but the output is a copy that "
                "shares no memory with ``input``, not a view.",
        "copies": f"Performs the same operation as {ref}, but the outputs are copies that "
                  "share no memory with ``input``, not views.",
    }[kind]
    method = name if kind == "inplace" else of
    return f"{name}{_args(method, getattr(pkg, of, None))} -> {returns}\n\n{text}"


def _method_function(name):
    def fn(input, *args, **kwargs):
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    if name in _DOCS:
        fn.__doc__ = _DOCS[name]
    elif name in _ALIASES:
        fn.__doc__ = _generated_doc(name, _ALIASES[name], "alias")
    elif name.endswith("_"):
        fn.__doc__ = _generated_doc(name, name[:-1], "inplace")
    return fn


def _copy_function(name, multi):
    def fn(input, *args, **kwargs):
        out = getattr(input, name)(*args, **kwargs) if name != "alias" else input.view_as(
            input)
        return tuple(o.clone() for o in out) if multi else out.clone()

    fn.__name__ = fn.__qualname__ = name + "_copy"
    fn.__doc__ = _DOCS.get(name + "_copy") or _generated_doc(
        name + "_copy", name, "copies" if multi else "copy",
        "tuple of Tensors" if multi else "Tensor")
    return fn


def _reduction(r):
    if r not in _REDUCTION:
        raise ValueError(f"{r} is not a valid value for reduction")
    return _REDUCTION[r]


def _F():
    from .nn import functional

    return functional


def dropout(input, p, train):
    """dropout(input, p, train) -> Tensor

    Zero each element of ``input`` with probability ``p`` and scale the others by
    ``1 / (1 - p)``, when ``train``; ``input`` unchanged otherwise. The top-level form of
    :func:`nbgrad.nn.functional.dropout`, with every argument required.

    Args:
        input (Tensor): the input tensor.
        p (float): the probability of zeroing an element, in ``[0, 1]``.
        train (bool): apply dropout (``False``: return ``input`` as it is).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.dropout(nbgrad.ones(6), 0.5, True)
        tensor([0., 0., 2., 0., 0., 0.])
        >>> nbgrad.dropout(nbgrad.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
    return _F().dropout(input, p, train)


def dropout_(input, p, train):
    """dropout_(input, p, train) -> Tensor

    In-place version of :func:`nbgrad.dropout`.

    Args:
        input (Tensor): the tensor to overwrite.
        p (float): the probability of zeroing an element.
        train (bool): apply dropout.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(3)
        >>> nbgrad.dropout_(x, 0.5, False) is x
        True
    """
    return _F().dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """alpha_dropout(input, p, train) -> Tensor

    Alpha dropout, the dropout that keeps the mean and variance of SELU activations: the
    top-level form of :func:`nbgrad.nn.functional.alpha_dropout`, every argument required.

    Args:
        input (Tensor): the input tensor.
        p (float): the probability of dropping an element, in ``[0, 1]``.
        train (bool): apply it (``False``: return ``input`` as it is).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.alpha_dropout(nbgrad.zeros(2, 3), 0.5, True).shape
        nbgrad.Size([2, 3])
        >>> nbgrad.alpha_dropout(nbgrad.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """alpha_dropout_(input, p, train) -> Tensor

    In-place version of :func:`nbgrad.alpha_dropout`.

    Args:
        input (Tensor): the tensor to overwrite.
        p (float): the probability of dropping an element.
        train (bool): apply it.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(3)
        >>> nbgrad.alpha_dropout_(x, 0.5, False) is x
        True
    """
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """feature_alpha_dropout(input, p, train) -> Tensor

    Alpha dropout of whole channels (every element of a channel dropped together): the
    top-level form of :func:`nbgrad.nn.functional.feature_alpha_dropout`, every argument
    required.

    Args:
        input (Tensor): the input, of shape ``(N, C, *)``.
        p (float): the probability of dropping a channel, in ``[0, 1]``.
        train (bool): apply it (``False``: return ``input`` as it is).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.feature_alpha_dropout(nbgrad.zeros(2, 3, 4), 0.5, True).shape
        nbgrad.Size([2, 3, 4])
    """
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """feature_alpha_dropout_(input, p, train) -> Tensor

    In-place version of :func:`nbgrad.feature_alpha_dropout`.

    Args:
        input (Tensor): the tensor to overwrite, of shape ``(N, C, *)``.
        p (float): the probability of dropping a channel.
        train (bool): apply it.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2, 3, 4)
        >>> nbgrad.feature_alpha_dropout_(x, 0.5, False) is x
        True
    """
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
               cudnn_enable=True):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05,
    cudnn_enable=True) -> Tensor

    Layer normalization over the last dims of ``input`` (those of ``normalized_shape``), as
    :func:`nbgrad.nn.functional.layer_norm`.

    Args:
        input (Tensor): the input, of shape ``(*, *normalized_shape)``.
        normalized_shape (list of int or nbgrad.Size): the shape of the trailing dims to
            normalize over.
        weight (Tensor, optional): the scale, of shape ``normalized_shape``. Default: ``None``.
        bias (Tensor, optional): the shift, of shape ``normalized_shape``. Default: ``None``.
        eps (float, optional): added to the variance for stability. Default: ``1e-05``.
        cudnn_enable (bool, optional): accepted for PyTorch's signature; unused. Default:
            ``True``.

    Example::

        >>> import nbgrad
        >>> nbgrad.layer_norm(nbgrad.tensor([[1.0, 3.0]]), [2])
        tensor([[-1.0000,  1.0000]])
    """
    return _F().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """group_norm(input, num_groups, weight=None, bias=None, eps=1e-05,
    cudnn_enabled=True) -> Tensor

    Group normalization: the channels split into ``num_groups`` groups, each normalized over
    its channels and spatial dims, as :func:`nbgrad.nn.functional.group_norm`.

    Args:
        input (Tensor): the input, of shape ``(N, C, *)``.
        num_groups (int): the number of groups; it divides ``C``.
        weight (Tensor, optional): the per-channel scale, of shape ``(C,)``. Default: ``None``.
        bias (Tensor, optional): the per-channel shift, of shape ``(C,)``. Default: ``None``.
        eps (float, optional): added to the variance for stability. Default: ``1e-05``.
        cudnn_enabled (bool, optional): accepted for PyTorch's signature; unused. Default:
            ``True``.

    Example::

        >>> import nbgrad
        >>> nbgrad.group_norm(nbgrad.tensor([[[1.0], [3.0]]]), 1).flatten()
        tensor([-1.0000,  1.0000])
    """
    return _F().group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    cudnn_enabled) -> Tensor

    Batch normalization, as :func:`nbgrad.nn.functional.batch_norm` but with PyTorch's
    top-level order of the arguments (the affine parameters before the running statistics),
    every one required.

    Args:
        input (Tensor): the input, of shape ``(N, C, *)``.
        weight (Tensor or None): the per-channel scale, of shape ``(C,)``.
        bias (Tensor or None): the per-channel shift, of shape ``(C,)``.
        running_mean (Tensor or None): the running mean, of shape ``(C,)``, updated in place
            when ``training``.
        running_var (Tensor or None): the running variance, updated likewise.
        training (bool): normalize with the batch's statistics (else the running ones).
        momentum (float): the weight of the batch's statistics in the running ones' update.
        eps (float): added to the variance for stability.
        cudnn_enabled (bool): accepted for PyTorch's signature; unused.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0], [3.0]])
        >>> nbgrad.batch_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    return _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum,
                           eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
    eps, cudnn_enabled) -> Tensor

    Instance normalization (each channel of each sample over its spatial dims), as
    :func:`nbgrad.nn.functional.instance_norm` but with PyTorch's top-level order of the
    arguments (the affine parameters first), every one required.

    Args:
        input (Tensor): the input, of shape ``(N, C, *)``.
        weight (Tensor or None): the per-channel scale, of shape ``(C,)``.
        bias (Tensor or None): the per-channel shift, of shape ``(C,)``.
        running_mean (Tensor or None): a running mean of shape ``(C,)``, updated in place.
        running_var (Tensor or None): a running variance, updated likewise.
        use_input_stats (bool): normalize with each instance's statistics (else the running
            ones).
        momentum (float): the weight of the new statistics in the running ones' update.
        eps (float): added to the variance for stability.
        cudnn_enabled (bool): accepted for PyTorch's signature; unused.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[[1.0, 3.0]]])
        >>> nbgrad.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[[-1.0000,  1.0000]]])
    """
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                              momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) -> Tensor

    The rows of ``weight`` at ``indices``: :func:`nbgrad.nn.functional.embedding` with the
    table first, as PyTorch's top-level form.

    Args:
        weight (Tensor): the embedding table, of shape ``(num_embeddings, embedding_dim)``.
        indices (Tensor): the integer indices of the rows, of any shape.
        padding_idx (int, optional): a row that gets no gradient; ``-1``: none. Default:
            ``-1``.
        scale_grad_by_freq (bool, optional): scale the gradient of each row by the inverse of
            its count in ``indices``. Default: ``False``.
        sparse (bool, optional): passed on to :func:`nbgrad.nn.functional.embedding`.
            Default: ``False``.

    Shape:
        - Output: ``(*indices.shape, embedding_dim)``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.tensor([[0.0, 0.5], [1.0, 1.5], [2.0, 2.5]])
        >>> nbgrad.embedding(w, nbgrad.tensor([2, 0]))
        tensor([[2.0000, 2.5000],
                [0.0000, 0.5000]])
    """
    return _F().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input, target, reduction=0, *, log_target=False):
    """kl_div(input, target, reduction=0, *, log_target=False) -> Tensor

    The Kullback-Leibler divergence loss, as :func:`nbgrad.nn.functional.kl_div` with the
    reduction given as PyTorch's integer code: ``target * (log(target) - input)`` for each
    element (``input`` holds log-probabilities).

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities if ``log_target``), of ``input``'s
            shape.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.
        log_target (bool, optional): ``target`` is given as log-probabilities. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[0.2, 0.8]]).log()
        >>> nbgrad.kl_div(x, nbgrad.tensor([[0.5, 0.5]]))
        tensor([[ 0.4581, -0.2350]])
    """
    return _F().kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
    zero_infinity=False) -> Tensor

    The Connectionist Temporal Classification loss, as :func:`nbgrad.nn.functional.ctc_loss`
    with the reduction given as PyTorch's integer code (``1``: the mean of the losses each
    divided by its target length).

    Args:
        log_probs (Tensor): log-probabilities of the classes, of shape ``(T, N, C)``.
        targets (Tensor): the target sequences, ``(N, S)`` or concatenated.
        input_lengths (Tensor or list of int): the length of each input, ``(N,)``.
        target_lengths (Tensor or list of int): the length of each target, ``(N,)``.
        blank (int, optional): the blank class. Default: ``0``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.
        zero_infinity (bool, optional): replace infinite losses (and their gradients) by 0.
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> lp = nbgrad.full((2, 1, 2), 0.5).log()
        >>> nbgrad.ctc_loss(lp, nbgrad.tensor([[1]]), [2], [1])
        tensor([0.2877])
    """
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                         _reduction(reduction), zero_infinity)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor

    ``max(0, -target * (input1 - input2) + margin)`` for each element, as
    :func:`nbgrad.nn.functional.margin_ranking_loss` with the reduction given as PyTorch's
    integer code.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): ``1`` where ``input1`` should rank higher, ``-1`` where ``input2``
            should.
        margin (float, optional): the margin. Default: ``0.0``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> a, b = nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([2.0, 1.0])
        >>> nbgrad.margin_ranking_loss(a, b, nbgrad.tensor([1.0, 1.0]))
        tensor([1., 0.])
    """
    return _F().margin_ranking_loss(input1, input2, target, margin,
                                    reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """hinge_embedding_loss(input, target, margin=1.0, reduction=0) -> Tensor

    ``input`` where ``target`` is ``1``, ``max(0, margin - input)`` where it is ``-1``, as
    :func:`nbgrad.nn.functional.hinge_embedding_loss` with the reduction given as PyTorch's
    integer code.

    Args:
        input (Tensor): the input (typically distances).
        target (Tensor): ``1`` or ``-1`` for each element.
        margin (float, optional): the margin. Default: ``1.0``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.hinge_embedding_loss(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0, -1.0]))
        tensor([1., 0.])
    """
    return _F().hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0) -> Tensor

    ``1 - cos(x1, x2)`` where ``target`` is ``1``, ``max(0, cos(x1, x2) - margin)`` where it
    is ``-1``, for each pair of rows, as :func:`nbgrad.nn.functional.cosine_embedding_loss`
    with the reduction given as PyTorch's integer code.

    Args:
        input1 (Tensor): the first vectors, of shape ``(N, D)`` or ``(D,)``.
        input2 (Tensor): the second vectors, of ``input1``'s shape.
        target (Tensor): ``1`` or ``-1`` for each pair, of shape ``(N,)`` or ``()``.
        margin (float, optional): the margin, in ``[-1, 1]``. Default: ``0.0``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> y = nbgrad.tensor([[1.0, 0.0], [0.0, 1.0]])
        >>> nbgrad.cosine_embedding_loss(x, y, nbgrad.tensor([1.0, 1.0]))
        tensor([0., 1.])
    """
    return _F().cosine_embedding_loss(input1, input2, target, margin,
                                      reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=0):
    """triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
    reduction=0) -> Tensor

    ``max(d(a, p) - d(a, n) + margin, 0)`` for each triplet (``d``: the ``p``-norm distance),
    as :func:`nbgrad.nn.functional.triplet_margin_loss` with the reduction given as
    PyTorch's integer code.

    Args:
        anchor (Tensor): the anchors, of shape ``(N, D)`` or ``(D,)``.
        positive (Tensor): the positive examples, of ``anchor``'s shape.
        negative (Tensor): the negative examples, of ``anchor``'s shape.
        margin (float, optional): the margin. Default: ``1.0``.
        p (float, optional): the norm degree of the distance. Default: ``2``.
        eps (float, optional): added to the differences for stability. Default: ``1e-06``.
        swap (bool, optional): use the distance from the positive to the negative where it is
            smaller (the distance swap). Default: ``False``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.tensor([[0.0, 0.0]])
        >>> nbgrad.triplet_margin_loss(a, a, nbgrad.tensor([[3.0, 4.0]]), margin=6.0)
        tensor([1.0000])
    """
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                    reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """poisson_nll_loss(input, target, log_input, full, eps, reduction) -> Tensor

    The negative log-likelihood of ``target`` under a Poisson distribution of mean ``input``
    (``exp(input)`` when ``log_input``), as :func:`nbgrad.nn.functional.poisson_nll_loss`
    with every argument required and the reduction as PyTorch's integer code.

    Args:
        input (Tensor): the expected counts (their logs when ``log_input``).
        target (Tensor): the observed counts, of ``input``'s shape.
        log_input (bool): ``input`` holds log-means: the loss is ``exp(input) - target *
            input``; else ``input - target * log(input + eps)``.
        full (bool): add Stirling's approximation of ``log(target!)``.
        eps (float): added to ``input`` before its log when not ``log_input``.
        reduction (int): PyTorch's code of the reduction: ``0`` none, ``1`` the mean, ``2``
            the sum.

    Example::

        >>> import nbgrad
        >>> nbgrad.poisson_nll_loss(nbgrad.tensor([0.0, 1.0]), nbgrad.tensor([1.0, 2.0]),
        ...                         True, False, 1e-8, 0)
        tensor([1.0000, 0.7183])
    """
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps,
                                 reduction=_reduction(reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction=0):
    """binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
    reduction=0) -> Tensor

    The binary cross entropy of ``sigmoid(input)`` and ``target``, computed stably from the
    logits, as :func:`nbgrad.nn.functional.binary_cross_entropy_with_logits` with the
    reduction given as PyTorch's integer code.

    Args:
        input (Tensor): the logits.
        target (Tensor): the targets in ``[0, 1]``, of ``input``'s shape.
        weight (Tensor, optional): a weight of each element, broadcast to ``input``.
            Default: ``None``.
        pos_weight (Tensor, optional): the weight of the positive term, per class.
            Default: ``None``.
        reduction (int, optional): PyTorch's integer code of the reduction: ``0``
            none (one loss per element), ``1`` the mean, ``2`` the sum. Default: ``0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.binary_cross_entropy_with_logits(nbgrad.tensor([1.0, 2.0]),
        ...                                         nbgrad.tensor([1.0, 0.0]))
        tensor([0.3133, 2.1269])
    """
    return _F().binary_cross_entropy_with_logits(input, target, weight,
                                                 reduction=_reduction(reduction),
                                                 pos_weight=pos_weight)


def celu(input, alpha=1.0):
    r"""celu(input, alpha=1.0) -> Tensor

    The continuously differentiable exponential linear unit of each element, as
    :func:`nbgrad.nn.functional.celu`:

    .. math::
        \text{CELU}(x) = \max(0, x) + \min(0, \alpha (\exp(x / \alpha) - 1))

    Args:
        input (Tensor): the input tensor.
        alpha (float, optional): the :math:`\alpha` of the formula. Default: ``1.0``.

    Example::

        >>> import nbgrad
        >>> nbgrad.celu(nbgrad.tensor([-1.0, 2.0]))
        tensor([-0.6321,  2.0000])
    """
    return _F().celu(input, alpha)


def celu_(input, alpha=1.0):
    r"""celu_(input, alpha=1.0) -> Tensor

    In-place version of :func:`nbgrad.celu`.

    Args:
        input (Tensor): the tensor to overwrite.
        alpha (float, optional): the :math:`\alpha` of the formula. Default: ``1.0``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> _ = nbgrad.celu_(x)
        >>> x
        tensor([-0.6321,  2.0000])
    """
    return _F().celu(input, alpha, inplace=True)


def selu(input):
    """selu(input) -> Tensor

    The scaled exponential linear unit of each element, as :func:`nbgrad.nn.functional.selu`:
    ``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with ``alpha = 1.6733`` and
    ``scale = 1.0507`` (to four places).

    Args:
        input (Tensor): the input tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.selu(nbgrad.tensor([-1.0, 1.0]))
        tensor([-1.1113,  1.0507])
    """
    return _F().selu(input)


def selu_(input):
    """selu_(input) -> Tensor

    In-place version of :func:`nbgrad.selu`.

    Args:
        input (Tensor): the tensor to overwrite.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 1.0])
        >>> _ = nbgrad.selu_(x)
        >>> x
        tensor([-1.1113,  1.0507])
    """
    return _F().selu(input, inplace=True)


def rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """rrelu(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None) -> Tensor

    The randomized leaky ReLU, as :func:`nbgrad.nn.functional.rrelu`: a negative element is
    multiplied by a slope drawn uniformly from ``[lower, upper]`` when ``training``, by
    ``(lower + upper) / 2`` otherwise.

    Args:
        input (Tensor): the input tensor.
        lower (float, optional): the lower bound of the slope. Default: ``0.125``.
        upper (float, optional): the upper bound of the slope. Default: ``1 / 3``.
        training (bool, optional): draw random slopes. Default: ``False``.
        generator (nbgrad.Generator, optional): accepted for PyTorch's signature; the slopes
            come from the default generator. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.rrelu(nbgrad.tensor([-4.0, 2.0]), 0.25, 0.75)
        tensor([-2.,  2.])
    """
    return _F().rrelu(input, lower, upper, training)


def rrelu_(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None):
    """rrelu_(input, lower=0.125, upper=1.0 / 3.0, training=False, generator=None) -> Tensor

    In-place version of :func:`nbgrad.rrelu`.

    Args:
        input (Tensor): the tensor to overwrite.
        lower (float, optional): the lower bound of the slope. Default: ``0.125``.
        upper (float, optional): the upper bound of the slope. Default: ``1 / 3``.
        training (bool, optional): draw random slopes. Default: ``False``.
        generator (nbgrad.Generator, optional): accepted; unused. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-4.0, 2.0])
        >>> _ = nbgrad.rrelu_(x, 0.25, 0.75)
        >>> x
        tensor([-2.,  2.])
    """
    return _F().rrelu(input, lower, upper, training, inplace=True)


def threshold(input, threshold, value):
    """threshold(input, threshold, value) -> Tensor

    Each element of ``input`` where it is greater than ``threshold``, ``value`` elsewhere, as
    :func:`nbgrad.nn.functional.threshold`.

    Args:
        input (Tensor): the input tensor.
        threshold (float): the value to compare with.
        value (float): the value that replaces the elements not above ``threshold``.

    Example::

        >>> import nbgrad
        >>> nbgrad.threshold(nbgrad.tensor([0.5, 1.0, 2.0]), 1.0, -1.0)
        tensor([-1., -1.,  2.])
    """
    return _F().threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """threshold_(input, threshold, value) -> Tensor

    In-place version of :func:`nbgrad.threshold`.

    Args:
        input (Tensor): the tensor to overwrite.
        threshold (float): the value to compare with.
        value (float): the value that replaces the elements not above ``threshold``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([0.5, 1.0, 2.0])
        >>> _ = nbgrad.threshold_(x, 1.0, -1.0)
        >>> x
        tensor([-1., -1.,  2.])
    """
    return _F().threshold(input, threshold, value, inplace=True)


def relu_(input):
    """relu_(input) -> Tensor

    In-place version of :func:`nbgrad.relu`.

    Args:
        input (Tensor): the tensor to overwrite.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([-1.0, 2.0])
        >>> _ = nbgrad.relu_(x)
        >>> x
        tensor([0., 2.])
    """
    return input.relu_()


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor

    The maximum over each window along the last dim, as
    :func:`nbgrad.nn.functional.max_pool1d` (PyTorch's top-level form: an empty ``stride`` is
    the kernel size; no indices).

    Args:
        input (Tensor): the input, of shape ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows; empty: ``kernel_size``.
            Default: ``()``.
        padding (int or tuple, optional): implicit ``-inf`` padding on both sides. Default: ``0``.
        dilation (int or tuple, optional): the step between a window's elements. Default: ``1``.
        ceil_mode (bool, optional): round the output length up (a last partial window).
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.max_pool1d(nbgrad.arange(4.0).view(1, 1, 4), 2)
        tensor([[[1., 3.]]])
    """
    return _F().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False) -> Tensor

    The maximum over each window of the last three dims, as
    :func:`nbgrad.nn.functional.max_pool3d` (PyTorch's top-level form: an empty ``stride`` is
    the kernel size; no indices).

    Args:
        input (Tensor): the input, of shape ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows; empty: ``kernel_size``.
            Default: ``()``.
        padding (int or tuple, optional): implicit ``-inf`` padding on both sides. Default: ``0``.
        dilation (int or tuple, optional): the step between a window's elements. Default: ``1``.
        ceil_mode (bool, optional): round the output size up. Default: ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.max_pool3d(nbgrad.arange(8.0).view(1, 1, 2, 2, 2), 2)
        tensor([[[[[7.]]]]])
    """
    return _F().max_pool3d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
    count_include_pad=True) -> Tensor

    The mean over each window along the last dim, as :func:`nbgrad.nn.functional.avg_pool1d`
    (PyTorch's top-level form: an empty ``stride`` is the kernel size).

    Args:
        input (Tensor): the input, of shape ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window size.
        stride (int or tuple, optional): the step between windows; empty: ``kernel_size``.
            Default: ``()``.
        padding (int or tuple, optional): implicit zero padding on both sides. Default: ``0``.
        ceil_mode (bool, optional): round the output length up. Default: ``False``.
        count_include_pad (bool, optional): count the padding in the mean's divisor.
            Default: ``True``.

    Example::

        >>> import nbgrad
        >>> nbgrad.avg_pool1d(nbgrad.arange(4.0).view(1, 1, 4), 2)
        tensor([[[0.5000, 2.5000]]])
    """
    return _F().avg_pool1d(input, kernel_size, stride or None, padding, ceil_mode,
                           count_include_pad)


def _same_as_functional(name):
    @functools.wraps(getattr(_F(), name))
    def fn(*args, **kwargs):
        return getattr(_F(), name)(*args, **kwargs)

    return fn


# nn.functional names whose top-level form takes the same arguments
_SAME = ("conv1d conv_transpose1d conv_transpose2d conv3d conv_transpose3d cosine_similarity "
         "pairwise_distance pixel_shuffle pixel_unshuffle bilinear rms_norm").split()


def names():
    """``{name: function}`` of every top-level form this module makes."""
    from .tensor import Tensor

    out = {n: _method_function(n) for n in _INPLACE_METHODS + _METHODS if hasattr(Tensor, n)}
    out.update({n + "_copy": _copy_function(n, False) for n in _COPIES})
    out.update({n + "_copy": _copy_function(n, True) for n in _COPIES_MULTI})
    out.update({n: _same_as_functional(n) for n in _SAME})
    g = globals()
    out.update({n: g[n] for n in (
        "dropout dropout_ alpha_dropout alpha_dropout_ feature_alpha_dropout "
        "feature_alpha_dropout_ layer_norm group_norm batch_norm "
        "instance_norm embedding kl_div ctc_loss margin_ranking_loss hinge_embedding_loss "
        "cosine_embedding_loss triplet_margin_loss poisson_nll_loss "
        "binary_cross_entropy_with_logits celu celu_ selu selu_ rrelu rrelu_ threshold "
        "threshold_ relu_ max_pool1d avg_pool1d max_pool3d").split()})
    return out


def row_stack(tensors):
    """row_stack(tensors, *, out=None) -> Tensor

    Alias for :func:`nbgrad.vstack`.

    Args:
        tensors (sequence of Tensors): the tensors to stack.

    Example::

        >>> import nbgrad
        >>> nbgrad.row_stack([nbgrad.tensor([1, 2]), nbgrad.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
    """
    from .ops.rearrange import vstack

    return vstack(tensors)


def chain_matmul(*matrices):
    """chain_matmul(*matrices) -> Tensor

    The matrix product of the 2-D tensors ``matrices``, in the order of multiplication that
    costs the fewest operations (:func:`nbgrad.linalg.multi_dot`); one matrix gives a copy.
    Deprecated, as PyTorch's: use :func:`nbgrad.linalg.multi_dot`.

    Args:
        *matrices (Tensor): two or more 2-D tensors whose shapes chain
            (``(a, b), (b, c), ...``), or one.

    Example::

        >>> import nbgrad
        >>> nbgrad.chain_matmul(nbgrad.eye(2), nbgrad.ones(2, 2))
        tensor([[1., 1.],
                [1., 1.]])
    """
    from .linalg import multi_dot
    from .ops.linalg_decomp import _deprecated

    _deprecated("chain_matmul")
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def broadcast_shapes(*shapes):
    """broadcast_shapes(*shapes) -> Size

    The shape that tensors of the shapes ``shapes`` broadcast to together, computed without
    making a tensor; ``RuntimeError`` when they do not broadcast.

    Args:
        *shapes (tuple of int or int): the shapes (an int is a 1-D shape).

    Example::

        >>> import nbgrad
        >>> nbgrad.broadcast_shapes((2, 1), (3,))
        nbgrad.Size([2, 3])
        >>> nbgrad.broadcast_shapes(4, (2, 1))
        nbgrad.Size([2, 4])
    """
    from .tensor import Size

    out = []
    for i, s in enumerate(shapes):
        s = (s,) if isinstance(s, int) else tuple(s)
        if any(d < 0 for d in s):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(s)}: "
                               f"{list(s)}")
        full = [1] * (len(s) - len(out)) + out
        padded = [1] * (len(full) - len(s)) + list(s)
        for k, (a, b) in enumerate(zip(full, padded)):
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {b} at "
                    f"{k - len(padded)}! Mismatching argument at index {i} had {s}; but "
                    f"expected shape should be broadcastable to {full}")
            full[k] = b if a == 1 else a
        out = full
    return Size(out)


def result_type(tensor1, tensor2):
    """result_type(tensor1, tensor2) -> dtype

    The dtype of the result of an arithmetic op of ``tensor1`` and ``tensor2`` under
    PyTorch's type promotion (a number does not raise a tensor's dtype within its category:
    an int tensor plus a float number gives the default floating dtype).

    Args:
        tensor1 (Tensor or Number): the first operand.
        tensor2 (Tensor or Number): the second operand.

    Example::

        >>> import nbgrad
        >>> nbgrad.result_type(nbgrad.tensor([1, 2]), 2.5)
        nbgrad.float32
        >>> nbgrad.result_type(nbgrad.tensor([1.0]), nbgrad.tensor([1.0], dtype=nbgrad.float64))
        nbgrad.float64
    """
    from . import dtypes as _dt
    from .tensor import Tensor

    ts = [t for t in (tensor1, tensor2) if isinstance(t, Tensor)]
    scalars = [s for s in (tensor1, tensor2) if not isinstance(s, Tensor)]
    if not ts:  # (two numbers: as 0-dim tensors of their default dtypes)
        from .creation import tensor

        ts, scalars = [tensor(s) for s in scalars], []
    return _dt.result_type(ts, scalars)


def can_cast(from_, to):
    """can_cast(from_, to) -> bool

    Whether PyTorch's casting rules allow an operation whose result is of dtype ``from_`` to
    write into a tensor of dtype ``to``: a floating dtype not into an integer or bool one, an
    integer not into bool.

    Args:
        from_ (nbgrad.dtype): the dtype cast from.
        to (nbgrad.dtype): the dtype cast to.

    Example::

        >>> import nbgrad
        >>> nbgrad.can_cast(nbgrad.float32, nbgrad.int32)
        False
        >>> nbgrad.can_cast(nbgrad.int64, nbgrad.float16)
        True
    """
    if from_.is_floating_point and not to.is_floating_point:
        return False
    return not (to.name == "bool" and from_.name != "bool")


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    r"""scalar_tensor(s, \*, dtype=None, layout=None, device=None, pin_memory=None,
    requires_grad=False) -> Tensor

    A 0-dim tensor holding the number ``s``, of the default floating dtype unless ``dtype``
    is given (even for an int ``s``, unlike :func:`nbgrad.tensor`).

    Args:
        s (Number): the value.
        dtype (nbgrad.dtype, optional): the dtype. Default: ``None``, the default floating
            dtype.
        layout (nbgrad.layout, optional): accepted for PyTorch's signature (tensors are
            strided). Default: ``None``.
        device (nbgrad.device or str, optional): the device. Default: ``None``, the default
            device.
        pin_memory (bool, optional): accepted for PyTorch's signature; unused. Default:
            ``None``.
        requires_grad (bool, optional): record operations on it for autograd. Default:
            ``False``.

    Example::

        >>> import nbgrad
        >>> nbgrad.scalar_tensor(3)
        tensor(3.)
        >>> nbgrad.scalar_tensor(3, dtype=nbgrad.int64)
        tensor(3)
    """
    from . import dtypes as _dt
    from .creation import tensor

    return tensor(s, dtype=_dt.get_default_dtype() if dtype is None else dtype, device=device,
                  requires_grad=requires_grad)


def _exported():
    """The generated forms as this module's globals, and the names ``from _torch_names
    import *`` gives ``nbgrad``: those it does not define already (it imports this module
    last)."""
    import sys

    forms = names()
    globals().update({k: v for k, v in forms.items() if k not in globals()})
    pkg = sys.modules.get(__name__.rsplit(".", 1)[0])
    return sorted(k for k in forms if pkg is None or not hasattr(pkg, k))


__all__ = _exported()
