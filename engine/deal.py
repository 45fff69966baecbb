"""Dealing a new game: the seats, the roles and characters dealt from the generator, and the
hidden bonuses that passives give at the start."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .errors import GameError
from .state import Modifier, Player
from .world import World

DEAL = "?"  # a role or character to be dealt at random


@dataclass(frozen=True)
class PlayerSpec:
    name: str
    role: str
    character: str | None = None
    user_id: int | None = None
    stats: dict[str, int] | None = None
    statuses: list[str] | None = None
    faction: str | None = None
    leader: bool = False


def deal(world: World, players: list[PlayerSpec]) -> list[PlayerSpec]:
    """Deal every role and character given as ``DEAL`` from the game's generator.

    Roles are distinct (those the GM assigned are taken out first); characters are
    distinct while the deck lasts, and a second shuffled deck serves a larger table, or,
    with ``table.fill``, that character fills the seats beyond the deck, shuffled in with it.
    """
    n = len(players)
    table = world.rules.table
    practice = world.practice_table()
    lo, hi = table.seats(practice)
    if not lo <= n <= hi:
        more = "" if practice or table.practice_min is None else f" (a practice table of {table.practice_min}+: setting practice_table)"
        raise GameError(f"this ruleset is for {lo}–{hi} players, not {n}{more}")
    # roles the GM assigned are taken out of the deck; assigning one role twice is the GM's
    # call (scenarios and practice tables do it); the lobby checks table.distinct_roles
    taken = {world.rules.role(p.role).id for p in players if p.role != DEAL}
    deck_for_size = table.deck(n)
    if deck_for_size is not None:  # a deal per table size: roles repeat as counted
        pool = _size_deck(world, deck_for_size, n, [world.rules.role(p.role).id for p in players if p.role != DEAL])
    else:
        pool = sorted(r.id for r in world.rules.roles if r.id not in taken)
    world.rng.shuffle(pool)
    wanted = sum(1 for p in players if p.role == DEAL)
    if wanted > len(pool):
        raise GameError("not enough roles to deal")
    chars_taken = [world.rules.character(p.character).id for p in players if p.character not in (None, DEAL)]
    to_deal = sum(1 for p in players if p.character == DEAL)
    deck: list[str] = []
    out = []
    for p in players:
        if p.role == DEAL:
            p = replace(p, role=pool.pop())
        if p.character == DEAL and not world.rules.characters:
            p = replace(p, character=None)  # a ruleset without characters (classic)
        if p.character == DEAL:
            if not deck:
                # a character is in the deck ``copies`` times; the GM's choices are taken out
                full = sorted(c.id for c in world.rules.characters for _ in range(c.copies))
                deck = list(full)
                for cid in chars_taken:
                    if cid in deck:
                        deck.remove(cid)
                deck = deck or full
                if table.fill:  # the seats beyond the deck, shuffled in with it (any seat may get one)
                    deck += [world.rules.character(table.fill).id] * max(0, to_deal - len(deck))
                world.rng.shuffle(deck)
                chars_taken = []
            p = replace(p, character=deck.pop())
            to_deal -= 1
        out.append(p)
    world.sync_rng()
    return out


def _size_deck(world: World, deck: Any, n: int, assigned: list[str]) -> list[str]:
    """The cards of ``deck`` (a role drawn for each of its ``one_of`` lists) filled up to ``n``
    seats with the table's ``fill``, less the roles the GM assigned (a card each; beyond the
    deck's cards, a fill card)."""
    cards = sorted(rid for rid, k in deck.cards.items() for _ in range(k))
    for group in deck.one_of:  # «one of these»: a card drawn from each list, by the game's generator
        cards.append(world.rng.choice(sorted(world.rules.role(rid).id for rid in group)))
    fill = world.rules.table.fill
    if len(cards) > n or (len(cards) < n and not fill):
        raise GameError(f"the deal for up to {deck.upto} seats does not fit {n} players")
    cards += [fill] * (n - len(cards))
    for rid in assigned:
        if rid in cards:
            cards.remove(rid)
        elif fill in cards:
            cards.remove(fill)
    return sorted(cards)


def apply_passive_modifiers(world: World) -> None:
    for p in world.state.players:
        for src in world.sources(p):
            for pas in src.passives:
                if pas.kind == "hidden_bonus":
                    _hidden_bonus(world, p, pas.params)


def _hidden_bonus(world: World, p: Player, params: dict[str, Any]) -> None:
    stat, source = params.get("stat"), "passive"
    if stat is None:  # a bonus whose stat the player picks at the start (Стратег): see choose_bonus
        picks = world.settings.hidden_bonus_choice
        stat, source = picks.get(p.name) or params["choices"][0], "choice"
    p.modifiers.append(Modifier(stat=world.rules.stat(stat).id, amount=int(params["amount"]), source=source, scope=params.get("scope", "all")))
