"""``nbgrad.save`` / ``nbgrad.load``: tensors and state dicts in a safe, documented format.

Loading never executes code: the format holds only a JSON header and raw array bytes, and
nothing is ever unpickled. A file made by ``torch.save`` or ``pickle`` is refused with a
RuntimeError; so is any truncated or corrupted file.

File format (version 1)
-----------------------
A ZIP archive (entries stored uncompressed, fixed timestamps, so equal objects give equal
files) with these entries:

``nbgrad.json``
    UTF-8 JSON object::

        {"format": "nbgrad", "version": 1,
         "tensors": [{"dtype": "float32", "shape": [2, 3], "device": "cpu",
                      "requires_grad": false, "parameter": false,
                      "data": "tensors/0"}, ...],
         "root": VALUE}

    ``dtype`` is one of ``bool int32 int64 float16 bfloat16 float32 float64``.

``tensors/<i>``
    Tensor ``i``'s elements in C order, little-endian, exactly ``numel * itemsize`` bytes
    (bool as one byte 0/1).

``VALUE`` encodes the saved object:

=====================  ========================================================
Python                 JSON
=====================  ========================================================
None, bool, str        ``null``, ``true``/``false``, a string
int, finite float      a number (floats always written with a ``.`` or exponent)
inf / -inf / nan       ``{"$float": "inf"}`` / ``"-inf"`` / ``"nan"``
list                   an array of VALUEs
tuple (incl. Size)     ``{"$tuple": [VALUE, ...]}``
dict (any order kept)  ``{"$dict": [[KEY, VALUE], ...]}``; keys are str, int, float,
                       bool, None or tuples of these
Tensor                 ``{"$tensor": i}`` (index into ``tensors``; the same Tensor
                       object saved twice is stored once and loads as one object)
nbgrad.dtype           ``{"$dtype": "float32"}``
nbgrad.device          ``{"$device": "cuda:0"}``
=====================  ========================================================

NumPy scalars are saved as the Python number they hold. Anything else (modules, arbitrary
objects, ndarrays) raises TypeError on save: save ``module.state_dict()``, not the module.
Tensors load on the device they were saved from, or on ``map_location``; ``requires_grad``
and ``nn.Parameter``-ness are restored; views are saved as independent tensors.

Saving to a path is atomic: the archive is written to a new file in the same folder (an
unnamed O_TMPFILE file on Linux, else a hidden ``.<name>.<random>.tmp``), flushed, fsynced and
renamed over the path, so a save that fails or is killed leaves the previous file as it was.
The file gets the permissions ``open(path, "wb")`` would give it. A file object is written
in place.

Limits checked by ``load`` (and by ``save``, which refuses objects beyond them): a header of
at most ``MAX_HEADER_BYTES`` (64 MiB), lists/tuples/dicts nested at most ``MAX_DEPTH`` (100)
deep, at most ``MAX_NDIM`` (64) dimensions per tensor, at most 64 non-string keys of one dict
with one hash value. Before any tensor is allocated, each tensor's data entry must exist, be
named by no other tensor, be stored uncompressed within the file and hold exactly
``numel * itemsize`` bytes, and all the tensors together may not declare more bytes than the
file holds.
"""

import contextlib
import errno
import io
import json
import math
import os
import secrets
import stat
import zipfile

import numpy as np

from . import dtypes as _dt
from .device import as_device
from .device import device as _device_cls
from .tensor import Tensor

FORMAT = "nbgrad"
VERSION = 1
HEADER = "nbgrad.json"
_DTYPES = tuple(d.name for d in _dt.ALL)
_DATE = (1980, 1, 1, 0, 0, 0)

# Bounds on what a file may make ``load`` build, so that a crafted file costs memory and time
# in proportion to its size. ``save`` refuses objects that would exceed them.
MAX_HEADER_BYTES = 64 << 20  # the JSON header (a state dict of 100,000 tensors needs ~15 MB)
MAX_DEPTH = 100  # nesting of lists, tuples and dicts in the saved object
MAX_NDIM = 64  # dimensions of one tensor (NumPy's limit)
# Distinct non-string keys of one dict with one hash value. Int and tuple hashes are not
# randomised, so a file could otherwise make a dict of n colliding keys cost O(n**2) to build.
_MAX_SAME_HASH = 64

