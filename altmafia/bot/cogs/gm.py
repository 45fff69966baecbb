"""/gm: the game master's tools. Every one answers only the game's GMs (the creator and the
server's GM role), answers ephemerally, and is logged in the GM channel.

resolve (with a confirmation), extend / shorten the phase, pause / resume, status (who has
acted, who is missing, the deadline), preview (a dry run of the resolve on a copy: nothing is
committed), setstat / setstatus / clearstatus, tell (a private word to a player), tasks and
settle (the GM tasks the book leaves open), endday (move the game's last day), end.
"""

from __future__ import annotations

import copy
import io
from datetime import timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.buttons import GameButton
from altmafia.bot.deadlines import now
from altmafia.bot.interact import (
    D,
    N,
    as_gm,
    deadline_text,
    defer,
    games_here,
    lang,
    parse_player,
    player_choices,
    refuse,
    refuse_engine,
    reply,
)
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game
from storage import Command

from .lobby import ask_end


def preview_text(game: Game, lng: str) -> str:
    """The resolve of the current tick as it would go now, on a copy of the game."""
    dry = Game(game.rules, copy.deepcopy(game.state))
    events = dry.resolve()
    r = Renderer(dry, lng)
    lines = [text(lng, "gm.preview_title", phase=r.label(game.info.label))]
    for ev in events:
        if ev.audience == "players":
            who = ", ".join(r.player(i) for i in ev.ids)
        elif ev.audience == "faction":
            who = text(lng, "reveal.tag_faction", fid=", ".join(r.faction(i) for i in ev.ids))
        else:
            who = text(lng, "reveal.tag_public" if ev.audience == "public" else "reveal.tag_gm")
        lines.append(f"[{who}] {r.event(ev)}")
    if dry.state.over:
        lines.append(text(lng, "gm.preview_over", winners=", ".join(r.player(w) for w in dry.state.winner or []) or "—"))
    return "\n".join(lines)


