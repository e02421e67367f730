"""Application entry points."""
import os
import sys
from collections import OrderedDict

MAX_ITEMS = 10


def retry(times):
    """Retry a call a few times."""
    def wrap(fn):
        def inner(*a, **kw):
            for _ in range(times):
                try:
                    return fn(*a, **kw)
                except OSError:
                    pass
        return inner
    return wrap


class Client:
    """A tiny client."""

    class Config:
        """Nested settings."""
        timeout = 3

        def merged(self, other):
            return other

    def __init__(self, url):
        self.url = url

    @retry(3)
    def send(self, payload):
        """Send payload and return the reply."""
        data = OrderedDict(payload)
        return len(data)

    async def close(self):
        pass


def _helper(x):
    return x * 2