__all__ = ["save", "load"]


# ----- save -------------------------------------------------------------------------------------
class _Encoder:
    def __init__(self):
        self.tensors = []  # Tensor objects in index order
        self.index = {}  # id(tensor) -> index
        self.active = set()  # ids of containers being encoded (cycle check)
        self.depth = 0

    def enter(self):
        if self.depth >= MAX_DEPTH:
            raise ValueError(
                f"nbgrad.save: the object nests lists, tuples and dicts more than "
                f"{MAX_DEPTH} deep, more than nbgrad.load accepts"
            )
        self.depth += 1

    def key(self, k):
        if k is None or isinstance(k, (bool, str)):
            return k
        if isinstance(k, (int, float, np.integer, np.floating, np.bool_)):
            return self.value(k)
        if isinstance(k, tuple):
            self.enter()
            try:
                return {"$tuple": [self.key(x) for x in k]}
            finally:
                self.depth -= 1
        raise TypeError(
            f"nbgrad.save: dict keys must be str, int, float, bool, None or tuples of these, "
            f"not {type(k).__name__}"
        )

    def value(self, obj):
        if obj is None or isinstance(obj, (bool, str)):
            return obj
        if isinstance(obj, np.bool_):
            return bool(obj)
        if isinstance(obj, (int, np.integer)):
            return int(obj)
        if isinstance(obj, (float, np.floating)):
            x = float(obj)
            if math.isfinite(x):
                return x
            return {"$float": "nan" if x != x else ("inf" if x > 0 else "-inf")}
        if isinstance(obj, Tensor):
            i = self.index.get(id(obj))
            if i is None:
                i = self.index[id(obj)] = len(self.tensors)
                self.tensors.append(obj)
            return {"$tensor": i}
        if isinstance(obj, _dt.dtype):
            return {"$dtype": obj.name}
        if isinstance(obj, _device_cls):
            return {"$device": str(obj)}
        if isinstance(obj, (list, tuple, dict)):
            if id(obj) in self.active:
                raise ValueError("nbgrad.save: the object contains a reference cycle")
            self.enter()
            self.active.add(id(obj))
            try:
                if isinstance(obj, list):
                    return [self.value(x) for x in obj]
                if isinstance(obj, tuple):
                    return {"$tuple": [self.value(x) for x in obj]}
                return {"$dict": [[self.key(k), self.value(v)] for k, v in obj.items()]}
            finally:
                self.active.discard(id(obj))
                self.depth -= 1
        hint = ""
        if hasattr(obj, "state_dict"):
            hint = "; save its .state_dict() instead"
        elif isinstance(obj, np.ndarray):
            hint = "; convert it with nbgrad.from_numpy first"
        raise TypeError(
            f"nbgrad.save: cannot save an object of type {type(obj).__name__}{hint} (supported: "
            "tensors, dicts, lists, tuples, numbers, strings, None, dtypes, devices)"
        )


def _tensor_bytes(t):
    from .storage import for_device

    host = for_device(t._device).to_host(t._data)
    arr = np.ascontiguousarray(host)
    le = arr.dtype.newbyteorder("<")
    if arr.dtype != le and arr.dtype.itemsize > 1:
        arr = arr.astype(le)
    return arr


def _zinfo(name, size):
    zi = zipfile.ZipInfo(name, date_time=_DATE)
    zi.compress_type = zipfile.ZIP_STORED
    zi.external_attr = 0o644 << 16
    zi.file_size = size
    return zi


