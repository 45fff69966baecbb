"""Commands: what a player or GM asks of a game, as data the journal stores and replays.

A command names a :class:`engine.Game` method (``submit``, ``send_pm``, ``gm_set_stat``…) and
its keyword arguments, all JSON-compatible. The store runs it on the game and, when the
engine accepts it, commits it to the journal; replaying the journal from the game's creation
rebuilds the game exactly.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, is_dataclass
from typing import Any

from engine import Game, PlayerSpec

#: engine methods a command may call; GM operations are the ``gm_*`` ones
ENGINE_KINDS = (
    "submit",
    "cancel",
    "vote",
    "unvote",
    "send_pm",
    "post_anon",
    "faction_op",
    "choose_bonus",
    "gm_set_stat",
    "gm_set_status",
    "gm_clear_status",
    "gm_message",
    "gm_set_end_day",
    "gm_settle_task",
    "gm_refuse_anon",
    "gm_substitute",
    "gm_remove",
    "declare_idle",
)
#: engine methods the GM alone calls that are not named ``gm_*`` (audited like them)
GM_KINDS = ("declare_idle",)
#: journal entries written by the store itself (not engine calls)
STORE_KINDS = ("resolve", "deadline", "undo")


@functools.cache
def _signature(kind: str) -> inspect.Signature:
    """The engine method's signature, once per kind (``inspect.signature`` per command cost
    a tenth of a millisecond)."""
    return inspect.signature(getattr(Game, kind))


def is_gm_kind(kind: str) -> bool:
    return kind.startswith("gm_") or kind in GM_KINDS


@dataclass(frozen=True)
class Command:
    """``kind`` is an engine method; ``args`` its keyword arguments (JSON-compatible).

    ``user_id`` is who asked (a Discord user id), ``request_id`` an optional key unique per
    game (for example the interaction id): a command whose request id is already in the
    journal is not applied again.
    """

    kind: str
    args: dict[str, Any] = field(default_factory=dict)
    user_id: int | None = None
    request_id: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in ENGINE_KINDS:
            raise ValueError(f"unknown command kind {self.kind!r}; known: {', '.join(ENGINE_KINDS)}")
        try:
            _signature(self.kind).bind(None, **self.args)
        except TypeError as exc:
            raise ValueError(f"bad arguments for {self.kind}: {exc}") from None

    @property
    def is_gm(self) -> bool:
        return is_gm_kind(self.kind)

    def run(self, game: Game) -> Any:
        """Call the engine; raises :class:`engine.ActionError` when the engine refuses."""
        return getattr(game, self.kind)(**self.args)

    # ---- constructors, one per engine call ----------------------------------------------
    @classmethod
    def submit(cls, pid: int, ability: str, targets: list[int] | None = None, option: str | None = None, **kw: Any) -> Command:
        return cls("submit", _args(pid=pid, ability=ability, targets=list(targets or []), option=option), **kw)

    @classmethod
    def cancel(cls, pid: int, lane: str = "action", **kw: Any) -> Command:
        return cls("cancel", {"pid": pid, "lane": lane}, **kw)

    @classmethod
    def vote(cls, pid: int, vote_id: str, choice: int | str | None, **kw: Any) -> Command:
        return cls("vote", {"pid": pid, "vote_id": vote_id, "choice": choice}, **kw)

    @classmethod
    def unvote(cls, pid: int, vote_id: str, **kw: Any) -> Command:
        return cls("unvote", {"pid": pid, "vote_id": vote_id}, **kw)

    @classmethod
    def send_pm(cls, sender: int, recipient: int, text: str, **kw: Any) -> Command:
        return cls("send_pm", {"sender": sender, "recipient": recipient, "text": text}, **kw)

    @classmethod
    def post_anon(cls, pid: int, text: str, **kw: Any) -> Command:
        return cls("post_anon", {"pid": pid, "text": text}, **kw)

    @classmethod
    def choose_bonus(cls, pid: int, stat: str, **kw: Any) -> Command:
        return cls("choose_bonus", {"pid": pid, "stat": stat}, **kw)

    @classmethod
    def faction_op(cls, pid: int, op: str, target: int | None = None, fid: str | None = None, **kw: Any) -> Command:
        return cls("faction_op", _args(pid=pid, op=op, target=target, fid=fid), **kw)

    @classmethod
    def declare_idle(cls, pid: int, **kw: Any) -> Command:
        """The GM says ``pid`` does nothing this phase (:meth:`engine.Game.declare_idle`)."""
        return cls("declare_idle", {"pid": pid}, **kw)

    @classmethod
    def gm(cls, operation: str, **args: Any) -> Command:
        """A GM operation: ``Command.gm("set_stat", pid=0, stat="vo", value=3, user_id=…)``."""
        kw = {k: args.pop(k) for k in ("user_id", "request_id") if k in args}
        return cls(f"gm_{operation}", args, **kw)


def _args(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


def jsonable(value: Any) -> Any:
    """The engine's return value as JSON-compatible data (intents, votes… are dataclasses)."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return value


def effective(journal: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The journal as the game lived it: a resolve taken back by a GM's ``undo`` (and the undo
    entry itself) left out; everything else in order (``/gm undo``, docs/storage.md)."""
    undone = {e["args"]["resolve_seq"] for e in journal if e["kind"] == "undo"}
    if not undone:  # (a journal built by hand, without ``seq``, has no undo either)
        return list(journal)
    return [e for e in journal if e["kind"] != "undo" and e.get("seq") not in undone]


def replay_entries(game: Game, entries: list[dict[str, Any]]) -> Game:
    """Play journal ``entries`` (already :func:`effective`) on ``game``; returns it."""
    for entry in entries:
        if entry["kind"] == "resolve":
            game.resolve()
        elif entry["kind"] not in STORE_KINDS:
            Command(entry["kind"], entry["args"]).run(game)
    return game


def replay(game: Game, info: Any, journal: list[dict[str, Any]]) -> Iterator[Game]:
    """``game`` played again from its creation through its journal (what the engine accepted,
    in order; resolves taken back left out): one game, yielded at the start and again after
    every resolve."""
    g = Game.new(game.rules, info.seed, [PlayerSpec(**p) for p in info.players], info.settings)
    yield g
    for entry in effective(journal):
        if entry["kind"] == "resolve":
            g.resolve()
            yield g
        elif entry["kind"] not in STORE_KINDS:
            Command(entry["kind"], entry["args"]).run(g)
