# Exercises: a package __init__ in a src layout (module "netlib"),
# relative re-exports of an item and of a submodule, __all__, a constant,
# a private variable and a module-level function.
from .client import Client
from . import retry
from .transport import tcp as _tcp

__all__ = ["Client", "retry", "connect"]
VERSION = "1.0"
_registry = {}


def connect(addr):
    """Connects to addr with the default backoff."""
    c = Client(addr)
    c.connect()
    _registry[addr] = c
    return c
