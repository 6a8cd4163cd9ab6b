"""(placeholder; filled in by the ops work)"""

# Public functions exported as nbgrad.<name> (and nbgrad.nn.functional.<name> where noted).
__all__ = []
# Tensor methods: {"method_name": function}
METHODS = {}