def save(obj, f):
    """Save a tensor, or a structure of tensors such as a ``state_dict``, to a file.

    The file holds a JSON description and the tensors' raw bytes (the format is described
    in ``nbgrad.serialization``'s module docstring): no pickle, so :func:`load` never runs
    code from a file. Tensors keep their dtype, shape, device, ``requires_grad`` and
    whether they are parameters (``nn.Parameter``); a tensor that appears several times in
    ``obj`` is stored once and loads as one object. Views are saved as their own elements.

    Args:
        obj: a tensor, a number, a string, ``None``, or lists, tuples and dicts nesting
            them (a model's or an optimizer's ``state_dict()``). Dict keys may be strings,
            numbers, ``None`` or tuples of these. Other objects raise ``TypeError``.
        f (str or os.PathLike or file object): a path, or a binary file object opened
            for writing. A path is replaced atomically: if the save fails or the process
            is killed, the file that was at that path is left intact, and no temporary
            file remains.

    Returns:
        None

    .. note::
        Unlike ``torch.save``, arbitrary Python objects (modules, optimizers, classes)
        cannot be saved: save their ``state_dict()``. Files made by ``torch.save`` cannot
        be loaded either.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> model = nbgrad.nn.Linear(2, 1)
        >>> nbgrad.save({"model": model.state_dict(), "step": 3}, buf)
        >>> _ = buf.seek(0)
        >>> ckpt = nbgrad.load(buf)
        >>> ckpt["step"], sorted(ckpt["model"])
        (3, ['bias', 'weight'])
        >>> nbgrad.equal(ckpt["model"]["weight"], model.weight)
        True
    """
    from .nn.parameter import is_parameter

    enc = _Encoder()
    root = enc.value(obj)
    metas = []
    arrays = []
    for i, t in enumerate(enc.tensors):
        arr = _tensor_bytes(t)
        arrays.append(arr)
        metas.append({
            "dtype": t._dtype.name, "shape": list(t._data.shape), "device": str(t._device),
            "requires_grad": bool(t._rg), "parameter": bool(is_parameter(t)),
            "data": f"tensors/{i}",
        })
    header = json.dumps(
        {"format": FORMAT, "version": VERSION, "tensors": metas, "root": root},
        allow_nan=False, separators=(",", ":"),
    ).encode("utf-8")
    if len(header) > MAX_HEADER_BYTES:
        raise ValueError(
            f"nbgrad.save: the object's description takes {len(header)} bytes, more than the "
            f"{MAX_HEADER_BYTES} nbgrad.load accepts (store long lists of numbers as tensors)"
        )
    if isinstance(f, (str, os.PathLike)):
        _replace_atomically(f, lambda fh: _write_zip(fh, header, metas, arrays))
    else:  # a file object has no path to swap: write to it as it is
        _write_zip(f, header, metas, arrays)


def _replace_atomically(path, write):
    """Write a new file with ``write(fh)``, then put it at ``path`` in one rename, so that a
    save that fails or is killed midway leaves whatever file was at ``path`` untouched."""
    path = os.path.realpath(os.fspath(path))  # through a symlink, as open() writes
    folder = os.path.dirname(path)
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)  # open() keeps an existing file's mode
    except FileNotFoundError:
        mode = None  # a new file gets 0o666 less the umask, as from open()
    if mode is not None and not os.path.isdir(path) and not os.access(path, os.W_OK):
        # open() could not write this file; renaming over it would, in a writable folder
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    fd, tmp = _new_file(folder, path)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            os.fsync(fd)  # the data is on disk before the rename can make it the file
            if tmp is None:
                tmp = _link_unnamed(fd, folder, path)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _temp_name(folder, path):
    return os.path.join(folder, f".{os.path.basename(path)[:200]}.{secrets.token_hex(6)}.tmp")


def _new_file(folder, path):
    """An open descriptor for the new file, and its temporary name, or None for a file with
    no name yet (Linux's O_TMPFILE): that one vanishes by itself if the process is killed."""
    if hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(folder, os.O_TMPFILE | os.O_WRONLY | os.O_CLOEXEC, 0o666), None
        except OSError:  # a file system without O_TMPFILE: use a named temporary
            pass
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    while True:
        tmp = _temp_name(folder, path)
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue


def _link_unnamed(fd, folder, path):
    # linkat(AT_SYMLINK_FOLLOW) on /proc/self/fd/N names an O_TMPFILE file. Python calls
    # plain link(), which would link the /proc symlink itself, unless a dir_fd is given.
    dfd = os.open(folder, os.O_RDONLY)
    try:
        while True:
            tmp = _temp_name(folder, path)
            try:
                os.link(f"/proc/self/fd/{fd}", os.path.basename(tmp), dst_dir_fd=dfd,
                        follow_symlinks=True)
                return tmp
            except FileExistsError:
                continue
    finally:
        os.close(dfd)


