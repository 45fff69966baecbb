"""Registries of named behaviour that rulesets refer to by id.

- ``EFFECTS``: parameterised primitives (``op`` of an effect): stat, block, protect, poison...
- ``IMPLS``: unique abilities, one small function each (``op: impl``, ``impl: <name>``).
- ``STEPS``: built-in resolution steps that are not submitted actions (poison death...).
- ``VOTES``: vote counters (lynch, prison).
- ``VICTORIES``: victory checks.
- ``MAIL``: mail policies (``Ruleset.mail``): how PMs and anonymous posts travel (seed 003).
- ``CHECKS``: submission checks (``AbilityDef.checks``): ``fn(game, player, ability, params,
  targets, option)`` returns an ``ActionError`` or None. It is asked with ``targets`` None
  (may the ability be used now), with one target (may it be aimed at them), with one option
  (is the choice open now), and with the whole submission.
- ``EARLY_ENDS``: a book's early end of a phase (``settings.early_end`` names one): a
  subclass of :class:`EarlyEnd`, registered with ``@early_end(name)``; its hooks refine whom
  the phase waits for, and :mod:`engine.phase_end` answers the question itself.
- ``RULESET_CHECKS``: the cross-checks of a whole ruleset, run when it is validated
  (:mod:`engine.ruleset_check`): ``fn(ruleset)`` returns a list of ``engine.ruleset.Problem``.
  The schema sits below them, so they register here instead of being imported by it.
- ``BOOK_MEMORY``: a book's typed memory between ticks (a dataclass, ``@book_memory(key)``),
  kept in the snapshot's ``memo[key]`` (``engine.state.GameState.place``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

EFFECTS: dict[str, Callable[..., Any]] = {}
IMPLS: dict[str, Callable[..., Any]] = {}
STEPS: dict[str, Callable[..., Any]] = {}
VOTES: dict[str, Callable[..., Any]] = {}
VICTORIES: dict[str, Callable[..., Any]] = {}
MAIL: dict[str, Any] = {}
CHECKS: dict[str, Callable[..., Any]] = {}
EARLY_ENDS: dict[str, type[EarlyEnd]] = {}
RULESET_CHECKS: list[Callable[[Any], list[Any]]] = []


class EarlyEnd:
    """A rule book's early end of a phase: the phase may end before its deadline once it waits
    for nobody (:meth:`engine.phase_end.PhaseEnd.waiting_for`). By day a phase waits for the
    votes still owed, by night for the actions still owed; a player the GM declared idle
    (:meth:`engine.game.Game.declare_idle`) is waited for no more. The hooks, each with its
    default here (``g`` is the game, ``p`` a living player):

    - ``holds_up(g, p)``: may ``p`` hold up the phase at all (default: yes);
    - ``excused_vote(g, p)``: ``p`` owes no vote this phase although they may vote (default: no).
    """

    @staticmethod
    def holds_up(g: Any, p: Any) -> bool:
        return True

    @staticmethod
    def excused_vote(g: Any, p: Any) -> bool:
        return False
BOOK_MEMORY: dict[str, type] = {}


def _register(table: dict[str, Callable[..., Any]], name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        if name in table:
            raise ValueError(f"{name!r} registered twice")
        table[name] = fn
        return fn

    return deco


def effect(name: str):
    return _register(EFFECTS, name)


def impl(name: str):
    return _register(IMPLS, name)


def step(name: str):
    return _register(STEPS, name)


def vote(name: str):
    return _register(VOTES, name)


def victory(name: str):
    return _register(VICTORIES, name)


def mail(name: str):
    return _register(MAIL, name)


def check(name: str):
    return _register(CHECKS, name)


def early_end(name: str) -> Callable[[type[EarlyEnd]], type[EarlyEnd]]:
    """Register a subclass of :class:`EarlyEnd` under ``name`` (the value of ``settings.early_end``)."""

    def deco(cls: type[EarlyEnd]) -> type[EarlyEnd]:
        if name in EARLY_ENDS:
            raise ValueError(f"{name!r} registered twice")
        if not issubclass(cls, EarlyEnd):
            raise TypeError(f"early end {name!r} must subclass EarlyEnd")
        EARLY_ENDS[name] = cls
        return cls

    return deco


def book_memory(key: str) -> Callable[[type], type]:
    """Register a dataclass as a book's memory between ticks, kept under ``memo[key]``.

    A place whose snapshot spreads over several ``memo`` keys (seed 000's prison: one per
    vote id) defines ``claims(key, value)`` (is this snapshot key mine?), ``from_memo(items)``
    (the place from the keys it claims) and ``to_memo()`` (those keys back); ``key`` then only
    names it in ``GameState.books``."""

    def deco(cls: type) -> type:
        if key in BOOK_MEMORY:
            raise ValueError(f"book memory {key!r} registered twice")
        cls.KEY = key  # type: ignore[attr-defined]
        BOOK_MEMORY[key] = cls
        return cls

    return deco
