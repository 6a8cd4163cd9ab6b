"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional, ``batch_first``, dropout
between layers, initial states, ``PackedSequence`` inputs, LSTM's ``proj_size``) and their
cells, with PyTorch's parameter names, shapes,
initialisation and equations. Each step is composed of nbgrad ops (one product of the
whole input sequence per layer and direction, then one of the hidden state per step), so
they run on every device and differentiate twice."""

import math
import warnings

from ...ops.concat import cat, stack
from ...ops.dropout import dropout
from ...ops.elementwise import add, mul, relu, rsub, sigmoid, tanh
from ...ops.linalg import linear
from .. import init
from .module import Module
from .utils import _factory

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(act):
    def step(gi, h, w_hh, b_hh, w_hr=None):
        return act(add(gi, linear(h, w_hh, b_hh)))

    return step


def _lstm_step(gi, hc, w_hh, b_hh, w_hr=None):
    h, c = hc
    i, f, g, o = add(gi, linear(h, w_hh, b_hh)).chunk(4, -1)
    c = add(mul(sigmoid(f), c), mul(sigmoid(i), tanh(g)))
    h = mul(sigmoid(o), tanh(c))
    return (h if w_hr is None else linear(h, w_hr)), c  # (proj_size: h projected)


def _gru_step(gi, h, w_hh, b_hh, w_hr=None):
    gh = linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, -1)
    h_r, h_z, h_n = gh.chunk(3, -1)
    r, z = sigmoid(add(i_r, h_r)), sigmoid(add(i_z, h_z))
    n = tanh(add(i_n, mul(r, h_n)))
    return add(mul(rsub(z, 1.0), n), mul(z, h))  # (1 - z) * n + z * h


_STEPS = {"RNN_TANH": _rnn_step(tanh), "RNN_RELU": _rnn_step(relu), "LSTM": _lstm_step,
          "GRU": _gru_step}


class RNNBase(Module):
    """The layers' common part: parameters ``weight_ih_l{k}[_reverse]`` (gates x input),
    ``weight_hh_l{k}[_reverse]`` (gates x hidden) and the biases, all uniform in
    ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``, as PyTorch's."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        if not (isinstance(dropout, (int, float)) and 0 <= dropout <= 1) or isinstance(
                dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if not isinstance(proj_size, int) or proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gates = _GATES[mode] * hidden_size
        new = _factory(device, dtype)
        dirs = 2 if bidirectional else 1
        self._flat_weights_names = []
        out_size = proj_size or hidden_size
        for layer in range(num_layers):
            for d in range(dirs):
                suffix = f"_l{layer}" + ("_reverse" if d else "")
                width = input_size if layer == 0 else out_size * dirs
                names = [("weight_ih", (gates, width)), ("weight_hh", (gates, out_size))]
                if bias:
                    names += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:
                    names.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in names:
                    setattr(self, name + suffix, new(*shape))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _weights(self, layer, d):
        suffix = f"_l{layer}" + ("_reverse" if d else "")
        get = (lambda n: getattr(self, n + suffix)) if self.bias else (
            lambda n: getattr(self, n + suffix) if n.startswith("weight") else None)
        w_hr = get("weight_hr") if self.proj_size else None
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), w_hr

    def _check_input(self, input, hx_shape, hx):
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        for k, h in enumerate(hx):
            if k == 0 and self.proj_size:  # (h has proj_size features, c hidden_size)
                hx_shape = hx_shape[:2] + (self.proj_size,)
            elif k == 1:
                hx_shape = hx_shape[:2] + (self.hidden_size,)
            if tuple(h.shape) != hx_shape:
                what = f"hidden[{k}]" if self.mode == "LSTM" else "hidden"
                raise RuntimeError(f"Expected {what} size {hx_shape}, got {list(h.shape)}")

    def _initial(self, batch, dtype, device, hx, lstm, dirs):
        shape = (self.num_layers * dirs, batch, self.hidden_size)
        if hx is None:
            from ...creation import zeros

            z = zeros(shape, dtype=dtype, device=device)
            h = zeros(shape[:2] + (self.proj_size,), dtype=dtype, device=device) \
                if self.proj_size else z
            return shape, ((h, z) if lstm else (z,))
        return shape, (tuple(hx) if lstm else (hx,))

    def _forward_packed(self, packed, hx):
        """The layers over a ``PackedSequence``: at step ``t`` only its first
        ``batch_sizes[t]`` sequences (the longest first) take a step; the others keep their
        state, so each sequence's final state is its own."""
        from ..utils.rnn import PackedSequence

        data, sizes = packed.data, [int(b) for b in packed.batch_sizes.tolist()]
        dirs, lstm = (2 if self.bidirectional else 1), self.mode == "LSTM"
        batch = sizes[0]
        hx_shape, hx = self._initial(batch, data.dtype, data.device, hx, lstm, dirs)
        if packed.sorted_indices is not None and hx[0] is not None:
            hx = tuple(h.index_select(1, packed.sorted_indices) for h in hx)
        self._check_input(data, hx_shape, hx)
        starts = [0]
        for b in sizes:
            starts.append(starts[-1] + b)
        step = _STEPS[self.mode]
        finals, out = [], data
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                k = layer * dirs + d
                state = (hx[0][k], hx[1][k]) if lstm else (hx[0][k],)
                gi = linear(out, w_ih, b_ih)
                hs = [None] * len(sizes)
                for t in (range(len(sizes) - 1, -1, -1) if d else range(len(sizes))):
                    b = sizes[t]
                    cur = tuple(s[:b] for s in state)
                    new = step(gi[starts[t]:starts[t + 1]], cur if lstm else cur[0], w_hh, b_hh,
                               w_hr)
                    new = new if lstm else (new,)
                    state = new if b == batch else tuple(
                        cat([n, s[b:]], 0) for n, s in zip(new, state))
                    hs[t] = new[0]
                outs.append(cat(hs, 0))
                finals.append(state)
            out = outs[0] if dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                out = dropout(out, self.dropout, True)
        h_n = tuple(stack([s[i] for s in finals], 0) for i in range(2 if lstm else 1))
        if packed.unsorted_indices is not None:
            h_n = tuple(h.index_select(1, packed.unsorted_indices) for h in h_n)
        return (PackedSequence(out, packed.batch_sizes, packed.sorted_indices,
                               packed.unsorted_indices), h_n if lstm else h_n[0])

    def forward(self, input, hx=None):
        if isinstance(input, tuple) and type(input).__name__ == "PackedSequence":
            return self._forward_packed(input, hx)
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.ndim}D tensor instead")
        batched = input.ndim == 3
        if batched and self.batch_first:
            input = input.transpose(0, 1)
        if not batched and input.ndim == 2:
            input = input.unsqueeze(1)
        dirs = 2 if self.bidirectional else 1
        n = input.shape[1] if input.ndim == 3 else 1
        lstm = self.mode == "LSTM"
        given = hx is not None
        hx_shape, hx = self._initial(n, input.dtype, input.device, hx, lstm, dirs)
        if given:
            if not batched:
                if any(h.ndim != 2 for h in hx):
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                       f"{hx[0].ndim}-D tensor")
                hx = tuple(h.unsqueeze(1) for h in hx)
        self._check_input(input, hx_shape, hx)
        step = _STEPS[self.mode]
        finals = []
        out = input
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                k = layer * dirs + d
                state = (hx[0][k], hx[1][k]) if lstm else hx[0][k]
                gi = linear(out, w_ih, b_ih)  # every step's input product at once
                hs = []
                order = range(out.shape[0] - 1, -1, -1) if d else range(out.shape[0])
                for t in order:
                    state = step(gi[t], state, w_hh, b_hh, w_hr)
                    hs.append(state[0] if lstm else state)
                if d:
                    hs.reverse()
                outs.append(stack(hs, 0))
                finals.append(state)
            out = outs[0] if dirs == 1 else cat(outs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                out = dropout(out, self.dropout, True)
        if lstm:
            h_n = stack([s[0] for s in finals], 0), stack([s[1] for s in finals], 0)
        else:
            h_n = stack(finals, 0)
        if not batched:
            out = out.squeeze(1)
            h_n = tuple(h.squeeze(1) for h in h_n) if lstm else h_n.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        return out, h_n

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``nonlinearity``
    ``"tanh"`` or ``"relu"``); returns ``(output, h_n)``.

    Example::

        >>> import nbgrad
        >>> rnn = nbgrad.nn.RNN(3, 5, num_layers=2, batch_first=True)
        >>> out, h = rnn(nbgrad.randn(4, 7, 3))
        >>> tuple(out.shape), tuple(h.shape)
        ((4, 7, 5), (2, 4, 5))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` from ``x_t W_ih^T + b_ih + h_{t-1} W_hh^T
    + b_hh``; ``c_t = sigmoid(f) c_{t-1} + sigmoid(i) tanh(g)``, ``h_t = sigmoid(o)
    tanh(c_t)`` (times ``W_hr`` with ``proj_size``); returns ``(output, (h_n, c_n))``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: ``r, z`` reset and update gates, ``n = tanh(x W_in^T + b_in + r
    (h W_hn^T + b_hn))``, ``h_t = (1 - z) n + z h_{t-1}``; returns ``(output, h_n)``."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class RNNCellBase(Module):
    """One step of a recurrent layer: ``weight_ih`` (gates x input), ``weight_hh`` (gates x
    hidden), biases; uniform in ``(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        new = _factory(device, dtype)
        self.weight_ih = new(num_chunks * hidden_size, input_size)
        self.weight_hh = new(num_chunks * hidden_size, hidden_size)
        if bias:
            self.bias_ih = new(num_chunks * hidden_size)
            self.bias_hh = new(num_chunks * hidden_size)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def _prepare(self, input, hx, n_states):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            from ...creation import zeros

            z = zeros(x.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (z,) * n_states
        else:
            hx = tuple(hx) if n_states > 1 else (hx,)
            if not batched:
                hx = tuple(h.unsqueeze(0) for h in hx)
        return x, hx, batched

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        h = _STEPS[mode](linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh,
                         self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns ``(h', c')``."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, hx, 2)
        h, c = _lstm_step(linear(x, self.weight_ih, self.bias_ih), (h, c), self.weight_hh,
                          self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        h = _gru_step(linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
