# Exercises: a script outside any package (module "ping") importing the
# package absolutely: a module alias, a from-import of a function, a
# wildcard import, module-level code.
import netlib.client as nc
from netlib import connect
from netlib.retry import *


def main():
    c = nc.Client("localhost:1")
    connect("localhost:2")
    nc.make("x")
    return c


main()