def _write_zip(fh, header, metas, arrays):
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(_zinfo(HEADER, len(header)), header)
        for meta, arr in zip(metas, arrays):
            zi = _zinfo(meta["data"], arr.nbytes)
            with zf.open(zi, "w", force_zip64=arr.nbytes >= zipfile.ZIP64_LIMIT) as out:
                if arr.nbytes:
                    out.write(memoryview(arr.reshape(-1).view(np.uint8)))


# ----- load -------------------------------------------------------------------------------------
class _Invalid(Exception):
    pass


class _DeviceUnavailable(Exception):
    pass


def _need(cond, msg):
    if not cond:
        raise _Invalid(msg)


_TAGS = ("$tuple", "$dict", "$tensor", "$float", "$dtype", "$device")


class _Decoder:
    def __init__(self, tensors):
        self.tensors = tensors
        self.depth = 0

    def key(self, k):
        v = self.value(k)
        _need(v is None or isinstance(v, (bool, int, float, str, tuple)),
              f"bad dict key {k!r}")
        return v

    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return self.container(list, v)
        _need(isinstance(v, dict) and len(v) == 1, "malformed value in the header")
        (tag, x), = v.items()
        _need(tag in _TAGS, f"unknown tag {tag!r} in the header")
        if tag == "$tuple":
            _need(isinstance(x, list), "malformed $tuple")
            return self.container(tuple, x)
        if tag == "$dict":
            _need(isinstance(x, list), "malformed $dict")
            return self.container(dict, x)
        if tag == "$tensor":
            _need(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(self.tensors),
                  f"tensor reference {x!r} out of range")
            return self.tensors[x]
        if tag == "$float":
            _need(x in ("inf", "-inf", "nan"), f"bad $float {x!r}")
            return float(x)
        if tag == "$dtype":
            _need(x in _DTYPES, f"unknown dtype {x!r}")
            return _dt.as_dtype(x)
        _need(isinstance(x, str), "malformed $device")
        return _file_device(x, "a $device value")

    def container(self, kind, items):
        # lists, tuples and dicts count toward the depth, as in _Encoder
        self.depth += 1
        try:
            _need(self.depth <= MAX_DEPTH, f"values nested more than {MAX_DEPTH} deep")
            if kind is dict:
                return self.pairs(items)
            if kind is list:
                return [self.value(y) for y in items]
            return tuple([self.value(y) for y in items])
        finally:
            self.depth -= 1

    def pairs(self, x):
        out = {}
        hashes = {}
        for pair in x:
            _need(isinstance(pair, list) and len(pair) == 2, "malformed $dict entry")
            k = self.key(pair[0])
            if k.__class__ is not str:  # str hashes are randomised per process
                h = hash(k)
                n = hashes[h] = hashes.get(h, 0) + 1
                _need(n <= _MAX_SAME_HASH,
                      f"more than {_MAX_SAME_HASH} keys of one dict share a hash value")
            out[k] = self.value(pair[1])
        return out


def _file_device(name, what):
    try:
        return as_device(name)
    except (RuntimeError, TypeError) as e:
        raise _Invalid(f"{what}: {e}") from None


def _check_tensor(zf, names, meta, i, used, map_location):
    """Validate tensor ``i``'s table entry against the archive without allocating anything.
    Returns (info, dtype, shape, nbytes, device)."""
    _need(isinstance(meta, dict), f"tensor {i}: malformed entry")
    dtype, shape, name = meta.get("dtype"), meta.get("shape"), meta.get("data")
    _need(dtype in _DTYPES, f"tensor {i}: unsupported dtype {dtype!r}")
    _need(isinstance(shape, list) and len(shape) <= MAX_NDIM and all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape),
        f"tensor {i}: bad shape {shape!r}" if not isinstance(shape, list) or len(shape) <= 8
        else f"tensor {i}: bad shape (a list of {len(shape)})")
    _need(isinstance(name, str) and name in names, f"tensor {i}: missing data entry {name!r}")
    # save stores a shared tensor once; one entry read as many tensors would multiply memory
    _need(name not in used, f"tensor {i}: data entry {name!r} is already used by tensor "
          f"{used.get(name)}")
    used[name] = i
    dt = _dt.as_dtype(dtype)
    numel = 1
    for s in shape:
        numel *= s
    nbytes = numel * dt.itemsize
    info = zf.getinfo(name)
    _need(info.file_size == nbytes,
          f"tensor {i}: data entry holds {info.file_size} bytes, expected {nbytes} "
          f"for shape {shape} {dtype}")
    dev = map_location
    if dev is None:
        dev = meta.get("device", "cpu")
        _need(isinstance(dev, str), f"tensor {i}: bad device {dev!r}")
        dev = _file_device(dev, f"tensor {i}")
    return info, dt, shape, nbytes, dev


