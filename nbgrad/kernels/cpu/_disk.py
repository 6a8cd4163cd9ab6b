"""Where nbgrad's compiled CPU kernels are kept on disk (the kernel cache, on by default;
``NBGRAD_CACHE=0`` turns it off).

Numba checks a cached kernel against its own source file only, but nbgrad's kernels inline
per-element bodies from other modules (``kernels/scalar.py``, ``kernels/rows.py``, ...), so
a changed body in another file would load stale machine code. So the cache of every kernel
lives in a folder named by nbgrad's version, Numba's, Python's and a hash of the whole
``nbgrad/kernels`` source: any change there (an upgrade, an edit in a checkout) starts a new
folder. Within it Numba's own key still holds the signature and the CPU (name and feature
flags, so 512-bit builds and 256-bit builds stay apart). Files are written whole and renamed
into place (Numba's and ``_codegen``'s), so processes may share one folder.

``python -m nbgrad cache info`` shows the folders and their size; ``cache clear`` removes them.
"""

import functools
import hashlib
import os
import shutil
import sys
import tempfile

from ... import _config
from ..._version import __version__

_KERNELS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PACKAGE_DIR = os.path.dirname(_KERNELS_DIR)


@functools.lru_cache(maxsize=None)
def tag():
    """The name of this install's folder: versions and a hash of the kernels' source."""
    import numba

    h = hashlib.sha256()
    for base, dirs, files in os.walk(_KERNELS_DIR):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(base, name)
                h.update(os.path.relpath(path, _KERNELS_DIR).encode() + b"\0")
                with open(path, "rb") as f:
                    h.update(f.read())
    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return f"{__version__}-numba{numba.__version__}-{py}-{h.hexdigest()[:12]}"


def root():
    """The cache's top folder (``NBGRAD_CACHE_DIR``, default ``~/.cache/nbgrad``)."""
    return _config.CACHE_DIR


def folder():
    """This install's folder: generated kernel modules, and Numba's files under ``numba/``."""
    return os.path.join(root(), tag())


@functools.lru_cache(maxsize=None)
def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
        return True
    except OSError:
        return False


def _locator_class():
    from numba.core import caching

    class NbgradCacheLocator(caching._SourceFileBackedLocatorMixin, caching._CacheLocator):
        """Numba's cache files for functions defined in nbgrad's own source files go into
        this install's folder (see the module docstring); other files are not ours."""

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            rel = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _PACKAGE_DIR)
            self._cache_path = os.path.join(folder(), "numba", rel)

        def ensure_cache_path(self):
            # (Numba's writes a temporary file per function: hundreds at import)
            if not _writable(self._cache_path):
                raise OSError(f"cannot write {self._cache_path}")

        def get_cache_path(self):
            return self._cache_path

        @classmethod
        def from_function(cls, py_func, py_file):
            path = os.path.abspath(py_file)
            if not path.startswith(_PACKAGE_DIR + os.sep):
                return None
            return super().from_function(py_func, py_file)

    return NbgradCacheLocator


def usable():
    """Whether this install's folder can be written (created if need be)."""
    return _writable(folder())


def install():
    """Put nbgrad's locator first in Numba's list (once; before any kernel is defined).
    A user's ``NUMBA_CACHE_LOCATOR_CLASSES`` still wins, as Numba reads it first. Where
    the folder cannot be written (a read-only home), the cache is turned off for this
    process with a warning: Numba's own fallbacks might find no place either, and then
    fail at the definition of every cached kernel."""
    if not usable():
        import warnings

        _config.CACHE = False
        warnings.warn(f"nbgrad: cannot write the kernel cache folder {folder()}; kernels "
                      "will compile in every process (set NBGRAD_CACHE_DIR to a writable "
                      "folder, or NBGRAD_CACHE=0 to silence this)", RuntimeWarning,
                      stacklevel=2)
        return
    from numba.core import caching

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # (renamed in 0.6x)
    locators = impl._locator_classes
    if not any(c.__name__ == "NbgradCacheLocator" for c in locators):
        locators.insert(0, _locator_class())


def _size(path):
    total = files = 0
    for base, _, names in os.walk(path):
        for name in names:
            try:
                total += os.path.getsize(os.path.join(base, name))
                files += 1
            except OSError:
                pass
    return total, files


def info():
    """Lines describing the cache: on or off, where, and each folder's size (this one
    marked)."""
    lines = [f"kernel cache: {'on' if _config.CACHE else 'off (NBGRAD_CACHE=0)'}",
             f"folder: {root()}", f"this install: {tag()}"]
    try:
        names = sorted(os.listdir(root()))
    except OSError:
        names = []
    total = 0
    for name in names:
        path = os.path.join(root(), name)
        if not os.path.isdir(path):
            continue
        size, files = _size(path)
        total += size
        mark = "  (this install)" if name == tag() else ""
        lines.append(f"  {name}: {files} files, {size / 2**20:.1f} MiB{mark}")
    lines.append(f"total: {total / 2**20:.1f} MiB")
    return lines


def clear():
    """Remove every folder of the cache (other installs' too); returns the bytes freed.
    Only folders this module names (``<version>-numba...``) and generated modules go; a
    ``NBGRAD_CACHE_DIR`` shared with other files keeps them."""
    freed = 0
    try:
        names = os.listdir(root())
    except OSError:
        return 0
    for name in names:
        path = os.path.join(root(), name)
        if "-numba" in name and os.path.isdir(path):
            freed += _size(path)[0]
            shutil.rmtree(path, ignore_errors=True)
        elif name.startswith("nbgrad_") and os.path.isfile(path):  # (older releases' layout)
            freed += os.path.getsize(path)
            os.remove(path)
    return freed
