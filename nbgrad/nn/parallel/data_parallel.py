"""``DataParallel``: a module run on the first of the given CUDA devices (or as it is when
there is none), with PyTorch's attributes, checks and ``module.``-prefixed state dict."""

from ... import cuda
from ...device import device as _device
from ...func import _tree
from ...tensor import Tensor
from ..modules.module import Module


def _index(d):
    if isinstance(d, int):
        return d
    d = _device(d) if isinstance(d, str) else d
    return 0 if d.index is None else d.index


class DataParallel(Module):
    """``module`` wrapped for data-parallel training on CUDA devices, as
    ``torch.nn.DataParallel``: the inputs go to ``device_ids[0]`` and the module runs there.
    nbgrad runs the whole batch on that one device (PyTorch splits it across
    ``device_ids`` and gathers the results: the same values, but batch-norm statistics are
    per replica there); with no CUDA device it calls ``module`` unchanged. For training
    on several processes or machines, see ``DistributedDataParallel``.

    Args:
        module (Module): the model.
        device_ids (list of int or device, optional): the CUDA devices; the first holds
            the module and the batch. Default: every visible CUDA device.
        output_device (int or device, optional): where the outputs go. Default:
            ``device_ids[0]``.
        dim (int, optional): the batch dimension (PyTorch splits along it). Default: 0.

    Example::

        >>> import nbgrad
        >>> net = nbgrad.nn.DataParallel(nbgrad.nn.Linear(2, 1))
        >>> list(net.state_dict())
        ['module.weight', 'module.bias']
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_index(d) for d in device_ids]
        self.output_device = _index(output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of "
                                   f"them on device: {t.device}")
        leaves, spec = _tree.flatten((inputs, kwargs))
        moved = [t.to(self.src_device_obj) if isinstance(t, Tensor) else t for t in leaves]
        inputs, kwargs = _tree.unflatten(moved, spec)
        out = self.module(*inputs, **kwargs)
        if self.output_device == self.device_ids[0]:
            return out
        target = _device("cuda", self.output_device)
        leaves, spec = _tree.flatten(out)
        return _tree.unflatten([t.to(target) if isinstance(t, Tensor) else t for t in leaves],
                               spec)
