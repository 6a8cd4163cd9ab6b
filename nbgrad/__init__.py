"""nbgrad: PyTorch's autograd, with every hot loop compiled by Numba.

>>> import nbgrad
>>> x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
>>> (x * x).sum().backward()
>>> x.grad
tensor([2., 4., 6.])
"""

# Re-exports only, with the garbage collector paused (its passes would walk the tables being
# built to find nothing) and what exists when they are done frozen (later collections would
# walk it again and again): _gc.importing. ``_threads`` comes first: importing it applies
# Numba's threading setup, before anything compiles; ``_methods`` binds Tensor's methods and
# operators.
from ._gc import importing as _gc_importing

with _gc_importing():
    from . import _threads
    from . import (
        _methods,  # noqa: E402,F401
        autograd,  # noqa: E402
    )
    from .autograd.anomaly_mode import is_anomaly_enabled  # noqa: E402
    from .autograd.grad_mode import (  # noqa: E402
        enable_grad,
        inference_mode,
        is_grad_enabled,
        is_inference_mode_enabled,
        no_grad,
        set_grad_enabled,
    )
    from .creation import (  # noqa: E402
        arange,
        as_tensor,
        asarray,
        empty,
        empty_like,
        empty_strided,
        eye,
        from_numpy,
        full,
        full_like,
        linspace,
        logspace,
        manual_seed,
        ones,
        ones_like,
        rand,
        rand_like,
        randint,
        randint_like,
        randn,
        randn_like,
        randperm,
        tensor,
        tril_indices,
        triu_indices,
        zeros,
        zeros_like,
    )
    from .creation import inclusive_range as range  # noqa: E402,A004
    from .device import device, get_default_device, set_default_device  # noqa: E402
    from .memory_formats import (  # noqa: E402
        channels_last,
        channels_last_3d,
        contiguous_format,
        layout,
        legacy_contiguous_format,
        memory_format,
        preserve_format,
        strided,
    )
    from . import random  # noqa: E402
    from .random import (  # noqa: E402
        Generator,
        default_generator,
        get_rng_state,
        initial_seed,
        seed,
        set_rng_state,
    )
    from .dtypes import (  # noqa: E402
        bool_ as bool,
    )
    from .dtypes import float32 as float  # noqa: A001  (torch.float)
    from .dtypes import float64 as double
    from .dtypes import int32 as int  # noqa: A001
    from .dtypes import int64 as long
    from .dtypes import float16 as half
    from .dtypes import int16 as short
    from .dtypes import (
        bfloat16,
        dtype,
        finfo,
        float16,
        float32,
        float64,
        get_default_dtype,
        iinfo,
        int8,
        int16,
        int32,
        int64,
        promote_types,
        set_default_dtype,
        uint8,
    )
    from .ops.convert import clone  # noqa: E402
    from .ops.elementwise import *  # noqa: E402,F403  (the op table's public names)
    from .ops.elementwise import clamp as clip  # noqa: E402
    from .ops.comparison import (  # noqa: E402
        all,  # noqa: A004
        allclose,
        any,  # noqa: A004
        equal,
        isclose,
        isfinite,
        isinf,
        isnan,
    )
    from .ops.concat import cat, chunk, narrow, roll, split, stack, unbind  # noqa: E402
    from .ops.condition import argwhere, diag, masked_select, nonzero  # noqa: E402
    from .ops.einsum import einsum  # noqa: E402
    from .ops.sampling import bernoulli, multinomial, normal, poisson  # noqa: E402
    from .ops.scan import cummax, cummin, cumprod, cumsum  # noqa: E402
    from .ops.selection import masked_fill, tril, triu  # noqa: E402
    from .ops.sort import (  # noqa: E402
        argsort,
        kthvalue,
        median,
        nanmedian,
        nanquantile,
        quantile,
        sort,
        topk,
    )
    from .ops.strided import as_strided, diagonal  # noqa: E402
    from .ops.compound import (  # noqa: E402
        deg2rad,
        float_power,
        isneginf,
        isposinf,
        positive,
        rad2deg,
        signbit,
        trace,
        true_divide,
        addbmm,
        addcdiv,
        addcmul,
        addmm,
        addmv,
        aminmax,
        baddbmm,
        cdist,
        copysign,
        count_nonzero,
        dist,
        heaviside,
        inner,
        ldexp,
        renorm,
        vdot,
        cross,
        diff,
        hypot,
        kron,
        lerp,
        logaddexp,
        logaddexp2,
        logit,
        nan_to_num,
        nanmean,
        nansum,
        sinc,
        tensordot,
        xlogy,
    )
    from .ops.rearrange import (  # noqa: E402
        block_diag,
        cartesian_prod,
        combinations,
        atleast_1d,
        atleast_2d,
        atleast_3d,
        broadcast_tensors,
        broadcast_to,
        column_stack,
        dstack,
        fliplr,
        flipud,
        dsplit,
        hsplit,
        hstack,
        meshgrid,
        moveaxis,
        movedim,
        repeat_interleave,
        rot90,
        select,
        swapdims,
        swapdims as swapaxes,
        take,
        tensor_split,
        unflatten,
        vsplit,
        vstack,
    )
    from .ops.linalg import bmm, dot, ger, matmul, mm, mv, outer  # noqa: E402
    from .ops.linalg_solve import det, slogdet  # noqa: E402
    from .ops.linalg_solve import inv as inverse  # noqa: E402
    from .ops.norm import norm  # noqa: E402
    from .ops.reduce import (  # noqa: E402
        amax,
        amin,
        argmax,
        argmin,
        logsumexp,
        max,
        mean,
        min,
        prod,
        sum,
    )
    from .ops.shape import (  # noqa: E402
        expand,
        flatten,
        flip,
        permute,
        reshape,
        squeeze,
        t,
        tile,
        transpose,
        unsqueeze,
    )
    from .ops.softmax import (  # noqa: E402
        _log_softmax_backward_data,
        _softmax_backward_data,
        log_softmax,
        softmax,
    )
    from .ops.stats import corrcoef, cov, std, std_mean, var, var_mean  # noqa: E402
    from .ops.host_math import frexp, gcd, lcm, nextafter  # noqa: E402
    from .ops.scan import logcumsumexp  # noqa: E402
    from .ops.linalg_solve import logdet, matrix_power  # noqa: E402
    from .ops.linalg_compose import matrix_exp  # noqa: E402
    from .ops.linalg_lu import lu_unpack  # noqa: E402
    from .ops.linalg_lu import lu_old as lu  # noqa: E402
    from .ops.linalg_lu import lu_solve_old as lu_solve  # noqa: E402
    from .ops.linalg_decomp import cholesky_inverse, cholesky_solve  # noqa: E402
    from .ops.linalg_decomp import cholesky_old as cholesky  # noqa: E402
    from .ops.linalg_decomp import qr_old as qr  # noqa: E402
    from .ops.linalg_decomp import svd_old as svd  # noqa: E402
    from .ops.linalg_spectral import pinverse  # noqa: E402
    from .ops.rearrange import diag_embed, diagflat  # noqa: E402
    from .ops.activation import hardshrink, prelu  # noqa: E402
    from .special import multigammaln as mvlgamma  # noqa: E402
    from .tensor import (  # noqa: E402
        Size,
        Tensor,
        is_floating_point,
        is_inference,
        is_tensor,
        numel,
    )

    from ._aten_forms import (  # noqa: E402
        adaptive_avg_pool1d,
        adaptive_max_pool1d,
        angle,
        constant_pad_nd,
        convolution,
        empty_permuted,
        fill,
        frobenius_norm,
        is_distributed,
        max_pool1d_with_indices,
        native_batch_norm,
        native_dropout,
        native_layer_norm,
        nonzero_static,
        norm_except_dim,
        nuclear_norm,
        triangular_solve,
    )
    from .buffers import from_dlpack, frombuffer  # noqa: E402
    from .ops.finite_differences import gradient  # noqa: E402
    from .tensor_storage import TypedStorage, UntypedStorage, is_storage  # noqa: E402
    from .tensor_types import (  # noqa: E402
        BFloat16Tensor,
        BoolTensor,
        ByteTensor,
        CharTensor,
        DoubleTensor,
        FloatTensor,
        HalfTensor,
        IntTensor,
        LongTensor,
        ShortTensor,
        set_default_tensor_type,
        typename,
    )
    from ._repr import set_printoptions  # noqa: E402
    from ._version import __version__  # noqa: E402
    from .ops.conv import *  # noqa: E402,F403
    from .ops.advanced_index import *  # noqa: E402,F403
    from .ops.index import *  # noqa: E402,F403
    from .ops.search import *  # noqa: E402,F403
    from .ops.special_functions import *  # noqa: E402,F403
    from .ops.gamma_sampling import *  # noqa: E402,F403
    from . import accelerator, amp, backends, cpu, cuda, linalg, nn, onnx  # noqa: E402
    from . import special  # noqa: E402
    from . import distributions  # noqa: E402
    from . import func  # noqa: E402
    from .func import vmap  # noqa: E402
    from . import serialization  # noqa: E402
    from .amp import autocast  # noqa: E402
    from .amp.autocast_mode import (  # noqa: E402
        clear_autocast_cache,
        get_autocast_cpu_dtype,
        get_autocast_dtype,
        is_autocast_cache_enabled,
        is_autocast_cpu_enabled,
        is_autocast_enabled,
        set_autocast_cache_enabled,
        set_autocast_dtype,
        set_autocast_enabled,
    )
    from . import compiler, library, optim, testing, utils, viz  # noqa: E402
    from ._runtime import (  # noqa: E402
        are_deterministic_algorithms_enabled,
        get_deterministic_debug_mode,
        get_float32_matmul_precision,
        get_num_interop_threads,
        get_num_threads,
        is_deterministic_algorithms_warn_only_enabled,
        is_warn_always_enabled,
        set_deterministic_debug_mode,
        set_float32_matmul_precision,
        set_flush_denormal,
        set_num_interop_threads,
        set_num_threads,
        set_warn_always,
        use_deterministic_algorithms,
    )
    from .ops.compound import cumulative_trapezoid, trapezoid, trapz, vander  # noqa: E402
    from .ops.scatter_reduce import index_reduce, scatter_reduce  # noqa: E402
    from .ops.scatter_into import (  # noqa: E402
        diagonal_scatter,
        masked_scatter,
        put,
        select_scatter,
        slice_scatter,
    )
    from .ops.sort import mode  # noqa: E402
    from .ops.compound import addr  # noqa: E402
    from .ops.norm import pdist  # noqa: E402
    from .ops.pixel_shuffle import channel_shuffle  # noqa: E402
    from .ops.pixel_shuffle import channel_shuffle as native_channel_shuffle  # noqa: E402
    from .ops.windows import (  # noqa: E402
        bartlett_window,
        blackman_window,
        hamming_window,
        hann_window,
        kaiser_window,
    )
    from .ops.concat import cat as concat  # noqa: E402
    from .ops.concat import cat as concatenate  # noqa: E402
    from ._torch_names import broadcast_shapes, can_cast, chain_matmul  # noqa: E402
    from ._torch_names import result_type, row_stack, scalar_tensor  # noqa: E402
    from ._torch_names import *  # noqa: E402,F403  (the generated top-level forms)
    from .compiler import compile  # noqa: A004
    # (PyTorch's constants: ``torch.pi``, ``torch.inf``, ``x[:, torch.newaxis]``)
    from math import e, inf, nan, pi  # noqa: E402
    from ._torch_names import newaxis  # noqa: E402
    from .serialization import load, save  # noqa: E402
    from . import _out  # noqa: E402,F401  (PyTorch's out= on the functions that take it)
