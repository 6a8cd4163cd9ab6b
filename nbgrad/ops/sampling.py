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
    """``num_samples`` indices drawn for each row of ``input`` (1-d, or 2-d: one row per
    distribution), index ``i`` with probability ``input[i] / input.sum()``; without
    ``replacement`` an index is drawn at most once per row (weights of zero are drawn last,
    once the others are used up).

    Example::

        >>> import nbgrad
        >>> nbgrad.multinomial(nbgrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True)
        tensor([1, 1])
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
    """Fill with samples from the uniform distribution on [from, to) (PyTorch's for the same
    seed).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(3).uniform_(-1, 1)
        tensor([-0.0075,  0.5364, -0.8230])
    """
    from_ = kw.pop("from", from_)
    _no_more(kw, "uniform_")
    _float_kernel(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={from_} > to={to}")
    return _fill_(self, "uniform_", lambda g, n, d: _D.uniform(g, n, d, from_, to), generator)


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from the normal distribution N(mean, std**2).

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
    """Fill with integers drawn uniformly from [from, to) (``random_(to)``: [0, to);
    ``random_()``: [0, 2**mantissa] for floats, [0, max] for integers).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(4, dtype=nbgrad.int64).random_(10)
        tensor([4, 9, 3, 0])
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
    """Fill with 1 (probability ``p``, a number or a tensor of probabilities broadcast to
    this shape) or 0.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(4).bernoulli_(0.5)
        tensor([0., 0., 1., 0.])
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
    return _fill_(self, "bernoulli_", lambda g, n, d: _D.bernoulli(g, n, p).astype(d),
                  generator)


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples from the exponential distribution of rate ``lambd``.

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


_CPP_TYPE = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
             "uint8": "unsigned char", "bool": "bool"}


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with samples from the Cauchy distribution at ``median`` of scale ``sigma``
    (PyTorch's for the same seed).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.empty(2).cauchy_()
        tensor([10.5977,  0.7648])
    """
    if not self._dtype.is_floating_point:  # (PyTorch names C++'s type here)
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. "
                           "dtype must be a floating point but you specified "
                           f"{_CPP_TYPE.get(self._dtype.name, self._dtype.name)}")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    return _fill_(self, "cauchy_",
                  lambda g, n, d: _D.cauchy(g, n, median, sigma).astype(d), generator)


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp`` of samples from N(mean, std**2) (PyTorch's for the same seed).

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
    """Fill with the number of Bernoulli(``p``) trials to the first success (PyTorch's for
    the same seed).

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
    """0/1 samples, 1 with probability ``input[i]`` (or ``p`` for every element); the
    result has ``input``'s shape and dtype and no gradient.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.bernoulli(nbgrad.tensor([0.0, 0.5, 1.0]))
        tensor([0., 0., 1.])
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
    """Counts drawn from the Poisson distributions of rates ``input`` (elementwise, in the
    input's dtype; PyTorch's draws for a seed). Its gradient is zero, as PyTorch's.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.poisson(nbgrad.tensor([0.5, 3.0, 12.0]))
        tensor([ 2.,  4., 13.])
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
    """Samples from N(mean, std**2), elementwise for tensor ``mean`` and / or ``std`` (of
    their broadcast shape), or ``size`` of them for numbers: ``normal_(0, 1)`` scaled by
    ``std`` and shifted by ``mean``, as PyTorch computes it. No gradient flows to ``mean``
    or ``std`` (as in PyTorch, the sample is not reparameterised).

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.normal(2.0, 0.5, (3,))
        tensor([2.7705, 1.8533, 0.9106])
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