def _read_tensor(zf, meta, i, checked):
    from .creation import _finish
    from .nn.parameter import mark

    info, dt, shape, nbytes, dev = checked
    store = np.dtype(np.uint8) if dt.name == "bool" else dt.np.newbyteorder("<")
    arr = np.empty(nbytes // store.itemsize, dtype=store)
    with zf.open(info) as fh:
        view = memoryview(arr.view(np.uint8))
        got = 0
        while got < nbytes:
            n = fh.readinto(view[got:])
            _need(n, f"tensor {i}: data ends early")
            got += n
        _need(fh.read(1) == b"", f"tensor {i}: data longer than declared")
    if dt.name == "bool":
        arr = arr != 0
    elif not store.isnative:
        arr = arr.astype(dt.np)
    arr = arr.reshape(shape)
    rg = meta.get("requires_grad", False) is True and dt.is_floating_point
    try:
        t = _finish(arr, dt, dev, rg)
    except RuntimeError as e:
        raise _DeviceUnavailable(str(e)) from None
    if meta.get("parameter") is True:
        mark(t)
    return t


def load(f, map_location=None, weights_only=True):
    """Load an object saved by :func:`save`.

    Loading never runs code from the file, and a file cannot make it allocate more tensor
    memory than the file's own size: it is safe on files from untrusted sources.

    Args:
        f (str or os.PathLike or file object): a path, or a binary file object opened for
            reading (one that cannot seek is read into memory first).
        map_location (str or nbgrad.device, optional): put every tensor on this device
            instead of the one it was saved from (``"cpu"`` to load a CUDA checkpoint on a
            machine without a GPU). Functions and dicts, which PyTorch also accepts, raise
            ``TypeError``. Default: ``None``.
        weights_only (bool, optional): accepted for PyTorch compatibility; nbgrad files
            cannot hold code, so loading is always weights-only. Default: ``True``.

    Returns:
        The saved object, rebuilt: tensors (with their ``requires_grad`` and parameter
        marks), numbers, strings, ``None``, lists, tuples and dicts (in their order).

    Raises:
        RuntimeError: ``f`` is not a valid nbgrad file (truncated, corrupted, made by
            ``torch.save`` or pickle, or beyond the limits in ``nbgrad.serialization``'s
            docstring), or a tensor's device is not available (pass ``map_location``).
        FileNotFoundError: no file at the path.

    Example::

        >>> import io
        >>> buf = io.BytesIO()
        >>> nbgrad.save(nbgrad.tensor([1.0, 2.0], requires_grad=True), buf)
        >>> _ = buf.seek(0)
        >>> nbgrad.load(buf, map_location="cpu")
        tensor([1., 2.], requires_grad=True)
    """
    if map_location is not None:
        if callable(map_location) or isinstance(map_location, dict):
            raise TypeError("nbgrad.load: map_location must be a device or a device string")
        map_location = as_device(map_location)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:  # a missing file raises FileNotFoundError, as usual
            return _load_checked(fh, os.fspath(f), map_location)
    if not (hasattr(f, "seekable") and f.seekable()):
        f = io.BytesIO(f.read())
    return _load_checked(f, "the file object", map_location)


def _load_checked(fh, label, map_location):
    try:
        return _load(fh, map_location)
    except _Invalid as e:
        raise RuntimeError(f"{label} is not a valid nbgrad file: {e}") from None
    except _DeviceUnavailable as e:
        raise RuntimeError(
            f"{label}: cannot put a tensor on the device it was saved from ({e}); "
            "pass map_location='cpu'"
        ) from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, KeyError, ValueError,
            TypeError, IndexError, OverflowError, RecursionError, UnicodeDecodeError,
            NotImplementedError, MemoryError, OSError, RuntimeError) as e:
        raise RuntimeError(
            f"{label} is not a valid nbgrad file (corrupted or truncated?): "
            f"{type(e).__name__}: {e}"
        ) from None


