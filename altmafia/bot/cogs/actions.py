"""/action: submit (or replace) an action, cancel it, and ``me``: what I am and may do now.

Autocomplete offers only what ``Game.legal_actions`` allows this player now: the abilities
(with the ways to use them: one's own, the leader action, an extra action, through a
borrowing ability), then the legal targets of the chosen one, then its options. Choices are
suggestions: the engine checks the submission again and refuses with its message key.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.interact import (
    D,
    N,
    answering,
    as_player,
    deadline_text,
    games_here,
    lang,
    parse_player,
    player_choices,
    player_of,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text.cards import option_label
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game, LegalAction
from storage import Command

SEP = "|"
TARGET_FIELDS = ("target", "target2", "target3")


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


class Actions(commands.GroupCog, group_name=N("action"), group_description=D("action")):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        super().__init__()

    def _game_player(self, interaction: discord.Interaction) -> tuple[Game, int] | None:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return None
        game = self.bot.store.game(gids[0])
        p = player_of(game, interaction.user.id)
        return (game, p.pid) if p else None

    def _actor(self, interaction: discord.Interaction) -> tuple[Game, int] | None:
        """The player whose action is being chosen: mine, or the teammate's named in ``for``."""
        found = self._game_player(interaction)
        if found is None:
            return None
        game, pid = found
        mate = parse_player(game, getattr(interaction.namespace, "for", None))
        return (game, mate) if mate is not None and mate in game.order_targets(pid) else found

    # ---- submit -----------------------------------------------------------------------------
    @app_commands.command(name=N("action.submit"), description=D("action.submit"))
    @app_commands.rename(ability=N("action.submit.ability"), target=N("action.submit.target"), target2=N("action.submit.target2"),
                         target3=N("action.submit.target3"), option=N("action.submit.option"), for_=N("action.submit.for"))
    @app_commands.describe(ability=D("action.submit.ability"), target=D("action.submit.target"), target2=D("action.submit.target2"),
                           target3=D("action.submit.target3"), option=D("action.submit.option"), for_=D("action.submit.for"))
    async def submit(self, interaction: discord.Interaction, ability: str, target: str | None = None, target2: str | None = None,
                     target3: str | None = None, option: str | None = None, for_: str | None = None) -> None:
        await submit_action(self.bot, interaction, ability, [target, target2, target3], option, for_)

    @submit.autocomplete("for_")
    async def for_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._game_player(interaction)
        if found is None:
            return []
        game, pid = found
        return player_choices(game, game.order_targets(pid), current)

    @submit.autocomplete("ability")
    async def ability_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._actor(interaction)
        if found is None:
            return []
        game, pid = found
        lng = lang(interaction)
        cur = current.casefold()
        out = []
        for la in game.legal_actions(pid):
            label = ability_label(game, la, lng)
            if cur and cur not in label.casefold():
                continue
            out.append(app_commands.Choice(name=label, value=ability_value(la)))
        return out[:25]

    def _chosen(self, interaction: discord.Interaction) -> tuple[Any, int, Any] | None:
        """The acting player's game, seat and the legal action named in the ``ability`` field."""
        found = self._actor(interaction)
        if found is None:
            return None
        game, pid = found
        la = find_legal(game, pid, getattr(interaction.namespace, "ability", None))
        return None if la is None else (game, pid, la)

    async def _targets(self, interaction: discord.Interaction, current: str, which: str) -> list[app_commands.Choice[str]]:
        found = self._chosen(interaction)
        if found is None:
            return []
        game, pid, la = found
        need = TARGET_FIELDS.index(which) + 1
        if la.ability.targets < need:
            return []
        chosen = {parse_player(game, getattr(interaction.namespace, k, None)) for k in TARGET_FIELDS if k != which}
        option = getattr(interaction.namespace, "option", None) or None
        return player_choices(game, [t for t in la.targets_for(option) if t not in chosen], current)

    @submit.autocomplete("target")
    async def target_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await self._targets(interaction, current, "target")

    @submit.autocomplete("target2")
    async def target2_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await self._targets(interaction, current, "target2")

    @submit.autocomplete("target3")
    async def target3_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await self._targets(interaction, current, "target3")

    @submit.autocomplete("option")
    async def option_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._chosen(interaction)
        if found is None:
            return []
        game, pid, la = found
        lng = lang(interaction)
        if la.number is not None:  # the engine's range: every number offered is one it accepts
            return [app_commands.Choice(name=v, value=v) for v in la.number.suggestions(current)]
        # the options left for the targets chosen so far (the engine's spent pairs left out)
        chosen = [t for t in (parse_player(game, getattr(interaction.namespace, k, None)) for k in TARGET_FIELDS) if t is not None]
        out = []
        for o in la.options_for(chosen):
            label = option_label(game, lng, o)
            if current and current.casefold() not in f"{o} {label}".casefold():
                continue
            out.append(app_commands.Choice(name=label[:100], value=o))
        return out[:25]

    # ---- cancel -------------------------------------------------------------------------------
    @app_commands.command(name=N("action.cancel"), description=D("action.cancel"))
    @app_commands.rename(which=N("action.cancel.which"))
    @app_commands.describe(which=D("action.cancel.which"))
    async def cancel(self, interaction: discord.Interaction, which: str | None = None) -> None:
        await cancel_action(self.bot, interaction, which)

    @cancel.autocomplete("which")
    async def cancel_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = self._game_player(interaction)
        if found is None:
            return []
        game, pid = found
        r = Renderer(game, lang(interaction))
        return [app_commands.Choice(name=r.ability(i.ability)[:100], value=i.lane) for i in game.pending(pid)][:25]

    # ---- me ---------------------------------------------------------------------------------------
    @app_commands.command(name=N("action.me"), description=D("action.me"))
    async def me(self, interaction: discord.Interaction) -> None:
        found = await as_player(self.bot, interaction)
        if found is None:
            return
        gid, game, p = found
        await reply(interaction, me_text(game, p.pid, lang(interaction), self.bot.store.info(gid)))