class Gm(commands.GroupCog, group_name=N("gm"), group_description=D("gm")):
    def __init__(self, bot: Any) -> None:
        self.bot = bot
        super().__init__()

    async def log(self, gid: str, interaction: discord.Interaction, key: str, **args: Any) -> None:
        glang = self.bot.store.info(gid).meta.get("lang", "ru")
        await self.bot.gm_log(gid, interaction, text(glang, key, **args))

    async def apply(self, interaction: discord.Interaction, gid: str, game: Game, cmd: Command) -> bool:
        try:
            await self.bot.store.apply(gid, cmd)
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        return True

    # ---- the phase ---------------------------------------------------------------------------
    @app_commands.command(name=N("gm.resolve"), description=D("gm.resolve"))
    async def resolve(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        info = self.bot.store.info(gid)
        view = discord.ui.View(timeout=600)
        view.add_item(GameButton("resolve", gid, info.tick, text(lng, "btn.resolve"), discord.ButtonStyle.danger))
        view.add_item(GameButton("cancel", gid, info.tick, text(lng, "btn.cancel")))
        phase = Renderer(game, lng).label(game.info.label)
        await reply(interaction, text(lng, "gm.confirm_resolve", phase=phase), view=view)

    @app_commands.command(name=N("gm.extend"), description=D("gm.extend"))
    @app_commands.rename(minutes=N("gm.minutes"))
    @app_commands.describe(minutes=D("gm.minutes"))
    async def extend(self, interaction: discord.Interaction, minutes: app_commands.Range[int, 1, 10080]) -> None:
        await self.move(interaction, minutes)

    @app_commands.command(name=N("gm.shorten"), description=D("gm.shorten"))
    @app_commands.rename(minutes=N("gm.minutes"))
    @app_commands.describe(minutes=D("gm.minutes"))
    async def shorten(self, interaction: discord.Interaction, minutes: app_commands.Range[int, 1, 10080]) -> None:
        await self.move(interaction, -minutes)

    async def move(self, interaction: discord.Interaction, minutes: int) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        info = self.bot.store.info(gid)
        lng = lang(interaction)
        if info.meta.get("paused"):
            await refuse(interaction, "err.paused")
            return
        dl = info.deadline
        if dl is None:
            await refuse(interaction, "err.no_deadline")
            return
        await defer(interaction)
        new = max(dl + timedelta(minutes=minutes), now() + timedelta(minutes=1))
        await self.bot.store.set_deadline(gid, new, user_id=interaction.user.id)
        self.bot.scheduler.poke()
        info = self.bot.store.info(gid)
        await reply(interaction, deadline_text(info, lng))
        stamp = int(new.timestamp())
        await self.log(gid, interaction, "gm.act_move", minutes=f"{minutes:+d}", deadline=f"<t:{stamp}:f>")
        glang = info.meta.get("lang", "ru")
        await self.bot.deliverer.post(gid, "public", text(glang, "public.deadline_moved", deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))

    @app_commands.command(name=N("gm.pause"), description=D("gm.pause"))
    async def pause(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        info = self.bot.store.info(gid)
        if info.meta.get("paused"):
            await refuse(interaction, "err.paused")
            return
        await defer(interaction)
        dl = info.deadline
        remaining = max(60.0, (dl - now()).total_seconds()) if dl else None
        meta = dict(info.meta)
        meta["paused"] = {"remaining": remaining, "tick": info.tick}
        await self.bot.store.set_meta(gid, meta)
        await self.bot.store.set_deadline(gid, None, user_id=interaction.user.id)
        await reply(interaction, text(lang(interaction), "gm.paused"))
        await self.log(gid, interaction, "gm.act_pause")
        await self.bot.deliverer.post(gid, "public", text(meta.get("lang", "ru"), "public.paused"))

    @app_commands.command(name=N("gm.resume"), description=D("gm.resume"))
    async def resume(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        info = self.bot.store.info(gid)
        paused = info.meta.get("paused")
        if not paused:
            await refuse(interaction, "err.not_paused")
            return
        await defer(interaction)
        remaining = paused.get("remaining") if paused.get("tick") == info.tick else None
        # the rest of the paused phase; a phase resolved meanwhile ends at its calendar time
        at = now() + timedelta(seconds=remaining) if remaining else self.bot.scheduler.next_deadline(gid, info.tick)
        meta = dict(info.meta)
        meta["paused"] = None
        await self.bot.store.set_meta(gid, meta)
        await self.bot.store.set_deadline(gid, at, user_id=interaction.user.id)
        self.bot.scheduler.poke()
        info = self.bot.store.info(gid)
        await reply(interaction, deadline_text(info, lang(interaction)))
        await self.log(gid, interaction, "gm.act_resume")
        stamp = int(at.timestamp())
        await self.bot.deliverer.post(gid, "public", text(meta.get("lang", "ru"), "public.resumed", deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))

    # ---- looking -------------------------------------------------------------------------------
    @app_commands.command(name=N("gm.status"), description=D("gm.status"))
    async def status(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        r = Renderer(game, lng)
        info = self.bot.store.info(gid)
        missing_act, missing_vote = self.bot.scheduler.missing(game)
        acted = sorted({i.pid for i in game.state.intents if i.tick == game.state.tick}
                       | {p.pid for p in game.state.players if "action" in p.spent.get(game.info.turn, [])})
        lines = [
            text(lng, "gm.status_title", title=info.meta.get("title", gid), phase=r.label(game.info.label), end_day=game.state.end_day),
            deadline_text(info, lng),
            text(lng, "gm.status_acted", names=", ".join(r.player(p) for p in acted) or "—"),
            text(lng, "gm.status_missing", names=", ".join(r.player(p) for p in missing_act) or "—"),
        ]
        if game.open_votes():
            voted = sorted({v.pid for v in game.state.votes})
            lines.append(text(lng, "gm.status_voted", names=", ".join(r.player(p) for p in voted) or "—"))
            lines.append(text(lng, "gm.status_not_voted", names=", ".join(r.player(p) for p in missing_vote) or "—"))
        waiting = self.bot.scheduler.waiting(gid)
        if waiting is not None:  # the ruleset ends a phase early: who it waits for, the Слоупоки
            slow = [p.pid for p in game.living() if game.active(p, game.state.settings.get("slowpoke_status", "slowpoke"))]
            lines.append(text(lng, "gm.status_waiting", names=", ".join(r.player(p) for p in waiting) or "—",
                              slowpokes=", ".join(r.player(p) for p in slow) or "—"))
        dead = [p.name for p in game.state.players if not game.alive(p)]
        lines.append(text(lng, "gm.status_out", names=", ".join(dead) or "—"))
        open_tasks = [i for i, t in enumerate(game.state.gm_tasks) if not t.get("settled")]
        lines.append(text(lng, "gm.status_tasks", n=len(open_tasks)))
        await reply(interaction, "\n".join(lines))

    @app_commands.command(name=N("gm.preview"), description=D("gm.preview"))
    async def preview(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)
        body = preview_text(game, lang(interaction))
        if len(body) > 1900:
            await reply(interaction, text(lang(interaction), "gm.preview_file"),
                        file=discord.File(io.BytesIO(body.encode("utf-8")), filename="preview.txt"))
        else:
            await reply(interaction, body)
        await self.log(gid, interaction, "gm.act_preview")

    # ---- changing the game ------------------------------------------------------------------------
    @app_commands.command(name=N("gm.setstat"), description=D("gm.setstat"))
    @app_commands.rename(player=N("gm.player"), stat=N("gm.stat"), value=N("gm.value"))
    @app_commands.describe(player=D("gm.player"), stat=D("gm.stat"), value=D("gm.value"))
    async def setstat(self, interaction: discord.Interaction, player: str, stat: str, value: int) -> None:
        found = await self.gm_target(interaction, player, "stat", stat)
        if found is None:
            return
        gid, game, pid, sid = found
        await defer(interaction)
        if not await self.apply(interaction, gid, game, Command.gm("set_stat", pid=pid, stat=sid, value=value, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id))):
            return
        r = Renderer(game, lang(interaction))
        await reply(interaction, text(lang(interaction), "gm.done"))
        glang = self.bot.store.info(gid).meta.get("lang", "ru")
        await self.log(gid, interaction, "gm.act_setstat", player=r.player(pid), stat=Renderer(game, glang).stat(sid), value=value)

    @app_commands.command(name=N("gm.setstatus"), description=D("gm.setstatus"))
    @app_commands.rename(player=N("gm.player"), status=N("gm.status_arg"), cycles=N("gm.cycles"))
    @app_commands.describe(player=D("gm.player"), status=D("gm.status_arg"), cycles=D("gm.cycles"))
    async def setstatus(self, interaction: discord.Interaction, player: str, status: str,
                        cycles: app_commands.Range[int, 1, 60] | None = None) -> None:
        await self.status_op(interaction, player, status, True, cycles)

    @app_commands.command(name=N("gm.clearstatus"), description=D("gm.clearstatus"))
    @app_commands.rename(player=N("gm.player"), status=N("gm.status_arg"))
    @app_commands.describe(player=D("gm.player"), status=D("gm.status_arg"))
    async def clearstatus(self, interaction: discord.Interaction, player: str, status: str) -> None:
        await self.status_op(interaction, player, status, False, None)

    async def gm_target(self, interaction: discord.Interaction, player: str, kind: str, ref: str) -> tuple[str, Any, int, str] | None:
        """The GM's game, the named player and a stat or status of the ruleset (``kind``), or
        None once the refusal has been answered."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return None
        gid, game = found
        pid = parse_player(game, player)
        try:
            ident = getattr(game.rules, kind)(ref).id
        except KeyError:
            await refuse(interaction, f"err.unknown_{kind}", **{kind: ref})
            return None
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return None
        return gid, game, pid, ident

    async def status_op(self, interaction: discord.Interaction, player: str, status: str, on: bool, cycles: int | None) -> None:
        found = await self.gm_target(interaction, player, "status", status)
        if found is None:
            return
        gid, game, pid, sid = found
        await defer(interaction)
        cmd = (Command.gm("set_status", pid=pid, status=sid, cycles=cycles, user_id=interaction.user.id, request_id=str(interaction.id))
               if on else Command.gm("clear_status", pid=pid, status=sid, user_id=interaction.user.id, request_id=str(interaction.id)))
        if not await self.apply(interaction, gid, game, cmd):
            return
        await self.bot.channel_manager.sync(gid)
        await reply(interaction, text(lang(interaction), "gm.done"))
        glang = self.bot.store.info(gid).meta.get("lang", "ru")
        r = Renderer(game, glang)
        await self.log(gid, interaction, "gm.act_setstatus" if on else "gm.act_clearstatus", player=r.player(pid), status=r.status(sid))

    @app_commands.command(name=N("gm.tell"), description=D("gm.tell"))
    @app_commands.rename(player=N("gm.player"), message=N("gm.message"))
    @app_commands.describe(player=D("gm.player"), message=D("gm.message"))
    async def tell(self, interaction: discord.Interaction, player: str, message: app_commands.Range[str, 1, 1500]) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        pid = parse_player(game, player)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return
        await defer(interaction)
        if not await self.apply(interaction, gid, game, Command.gm("message", pid=pid, text=message, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id))):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_tell", player=game.player(pid).name, text=message)

    @app_commands.command(name=N("gm.idle"), description=D("gm.idle"))
    @app_commands.rename(player=N("gm.player"))
    @app_commands.describe(player=D("gm.player"))
    async def idle(self, interaction: discord.Interaction, player: str) -> None:
        """«Если вы ничего не делаете в эту ночь, напишите Мастеру»: the phase stops waiting for
        the player (``meta.declared``), and ends if nobody else is waited for."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        pid = parse_player(game, player)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return
        await defer(interaction)
        info = self.bot.store.info(gid)
        meta = dict(info.meta)
        declared = {k: list(v) for k, v in meta.get("declared", {}).items() if int(k) >= info.tick}
        declared[str(info.tick)] = sorted({*declared.get(str(info.tick), []), pid})
        meta["declared"] = declared
        await self.bot.store.set_meta(gid, meta)
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_idle", player=game.player(pid).name)
        await self.bot.scheduler.end_early(gid)

    @app_commands.command(name=N("gm.tasks"), description=D("gm.tasks"))
    async def tasks(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        r = Renderer(game, lng)
        lines = []
        for i, t in enumerate(game.state.gm_tasks):
            mark = "✅" if t.get("settled") else "⏳"
            settled = t.get("settled")
            note = f" — {settled}" if isinstance(settled, str) else ""
            lines.append(text(lng, "gm.task_line", mark=mark, n=i, phase=r.label(game.clock.info(t["tick"]).label), actor=r.player(t["actor"]),
                              ability=r.ability(t["ability"]), targets=", ".join(r.player(x) for x in t["targets"]) or "—",
                              option=t.get("option") or "", note=note))
        await reply(interaction, "\n".join(lines) or text(lng, "gm.no_tasks"))

    @app_commands.command(name=N("gm.settle"), description=D("gm.settle"))
    @app_commands.rename(task=N("gm.task"), note=N("gm.note"))
    @app_commands.describe(task=D("gm.task"), note=D("gm.note"))
    async def settle(self, interaction: discord.Interaction, task: app_commands.Range[int, 0, 10000], note: str = "") -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        if task >= len(game.state.gm_tasks):
            await refuse(interaction, "err.unknown_task", n=task)
            return
        await defer(interaction)
        if not await self.apply(interaction, gid, game, Command.gm("settle_task", index=task, note=note, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id))):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_settle", n=task, note=note or "—")

    @app_commands.command(name=N("gm.endday"), description=D("gm.endday"))
    @app_commands.rename(day=N("gm.day"))
    @app_commands.describe(day=D("gm.day"))
    async def endday(self, interaction: discord.Interaction, day: app_commands.Range[int, 1, 365]) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)
        if not await self.apply(interaction, gid, game, Command.gm("set_end_day", day=day, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id))):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_endday", day=day)

    @app_commands.command(name=N("gm.end"), description=D("gm.end"))
    async def end(self, interaction: discord.Interaction) -> None:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            await refuse(interaction, "err.no_game" if not gids else "err.many_games")
            return
        await ask_end(self.bot, interaction, gids[0], lang(interaction))

    # ---- autocomplete ---------------------------------------------------------------------------
    def _game(self, interaction: discord.Interaction) -> Game | None:
        gids = games_here(self.bot, interaction)
        return self.bot.store.game(gids[0]) if len(gids) == 1 else None

    async def any_player(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = self._game(interaction)
        return player_choices(game, [p.pid for p in game.state.players], current) if game else []

    async def stat_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = self._game(interaction)
        if game is None:
            return []
        lng = lang(interaction)
        return [app_commands.Choice(name=f"{getattr(s.abbr, lng)} — {getattr(s.names, lng)}"[:100], value=s.id) for s in game.rules.stats
                if current.casefold() in f"{s.id} {getattr(s.abbr, lng)} {getattr(s.names, lng)}".casefold()][:25]

    async def status_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        game = self._game(interaction)
        if game is None:
            return []
        lng = lang(interaction)
        return [app_commands.Choice(name=getattr(s.names, lng)[:100], value=s.id) for s in game.rules.statuses
                if current.casefold() in f"{s.id} {getattr(s.names, lng)}".casefold()][:25]

    setstat.autocomplete("player")(any_player)
    setstat.autocomplete("stat")(stat_ac)
    setstatus.autocomplete("player")(any_player)
    setstatus.autocomplete("status")(status_ac)
    clearstatus.autocomplete("player")(any_player)
    clearstatus.autocomplete("status")(status_ac)
    tell.autocomplete("player")(any_player)
    idle.autocomplete("player")(any_player)


async def setup(bot: Any) -> None:
    await bot.add_cog(Gm(bot))
