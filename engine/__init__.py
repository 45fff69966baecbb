"""The rules engine: a plain state machine. No Discord, database or asyncio in here.

Callers build a :class:`Game` from a :class:`~engine.ruleset.Ruleset`, submit intents, and
call :meth:`Game.resolve` at each phase end; what changed comes back as events with audiences.
"""

from . import books, resolve, ruleset_check, victory, votes  # noqa: F401  (register behaviour)
from .deal import DEAL, PlayerSpec
from .errors import ActionError, GameError
from .game import Game
from .legality import LegalAction
from .ruleset import Ruleset

__all__ = ["DEAL", "ActionError", "Game", "GameError", "LegalAction", "PlayerSpec", "Ruleset"]
