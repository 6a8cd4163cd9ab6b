"""Sampling from a tensor of weights: ``multinomial``. It draws on the host, as PyTorch's CPU
kernel does (``_distributions.multinomial``), from the default generator or ``generator=``,
and returns int64 indices on the weights' device; the result has no gradient."""

import numpy as np

from .. import _distributions as _D
from ..random import _check as _generator
from ..tensor import Tensor
from ._core import SCALAR_TYPE, backend, broadcast_shapes, check_tensor, wrap
from .funcdef import deffunc, same_dtype, same_shape, surface


def multinomial(input, num_samples, replacement=False, *, generator=None):
    r"""Draw indices from the categorical distribution(s) that the rows of ``input`` weigh.

    In each row, index ``i`` is drawn with probability ``input[i] / input.sum()`` (the weights
    need not sum to 1, but must be non-negative, finite, with a positive sum). Without
    ``replacement``, an index is drawn at most once per row (weights of zero come last, once
    the others are used up). The draws are PyTorch's for the same seed; the result carries no
    gradient.

    Args:
        input (Tensor): the weights: a 1-d tensor, or a 2-d one with one distribution per row.
        num_samples (int): the number of indices to draw per row.
        replacement (bool, optional): whether to draw with replacement. Default: ``False``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        LongTensor: of shape :math:`(\text{num\_samples})` or :math:`(m,
        \text{num\_samples})` for :math:`m` rows.

    Example::

        >>> import nbgrad
        >>> nbgrad.multinomial(nbgrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.multinomial(nbgrad.tensor([[1.0, 1.0, 2.0], [0.0, 5.0, 5.0]]), 2)
        tensor([[2, 1],
                [1, 2]])
    """
    check_tensor(input, "multinomial")
    gen = _generator(generator, input._device, "multinomial")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input._dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{SCALAR_TYPE[input._dtype.name]}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and n > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    be = backend(input._device)
    w = np.asarray(be.to_host(input.detach()._data), np.float64).reshape(-1, input.shape[-1])
    if not np.isfinite(w).all() or (w < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = w.sum(1)
    if (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    out = _D.multinomial(gen, w.astype(input._dtype.np), n, replacement)
    out = out.astype(np.int64)
    out = out.reshape(tuple(input.shape[:-1]) + (n,))
    return wrap(be.from_host(out), input._device)


# ---- in-place samplers: PyTorch's CPU samples for the generator's state, written into the
# tensor in the order PyTorch's kernels visit its elements (by decreasing stride), through
# copy_ (so a leaf that requires grad is refused and the old value's gradient is zero)


def _fill_(self, fname, draw, generator):
    from .inplace import copy_

    check_tensor(self, fname)
    gen = _generator(generator, self._device, fname)
    shape = tuple(self.shape)
    n = int(np.prod(shape, dtype=np.int64))
    flat = draw(gen, n, self._dtype.np)
    strides = self.stride()
    order = sorted(range(len(shape)), key=lambda d: -strides[d])
    host = np.empty(shape, self._dtype.np)
    host.transpose(order)[...] = flat.reshape([shape[d] for d in order])
    src = wrap(backend(self._device).from_host(host), self._device)
    return copy_(self, src)


def _float_kernel(self, kernel):
    if not self._dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{SCALAR_TYPE[self._dtype.name]}'")


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    r"""Fill this tensor, in place, with samples from the uniform distribution on
    :math:`[\text{from}, \text{to})`.

    The samples are PyTorch's for the same seed. The tensor must have a floating-point dtype.

    Args:
        from_ (float, optional): the lower bound (PyTorch's ``from``; it may be passed as
            ``from=`` too). Default: ``0.0``.
        to (float, optional): the upper bound, at least ``from_``. Default: ``1.0``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(3).uniform_(-1, 1)
        tensor([-0.0075,  0.5364, -0.8230])
        >>> nbgrad.empty(2, 2).uniform_().shape
        nbgrad.Size([2, 2])
    """
    from_ = kw.pop("from", from_)
    _no_more(kw, "uniform_")
    _float_kernel(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return _fill_(self, "uniform_", lambda g, n, d: _D.uniform(g, n, d, from_, to), generator)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    r"""Fill this tensor, in place, with samples from the normal distribution
    :math:`\mathcal{N}(\text{mean}, \text{std}^2)`.

    The samples are PyTorch's for the same seed. The tensor must have a floating-point dtype.

    Args:
        mean (float, optional): the mean. Default: ``0.0``.
        std (float, optional): the standard deviation, non-negative. Default: ``1.0``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(3).normal_(10.0, 2.0)
        tensor([13.0820,  9.4131,  5.6424])
    """
    _float_kernel(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    contiguous = self.is_contiguous()
    return _fill_(self, "normal_",
                  lambda g, n, d: _D.normal(g, n, d, mean, std, contiguous), generator)


_BOUNDS = {"int32": ("int", -(2**31), 2**31 - 1), "int64": ("long", -(2**63), 2**63 - 1),
           "uint8": ("unsigned char", 0, 255), "int8": ("signed char", -128, 127),
           "int16": ("short", -(2**15), 2**15 - 1),
           "bool": ("bool", 0, 1), "float32": ("float", -(2**24), 2**24),
           "float64": ("double", -(2**53), 2**53),
           # (PyTorch only warns past these 16-bit ranges; the draws are rounded)
           "float16": ("c10::Half", -(2**63), 2**63 - 1),
           "bfloat16": ("c10::BFloat16", -(2**63), 2**63 - 1)}


def random_(self, *args, generator=None, **kw):
    r"""Fill this tensor, in place, with integers drawn uniformly from :math:`[\text{from},
    \text{to} - 1]`.

    Called as ``random_(to)``, the range is :math:`[0, \text{to} - 1]`; as ``random_(from,
    to)``, :math:`[\text{from}, \text{to} - 1]`; as ``random_()``, from 0 to the largest
    integer the dtype holds exactly (:math:`2^{24}` for float32, :math:`2^{53}` for float64,
    the largest value for integer dtypes). The samples are PyTorch's for the same seed.

    Args:
        from (int, optional): the lower bound, given first when two bounds are passed (or as
            ``from=``). Default: ``0``.
        to (int, optional): the bound past the largest value. Default: ``None`` (as above).
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(4, dtype=nbgrad.int64).random_(10)
        tensor([4, 9, 3, 0])
        >>> nbgrad.empty(4).random_(5, 8)
        tensor([6., 5., 6., 6.])
    """
    if len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    bounds = dict(zip(("from", "to") if len(args) == 2 else ("to",), args))
    for k in kw:
        if k not in ("from", "to") or k in bounds:
            raise TypeError(f"random_() got an unexpected keyword argument '{k}'")
    bounds.update(kw)
    if not bounds:
        return _fill_(self, "random_", _D.random_full, generator)
    ctype, lo, hi = _BOUNDS[self._dtype.name]
    from_ = bounds.get("from", 0)
    to = bounds.get("to")
    to = hi + 1 if to is None else to
    if not from_ < to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={from_} >= to={to}")
    if not lo <= from_ <= hi:
        raise RuntimeError(f"from is out of bounds for {ctype}")
    if not lo <= to - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {ctype}")
    return _fill_(self, "random_", lambda g, n, d: _D.randint(g, n, from_, to, d), generator)


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill this tensor, in place, with 1 with probability ``p`` and 0 otherwise.

    Args:
        p (float or Tensor, optional): the probability of 1, in :math:`[0, 1]`: one number, or
            a tensor of probabilities that broadcasts to this tensor's shape. Default:
            ``0.5``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(4).bernoulli_(0.5)
        tensor([0., 0., 1., 0.])
        >>> nbgrad.empty(2, 2).bernoulli_(nbgrad.tensor([0.0, 1.0]))
        tensor([[0., 1.],
                [0., 1.]])
    """
    if isinstance(p, Tensor):
        probs = np.broadcast_to(_host(p), tuple(self.shape))
        if ((probs < 0) | (probs > 1)).any():
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please "
                               "report an enhancement request to PyTorch.)")
        return _fill_(self, "bernoulli_",
                      lambda g, n, d: _D.bernoulli_tensor(g, probs).astype(d), generator)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    return _fill_(self, "bernoulli_", lambda g, n, d: _D.bernoulli(g, n, p, d),
                  generator)


def exponential_(self, lambd=1.0, *, generator=None):
    r"""Fill this tensor, in place, with samples from the exponential distribution of rate
    ``lambd``: density :math:`\lambda e^{-\lambda x}` for :math:`x \ge 0`.

    The samples are PyTorch's for the same seed. The tensor must have a floating-point dtype.

    Args:
        lambd (float, optional): the rate :math:`\lambda`, positive. Default: ``1.0``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(2).exponential_()
        tensor([3.5083, 1.2304])
    """
    if not self._dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution."
                           " dtype must be a floating point but you specified "
                           f"{SCALAR_TYPE[self._dtype.name]}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    return _fill_(self, "exponential_",
                  lambda g, n, d: _D.exponential(g, n, lambd).astype(d), generator)


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    r"""Fill this tensor, in place, with samples from the Cauchy distribution: density
    :math:`\frac{1}{\pi} \frac{\sigma}{(x - \text{median})^2 + \sigma^2}`.

    The samples are PyTorch's for the same seed. The tensor must have a floating-point dtype.

    Args:
        median (float, optional): the location (the median). Default: ``0.0``.
        sigma (float, optional): the scale, positive. Default: ``1.0``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(2).cauchy_()
        tensor([10.5977,  0.7648])
    """
    if not self._dtype.is_floating_point:  # (PyTorch names C++'s type here)
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{self._dtype.cpp}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill_(self, "cauchy_",
                  lambda g, n, d: _D.cauchy(g, n, median, sigma).astype(d), generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    r"""Fill this tensor, in place, with samples from the log-normal distribution: ``exp`` of
    samples from :math:`\mathcal{N}(\text{mean}, \text{std}^2)`.

    ``mean`` and ``std`` are those of the underlying normal distribution, not of the samples.
    The samples are PyTorch's for the same seed. The tensor must have a floating-point dtype.

    Args:
        mean (float, optional): the mean of the logarithm. Default: ``1.0``.
        std (float, optional): the standard deviation of the logarithm, positive. Default:
            ``2.0``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(2).log_normal_()
        tensor([59.2634,  1.5116])
    """
    _float_kernel(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    return _fill_(self, "log_normal_",
                  lambda g, n, d: _D.log_normal(g, n, mean, std).astype(d), generator)


def geometric_(self, p, *, generator=None):
    """Fill this tensor, in place, with samples from the geometric distribution: the number of
    Bernoulli(``p``) trials up to and including the first success (1, 2, 3, ...).

    The samples are PyTorch's for the same seed.

    Args:
        p (float): the success probability of each trial, in :math:`(0, 1)`.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Returns:
        Tensor: this tensor.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(3).geometric_(0.5)
        tensor([1., 1., 2.])
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    return _fill_(self, "geometric_",
                  lambda g, n, d: _D.geometric(g, n, p).astype(d), generator)


def bernoulli(input, p=None, *, generator=None):
    """Draw 0 or 1 for each element: 1 with the probability that element (or ``p``) gives.

    The result has ``input``'s shape and dtype, and carries no gradient.

    Args:
        input (Tensor): the probabilities of drawing 1, in :math:`[0, 1]`.
        p (float, optional): one probability for every element; ``input`` then only gives the
            shape and dtype. Default: ``None``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.bernoulli(nbgrad.tensor([0.0, 0.5, 1.0]))
        tensor([0., 0., 1.])
        >>> nbgrad.bernoulli(nbgrad.zeros(2, 3), p=1.0)
        tensor([[1., 1., 1.],
                [1., 1., 1.]])
    """
    from ..creation import empty_like

    check_tensor(input, "bernoulli")
    out = empty_like(input)
    return bernoulli_(out, input.detach() if p is None else p, generator=generator)


def _poisson_forward(x, odt, dev, gen):
    be = backend(dev)
    rates = np.ascontiguousarray(be.to_host(x), np.float64)
    return be.from_host(_D.poisson(gen, rates.reshape(-1)).reshape(rates.shape).astype(odt.np))


def _zero_grad(grad):
    from ..creation import zeros_like

    return zeros_like(grad)


POISSON = deffunc("poisson", forward=_poisson_forward, dtype=same_dtype, shape=same_shape,
                  args=("generator",), grads=("_zero_grad(grad)",), fn=False, method=False)


@surface(POISSON)
def poisson(input, generator=None):
    """Draw counts from Poisson distributions whose rates ``input`` gives, elementwise.

    The result has ``input``'s dtype; the draws are PyTorch's for the same seed. Its gradient
    is zero, as in PyTorch.

    Args:
        input (Tensor): the rates, non-negative, of a floating-point dtype.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.poisson(nbgrad.tensor([0.5, 3.0, 12.0]))
        tensor([ 2.,  4., 13.])
        >>> nbgrad.poisson(nbgrad.zeros(2))
        tensor([0., 0.])
    """
    check_tensor(input, "poisson")
    gen = _generator(generator, input._device, "poisson")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for "
                                  f"'{SCALAR_TYPE[input._dtype.name]}'")
    if input.numel() and not bool((input.detach() >= 0).all()):  # (NaN too)
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return POISSON.call(input, gen)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad=False):
    """Draw samples from normal distributions of means ``mean`` and standard deviations ``std``.

    With a tensor ``mean`` and / or ``std``, one sample per element of their broadcast
    shape; with two numbers, ``size`` samples. The samples are ``normal_(0, 1)`` draws scaled
    by ``std`` and shifted by ``mean``, as PyTorch computes them. No gradient flows to
    ``mean`` or ``std`` (the sample is not reparameterized: see
    ``nbgrad.distributions.Normal.rsample`` for that).

    Args:
        mean (Tensor or float): the means.
        std (Tensor or float, optional): the standard deviations, non-negative. Default:
            ``1.0``.
        size (tuple of ints, optional): the shape of the result, when ``mean`` and ``std``
            are numbers (then it is needed). Default: ``None``.
        generator (nbgrad.Generator, optional): the generator to draw from. Default: ``None``
            (the default generator).
        dtype (nbgrad.dtype, optional): the dtype of the result, for numbers. Default:
            ``None`` (the default dtype).
        device (nbgrad.device, optional): the device of the result, for numbers. Default:
            ``None``.
        requires_grad (bool, optional): whether the result requires gradient, for numbers.
            Default: ``False``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.normal(2.0, 0.5, (3,))
        tensor([2.7705, 1.8533, 0.9106])
        >>> nbgrad.normal(nbgrad.tensor([0.0, 10.0, 100.0]), 0.1)
        tensor([5.6843e-02, 9.8915e+00, 9.9860e+01])
        >>> nbgrad.normal(nbgrad.zeros(2, 2), nbgrad.ones(2)).shape
        nbgrad.Size([2, 2])
    """
    from ..creation import _dtype_or_default, _size, empty

    tm, ts = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not (tm or ts):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            "(float, float): a size is needed when mean and std are numbers")
        dt = _dtype_or_default(dtype)
        out = empty(_size((size,) if isinstance(size, int) else (tuple(size),), "normal"),
                    dtype=dt, device=device)
        out = normal_(out, mean, std, generator=generator)
        return out.requires_grad_(True) if requires_grad else out
    if ts and (_host(std) < 0).any() or not ts and std < 0:
        bad = _host(std).min() if ts else std
        raise RuntimeError(f"normal expects all elements of std >= 0.0, but found std {bad:g}"
                           if ts else f"normal expects std >= 0.0, but found std {bad:g}")
    ref = mean if tm else std
    _float_kernel(ref, "normal_kernel_cpu")
    shape = broadcast_shapes(tuple(mean.shape) if tm else (), tuple(std.shape) if ts else ())
    gen = _generator(generator, ref._device, "normal")
    n, t = int(np.prod(shape, dtype=np.int64)), ref._dtype.np
    m = _host(mean) if tm else np.asarray(mean, t)
    if ts:  # normal_(0, 1), then * std + mean, rounded step by step
        out = _D.normal(gen, n, t, 0.0, 1.0).reshape(shape) * _host(std) + m
    else:  # normal_(0, std), then + mean
        out = _D.normal(gen, n, t, 0.0, std).reshape(shape) + m
    return wrap(backend(ref._device).from_host(np.ascontiguousarray(out, t)), ref._device)


def _host(t):
    return np.asarray(backend(t._device).to_host(t.detach().contiguous()._data))


def _no_more(kw, fname):
    if kw:
        raise TypeError(f"{fname}() got an unexpected keyword argument '{next(iter(kw))}'")
