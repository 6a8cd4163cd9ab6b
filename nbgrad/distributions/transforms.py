"""Invertible transforms of random variables, as ``torch.distributions.transforms``: each
maps ``x`` to ``y``, inverts it, and gives ``log |dy/dx|`` for ``TransformedDistribution``'s
densities. A transform keeps its last ``(x, y)`` pair (``cache_size=1``), so the inverse
of a value it produced is that ``x`` exactly.

Example::

    >>> import nbgrad
    >>> from nbgrad.distributions.transforms import AffineTransform, ExpTransform
    >>> t = ExpTransform()
    >>> y = t(nbgrad.tensor([0.0, 1.0]))
    >>> t.inv(y), t.log_abs_det_jacobian(nbgrad.tensor([0.0, 1.0]), y)
    (tensor([0., 1.]), tensor([0., 1.]))
    >>> AffineTransform(1.0, 2.0)(nbgrad.tensor([3.0]))
    tensor([7.])
"""

import math
import numbers

from .. import dtypes as _dt
from ..creation import eye, full_like
from ..nn import functional as F
from ..ops.concat import cat, stack
from ..tensor import Size
from . import constraints
from .utils import sum_rightmost, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "SoftmaxTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


class Transform:
    """The base: subclasses define ``_call`` (x to y), ``_inverse`` and
    ``log_abs_det_jacobian``, and their ``domain``, ``codomain``, ``bijective`` and
    ``sign``."""

    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached_x_y = None, None
        self._inv = None

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (``y`` to ``x``)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return id(self)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        raise NotImplementedError

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape

    def __repr__(self):
        return self.__class__.__name__ + "()"


class _Unparameterized(Transform):
    """A transform with no parameters: equal to every other of its type."""

    def __eq__(self, other):
        return type(other) is type(self)

    __hash__ = Transform.__hash__


class _InverseTransform(Transform):
    """The inverse of a transform (``t.inv``)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self):
        return self._inv.codomain

    @property
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    def __hash__(self):
        return hash(("inverse", self._inv))

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._inv!r})"


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied in order."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = Transform.__hash__

    @property
    def domain(self):
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self):
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return full_like(x, 0.0)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, a, b in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(sum_rightmost(part.log_abs_det_jacobian(a, b),
                                       event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        return total

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return self.__class__.__name__ + "(\n    " + inner + "\n)"


identity_transform = ComposeTransform([])


class ExpTransform(_Unparameterized):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive numbers."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool((self.exponent == other.exponent).all()) if hasattr(
            self.exponent, "all") else self.exponent == other.exponent

    __hash__ = Transform.__hash__

    @property
    def sign(self):
        return self.exponent.sign() if hasattr(self.exponent, "sign") else (
            1 if self.exponent > 0 else -1)

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return _broadcast(shape, self.exponent)

    inverse_shape = forward_shape


class SigmoidTransform(_Unparameterized):
    """``y = sigmoid(x)``, kept inside (0, 1) by the dtype's smallest steps."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x):
        fi = _dt.finfo(x.dtype)
        return x.sigmoid().clamp(min=fi.tiny, max=1.0 - fi.eps)

    def _inverse(self, y):
        fi = _dt.finfo(y.dtype)
        y = y.clamp(min=fi.tiny, max=1.0 - fi.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x) - F.softplus(x)


