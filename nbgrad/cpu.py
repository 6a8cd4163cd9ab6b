"""``nbgrad.cpu``: the CPU device's buffer pool.

Large temporaries (128 KiB and up) reuse pooled buffers instead of fresh memory; see
``nbgrad.storage._cpupool`` and ``NBGRAD_POOL_BYTES``.
"""

from .storage._cpupool import empty_cache, pooled_bytes


def set_pool_limit(megabytes):
    """Keep at most ``megabytes`` of idle large CPU buffers for reuse (0: no pooling from now
    on)."""
    from .storage import _cpupool

    if megabytes < 0:
        raise ValueError(f"set_pool_limit: megabytes must be >= 0, got {megabytes}")
    _cpupool.set_limit(int(megabytes) << 20)


def __getattr__(name):
    if name == "amp":  # torch.cpu.amp: torch.amp's classes for the "cpu" device
        import types

        from . import amp
        from .dtypes import bfloat16

        ns = globals()["amp"] = types.SimpleNamespace(
            autocast=amp.autocast_mode._deprecated_autocast("cpu", bfloat16),
            GradScaler=amp.grad_scaler._deprecated_grad_scaler("cpu"))
        return ns
    raise AttributeError(f"module 'nbgrad.cpu' has no attribute '{name}'")


__all__ = ["empty_cache", "pooled_bytes", "set_pool_limit"]
