"""Softmax-family CUDA kernels over the middle axis of ``(A, R, B)``: one thread per row."""

import math

import numpy as np
from numba import cuda

from ._launch import grid


@cuda.jit
def _log_softmax(x, out):
    A, R, B = x.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        m = -math.inf
        for r in range(R):
            v = x[a, r, b]
            if v > m or v != v:
                m = v
        if m == -math.inf:
            m = 0.0
        s = 0.0
        for r in range(R):
            s += math.exp(x[a, r, b] - m)
        ls = math.log(s) + m
        for r in range(R):
            out[a, r, b] = x[a, r, b] - ls
        t += cuda.gridsize(1)


@cuda.jit
def _softmax(x, out):
    A, R, B = x.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        m = -math.inf
        for r in range(R):
            v = x[a, r, b]
            if v > m or v != v:
                m = v
        if m == -math.inf:
            m = 0.0
        s = 0.0
        for r in range(R):
            e = math.exp(x[a, r, b] - m)
            out[a, r, b] = e
            s += e
        for r in range(R):
            out[a, r, b] = out[a, r, b] / s
        t += cuda.gridsize(1)


@cuda.jit
def _log_softmax_bwd(g, y, out):
    A, R, B = g.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        s = 0.0
        for r in range(R):
            s += g[a, r, b]
        for r in range(R):
            out[a, r, b] = g[a, r, b] - math.exp(y[a, r, b]) * s
        t += cuda.gridsize(1)


@cuda.jit
def _softmax_bwd(g, y, out):
    A, R, B = g.shape
    t = cuda.grid(1)
    while t < A * B:
        a, b = t // B, t % B
        s = 0.0
        for r in range(R):
            s += g[a, r, b] * y[a, r, b]
        for r in range(R):
            out[a, r, b] = y[a, r, b] * (g[a, r, b] - s)
        t += cuda.gridsize(1)


def _rows(x):
    return x.shape[0] * x.shape[2]


def log_softmax(x, out):
    """Log-softmax over the middle axis."""
    _log_softmax[grid(_rows(x))](x, out)


def softmax(x, out):
    """Softmax over the middle axis."""
    _softmax[grid(_rows(x))](x, out)


def log_softmax_backward(g, y, out):
    """``g - exp(y) * sum(g)`` over the middle axis."""
    _log_softmax_bwd[grid(_rows(g))](g, y, out)


def softmax_backward(g, y, out):
    """``y * (g - sum(g * y))`` over the middle axis."""
    _softmax_bwd[grid(_rows(g))](g, y, out)


def class_mask(target, weight, ignore_index, n_classes, out, wsum):
    """Weighted one-hot rows of the targets, built on the host (targets are small)."""
    from ..cpu import nn as cpu_nn

    t = target.copy_to_host() if hasattr(target, "copy_to_host") else np.asarray(target)
    w = weight.copy_to_host() if hasattr(weight, "copy_to_host") else np.asarray(weight)
    host = np.zeros(tuple(out.shape), out.dtype)
    bad = cpu_nn.class_mask(np.ascontiguousarray(t, np.int64), w, ignore_index, n_classes, host, wsum)
    if bad is None:
        out.copy_to_device(host)
    return bad
