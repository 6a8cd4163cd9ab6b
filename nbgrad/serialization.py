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

    ``dtype`` is one of ``bool int32 int64 float32 float64``.

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
"""

import io
import json
import math
import os
import zipfile

import numpy as np

from . import dtypes as _dt
from .device import as_device
from .device import device as _device_cls
from .tensor import Tensor

FORMAT = "nbgrad"
VERSION = 1
HEADER = "nbgrad.json"
_DTYPES = ("bool", "int32", "int64", "float32", "float64")
_DATE = (1980, 1, 1, 0, 0, 0)

__all__ = ["save", "load"]


# ----- save -------------------------------------------------------------------------------------
class _Encoder:
    def __init__(self):
        self.tensors = []  # Tensor objects in index order
        self.index = {}  # id(tensor) -> index
        self.active = set()  # ids of containers being encoded (cycle check)

    def key(self, k):
        if k is None or isinstance(k, (bool, str)):
            return k
        if isinstance(k, (int, float, np.integer, np.floating, np.bool_)):
            return self.value(k)
        if isinstance(k, tuple):
            return {"$tuple": [self.key(x) for x in k]}
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
            self.active.add(id(obj))
            try:
                if isinstance(obj, list):
                    return [self.value(x) for x in obj]
                if isinstance(obj, tuple):
                    return {"$tuple": [self.value(x) for x in obj]}
                return {"$dict": [[self.key(k), self.value(v)] for k, v in obj.items()]}
            finally:
                self.active.discard(id(obj))
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
    from .ops.registry import backend

    host = backend(t._device).to_host(t._data)
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
    """Save ``obj`` (a tensor, or nested dicts/lists/tuples of tensors, numbers, strings and
    None, e.g. a model's or an optimizer's ``state_dict()``) to ``f``, a path or a binary
    file object. The format is described in ``nbgrad.serialization``'s docstring."""
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
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as fh:
            _write_zip(fh, header, metas, arrays)
    else:
        _write_zip(f, header, metas, arrays)


def _write_zip(fh, header, metas, arrays):
    with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        zf.writestr(_zinfo(HEADER, len(header)), header)
        for meta, arr in zip(metas, arrays):
            zi = _zinfo(meta["data"], arr.nbytes)
            with zf.open(zi, "w", force_zip64=arr.nbytes >= zipfile.ZIP64_LIMIT) as out:
                if arr.nbytes:
                    out.write(memoryview(arr.reshape(-1)).cast("B"))


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

    def key(self, k):
        v = self.value(k)
        _need(v is None or isinstance(v, (bool, int, float, str, tuple)),
              f"bad dict key {k!r}")
        return v

    def value(self, v):
        if v is None or isinstance(v, (bool, int, float, str)):
            return v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        _need(isinstance(v, dict) and len(v) == 1, "malformed value in the header")
        (tag, x), = v.items()
        _need(tag in _TAGS, f"unknown tag {tag!r} in the header")
        if tag == "$tuple":
            _need(isinstance(x, list), "malformed $tuple")
            return tuple(self.value(y) for y in x)
        if tag == "$dict":
            _need(isinstance(x, list), "malformed $dict")
            out = {}
            for pair in x:
                _need(isinstance(pair, list) and len(pair) == 2, "malformed $dict entry")
                out[self.key(pair[0])] = self.value(pair[1])
            return out
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
        return as_device(x)


def _read_tensor(zf, names, meta, i, map_location):
    from .creation import _finish
    from .nn.parameter import mark

    _need(isinstance(meta, dict), f"tensor {i}: malformed entry")
    dtype, shape, name = meta.get("dtype"), meta.get("shape"), meta.get("data")
    _need(dtype in _DTYPES, f"tensor {i}: unsupported dtype {dtype!r}")
    _need(isinstance(shape, list) and all(
        isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in shape),
        f"tensor {i}: bad shape {shape!r}")
    _need(isinstance(name, str) and name in names, f"tensor {i}: missing data entry {name!r}")
    dt = _dt.as_dtype(dtype)
    numel = 1
    for s in shape:
        numel *= s
    nbytes = numel * dt.itemsize
    info = zf.getinfo(name)
    _need(info.file_size == nbytes,
          f"tensor {i}: data entry holds {info.file_size} bytes, expected {nbytes} "
          f"for shape {shape} {dtype}")
    store = np.dtype(np.uint8) if dtype == "bool" else dt.np.newbyteorder("<")
    arr = np.empty(numel, dtype=store)
    with zf.open(info) as fh:
        view = memoryview(arr).cast("B")
        got = 0
        while got < nbytes:
            n = fh.readinto(view[got:])
            _need(n, f"tensor {i}: data ends early")
            got += n
        _need(fh.read(1) == b"", f"tensor {i}: data longer than declared")
    if dtype == "bool":
        arr = arr != 0
    elif not store.isnative:
        arr = arr.astype(dt.np)
    arr = arr.reshape(shape)
    dev = map_location
    if dev is None:
        name = meta.get("device", "cpu")
        _need(isinstance(name, str), f"tensor {i}: bad device {name!r}")
        dev = as_device(name)
    rg = meta.get("requires_grad", False) is True and dt.is_floating_point
    try:
        t = _finish(arr, dt, dev, rg)
    except RuntimeError as e:
        raise _DeviceUnavailable(str(e)) from None
    if meta.get("parameter") is True:
        mark(t)
    return t


def load(f, map_location=None, weights_only=True):
    """Load an object saved by ``nbgrad.save`` from ``f`` (a path or a binary file object).

    ``map_location`` (a device or string) puts every tensor there instead of on the device
    it was saved from. ``weights_only`` is accepted for PyTorch compatibility: nbgrad files
    cannot hold code, so loading is always weights-only. Raises RuntimeError for files that
    are not valid nbgrad files (truncated, corrupted, or made by ``torch.save``/pickle).
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
        tensors = [_read_tensor(zf, names, m, i, map_location) for i, m in enumerate(metas)]
        return _Decoder(tensors).value(header["root"])
