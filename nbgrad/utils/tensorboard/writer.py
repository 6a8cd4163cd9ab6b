"""``SummaryWriter``: PyTorch's TensorBoard logger, on TensorBoard's own event-file writer."""

import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S


def _refused(name):
    """A method of PyTorch's writer that nbgrad's lacks: it says so."""

    def method(self, *args, **kwargs):
        raise NotImplementedError(f"SummaryWriter.{name} is not supported by nbgrad yet")

    method.__name__ = name
    return method


class SummaryWriter:
    """Writes scalars, histograms, images, text and hyperparameters to an event file in
    ``log_dir`` that TensorBoard reads (``tensorboard --logdir runs``), as
    ``torch.utils.tensorboard.SummaryWriter``.

    Args:
        log_dir: the directory; default ``runs/<date>_<host><comment>``.
        comment: appended to the default ``log_dir``.
        purge_step: at a restart after a crash, TensorBoard hides the events of the old
            run from this step on.
        max_queue: events held in memory before a write.
        flush_secs: seconds between writes of the held events.
        filename_suffix: appended to the event file's name.

    Example::

        >>> import tempfile, nbgrad
        >>> from nbgrad.utils.tensorboard import SummaryWriter
        >>> with SummaryWriter(tempfile.mkdtemp()) as w:
        ...     for step in range(3):
        ...         w.add_scalar("loss", nbgrad.tensor(1.0 / (step + 1)), step)
    """

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        if not log_dir:
            stamp = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self._writer = None
        self._scalar_writers = {}  # add_scalars' writers, one per series
        self._file_writer()

    def _file_writer(self):
        """The event file's writer, opened again after ``close``."""
        if self._writer is None:
            self._writer = EventFileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                           self.filename_suffix)
            if self.purge_step is not None:
                self._writer.add_event(Event(step=self.purge_step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self._writer

    def get_logdir(self):
        """The directory the events go to."""
        return self.log_dir

    def _add(self, summary, global_step, walltime, writer=None):
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        (writer or self._file_writer()).add_event(event)

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Log one number (a Python or NumPy number, or a one-element tensor) at a step."""
        self._add(S.scalar(tag, scalar_value, new_style, double_precision), global_step,
                  walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Log several numbers as series of one chart: each is written to its own run,
        ``<log_dir>/<main_tag>_<tag>``, under the tag ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        for tag, value in tag_scalar_dict.items():
            path = self.log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            w = self._scalar_writers.get(path)
            if w is None:
                w = self._scalar_writers[path] = EventFileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix)
            self._add(S.scalar(main_tag, value), global_step, walltime, w)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """Log the distribution of ``values``; ``bins`` as ``numpy.histogram`` takes them,
        or ``"tensorflow"`` (TensorFlow's default buckets)."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = S.tensorflow_bins()
        self._add(S.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        """Log an image: floats in [0, 1] (or uint8 values), laid out as ``dataformats``."""
        self._add(S.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_images(self, tag, img_tensor, global_step=None, walltime=None,
                   dataformats="NCHW"):
        """Log a batch of images, tiled into one grid."""
        self._add(S.image(tag, img_tensor, dataformats), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Log text (TensorBoard renders it as markdown)."""
        self._add(S.text(tag, text_string), global_step, walltime)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None,
                    run_name=None, global_step=None):
        """Log one run's hyperparameters and its final metrics for TensorBoard's HPARAMS
        table, in a run of their own (``<log_dir>/<run_name>``, by default the time)."""
        exp, start, end = S.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        path = os.path.join(self.log_dir, run_name or str(time.time()))
        with SummaryWriter(path) as w:
            for s in (exp, start, end):
                w._add(s, global_step, None)
            for k, v in metric_dict.items():
                w.add_scalar(k, v, global_step)

    add_graph = _refused("add_graph")
    add_embedding = _refused("add_embedding")
    add_audio = _refused("add_audio")
    add_video = _refused("add_video")
    add_figure = _refused("add_figure")
    add_pr_curve = _refused("add_pr_curve")
    add_mesh = _refused("add_mesh")

    def flush(self):
        """Write the held events to disk."""
        for w in [self._writer, *self._scalar_writers.values()]:
            if w is not None:
                w.flush()

    def close(self):
        """Write the held events and close the files (a later ``add_*`` opens a new one)."""
        for w in [self._writer, *self._scalar_writers.values()]:
            if w is not None:
                w.flush()
                w.close()
        self._writer = None
        self._scalar_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