class TanhTransform(_Unparameterized):
    """``y = tanh(x)`` (the squashing of bounded actions), its log-Jacobian computed
    stably: ``2 (log 2 - x - softplus(-2x))``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_Unparameterized):
    """``y = |x|`` (not invertible: its inverse is the identity on positive numbers)."""

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, over events of ``event_dim`` dims."""

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(
            constraints.real, self._event_dim)

    @property
    def codomain(self):
        return self.domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log()
        if self._event_dim:
            result = result.reshape(tuple(result.shape[:-self._event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return _broadcast(shape, self.loc, self.scale)

    inverse_shape = forward_shape


def _broadcast(shape, *params):
    """``shape`` broadcast with the shapes of the tensor parameters among ``params``."""
    import numpy as np

    shapes = [tuple(p.shape) for p in params if hasattr(p, "shape")]
    return Size(np.broadcast_shapes(tuple(shape), *shapes))


def _simplex_event_shape(shape):
    """``shape`` checked to have the event dim a simplex transform works over."""
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")
    return shape


class SoftmaxTransform(_Unparameterized):
    """``y = softmax(x)`` over the last dim: real vectors onto the simplex. Not bijective
    (adding a constant to ``x`` gives the same ``y``); its inverse is ``log y``, the
    representative whose exponentials already sum to one.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import SoftmaxTransform
        >>> t = SoftmaxTransform()
        >>> y = t(nbgrad.tensor([0.0, 1.0, 2.0]))
        >>> y
        tensor([0.0900, 0.2447, 0.6652])
        >>> t.inv(y).exp()
        tensor([0.0900, 0.2447, 0.6652])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x):
        unnormalized = (x - x.max(-1, True)[0]).exp()
        return unnormalized / unnormalized.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        return _simplex_event_shape(shape)

    def inverse_shape(self, shape):
        return _simplex_event_shape(shape)


def _stick_offsets(x, k):
    """``log(k), log(k - 1), ..., log(1)``: the shifts that make ``x = 0`` break the stick
    into ``k + 1`` equal pieces."""
    return (k + 1 - x.new_ones(k).cumsum(-1)).log()


class StickBreakingTransform(_Unparameterized):
    """Real vectors of length ``K`` onto the simplex of length ``K + 1``, by breaking a
    stick: ``sigmoid(x[i] - log(K - i))`` is the fraction of what is left of the stick that
    piece ``i`` takes, and the last piece is the remainder. Bijective, with a triangular
    Jacobian (the transform of the logistic-normal distribution).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import StickBreakingTransform
        >>> t = StickBreakingTransform()
        >>> x = nbgrad.tensor([0.0, 0.0, 1.0])
        >>> y = t(x)
        >>> y
        tensor([0.2500, 0.2500, 0.3655, 0.1345])
        >>> t.inv(y), t.log_abs_det_jacobian(x, y)
        (tensor([0., 0., 1.]), tensor(-5.7854))
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        fi = _dt.finfo(x.dtype)
        z = (x - _stick_offsets(x, x.shape[-1])).sigmoid().clamp(min=fi.tiny, max=1.0 - fi.eps)
        left = (1 - z).cumprod(-1)  # (what remains of the stick after each piece)
        return F.pad(z, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse(self, y):
        pieces = y[..., :-1]
        offsets = (y.shape[-1] - y.new_ones(pieces.shape[-1]).cumsum(-1)).log()
        # (what remains is clamped positive: rounding can leave it at or below 0 when the
        # last piece is tiny)
        left = (1 - pieces.cumsum(-1)).clamp(min=_dt.finfo(y.dtype).tiny)
        return pieces.log() - left.log() + offsets

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offsets(x, x.shape[-1])
        # (1 - sigmoid(x) = exp(-x) sigmoid(x))
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        shape = _simplex_event_shape(shape)
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        shape = _simplex_event_shape(shape)
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class IndependentTransform(Transform):
    """``base_transform`` with its ``reinterpreted_batch_ndims`` rightmost batch dims made
    part of the event: the same map, its log-Jacobian summed over those dims.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import ExpTransform, IndependentTransform
        >>> t = IndependentTransform(ExpTransform(), 1)
        >>> x = nbgrad.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> t.log_abs_det_jacobian(x, t(x))
        tensor([1., 5.])
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                             self.reinterpreted_batch_ndims)

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)

    def __repr__(self):
        return (f"{self.__class__.__name__}({self.base_transform!r}, "
                f"{self.reinterpreted_batch_ndims})")


class ReshapeTransform(Transform):
    """The rightmost dims of shape ``in_shape`` reshaped to ``out_shape`` (as many
    elements); the Jacobian is a permutation: log-determinant zero.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import ReshapeTransform
        >>> ReshapeTransform((4,), (2, 2))(nbgrad.arange(8.0).reshape(2, 4)).shape
        nbgrad.Size([2, 2, 2])
    """

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        return x.reshape(tuple(x.shape[:x.dim() - len(self.in_shape)]) + self.out_shape)

    def _inverse(self, y):
        return y.reshape(tuple(y.shape[:y.dim() - len(self.out_shape)]) + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class SoftplusTransform(_Unparameterized):
    """``y = log(1 + exp(x))`` (linear past x = 20, as ``F.softplus``).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import SoftplusTransform
        >>> t = SoftplusTransform()
        >>> t.inv(t(nbgrad.tensor([-1.0, 0.5])))
        tensor([-1.0000,  0.5000])
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class LowerCholeskyTransform(_Unparameterized):
    """Square matrices onto lower-triangular ones with a positive diagonal (a Cholesky
    factor): the strictly lower part kept, the diagonal exponentiated.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import LowerCholeskyTransform
        >>> LowerCholeskyTransform()(nbgrad.tensor([[0.0, 5.0], [2.0, 0.0]]))
        tensor([[1., 0.],
                [2., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_Unparameterized):
    """Square matrices onto positive-definite ones: ``L L^T`` of the
    ``LowerCholeskyTransform`` of ``x``; the inverse takes the Cholesky factor.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import PositiveDefiniteTransform
        >>> PositiveDefiniteTransform()(nbgrad.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        from ..linalg import cholesky

        return LowerCholeskyTransform().inv(cholesky(y))


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: values of the distribution's support onto (0, 1)
    (a copula's margins); the inverse is its ``icdf``, the log-Jacobian its ``log_prob``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions import Normal
        >>> from nbgrad.distributions.transforms import CumulativeDistributionTransform
        >>> CumulativeDistributionTransform(Normal(0.0, 1.0))(nbgrad.tensor([0.0]))
        tensor([0.5000])
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)


def _check_parts(tseq):
    if not all(isinstance(t, Transform) for t in tseq):
        raise AssertionError("All elements of tseq must be Transform instances")


def _check_along(dim, value, name, size, expected, what):
    """``value`` (named ``name`` in the messages) has the dim ``dim``, of size
    ``expected`` (named ``what``)."""
    if not -value.dim() <= dim < value.dim():
        where = "tensor" if name is None else name
        raise AssertionError(f"dim {dim} out of range for {where} with {value.dim()} dimensions")
    if value.size(dim) != expected:
        raise AssertionError(f"{size}.size({dim}) = {value.size(dim)} must equal {what} "
                             f"{expected}")


class CatTransform(Transform):
    """The transforms of ``tseq`` applied to consecutive blocks of the dim ``dim``, the
    ``i``-th block ``lengths[i]`` long (one each by default), their results joined as
    ``nbgrad.cat`` joins them. Bijective when every part is.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import (AffineTransform, CatTransform,
        ...                                              ExpTransform)
        >>> t = CatTransform([ExpTransform(), AffineTransform(0.0, 2.0)], dim=1,
        ...                  lengths=[1, 2])
        >>> x = nbgrad.tensor([[0.0, 1.0, 2.0]])
        >>> y = t(x)
        >>> y
        tensor([[1., 2., 4.]])
        >>> t.log_abs_det_jacobian(x, y)
        tensor([[0.0000, 0.6931, 0.6931]])
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        _check_parts(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self):
        """The size the dim ``dim`` must have: the sum of ``lengths``."""
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)

    def _blocks(self, value):
        start = 0
        for length in self.lengths:
            yield value.narrow(self.dim, start, length)
            start += length

    def _call(self, x):
        _check_along(self.dim, x, None, "x", self.length, "length")
        return cat([t(b) for t, b in zip(self.transforms, self._blocks(x))], dim=self.dim)

    def _inverse(self, y):
        _check_along(self.dim, y, None, "y", self.length, "length")
        return cat([t.inv(b) for t, b in zip(self.transforms, self._blocks(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_along(self.dim, x, "x", "x", self.length, "length")
        _check_along(self.dim, y, "y", "y", self.length, "length")
        event_dim = self.event_dim
        terms = []
        for t, a, b in zip(self.transforms, self._blocks(x), self._blocks(y)):
            term = t.log_abs_det_jacobian(a, b)
            if t.event_dim < event_dim:
                term = sum_rightmost(term, event_dim - t.event_dim)
            terms.append(term)
        # the log-Jacobians keep the dim ``dim`` when it is a batch dim; when it falls inside
        # the events, the blocks are parts of one event and their terms add up
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + event_dim
        if dim < 0:
            return cat(terms, dim=dim)
        return sum(terms)


class StackTransform(Transform):
    """The ``i``-th transform of ``tseq`` applied to index ``i`` of the dim ``dim``, the
    results stacked back along it (as ``nbgrad.stack``). Bijective when every part is.

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import (ExpTransform, StackTransform,
        ...                                              identity_transform)
        >>> t = StackTransform([ExpTransform(), identity_transform], dim=1)
        >>> x = nbgrad.tensor([[0.0, 1.0], [2.0, 3.0]])
        >>> y = t(x)
        >>> y
        tensor([[1.0000, 1.0000],
                [7.3891, 3.0000]])
        >>> t.inv(y.clone())
        tensor([[0., 1.],
                [2., 3.]])
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        _check_parts(tseq)
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)

    def _slice(self, value):
        return [value.select(self.dim, i) for i in range(value.size(self.dim))]

    def _check(self, value, name, size):
        _check_along(self.dim, value, name, size, len(self.transforms), "len(transforms)")

    def _call(self, x):
        self._check(x, None, "x")
        return stack([t(s) for t, s in zip(self.transforms, self._slice(x))], dim=self.dim)

    def _inverse(self, y):
        self._check(y, None, "y")
        return stack([t.inv(s) for t, s in zip(self.transforms, self._slice(y))],
                     dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check(x, "x", "x")
        self._check(y, "y", "y")
        terms = [t.log_abs_det_jacobian(a, b)
                 for t, a, b in zip(self.transforms, self._slice(x), self._slice(y))]
        return stack(terms, dim=self.dim)


def _shape_like(shape, dims):
    """``dims`` as a ``Size`` when ``shape`` is one (PyTorch's Size arithmetic keeps it)."""
    return Size(dims) if isinstance(shape, Size) else dims


class CorrCholeskyTransform(Transform):
    """Real vectors of length ``D (D - 1) / 2`` onto Cholesky factors of ``D x D``
    correlation matrices (lower triangular, positive diagonal, rows of unit length): the
    vector's ``tanh`` fills the strictly lower triangle row by row, and each row is then
    broken as a stick, signed: entry ``j`` of a row is its ``tanh`` value times the square
    root of what the entries before it left of the row's unit squared length, and the
    diagonal takes the rest. The log-Jacobian is that of ``x`` onto the flattened strictly
    lower triangle of ``y`` (the two spaces differ in dimension).

    Example::

        >>> import nbgrad
        >>> from nbgrad.distributions.transforms import CorrCholeskyTransform
        >>> t = CorrCholeskyTransform()
        >>> x = nbgrad.tensor([0.5, -1.0, 2.0])
        >>> L = t(x)
        >>> L
        tensor([[ 1.0000,  0.0000,  0.0000],
                [ 0.4621,  0.8868,  0.0000],
                [-0.7616,  0.6247,  0.1723]])
        >>> ((L * L).sum(-1) - 1).abs().max() < 1e-6
        tensor(True)
        >>> t.inv(L.clone())
        tensor([ 0.5000, -1.0000,  2.0000])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = _dt.finfo(x.dtype).eps
        # (kept off +-1, where the rows' remainders and the inverse's atanh would vanish or
        # blow up)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # entry j of a row is r_j sqrt(prod_{k<j} (1 - r_k^2)): the sign of r_j times the
        # square root of the stick-broken r_j^2
        left = (1 - r * r).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype, device=r.device)
        return r * F.pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        # what each row's entries before j leave of its unit squared length
        left = F.pad((1 - (y * y).cumsum(-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # the stick-breaking's derivative of entry j is the square root of what the entries
        # up to j - 1 left: that is the cumulative sum's tril from diagonal -2 (unshifted)
        left = 1 - (y * y).cumsum(-1)
        sticks = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        return sticks + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return _shape_like(shape, tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return _shape_like(shape, tuple(shape[:-2]) + (d * (d - 1) // 2,))
