"""/action: submit (or replace) an action, cancel it, and ``me``: what I am and may do now.

Autocomplete offers only what ``Game.legal_actions`` allows this player now: the abilities
(with the ways to use them: one's own, the leader action, an extra action, through a
borrowing ability), then the legal targets of the chosen one, then its options. Choices are
suggestions: the engine checks the submission again and refuses with its message key.
Submitting and cancelling are :mod:`altmafia.bot.moves`' (the panel's too).
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import (
    D,
    N,
    as_player,
    deadline_text,
    games_here,
    lang,
    parse_player,
    player_choices,
    player_of,
    reply,
)
from altmafia.bot.moves import (
    ability_label,
    ability_value,
    cancel_action,
    find_legal,
    submit_action,
)
from altmafia.text.cards import option_label
from altmafia.text.i18n import Renderer, text
from engine import Game

TARGET_FIELDS = ("target", "target2", "target3")


class Actions(commands.GroupCog, group_name=N("action"), group_description=D("action")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    def _game_player(self, interaction: discord.Interaction) -> tuple[Game, int] | None:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            return None
        game = self.bot.store.games.game(gids[0])
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
        await reply(interaction, me_text(game, p.pid, lang(interaction), self.bot.store.games.info(gid)))


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


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Actions(bot))