def _no_constants(c):
    raise _Invalid(f"non-standard JSON constant {c} in the header")


def _load(src, map_location):
    start = src.tell()
    head = src.read(4)
    size = src.seek(0, io.SEEK_END) - start
    src.seek(start)
    if head[:1] == b"\x80":
        raise _Invalid("it is a pickle stream; nbgrad.load never unpickles")
    if head[:2] != b"PK":
        raise _Invalid("not a zip archive (empty, truncated, or another format)")
    with zipfile.ZipFile(src, "r") as zf:
        names = set(zf.namelist())
        if HEADER not in names:
            if any(n.endswith(".pkl") for n in names):
                raise _Invalid(
                    "it looks like a torch.save/pickle archive; nbgrad.load never unpickles "
                    "(convert it with torch, e.g. to a dict of numpy arrays, then nbgrad.save)"
                )
            raise _Invalid(f"no {HEADER} header in the archive")
        for info in zf.infolist():
            if info.filename == HEADER or info.filename.startswith("tensors/"):
                _need(info.compress_type == zipfile.ZIP_STORED,
                      f"entry {info.filename!r} is compressed (nbgrad stores entries as is)")
                _need(info.compress_size == info.file_size
                      and info.header_offset + info.file_size <= size,
                      f"entry {info.filename!r} is truncated or has inconsistent sizes")
        _need(zf.getinfo(HEADER).file_size <= MAX_HEADER_BYTES,
              f"the header is larger than {MAX_HEADER_BYTES} bytes")
        raw = zf.read(HEADER)
        try:
            header = json.loads(raw.decode("utf-8"), parse_constant=_no_constants)
        except (ValueError, RecursionError) as e:
            raise _Invalid(f"unreadable header ({e})") from None
        _need(isinstance(header, dict) and header.get("format") == FORMAT,
              "the header is not an nbgrad header")
        version = header.get("version")
        _need(isinstance(version, int) and not isinstance(version, bool),
              "the header has no version")
        if version > VERSION:
            raise _Invalid(
                f"format version {version} is newer than this nbgrad reads ({VERSION}); "
                "upgrade nbgrad"
            )
        metas = header.get("tensors")
        _need(isinstance(metas, list), "the header has no tensor table")
        _need("root" in header, "the header has no root object")
        used = {}
        checked = [_check_tensor(zf, names, m, i, used, map_location)
                   for i, m in enumerate(metas)]
        # Distinct entries can still overlap in the archive; the tensors may not declare more
        # bytes than the file holds.
        total = sum(c[3] for c in checked)
        _need(total <= size, f"the tensors declare {total} bytes in a file of {size}")
        tensors = [_read_tensor(zf, m, i, c) for i, (m, c) in enumerate(zip(metas, checked))]
        return _Decoder(tensors).value(header["root"])


# ----- PyTorch's allow-lists for unpickling: nbgrad never unpickles, so every global is as
# safe as any other; these exist so that loaders written for torch.load run unchanged -------
_SAFE = []


def add_safe_globals(safe_globals):
    """Accepted (and listed by ``get_safe_globals``): nbgrad's files hold no pickles."""
    _SAFE.extend(safe_globals)


def get_safe_globals():
    return list(_SAFE)


def clear_safe_globals():
    _SAFE.clear()


class safe_globals:  # noqa: N801  (PyTorch's name)
    """Context manager that adds ``safe_globals`` for its body, as PyTorch's (nbgrad's files
    hold no pickles, so it changes nothing ``load`` does)."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._before = len(_SAFE)
        _SAFE.extend(self.safe_globals)
        return self

    def __exit__(self, *exc):
        del _SAFE[self._before:]
        return False
