"""Storage backends, one module per device type (allocation, host copies, strided views).

Each backend module registers its kernels with ``nbgrad.ops.registry`` when imported.
"""
