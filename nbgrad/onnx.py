"""``nbgrad.onnx``: importable, so programs that name ``torch.onnx`` load; exporting is not
something nbgrad does (export the model from PyTorch with the same weights: nbgrad's
``state_dict`` loads there)."""


def export(*args, **kwargs):
    """Not supported: raises NotImplementedError."""
    raise NotImplementedError("torch.onnx.export is not supported by nbgrad: save the "
                              "state_dict and export the model from PyTorch")


def is_in_onnx_export():
    """False: nbgrad never exports."""
    return False
