"""The one error type a refused submission raises: a message key and its arguments."""

from __future__ import annotations

from typing import Any


class ActionError(Exception):
    """A player's submission (action, vote, PM, post, faction move) was refused.

    ``key`` names the message in the catalog (``error.<key>``); ``args`` fill it in.
    """

    def __init__(self, key: str, **args: Any) -> None:
        super().__init__(key, args)
        self.key = key
        self.args_ = args

    def __str__(self) -> str:
        if not self.args_:
            return self.key
        inner = ", ".join(f"{k}={v!r}" for k, v in sorted(self.args_.items()))
        return f"{self.key}({inner})"


class GameError(Exception):
    """A misuse of the engine by the program (not a player's mistake)."""
