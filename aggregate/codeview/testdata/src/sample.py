#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright header that the skeleton drops.

"""Client library for the example API.

It has several paragraphs.
"""

from __future__ import annotations

import os, sys
import json as _json
from collections import OrderedDict
from .models import User

MAX_RETRIES = 3
TIMEOUT: float = 2.5
_registry = {}
print("side effect at import")


def decorator(fn):
    """Wrap fn."""
    def wrapper(*args, **kwargs):
        def deeper():
            return 1
        return fn(*args, **kwargs)
    return wrapper


# A comment right above the class stays.
@decorator
class Client(object):
    """Talks to the server."""

    retries = MAX_RETRIES

    class Config:
        """Nested configuration."""
        verbose = False

        def dump(self):
            return {"verbose": self.verbose}

    def __init__(self, url: str) -> None:
        self.url = url

    @property
    def host(self):
        """The host part."""
        return self.url.split("/")[2]

    async def send(self, payload: dict,
                   *, retries: int = 1) -> dict:
        '''Send payload.

        Retries on failure.
        '''
        for _ in range(retries):
            async def attempt():
                return await self._post(payload)
            return await attempt()

    def one_liner(self): return 1

    def _post(self, payload):
        # a comment before the body
        return {"text": "contains ``` backticks"}


async def main():
    client = Client(os.environ.get("URL", ""))
    await client.send({})


if sys.version_info >= (3, 11):
    def modern():
        return True
else:
    def modern():
        return False

try:
    import tomllib
except ImportError:
    tomllib = None

for _name in ("a", "b"):
    print(_name)

if __name__ == "__main__":
    main()
