# Exercises: a relative import two levels up (from ..retry), a Python
# 3.12 type alias, async methods, a class attribute annotated with an
# imported class, a private module function.
from ..retry import Backoff

type Address = tuple[str, int]


class TcpTransport:
    """Carries bytes over TCP."""

    policy: Backoff | None = None

    async def send(self, data: bytes) -> bool:
        return _write(data) > 0

    def close(self):
        pass


def _write(data):
    return len(data)
