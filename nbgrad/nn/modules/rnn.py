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
    r"""Base class of :class:`RNN`, :class:`LSTM` and :class:`GRU`: their parameters, checks
    and loop over layers, directions and time steps.

    For layer ``k`` (and ``_reverse`` for the backward direction) it holds
    ``weight_ih_l{k}`` (gates x input), ``weight_hh_l{k}`` (gates x hidden), and with
    ``bias`` ``bias_ih_l{k}`` and ``bias_hh_l{k}`` (with ``proj_size``, also
    ``weight_hr_l{k}``), all drawn from :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with
    :math:`k = 1 / \text{hidden\_size}`, as PyTorch's. Use the subclasses; ``forward``
    also takes a :class:`~nbgrad.nn.utils.rnn.PackedSequence`.

    Args:
        mode (str): ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        num_layers (int, optional): the number of stacked layers. Default: ``1``.
        bias (bool, optional): learn the biases. Default: ``True``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)``. Default: ``False``.
        dropout (float, optional): dropout probability on the outputs of each layer but
            the last. Default: ``0.0``.
        bidirectional (bool, optional): also run each layer backwards in time.
            Default: ``False``.
        proj_size (int, optional): LSTM only: project the hidden state to this size.
            Default: ``0``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> m = nbgrad.nn.RNNBase("GRU", 3, 4)
        >>> m.weight_ih_l0.shape                         # 3 gates x hidden_size, input_size
        nbgrad.Size([12, 3])
    """

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

    def flatten_parameters(self):
        """Nothing to do here: PyTorch packs the weights into one buffer for cuDNN, and
        nbgrad's kernels read them where they are (code that calls this keeps working).

        Example::

            >>> nbgrad.nn.LSTM(2, 3).flatten_parameters()
        """

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction, in PyTorch's order
        (``weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr]``)."""
        per = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional
                                                                    else 1))
        w = self._flat_weights
        return [w[i:i + per] for i in range(0, len(w), per)]

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
    r"""Apply a multi-layer Elman RNN, with a tanh or ReLU nonlinearity, to a sequence.

    Each layer computes, for each element of the sequence,

    .. math::
        h_t = \tanh(x_t W_{ih}^T + b_{ih} + h_{t-1} W_{hh}^T + b_{hh})

    where :math:`h_t` is the hidden state at time :math:`t`, :math:`x_t` the input (for
    the layers after the first, the previous layer's :math:`h_t`, with dropout when
    ``dropout`` is set) and :math:`h_0` the initial state. ``forward(input, hx=None)``
    returns ``(output, h_n)``.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden state :math:`h`.
        num_layers (int, optional): the number of stacked layers. Default: ``1``.
        nonlinearity (str, optional): ``"tanh"`` or ``"relu"``. Default: ``"tanh"``.
        bias (bool, optional): learn :math:`b_{ih}` and :math:`b_{hh}`. Default: ``True``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)`` (the hidden states are not affected).
            Default: ``False``.
        dropout (float, optional): dropout probability on the outputs of each layer but
            the last. Default: ``0.0``.
        bidirectional (bool, optional): also run each layer backwards in time, the two
            directions' outputs concatenated. Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        With :math:`L` the sequence length, :math:`N` the batch size, :math:`D = 2` if
        bidirectional else 1, :math:`H_{in}` = ``input_size``, :math:`H_{out}` =
        ``hidden_size``:

        - input: :math:`(L, N, H_{in})`, :math:`(N, L, H_{in})` with ``batch_first``, or
          :math:`(L, H_{in})` unbatched; or a packed sequence.
        - hx: :math:`(D \cdot \text{num\_layers}, N, H_{out})` (or without :math:`N`),
          the initial state. Default: zeros.
        - output: :math:`(L, N, D \cdot H_{out})` (batch first with ``batch_first``), the
          last layer's :math:`h_t` at every step.
        - h_n: :math:`(D \cdot \text{num\_layers}, N, H_{out})`, every layer's final state.

    Attributes:
        weight_ih_l[k]: layer ``k``'s input-hidden weights, of shape
            ``(hidden_size, input_size)`` for ``k = 0``, else
            ``(hidden_size, D * hidden_size)``.
        weight_hh_l[k]: layer ``k``'s hidden-hidden weights,
            ``(hidden_size, hidden_size)``.
        bias_ih_l[k], bias_hh_l[k]: its biases, ``(hidden_size,)``.

    The backward direction's are suffixed ``_reverse``. All are drawn from
    :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> rnn = nbgrad.nn.RNN(3, 5, num_layers=2, batch_first=True)
        >>> out, h = rnn(nbgrad.randn(4, 7, 3))
        >>> out.shape, h.shape
        (nbgrad.Size([4, 7, 5]), nbgrad.Size([2, 4, 5]))
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
    r"""Apply a multi-layer long short-term memory (LSTM) RNN to a sequence.

    Each layer computes, for each element of the sequence,

    .. math::
        \begin{array}{ll}
        i_t = \sigma(W_{ii} x_t + b_{ii} + W_{hi} h_{t-1} + b_{hi}) \\
        f_t = \sigma(W_{if} x_t + b_{if} + W_{hf} h_{t-1} + b_{hf}) \\
        g_t = \tanh(W_{ig} x_t + b_{ig} + W_{hg} h_{t-1} + b_{hg}) \\
        o_t = \sigma(W_{io} x_t + b_{io} + W_{ho} h_{t-1} + b_{ho}) \\
        c_t = f_t \odot c_{t-1} + i_t \odot g_t \\
        h_t = o_t \odot \tanh(c_t)
        \end{array}

    with :math:`h_t` the hidden state, :math:`c_t` the cell state, :math:`i_t`,
    :math:`f_t`, :math:`g_t`, :math:`o_t` the input, forget, cell and output gates,
    :math:`\sigma` the sigmoid. For the layers after the first, :math:`x_t` is the
    previous layer's :math:`h_t` (with dropout when ``dropout`` is set). With
    ``proj_size > 0``, :math:`h_t` is projected, :math:`h_t = W_{hr} h_t`, to
    ``proj_size`` features. ``forward(input, hx=None)`` returns
    ``(output, (h_n, c_n))``.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden state :math:`h`.
        num_layers (int, optional): the number of stacked layers. Default: ``1``.
        bias (bool, optional): learn the biases :math:`b`. Default: ``True``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)`` (the states are not affected).
            Default: ``False``.
        dropout (float, optional): dropout probability on the outputs of each layer but
            the last. Default: ``0.0``.
        bidirectional (bool, optional): also run each layer backwards in time, the two
            directions' outputs concatenated. Default: ``False``.
        proj_size (int, optional): if > 0, project the hidden state to this many
            features (less than ``hidden_size``). Default: ``0``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        With :math:`L` the sequence length, :math:`N` the batch size, :math:`D = 2` if
        bidirectional else 1, :math:`H_{in}` = ``input_size``, :math:`H_{cell}` =
        ``hidden_size``, :math:`H_{out}` = ``proj_size`` if > 0 else ``hidden_size``:

        - input: :math:`(L, N, H_{in})`, :math:`(N, L, H_{in})` with ``batch_first``, or
          :math:`(L, H_{in})` unbatched; or a packed sequence.
        - hx: a tuple ``(h_0, c_0)`` of shapes
          :math:`(D \cdot \text{num\_layers}, N, H_{out})` and
          :math:`(D \cdot \text{num\_layers}, N, H_{cell})` (or without :math:`N`).
          Default: zeros.
        - output: :math:`(L, N, D \cdot H_{out})` (batch first with ``batch_first``), the
          last layer's :math:`h_t` at every step.
        - h_n, c_n: every layer's final hidden and cell states, shaped as ``h_0``, ``c_0``.

    Attributes:
        weight_ih_l[k]: layer ``k``'s :math:`(W_{ii}|W_{if}|W_{ig}|W_{io})`, of shape
            ``(4 * hidden_size, input_size)`` for ``k = 0``, else
            ``(4 * hidden_size, D * H_out)``.
        weight_hh_l[k]: its :math:`(W_{hi}|W_{hf}|W_{hg}|W_{ho})`,
            ``(4 * hidden_size, H_out)``.
        bias_ih_l[k], bias_hh_l[k]: its biases, ``(4 * hidden_size,)``.
        weight_hr_l[k]: with ``proj_size``, its projection, ``(proj_size, hidden_size)``.

    The backward direction's are suffixed ``_reverse``. All are drawn from
    :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> lstm = nbgrad.nn.LSTM(10, 20, num_layers=2)
        >>> out, (h, c) = lstm(nbgrad.randn(5, 3, 10))
        >>> out.shape, h.shape, c.shape
        (nbgrad.Size([5, 3, 20]), nbgrad.Size([2, 3, 20]), nbgrad.Size([2, 3, 20]))
        >>> lstm.weight_ih_l0.shape
        nbgrad.Size([80, 10])
        >>> bi = nbgrad.nn.LSTM(4, 8, batch_first=True, bidirectional=True, proj_size=3)
        >>> out, (h, c) = bi(nbgrad.randn(2, 6, 4))
        >>> out.shape, h.shape, c.shape
        (nbgrad.Size([2, 6, 6]), nbgrad.Size([2, 2, 3]), nbgrad.Size([2, 2, 8]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    r"""Apply a multi-layer gated recurrent unit (GRU) RNN to a sequence.

    Each layer computes, for each element of the sequence,

    .. math::
        \begin{array}{ll}
        r_t = \sigma(W_{ir} x_t + b_{ir} + W_{hr} h_{t-1} + b_{hr}) \\
        z_t = \sigma(W_{iz} x_t + b_{iz} + W_{hz} h_{t-1} + b_{hz}) \\
        n_t = \tanh(W_{in} x_t + b_{in} + r_t \odot (W_{hn} h_{t-1} + b_{hn})) \\
        h_t = (1 - z_t) \odot n_t + z_t \odot h_{t-1}
        \end{array}

    with :math:`r_t`, :math:`z_t`, :math:`n_t` the reset, update and new gates and
    :math:`\sigma` the sigmoid. For the layers after the first, :math:`x_t` is the
    previous layer's :math:`h_t` (with dropout when ``dropout`` is set).
    ``forward(input, hx=None)`` returns ``(output, h_n)``.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden state :math:`h`.
        num_layers (int, optional): the number of stacked layers. Default: ``1``.
        bias (bool, optional): learn the biases :math:`b`. Default: ``True``.
        batch_first (bool, optional): take and give ``(batch, seq, feature)`` tensors
            rather than ``(seq, batch, feature)`` (the hidden states are not affected).
            Default: ``False``.
        dropout (float, optional): dropout probability on the outputs of each layer but
            the last. Default: ``0.0``.
        bidirectional (bool, optional): also run each layer backwards in time, the two
            directions' outputs concatenated. Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        As :class:`RNN`'s: input :math:`(L, N, H_{in})` (or batch first, or unbatched,
        or packed), hx and h_n :math:`(D \cdot \text{num\_layers}, N, H_{out})`, output
        :math:`(L, N, D \cdot H_{out})`.

    Attributes:
        weight_ih_l[k]: layer ``k``'s :math:`(W_{ir}|W_{iz}|W_{in})`, of shape
            ``(3 * hidden_size, input_size)`` for ``k = 0``, else
            ``(3 * hidden_size, D * hidden_size)``.
        weight_hh_l[k]: its :math:`(W_{hr}|W_{hz}|W_{hn})`,
            ``(3 * hidden_size, hidden_size)``.
        bias_ih_l[k], bias_hh_l[k]: its biases, ``(3 * hidden_size,)``.

    The backward direction's are suffixed ``_reverse``. All are drawn from
    :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> gru = nbgrad.nn.GRU(3, 5, batch_first=True)
        >>> out, h = gru(nbgrad.randn(4, 7, 3))
        >>> out.shape, h.shape
        (nbgrad.Size([4, 7, 5]), nbgrad.Size([1, 4, 5]))
        >>> out, h = gru(nbgrad.randn(7, 3))             # unbatched
        >>> out.shape, h.shape
        (nbgrad.Size([7, 5]), nbgrad.Size([1, 5]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class RNNCellBase(Module):
    r"""Base class of :class:`RNNCell`, :class:`LSTMCell` and :class:`GRUCell`: their
    parameters.

    It holds ``weight_ih`` (``(num_chunks * hidden_size, input_size)``), ``weight_hh``
    (``(num_chunks * hidden_size, hidden_size)``) and, with ``bias``, ``bias_ih`` and
    ``bias_hh`` (``(num_chunks * hidden_size,)``), drawn from
    :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Args:
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        bias (bool): learn the biases.
        num_chunks (int): the number of gates (1 for an RNN, 4 for an LSTM, 3 for a GRU).
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Example::

        >>> import nbgrad
        >>> nbgrad.nn.RNNCellBase(3, 4, True, 2).weight_ih.shape
        nbgrad.Size([8, 3])
    """

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
            if n_states > 1 and not isinstance(hx, (tuple, list)):
                raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of "
                                f"Tensors, not {type(hx).__name__}")
            hx = tuple(hx) if n_states > 1 else (hx,)
            for h in hx:
                if h.shape[-1] != self.hidden_size:
                    raise RuntimeError(f"hidden0 has inconsistent hidden_size: got "
                                       f"{h.shape[-1]}, expected {self.hidden_size}")
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
    r"""One step of an Elman RNN: :math:`h' = \tanh(x W_{ih}^T + b_{ih} + h W_{hh}^T + b_{hh})`.

    ``forward(input, hx=None)`` returns the new hidden state :math:`h'`; ``hx``
    (:math:`h`) defaults to zeros.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden state :math:`h`.
        bias (bool, optional): learn :math:`b_{ih}` and :math:`b_{hh}`. Default: ``True``.
        nonlinearity (str, optional): ``"tanh"`` or ``"relu"``. Default: ``"tanh"``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - hx: :math:`(N, H_{out})` or :math:`(H_{out})`.
        - output: :math:`(N, H_{out})` or :math:`(H_{out})`.

    Attributes:
        weight_ih (Parameter): of shape ``(hidden_size, input_size)``.
        weight_hh (Parameter): of shape ``(hidden_size, hidden_size)``.
        bias_ih (Parameter or None): of shape ``(hidden_size,)``.
        bias_hh (Parameter or None): of shape ``(hidden_size,)``. All are drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> cell = nbgrad.nn.RNNCell(3, 4)
        >>> h = None
        >>> for x in nbgrad.randn(6, 2, 3):              # 6 steps, batch of 2
        ...     h = cell(x, h)
        >>> h.shape
        nbgrad.Size([2, 4])
    """

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
    r"""One step of an LSTM: the gates and states of :class:`LSTM`'s equations.

    ``forward(input, hx=None)`` returns ``(h', c')``; ``hx``, a tuple ``(h, c)``,
    defaults to zeros.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden and cell states.
        bias (bool, optional): learn the biases. Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - hx: two tensors of :math:`(N, H_{out})` or :math:`(H_{out})`.
        - output: ``(h', c')``, two tensors of :math:`(N, H_{out})` or :math:`(H_{out})`.

    Attributes:
        weight_ih (Parameter): the four gates', of shape ``(4 * hidden_size, input_size)``.
        weight_hh (Parameter): of shape ``(4 * hidden_size, hidden_size)``.
        bias_ih (Parameter or None): of shape ``(4 * hidden_size,)``.
        bias_hh (Parameter or None): of shape ``(4 * hidden_size,)``. All are drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> cell = nbgrad.nn.LSTMCell(3, 4)
        >>> h, c = cell(nbgrad.randn(2, 3))
        >>> h, c = cell(nbgrad.randn(2, 3), (h, c))
        >>> h.shape, c.shape, cell.weight_ih.shape
        (nbgrad.Size([2, 4]), nbgrad.Size([2, 4]), nbgrad.Size([16, 3]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        x, (h, c), batched = self._prepare(input, hx, 2)
        h, c = _lstm_step(linear(x, self.weight_ih, self.bias_ih), (h, c), self.weight_hh,
                          self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    r"""One step of a GRU: the gates and state of :class:`GRU`'s equations.

    ``forward(input, hx=None)`` returns the new hidden state; ``hx`` defaults to zeros.

    Args:
        input_size (int): the number of features of the input :math:`x`.
        hidden_size (int): the number of features of the hidden state.
        bias (bool, optional): learn the biases. Default: ``True``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - input: :math:`(N, H_{in})` or :math:`(H_{in})`.
        - hx: :math:`(N, H_{out})` or :math:`(H_{out})`.
        - output: :math:`(N, H_{out})` or :math:`(H_{out})`.

    Attributes:
        weight_ih (Parameter): the three gates', of shape ``(3 * hidden_size, input_size)``.
        weight_hh (Parameter): of shape ``(3 * hidden_size, hidden_size)``.
        bias_ih (Parameter or None): of shape ``(3 * hidden_size,)``.
        bias_hh (Parameter or None): of shape ``(3 * hidden_size,)``. All are drawn from
            :math:`\mathcal{U}(-\sqrt{k}, \sqrt{k})` with :math:`k = 1 / \text{hidden\_size}`.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> cell = nbgrad.nn.GRUCell(3, 4)
        >>> cell(nbgrad.randn(2, 3)).shape
        nbgrad.Size([2, 4])
        >>> cell(nbgrad.randn(3)).shape                  # unbatched
        nbgrad.Size([4])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, (h,), batched = self._prepare(input, hx, 1)
        h = _gru_step(linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