async def submit_action(bot: Any, interaction: discord.Interaction, ability: str, targets_given: list[str | None],
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
                        + "\n" + deadline_text(bot.store.info(gid), lng))
            return True
        before = {i.lane for i in game.pending(actor)}
        args: dict[str, Any] = {"pid": actor, "ability": key, "targets": targets, "option": option, "via": via}
        if by is not None:
            args["by"] = by
        cmd = Command("submit", args, user_id=interaction.user.id, request_id=str(interaction.id))
        try:
            applied = await bot.store.apply(gid, cmd)
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        game = bot.store.game(gid)
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
        await reply(interaction, key_text + "\n" + deadline_text(bot.store.info(gid), lng))
        if applied.deliveries:  # what the command itself gave to tell (the scheduler's loop sends the rest)
            await bot.deliverer.flush(gid)
        if game.end_now_requested():  # a riot ends the turn at once
            await bot.scheduler.resolve(gid)
        await bot.scheduler.end_early(gid)  # the ruleset may end the phase once nobody is waited for
        return True


async def cancel_action(bot: Any, interaction: discord.Interaction, which: str | None = None) -> bool:
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
            applied = await bot.store.apply(gid, Command.cancel(p.pid, lane, user_id=interaction.user.id, request_id=str(interaction.id)))
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


def me_text(game: Game, pid: int, lng: str, info: Any) -> str:
    """What a player may know of themselves now (nothing another player's secret reveals)."""
    p = game.player(pid)
    r = Renderer(game, lng)
    lines = [text(lng, "me.title", name=r.player(pid), phase=r.label(game.info.label))]
    role = r.character(p.role) + (f" / {r.character(p.character)}" if p.character else "")
    lines.append(text(lng, "me.role", role=role))
    lines.append(text(lng, "me.stats", stats=", ".join(f"{r.stat(k)} {v}" for k, v in game.visible_stats(p, pid).items()) or "—"))
    known = {s.id: s for s in game.rules.statuses}
    mine = [r.status(sid) for sid in sorted(p.statuses) if sid in known and game.active(p, sid)]
    lines.append(text(lng, "me.statuses", statuses=", ".join(mine) or "—"))
    cooling = game.cooldowns(p)
    cds = [f"{r.ability(k)} → {r.label(game.clock.info(t).label)}" for k, t in cooling.items() if k != "leader"]
    if "leader" in cooling:
        cds.append(text(lng, "me.leader_cd", phase=r.label(game.clock.info(cooling["leader"]).label)))
    lines.append(text(lng, "me.cooldowns", cooldowns="; ".join(cds) or "—"))
    legal = [ability_label(game, la, lng) for la in game.legal_actions(pid)]
    lines.append(text(lng, "me.can", actions="\n".join(f"  • {x}" for x in legal) or "  —"))
    pend = [f"{r.ability(i.ability)} → {', '.join(r.player(t) for t in i.targets) or '—'}" + (f" ({i.option})" if i.option else "")
            for i in game.pending(pid)]
    lines.append(text(lng, "me.pending", pending="; ".join(pend) or "—"))
    if "pm_per_day" in game.mail_quotas(p):  # only a ruleset with PMs (seed 003 has letters)
        left = game.pm_left(p)
        lines.append(text(lng, "me.pm_left", left="∞" if left is None else left))
    choice = game.bonus_choice(p)
    if choice is not None:  # Стратег's hidden bonus: the stat in force, and whether it may still change
        state = "open_chosen" if choice["open"] and choice["chosen"] else "open_default" if choice["open"] else "locked"
        lines.append(text(lng, f"me.bonus_{state}", amount=choice["amount"], stat=r.stat(choice["stat"])))
    factions = [f for f in game.factions_of(pid)]
    if factions:
        lines.append(text(lng, "me.factions", factions="; ".join(
            f"{r.faction(f.fid)}: " + ", ".join(r.player(m) + (" ★" if m == f.leader else "") for m in sorted(f.members)) for f in factions)))
    lines.append(deadline_text(info, lng))
    return "\n".join(lines)


async def setup(bot: Any) -> None:
    await bot.add_cog(Actions(bot))
