# Exercises: a base class through a module attribute (abc.ABC), an
# abstract method with only a docstring, a classmethod factory, constants
# and a typed module variable, global, a nested function, a lambda-free
# comprehension whose variable is local.
import abc
import random

DEFAULT_ATTEMPTS = 3
jitter: float = 0.25
_calls = 0


class Policy(abc.ABC):
    @abc.abstractmethod
    def next_delay(self, attempt: int) -> float:
        """Returns the delay before attempt."""


class Backoff(Policy):
    """Doubles a delay up to a cap."""

    def __init__(self, initial=0.1, cap=10.0):
        self.initial = initial
        self.cap = cap

    @classmethod
    def default(cls):
        return cls()

    def next_delay(self, attempt):
        global _calls
        _calls += 1

        def spread(d):
            return d * (1 + random.uniform(-jitter, jitter))

        delays = [spread(self.initial * 2**i) for i in range(attempt + 1)]
        return min(delays[-1], self.cap)
