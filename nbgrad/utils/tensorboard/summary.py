"""TensorBoard ``Summary`` protocol buffers from nbgrad tensors, NumPy arrays and numbers,
as ``torch.utils.tensorboard.summary`` makes them (so TensorBoard shows the same)."""

import io

import numpy as np
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from ...tensor import Tensor


def as_array(x):
    """``x`` (a Tensor, array, list or number) as a NumPy array (a 16-bit float tensor's
    values as float32)."""
    if isinstance(x, Tensor):
        x = x.detach().cpu()
        if x.dtype.low:
            x = x.float()
        return x.numpy()
    return np.asarray(x)


def scalar(name, value, new_style=False, double_precision=False):
    """A one-number summary (``new_style``: as a tensor of the scalars plugin)."""
    a = as_array(value).squeeze()
    if a.ndim != 0:
        raise ValueError(f"scalar should be 0D, got a value of shape {list(a.shape)}")
    v = float(a)
    if not new_style:
        return Summary(value=[Summary.Value(tag=name, simple_value=v)])
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    t = (TensorProto(double_val=[v], dtype="DT_DOUBLE") if double_precision
         else TensorProto(float_val=[v], dtype="DT_FLOAT"))
    return Summary(value=[Summary.Value(tag=name, tensor=t, metadata=meta)])


def tensorflow_bins():
    """TensorFlow's default histogram bucket edges: +-1e-12 growing by 10% to 1e20, and 0."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def histogram(name, values, bins, max_bins=None):
    """A histogram summary of ``values`` (``bins`` as ``numpy.histogram`` takes them)."""
    return Summary(value=[Summary.Value(tag=name, histo=make_histogram(
        as_array(values).astype(np.float64), bins, max_bins))])


def make_histogram(values, bins, max_bins=None):
    """``HistogramProto`` of ``values``: only the buckets from the first to the last that
    hold anything, after one empty bucket that gives TensorBoard the left edge (it keeps
    right edges only); at most ``max_bins`` buckets, merging neighbours."""
    values = values.reshape(-1)
    if values.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        k = len(counts) // max_bins
        counts = np.pad(counts, (0, (-len(counts)) % k)).reshape(-1, k).sum(-1)
        limits = np.concatenate([limits[:-1:k], limits[-1:]])
    used = np.flatnonzero(counts)
    first, last = int(used[0]), int(used[-1]) + 1
    if first > 0:
        counts = counts[first - 1:last]
    else:
        counts = np.concatenate([[0], counts[:last]])
    limits = limits[first:last + 1]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


def to_hwc(a, dataformats):
    """Image array ``a`` laid out as ``dataformats`` (``CHW``, ``HWC``, ``HW``, ``NCHW``,
    ...) as height x width x channels (a batch tiled into one grid)."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt) or a.ndim != len(fmt):
        raise ValueError(f"dataformats {dataformats!r} does not fit an image of shape "
                         f"{list(a.shape)}")
    if "N" in fmt:
        a = a.transpose([fmt.index(c) for c in "NCHW" if c in fmt])
        if "C" not in fmt:
            a = a[:, None]
        a = _grid(a)
        fmt = "CHW"
    if fmt == "HW":
        a, fmt = a[None], "CHW"
    a = a.transpose([fmt.index(c) for c in "HWC"])
    if a.shape[2] == 1:
        a = np.concatenate([a, a, a], 2)
    return a


def _grid(batch, ncols=8):
    """Images ``batch`` (N, C, H, W) tiled ``ncols`` to a row into one (C, H', W')."""
    n, c, h, w = batch.shape
    if c == 1:
        batch, c = np.concatenate([batch] * 3, 1), 3
    cols = min(n, ncols)
    rows = -(-n // cols)
    out = np.zeros((c, h * rows, w * cols), batch.dtype)
    for i in range(n):
        r, q = divmod(i, cols)
        out[:, r * h:(r + 1) * h, q * w:(q + 1) * w] = batch[i]
    return out


def image(tag, img, dataformats="CHW"):
    """A PNG image summary; float values in [0, 1] are scaled to 0-255, uint8 kept."""
    a = to_hwc(as_array(img), dataformats)
    scale = 1 if a.dtype == np.uint8 else 255
    a = (a.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    return Summary(value=[Summary.Value(tag=tag, image=encode_png(a))])


def encode_png(hwc):
    from PIL import Image  # (tensorboard's own dependency)

    buf = io.BytesIO()
    Image.fromarray(hwc).save(buf, format="PNG")
    h, w, c = hwc.shape
    return Summary.Image(height=h, width=w, colorspace=c, encoded_image_string=buf.getvalue())


def text(tag, string):
    """A text summary (the text plugin's, markdown as TensorBoard renders it)."""
    meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
        plugin_name="text", content=TextPluginData(version=0).SerializeToString()))
    t = TensorProto(dtype="DT_STRING", string_val=[string.encode("utf_8")],
                    tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary", metadata=meta, tensor=t)])


def hparams(hparam_dict, metric_dict, hparam_domain_discrete=None):
    """The hparams plugin's three summaries: the experiment (hyperparameters and metrics),
    this session's start (its values) and its end."""
    from tensorboard.plugins.hparams.api_pb2 import (
        DataType,
        Experiment,
        HParamInfo,
        MetricInfo,
        MetricName,
        Status,
    )
    from tensorboard.plugins.hparams.metadata import (
        EXPERIMENT_TAG,
        PLUGIN_DATA_VERSION,
        PLUGIN_NAME,
        SESSION_END_INFO_TAG,
        SESSION_START_INFO_TAG,
    )
    from tensorboard.plugins.hparams.plugin_data_pb2 import (
        HParamsPluginData,
        SessionEndInfo,
        SessionStartInfo,
    )

    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionaries.")
    domains = hparam_domain_discrete or {}
    for k, vs in domains.items():
        if k not in hparam_dict or not isinstance(vs, list) or not all(
                isinstance(v, type(hparam_dict[k])) for v in vs):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of "
                            f"the same type as hparam_dict[{k}].")
    from google.protobuf import struct_pb2

    start = SessionStartInfo()
    infos = []
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if isinstance(v, Tensor):
            v = float(as_array(v).reshape(-1)[0])
        # (as PyTorch's: a bool is an int first, so it is logged as a number)
        if isinstance(v, (int, float)):
            kind, field = DataType.DATA_TYPE_FLOAT64, "number_value"
        elif isinstance(v, str):
            kind, field = DataType.DATA_TYPE_STRING, "string_value"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        setattr(start.hparams[k], field, v)
        info = HParamInfo(name=k, type=kind)
        if k in domains:
            info.domain_discrete.CopyFrom(struct_pb2.ListValue(
                values=[struct_pb2.Value(**{field: d}) for d in domains[k]]))
        infos.append(info)

    def one(tag, **content):
        data = HParamsPluginData(version=PLUGIN_DATA_VERSION, **content).SerializeToString()
        meta = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name=PLUGIN_NAME, content=data))
        return Summary(value=[Summary.Value(tag=tag, metadata=meta)])

    exp = Experiment(hparam_infos=infos, metric_infos=[
        MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    return (one(EXPERIMENT_TAG, experiment=exp),
            one(SESSION_START_INFO_TAG, session_start_info=start),
            one(SESSION_END_INFO_TAG,
                session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS"))))
