"""A player's moves, whatever control asks (``/action``, the action panel): submit (or
replace) an action, cancel it, and the labels and values of a legal action (``Game.legal_actions``)
that the command's autocomplete and the panel offer. The engine checks every submission and
refuses with its message key.
"""

from __future__ import annotations

from typing import Any

import discord

from altmafia.bot.interact import (
    answering,
    as_player,
    deadline_text,
    lang,
    parse_player,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text.cards import option_label
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game, LegalAction
from storage import Command

from .services import Services

SEP = "|"


def ability_value(la: LegalAction) -> str:
    return f"{la.via}{SEP}{la.key}" if la.via else la.key


def parse_ability(value: str) -> tuple[str | None, str]:
    if SEP in value:
        via, key = value.split(SEP, 1)
        return via, key
    return None, value


def ability_label(game: Game, la: LegalAction, lng: str) -> str:
    r = Renderer(game, lng)
    slot = getattr(game.rules.slot(la.ability.slot).names, lng)
    label = f"{r.ability(la.key)} — {slot}"
    if la.via == "leader":
        label += text(lng, "action.via_leader")
    elif la.via == "extra":
        label += text(lng, "action.via_extra")
    elif la.via:
        label += text(lng, "action.via_borrow", ability=r.ability(la.via))
    return label[:100]


def find_legal(game: Game, pid: int, value: str | None) -> LegalAction | None:
    if not value:
        return None
    via, key = parse_ability(value)
    for la in game.legal_actions(pid):
        if la.key == key and la.via == via:
            return la
    return None


async def submit_action(bot: Services, interaction: discord.Interaction, ability: str, targets_given: list[str | None],
                        option: str | None = None, for_: str | None = None) -> bool:
    """Submit (or replace) an action as ``/action submit`` does, whatever control asked (the
    slash command, the panel): the same engine command, the same answers. True if accepted."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    lng = lang(interaction)
    actor, by = p.pid, None
    if for_ is not None:  # a teammate's order (the engine checks the team and the rules)
        mate = parse_player(game, for_)
        if mate is None:
            await refuse(interaction, "err.unknown_player", name=for_)
            return False
        if mate != p.pid:
            actor, by = mate, p.pid
    via, key = parse_ability(ability)
    targets = []
    for t in targets_given:
        if t is None:
            continue
        pid = parse_player(game, t)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=t)
            return False
        targets.append(pid)
    async with answering(interaction):  # no deferral unless the work takes long
        # a retry after a lost reply (Discord never re-sends an interaction: the retry is a new
        # one): the same submission already recorded is answered with what is recorded
        same = game.same_submission(actor, key, targets, option, via, by)
        if same is not None:
            r = Renderer(game, lng)
            opt = f" ({option_label(game, lng, option)})" if option else ""
            # an ability that takes no target reads without «→ —»
            await reply(interaction, text(lng, "action.already" + ("" if targets else "_alone"), ability=r.ability(same.ability),
                                          targets=", ".join(r.player(t) for t in targets) or "—", option=opt)
                        + "\n" + deadline_text(bot.store.games.info(gid), lng))
            return True
        before = {i.lane for i in game.pending(actor)}
        args: dict[str, Any] = {"pid": actor, "ability": key, "targets": targets, "option": option, "via": via}
        if by is not None:
            args["by"] = by
        cmd = Command("submit", args, user_id=interaction.user.id, request_id=str(interaction.id))
        try:
            applied = await bot.store.games.apply(gid, cmd)
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        game = bot.store.games.game(gid)
        r = Renderer(game, lng)
        lane = (applied.result or {}).get("lane", "action")
        ability_key = (applied.result or {}).get("ability", key)
        names = ", ".join(r.player(t) for t in targets) or "—"
        opt = f" ({option_label(game, lng, option)})" if option else ""
        key_text = text(lng, ("action.replaced" if lane in before else "action.accepted") + ("" if targets else "_alone"),
                        ability=r.ability(ability_key), targets=names,
                        option=opt)
        if by is not None:
            key_text = text(lng, "action.for_teammate", player=r.player(actor)) + " " + key_text
        await reply(interaction, key_text + "\n" + deadline_text(bot.store.games.info(gid), lng))
        if applied.deliveries:  # what the command itself gave to tell (the scheduler's loop sends the rest)
            await bot.deliverer.flush(gid)
        if game.end_now_requested():  # a riot ends the turn at once
            await bot.scheduler.resolve(gid)
        await bot.scheduler.end_early(gid)  # the ruleset may end the phase once nobody is waited for
        return True


async def cancel_action(bot: Services, interaction: discord.Interaction, which: str | None = None) -> bool:
    """Take a submitted action back as ``/action cancel`` does, whatever control asked."""
    found = await as_player(bot, interaction)
    if found is None:
        return False
    gid, game, p = found
    lng = lang(interaction)
    lane = which or "action"
    mine = next((i for i in game.pending(p.pid) if i.lane == lane), None)
    if mine is None:
        await refuse(interaction, "err.nothing_to_cancel")
        return False
    async with answering(interaction):  # no deferral unless the work takes long
        try:
            applied = await bot.store.games.apply(gid, Command.cancel(p.pid, lane, user_id=interaction.user.id, request_id=str(interaction.id)))
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        await reply(interaction, text(lng, "action.cancelled" if applied.result else "action.not_cancelled"))
    if applied.result:  # an ability used in the open is taken back in public (an engine event)
        await bot.deliverer.flush(gid)
    return bool(applied.result)


def number_values(game: Game, la: LegalAction) -> list[str]:
    """The numbers an ability's option may take now: the one place the bot reads a number's
    range (the autocomplete and the panel)."""
    return la.number.suggestions("") if la.number is not None else []
