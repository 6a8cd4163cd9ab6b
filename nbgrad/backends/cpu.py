"""``nbgrad.backends.cpu``: the CPU that nbgrad's kernels are compiled for."""

import numba


def _features():
    # what Numba compiles for: a program's NUMBA_CPU_FEATURES (or nbgrad's wide-vector
    # setting, see _threads) or the host's; an explicit NUMBA_CPU_NAME alone says nothing
    if numba.config.CPU_FEATURES is not None:
        return numba.config.CPU_FEATURES
    if numba.config.CPU_NAME is not None:
        return ""
    try:
        from numba.core.codegen import get_host_cpu_features

        return get_host_cpu_features()
    except Exception:  # no LLVM host information
        return ""


def get_cpu_capability():
    r"""Return the CPU capability the compiled kernels use, as a string.

    Possible values: ``"AVX512"``, ``"AVX2"`` (x86 vector extensions LLVM may use in
    nbgrad's Numba kernels) and ``"DEFAULT"`` (anything else). Unlike PyTorch, which picks
    among kernels compiled ahead of time, this reads the CPU features that Numba compiles
    for (``NUMBA_CPU_FEATURES`` when set, else the host's).

    >>> nbgrad.backends.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")
    True
    """
    features = _features().split(",")
    if "+avx512f" in features:
        return "AVX512"
    if "+avx2" in features:
        return "AVX2"
    return "DEFAULT"
