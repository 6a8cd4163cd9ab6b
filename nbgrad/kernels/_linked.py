"""Helpers that run only inside other CPU kernels, compiled once: inside their callers.

Numba compiles every ``@njit`` function as a program of its own: after lowering, the
function's LLVM module is optimized at O3 and emitted as machine code, and then each
caller links that module in and optimizes and emits it again as part of itself. For a
helper that only compiled code calls (``no_cpython_wrapper``: a row body, a piece of
``vmath``'s exp) the first optimization and emission are thrown away: on a cold start
they were ~0.25 s of a digits MLP's 2.5-3 s first step (cross-entropy's row bodies and
their exp and log).

``inner(opts)`` gives the options of such a helper: its own pipeline lowers it into a
library that links its own callees when a caller links it, and does nothing else, so
its code is optimized and emitted once, by the caller (which sees each function after
Numba's per-function cleanup passes, and inlines it as before). Such a helper has no disk
cache entry of its own (its callers' entries hold its code), and, as any function without a
CPython wrapper, no entry point for Python.

When the Numba installed lacks the internals this uses (checked at import), ``inner``
gives the plain options: each helper compiled whole, as Numba does by default.
"""

from numba.core import compiler, typed_passes
from numba.core.compiler_machinery import register_pass

try:
    from numba import _dynfunc
    from numba.core.codegen import JITCodeLibrary
    from numba.core.compiler_lock import require_global_compiler_lock

    _READY = all(hasattr(JITCodeLibrary, a) for a in (
        "_get_module_for_linking", "_finalize_dynamic_globals", "_raise_if_finalized",
        "add_linking_library")) and "cfunc" in compiler._LowerResult._fields and hasattr(
        compiler.DefaultPassBuilder, "define_nopython_pipeline")
except (ImportError, AttributeError):  # (another Numba's layout: plain options)
    _READY = False


def inner(opts):
    """``opts`` (an ``@njit`` options dict) for a helper that only compiled code calls."""
    opts = dict(opts, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    if _READY:
        opts.update(cache=False, pipeline_class=LinkedCompiler)
    return opts


if _READY:
    class _LinkOnlyLibrary(JITCodeLibrary):
        """A library finalized only as far as a caller needs to link it: its callees
        linked in, no module passes, nothing added to the JIT engine."""

        def finalize(self):
            require_global_compiler_lock()
            self._raise_if_finalized()
            seen = set()
            for lib in self._linking_libraries:
                if lib not in seen:
                    seen.add(lib)
                    self._reload_init.update(lib._reload_init)
                    self._final_module.link_in(lib._get_module_for_linking(),
                                               preserve=True)
            self._finalize_dynamic_globals()
            self._finalized = True

        def get_pointer_to_function(self, name):
            return 0  # (never in the engine: no address to give)

    @register_pass(mutates_CFG=True, analysis_only=False)
    class _LinkedLowering(typed_passes.NativeLowering):
        """Numba's lowering into a ``_LinkOnlyLibrary``, without making the function
        executable (``no_compile``)."""

        _name = "nbgrad_linked_lowering"

        def run_pass(self, state):
            if state.library is not None:  # (someone gave a library: the plain path)
                return super().run_pass(state)
            name = state.func_id.func_qualname
            state.library = _LinkOnlyLibrary(state.targetctx.codegen(), name)
            state.flags.no_compile = True
            super().run_pass(state)
            cr = state.cr
            # the entry Numba makes for any function without a CPython wrapper (address
            # 0: Python cannot call it), here made without finalizing the library
            entry = _dynfunc.make_function(cr.fndesc.lookup_module(), name.split(".")[-1],
                                           f"compiled for linking: {name!r}", 0, cr.env,
                                           (state.library,))
            state.targetctx.insert_user_function(entry, cr.fndesc, [state.library])
            state.reload_init.extend(state.library._reload_init)
            state.cr = cr._replace(cfunc=entry)
            return True

    class LinkedCompiler(compiler.CompilerBase):
        """Numba's nopython pipeline with ``_LinkedLowering`` for its lowering."""

        def define_pipelines(self):
            pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
            pm.passes = [(_LinkedLowering if p is typed_passes.NativeLowering else p, d)
                         for p, d in pm.passes]
            pm.finalize()
            return [pm]
