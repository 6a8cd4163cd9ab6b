"""Differentiable ops. Each op computes its result through kernels looked up in the kernel
table (``nbgrad.kernels.table``), on storage from ``nbgrad.storage``, and, when grad mode is
on and an input requires grad, records a backward node whose rule is itself written in
these ops (so gradients are differentiable again)."""
