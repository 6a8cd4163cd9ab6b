"""Window functions for spectral analysis, as PyTorch computes them (``hann_window
hamming_window blackman_window bartlett_window kaiser_window``): the same sequence of
operations in the window's dtype, so a float32 window is PyTorch's to a rounding. A
periodic window of length N is the symmetric one of N + 1 without its last value."""

import math

import numpy as np

from .. import dtypes as _dt


def _window(name, window_length, periodic, dtype, make, device, requires_grad, layout):
    from ..creation import _check_options, tensor  # (creation imports the ops)

    if layout is not None:
        _check_options(name, layout, False)
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dt = _dt.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: "
                           f"TensorOptions(dtype={dt.name})")
    calc = np.float64 if dt is _dt.float64 else np.float32  # (16-bit: computed in float32)
    n = int(window_length)
    if n <= 1:
        w = np.ones(n, calc)
    else:
        m = n + 1 if periodic else n
        w = make(np.arange(m, dtype=calc), m, calc)[:n]
    return tensor(w, dtype=dt, device=device, requires_grad=requires_grad)


def _hamming(alpha, beta):
    def make(k, m, calc):
        return np.cos(k * calc(2 * math.pi / (m - 1))) * calc(-beta) + calc(alpha)

    return make


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    r"""The Hann window, a raised cosine.

    With :math:`N = L` for a symmetric window and :math:`N = L + 1` for a periodic one, the
    values for :math:`k = 0, \dots, L - 1` are

    .. math::
        w[k] = 0.5 - 0.5 \cos\left(\frac{2 \pi k}{N - 1}\right)

    Args:
        window_length (int): the number of values of the window, :math:`L`.
        periodic (bool, optional): return a periodic window (for spectral analysis: the
            symmetric window of :math:`L + 1` values without its last one), or, ``False``, the
            symmetric one (for filter design). Default: ``True``.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None`` (the default
            dtype).
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        device (nbgrad.device, optional): the device of the result. Default: ``None`` (the
            default device).
        requires_grad (bool, optional): whether the result requires gradient. Default:
            ``False``.

    Returns:
        Tensor: a 1-d tensor of :math:`L` values (a window of length 0 is empty, and of
        length 1 is ``[1.]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.hann_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
        >>> nbgrad.hann_window(5, periodic=False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("hann_window", window_length, periodic, dtype, _hamming(0.5, 0.5), device,
                   requires_grad, layout)


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, requires_grad=False):
    r"""The generalized Hamming window.

    With :math:`N = L` for a symmetric window and :math:`N = L + 1` for a periodic one, the
    values for :math:`k = 0, \dots, L - 1` are

    .. math::
        w[k] = \alpha - \beta \cos\left(\frac{2 \pi k}{N - 1}\right)

    (The defaults give Hamming's window; ``alpha = beta = 0.5`` the Hann window.)

    Args:
        window_length (int): the number of values of the window, :math:`L`.
        periodic (bool, optional): return a periodic window (for spectral analysis: the
            symmetric window of :math:`L + 1` values without its last one), or, ``False``, the
            symmetric one (for filter design). Default: ``True``.
        alpha (float, optional): the coefficient :math:`\alpha`. Default: ``0.54``.
        beta (float, optional): the coefficient :math:`\beta`. Default: ``0.46``.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None`` (the default
            dtype).
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        device (nbgrad.device, optional): the device of the result. Default: ``None`` (the
            default device).
        requires_grad (bool, optional): whether the result requires gradient. Default:
            ``False``.

    Returns:
        Tensor: a 1-d tensor of :math:`L` values (a window of length 0 is empty, and of
        length 1 is ``[1.]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.hamming_window(3, periodic=False)
        tensor([0.0800, 1.0000, 0.0800])
        >>> nbgrad.hamming_window(4, alpha=0.5, beta=0.5)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hamming_window", window_length, periodic, dtype, _hamming(alpha, beta),
                   device, requires_grad, layout)


def _blackman(k, m, calc):
    k = k * calc(math.pi / (m - 1))
    return np.cos(k * calc(4)) * calc(0.08) - np.cos(k * calc(2)) * calc(0.5) + calc(0.42)


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    r"""The Blackman window.

    With :math:`N = L` for a symmetric window and :math:`N = L + 1` for a periodic one, the
    values for :math:`k = 0, \dots, L - 1` are

    .. math::
        w[k] = 0.42 - 0.5 \cos\left(\frac{2 \pi k}{N - 1}\right)
            + 0.08 \cos\left(\frac{4 \pi k}{N - 1}\right)

    Args:
        window_length (int): the number of values of the window, :math:`L`.
        periodic (bool, optional): return a periodic window (for spectral analysis: the
            symmetric window of :math:`L + 1` values without its last one), or, ``False``, the
            symmetric one (for filter design). Default: ``True``.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None`` (the default
            dtype).
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        device (nbgrad.device, optional): the device of the result. Default: ``None`` (the
            default device).
        requires_grad (bool, optional): whether the result requires gradient. Default:
            ``False``.

    Returns:
        Tensor: a 1-d tensor of :math:`L` values (a window of length 0 is empty, and of
        length 1 is ``[1.]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.blackman_window(5, periodic=False)
        tensor([-2.9802e-08,  3.4000e-01,  1.0000e+00,  3.4000e-01, -2.9802e-08])
        >>> nbgrad.blackman_window(4).shape
        nbgrad.Size([4])
    """
    return _window("blackman_window", window_length, periodic, dtype, _blackman, device,
                   requires_grad, layout)


def _bartlett(k, m, calc):
    w = k * calc(2.0 / (m - 1))
    half = ((m - 1) >> 1) + 1
    w[half:] = calc(2) - w[half:]
    return w


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    r"""The Bartlett (triangular) window.

    With :math:`N = L` for a symmetric window and :math:`N = L + 1` for a periodic one, the
    values for :math:`k = 0, \dots, L - 1` are

    .. math::
        w[k] = 1 - \left|\frac{2k}{N - 1} - 1\right|

    Args:
        window_length (int): the number of values of the window, :math:`L`.
        periodic (bool, optional): return a periodic window (for spectral analysis: the
            symmetric window of :math:`L + 1` values without its last one), or, ``False``, the
            symmetric one (for filter design). Default: ``True``.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None`` (the default
            dtype).
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        device (nbgrad.device, optional): the device of the result. Default: ``None`` (the
            default device).
        requires_grad (bool, optional): whether the result requires gradient. Default:
            ``False``.

    Returns:
        Tensor: a 1-d tensor of :math:`L` values (a window of length 0 is empty, and of
        length 1 is ``[1.]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.bartlett_window(5, periodic=False)
        tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
        >>> nbgrad.bartlett_window(4)
        tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, _bartlett, device,
                   requires_grad, layout)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    r"""The Kaiser window.

    With :math:`N = L` for a symmetric window and :math:`N = L + 1` for a periodic one, the
    values for :math:`k = 0, \dots, L - 1` are

    .. math::
        w[k] = \frac{I_0\left(\beta \sqrt{1 - \left(\frac{k - a}{a}\right)^2}\right)}{I_0(\beta)},
        \quad a = \frac{N - 1}{2}

    where :math:`I_0` is the modified Bessel function of the first kind of order 0. A
    larger :math:`\beta` makes the window narrower.

    Args:
        window_length (int): the number of values of the window, :math:`L`.
        periodic (bool, optional): return a periodic window (for spectral analysis: the
            symmetric window of :math:`L + 1` values without its last one), or, ``False``, the
            symmetric one (for filter design). Default: ``True``.
        beta (float, optional): the shape parameter :math:`\beta`. Default: ``12.0``.
        dtype (nbgrad.dtype, optional): a floating-point dtype. Default: ``None`` (the default
            dtype).
        layout (nbgrad.layout, optional): ``nbgrad.strided``, the one layout of nbgrad
            tensors (another raises ``NotImplementedError``). Default: ``nbgrad.strided``.
        device (nbgrad.device, optional): the device of the result. Default: ``None`` (the
            default device).
        requires_grad (bool, optional): whether the result requires gradient. Default:
            ``False``.

    Returns:
        Tensor: a 1-d tensor of :math:`L` values (a window of length 0 is empty, and of
        length 1 is ``[1.]``).

    Example::

        >>> import nbgrad
        >>> nbgrad.kaiser_window(3, periodic=False, beta=0.0)
        tensor([1., 1., 1.])
        >>> nbgrad.kaiser_window(5, periodic=False, beta=5.0)
        tensor([0.0367, 0.5529, 1.0000, 0.5529, 0.0367])
    """
    def make(k, m, calc):
        a = calc((m - 1) / 2.0)
        r = np.sqrt(np.maximum(calc(1) - ((k - a) / a) ** 2, calc(0)))
        return (np.i0(calc(beta) * r) / np.i0(calc(beta))).astype(calc)

    return _window("kaiser_window", window_length, periodic, dtype, make, device,
                   requires_grad, layout)
