"""``nbgrad.utils.dlpack``: as ``torch.utils.dlpack`` (DLPack capsules in and out; see
``nbgrad/buffers.py``)."""

from ..buffers import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
