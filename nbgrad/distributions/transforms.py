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
from ..creation import full_like
from ..nn import functional as F
from . import constraints
from .utils import sum_rightmost

__all__ = ["AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform",
           "PowerTransform", "SigmoidTransform", "SoftmaxTransform", "StickBreakingTransform",
           "TanhTransform", "Transform", "identity_transform"]


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
