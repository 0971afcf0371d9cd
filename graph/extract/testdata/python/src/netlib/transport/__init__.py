# Exercises: a subpackage __init__ (module "netlib.transport") importing
# its own submodule with from . import.
from . import tcp
