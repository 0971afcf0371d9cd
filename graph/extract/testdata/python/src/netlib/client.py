# Exercises: a class with a base from a relative import, a dataclass,
# decorated methods (staticmethod, property), async def, docstrings, self
# calls, a call through the class, module aliases (import x as y), a
# local shadowing a module constant, a module-level if __name__ block.
import logging
import time as clock
from dataclasses import dataclass, field
from typing import Optional

from .retry import Backoff, DEFAULT_ATTEMPTS
from .transport.tcp import TcpTransport

log = logging.getLogger(__name__)
MAX_ATTEMPTS = 5


@dataclass
class Options:
    """Connection options."""

    timeout: float = 1.0
    tags: list = field(default_factory=list)


class Client(TcpTransport):
    """A client of one server.

    It retries with exponential backoff.
    """

    def __init__(self, addr: str, options: Optional[Options] = None):
        self.addr = addr
        self.options = options or Options()
        self._backoff = Backoff.default()

    async def connect(self) -> bool:
        """Connects, retrying with backoff."""
        for attempt in range(MAX_ATTEMPTS):
            if await self.send(b"hello"):
                return True
            clock.sleep(self._backoff.next_delay(attempt))
        log.warning("giving up on %s", self.addr)
        return False

    @staticmethod
    def parse(addr):
        host, _, port = addr.partition(":")
        return host, int(port or DEFAULT_ATTEMPTS)

    def _reset(self):
        MAX_ATTEMPTS = 1  # a local, not the module's constant
        return MAX_ATTEMPTS

    @property
    def host(self):
        return Client.parse(self.addr)[0]


def make(addr):
    return Client(addr)


if __name__ == "__main__":
    make("localhost:1")
