# Exercises: a test module outside packages (module "test_client"), a
# decorator call through an attribute chain, a match statement with a
# class pattern and a capture.
import pytest
from netlib.client import Client, Options


@pytest.mark.parametrize("addr", ["a:1", "b:2"])
def test_parse(addr):
    host, port = Client.parse(addr)
    match Options():
        case Options(timeout=t):
            assert t > 0
    assert host and port
