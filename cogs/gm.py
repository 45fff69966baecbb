"""/gm: the game master's tools. Every one answers only the game's GMs (the creator and the
server's GM role), answers ephemerally, and is logged in the GM channel.

resolve (with a confirmation), extend / shorten the phase, pause / resume, status (who has
acted, who is missing, the deadline), preview (a dry run of the resolve on a copy: nothing is
committed), setstat / setstatus / clearstatus, tell (a private word to a player), tasks and
settle (the GM tasks the book leaves open), endday (move the game's last day), end.
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.buttons import GameButton
from altmafia.bot.deadlines import now
from altmafia.bot.interact import (
    C,
    D,
    N,
    as_gm,
    channel_game,
    deadline_text,
    defer,
    games_here,
    is_gm,
    lang,
    parse_player,
    player_choices,
    refuse,
    refuse_engine,
    refuse_here,
    reply,
)
from altmafia.bot.lobbies import settle_seats
from altmafia.bot.notice import dead_intro, tell_privately
from altmafia.text import safe
from altmafia.text.guide import slash
from altmafia.text.i18n import Renderer, count, task_number, text
from engine import ActionError, Game
from storage import Command, Post, UndoRefused

from .lobby import ask_end


def stamp(at: Any) -> str:
    """A moment as every reader's client shows it: the date and time, and how far it is."""
    t = int(at.timestamp())
    return f"<t:{t}:f> (<t:{t}:R>)"


def hours(length: timedelta, lng: str) -> str:
    """«24 часа», «12 hours»: a phase's length in whole hours (minutes when shorter)."""
    mins = round(length.total_seconds() / 60)
    if mins >= 60 and mins % 60 == 0:
        return count(mins // 60, "hour", lng)
    return count(mins, "minute", lng)


class Refused(Exception):
    """A GM command refused on the game as it is when the change is committed."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def preview_text(game: Game, lng: str) -> str:
    """The resolve of the current tick as it would go now, on a copy of the game."""
    dry = game.copy()
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


@app_commands.default_permissions(manage_guild=True)
class Gm(commands.GroupCog, group_name=N("gm"), group_description=D("gm")):
    """The GM's commands. Discord shows ``/gm`` by default only to members who may manage the
    server (``default_member_permissions``); a server's admins open it to their GM role (or to
    everyone) in Server Settings → Integrations. Who may use it is still the bot's own check
    (``interact.is_gm``: the game's GMs and the GM role), whoever Discord shows it to."""

    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        super().__init__()

    def log_post(self, gid: str, interaction: discord.Interaction, key: str, **args: Any) -> Post:
        """The GM channel's log line of this action (staged with the action it belongs to)."""
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")
        return self.bot.deliverer.gm_line(gid, safe.name(interaction.user.display_name), text(glang, key, **args))

    async def log(self, gid: str, interaction: discord.Interaction, key: str, *more: Post, **args: Any) -> None:
        """A GM action that is no engine command: its posts and log line staged together in one
        transaction, keyed by the interaction, then delivered."""
        await self.bot.store.outbox.stage_posts(gid, f"ia:{interaction.id}", [*more, self.log_post(gid, interaction, key, **args)])
        await self.bot.deliverer.flush(gid)

    async def apply(self, interaction: discord.Interaction, gid: str, game: Game, cmd: Command, log: Any = None) -> bool:
        """The command with its GM log line (``log``: a :class:`storage.Post`, or a function of
        the game after the command giving it) staged in the same transaction."""
        def posts(g: Game, _result: Any) -> list[Post]:
            return [log(g) if callable(log) else log] if log is not None else []

        try:
            await self.bot.store.games.apply(gid, cmd, posts=posts)
        except ActionError as err:
            await refuse_engine(interaction, game, err)
            return False
        await self.bot.deliverer.flush(gid)
        return True

    # ---- the phase ---------------------------------------------------------------------------
    @app_commands.command(name=N("gm.resolve"), description=D("gm.resolve"))
    async def resolve(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        info = self.bot.store.games.info(gid)
        r = Renderer(game, lng)
        phase = r.label(game.info.label)
        lines = [text(lng, "gm.confirm_resolve", phase=phase)]
        view = discord.ui.View(timeout=600)
        view.add_item(GameButton("resolve", gid, info.tick, text(lng, "btn.resolve"), discord.ButtonStyle.danger))
        if not info.meta.get("paused"):
            # the next phase's deadline either way: its period's end in the calendar, or its
            # whole length from now; the GM chooses (two buttons) when they differ
            sched = self.bot.scheduler
            calendar = sched.next_deadline(gid, info.tick + 1, hurried=True, full=False)
            full = sched.next_deadline(gid, info.tick + 1, hurried=True, full=True)
            nxt = r.label(game.clock.info(info.tick + 1).label)
            if abs((full - calendar).total_seconds()) < 60:
                lines.append(text(lng, "gm.resolve_next", phase=nxt, deadline=stamp(calendar)))
            else:
                lines.append(text(lng, "gm.resolve_choice", phase=nxt, calendar=stamp(calendar), full=stamp(full),
                                  length=hours(full - now(), lng)))
                view.add_item(GameButton("resolvefull", gid, info.tick, text(lng, "btn.resolve_full"), discord.ButtonStyle.danger))
        view.add_item(GameButton("cancel", gid, info.tick, text(lng, "btn.cancel")))
        await reply(interaction, "\n".join(lines), view=view)

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
        """The deadline moved by ``minutes`` from where it is when the change is committed (two
        GMs extending at once: both count). The same GM's same move in the same phase again
        within ``storage.store.REPEAT_WINDOW`` is taken for a retry (a lost reply) and not
        applied twice: the answer says so and shows the deadline."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        await defer(interaction)

        def target(info: Any) -> tuple[Any, None]:
            if info.meta.get("paused"):
                raise Refused("err.paused")
            dl = info.deadline
            if dl is None:
                raise Refused("err.no_deadline")
            return max(dl + timedelta(minutes=minutes), now() + timedelta(minutes=1)), None

        uid = interaction.user.id
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")

        def notices(info: Any) -> list[Post]:
            stamp = int(info.deadline.timestamp())
            return [self.log_post(gid, interaction, "gm.act_move", minutes=f"{minutes:+d}", deadline=f"<t:{stamp}:f>"),
                    self.bot.deliverer.outgoing(gid, "public", text(glang, "public.deadline_moved",
                                                                    deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))]

        change = await self.deadline_change(interaction, gid, target, key=f"move:{uid}:{minutes:+d}", posts=notices)
        if change is None:
            return
        info = change.info
        if change.duplicate:
            when = int(change.first_at.timestamp())
            await reply(interaction, text(lng, "gm.already_moved", when=f"<t:{when}:R>", deadline=deadline_text(info, lng)))
            return
        self.bot.scheduler.poke()
        await reply(interaction, deadline_text(info, lng))
        await self.bot.deliverer.flush(gid)

    async def deadline_change(self, interaction: discord.Interaction, gid: str, fn: Any, *, key: str | None = None,
                              posts: Any = ()) -> Any:
        """``Store.turns.change_deadline`` (one transaction, under the game's lock, from the game as
        it is then, with its notices ``posts``); None after the ephemeral refusal ``fn`` raised."""
        try:
            return await self.bot.store.turns.change_deadline(gid, fn, user_id=interaction.user.id, key=key, posts=posts)
        except Refused as exc:
            await refuse(interaction, exc.key)
            return None

    @app_commands.command(name=N("gm.pause"), description=D("gm.pause"))
    async def pause(self, interaction: discord.Interaction) -> None:
        """«paused := the rest of this phase», absolute: a repeat finds the game paused and is
        refused, the remaining time is never taken twice."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)

        def to_pause(info: Any) -> tuple[None, Any]:
            if info.meta.get("paused"):
                raise Refused("err.paused")
            dl = info.deadline
            remaining = max(60.0, (dl - now()).total_seconds()) if dl else None
            return None, lambda meta: meta.update(paused={"remaining": remaining, "tick": info.tick})

        change = await self.deadline_change(interaction, gid, to_pause, posts=lambda info: [
            self.log_post(gid, interaction, "gm.act_pause"),
            self.bot.deliverer.outgoing(gid, "public", text(info.meta.get("lang", "ru"), "public.paused"))])
        if change is None:
            return
        await reply(interaction, text(lang(interaction), "gm.paused"))
        await self.bot.deliverer.flush(gid)

    @app_commands.command(name=N("gm.resume"), description=D("gm.resume"))
    async def resume(self, interaction: discord.Interaction) -> None:
        """«paused := none, deadline := now + the rest», absolute: a repeat finds the game
        running and is refused."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)

        def to_resume(info: Any) -> tuple[Any, Any]:
            paused = info.meta.get("paused")
            if not paused:
                raise Refused("err.not_paused")
            remaining = paused.get("remaining") if paused.get("tick") == info.tick else None
            # the rest of the paused phase; a phase resolved meanwhile ends at its calendar time
            at = now() + timedelta(seconds=remaining) if remaining else self.bot.scheduler.next_deadline(gid, info.tick)
            return at, lambda meta: meta.update(paused=None)

        def notices(info: Any) -> list[Post]:
            stamp = int(info.deadline.timestamp())
            return [self.log_post(gid, interaction, "gm.act_resume"),
                    self.bot.deliverer.outgoing(gid, "public", text(info.meta.get("lang", "ru"), "public.resumed",
                                                                    deadline=f"<t:{stamp}:f> (<t:{stamp}:R>)"))]

        change = await self.deadline_change(interaction, gid, to_resume, posts=notices)
        if change is None:
            return
        self.bot.scheduler.poke()
        await reply(interaction, deadline_text(change.info, lang(interaction)))
        await self.bot.deliverer.flush(gid)

    # ---- looking -------------------------------------------------------------------------------
    @app_commands.command(name=N("gm.status"), description=D("gm.status"))
    async def status(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        r = Renderer(game, lng)
        info = self.bot.store.games.info(gid)
        roll = game.phase_roll()  # the engine's answer: every living player in exactly one group
        names = lambda pids: ", ".join(r.player(p) for p in pids) or "—"  # noqa: E731
        lines = [
            text(lng, "gm.status_title", title=info.meta.get("title", gid), phase=r.label(game.info.label), end_day=game.state.end_day),
            deadline_text(info, lng),
            text(lng, "gm.status_acted", names=", ".join(self.submission_entry(r, lng, game, pid, roll.submitted.get(pid, []))
                                                         for pid in roll.done) or "—"),
            text(lng, "gm.status_missing", names=", ".join(self.submission_entry(r, lng, game, pid, roll.submitted.get(pid, []))
                                                           for pid in roll.owed) or "—"),
        ]
        if roll.idle:
            lines.append(text(lng, "gm.status_idle", names=names(roll.idle)))
        if roll.none:
            lines.append(text(lng, "gm.status_none", names=names(roll.none)))
        if game.open_votes():
            lines.append(text(lng, "gm.status_voted", names=names(roll.voted)))
            lines.append(text(lng, "gm.status_not_voted", names=names(roll.not_voted)))
        waiting = self.bot.scheduler.waiting(gid)
        if waiting is not None:  # the ruleset ends a phase early: who it waits for, the Слоупоки
            lines.append(text(lng, "gm.status_waiting", names=names(waiting), slowpokes=names(game.held_up_by_nobody())))
        dead = [r.player(p.pid) for p in game.state.players if not game.alive(p)]
        lines.append(text(lng, "gm.status_out", names=", ".join(dead) or "—"))
        open_tasks = [i for i, t in enumerate(game.state.gm_tasks) if not t.get("settled")]
        lines.append(text(lng, "gm.status_tasks", n=len(open_tasks)))
        await reply(interaction, "\n".join(lines))

    @staticmethod
    def submission_entry(r: Renderer, lng: str, game: Game, pid: int, subs: list[Any]) -> str:
        """«Аня («Проверка» → Даша)»: a player and what they submitted this phase, in words."""
        if not subs:
            if game.turn_done(game.player(pid)):
                return text(lng, "gm.status_entry", player=r.player(pid), what=text(lng, "gm.status_turn_spent"))
            return r.player(pid)
        parts = []
        for i in subs:
            targets = ", ".join(r.player(t) for t in i.targets)
            key = "gm.status_sub" + ("_option" if i.option not in (None, "") else "") + ("" if targets else "_alone")
            parts.append(text(lng, key, ability=r.ability(i.ability), targets=targets, option=r.option(i.option)))
        return text(lng, "gm.status_entry", player=r.player(pid), what="; ".join(parts))

    @app_commands.command(name=N("gm.preview"), description=D("gm.preview"))
    async def preview(self, interaction: discord.Interaction) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)
        body = preview_text(await self.bot.store.games.preview(gid), lang(interaction))  # with the log its rules read
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
        r = Renderer(game, lang(interaction))
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")
        line = self.log_post(gid, interaction, "gm.act_setstat", player=r.player(pid), stat=Renderer(game, glang).stat(sid), value=value)
        if not await self.apply(interaction, gid, game, Command.gm("set_stat", pid=pid, stat=sid, value=value, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id)), log=line):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))

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
        if not on and not game.player(pid).has(sid):  # nothing to clear: said, not «done»
            r = Renderer(game, lang(interaction))
            await refuse(interaction, "err.status_not_held", player=r.player(pid), status=r.status(sid))
            return
        await defer(interaction)
        cmd = (Command.gm("set_status", pid=pid, status=sid, cycles=cycles, user_id=interaction.user.id, request_id=str(interaction.id))
               if on else Command.gm("clear_status", pid=pid, status=sid, user_id=interaction.user.id, request_id=str(interaction.id)))
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")
        r = Renderer(game, glang)
        line = self.log_post(gid, interaction, "gm.act_setstatus" if on else "gm.act_clearstatus", player=r.player(pid), status=r.status(sid))
        if not await self.apply(interaction, gid, game, cmd, log=line):
            return
        await self.bot.channel_manager.sync(gid)
        await reply(interaction, text(lang(interaction), "gm.done"))

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
        line = self.log_post(gid, interaction, "gm.act_tell", player=safe.name(game.player(pid).name), text=safe.said(message))
        if not await self.apply(interaction, gid, game, Command.gm("message", pid=pid, text=message, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id)), log=line):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))

    @app_commands.command(name=N("gm.idle"), description=D("gm.idle"))
    @app_commands.rename(player=N("gm.player"))
    @app_commands.describe(player=D("gm.player"))
    async def idle(self, interaction: discord.Interaction, player: str) -> None:
        """«Если вы ничего не делаете в эту ночь, напишите Мастеру»: the engine's
        ``declare_idle`` (journaled): the phase stops waiting for the player and ends if nobody
        else is waited for. Refused where it has no effect (no early end, dead, not waited for)."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        pid = parse_player(game, player)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return
        await defer(interaction)
        line = self.log_post(gid, interaction, "gm.act_idle", player=safe.name(game.player(pid).name))
        if not await self.apply(interaction, gid, game, Command.declare_idle(pid, user_id=interaction.user.id, request_id=str(interaction.id)),
                                log=line):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.bot.deliverer.flush(gid)
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
            note = f" — {safe.said(settled)}" if isinstance(settled, str) else ""
            lines.append(text(lng, "gm.task_line", mark=mark, n=task_number(i), phase=r.label(game.clock.info(t["tick"]).label), actor=r.player(t["actor"]),
                              ability=r.ability(t["ability"]), targets=", ".join(r.player(x) for x in t["targets"]) or "—",
                              option=r.option(t.get("option")), note=note))
        if any(not t.get("settled") for t in game.state.gm_tasks):
            lines.append(text(lng, "task.settle_hint", settle=slash(lng, "gm", "settle", task="N", note="…")))
        await reply(interaction, "\n".join(lines) or text(lng, "gm.no_tasks"))

    @app_commands.command(name=N("gm.settle"), description=D("gm.settle"))
    @app_commands.rename(task=N("gm.task"), note=N("gm.note"))
    @app_commands.describe(task=D("gm.task"), note=D("gm.note"))
    async def settle(self, interaction: discord.Interaction, task: app_commands.Range[int, 1, 10000], note: str = "") -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        if task > len(game.state.gm_tasks):  # numbered from 1 (text.i18n.task_number)
            await refuse(interaction, "err.unknown_task", n=task)
            return
        await defer(interaction)
        line = self.log_post(gid, interaction, "gm.act_settle", n=task, note=safe.said(note) or "—")
        if not await self.apply(interaction, gid, game, Command.gm("settle_task", index=task - 1, note=note, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id)), log=line):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))

    @app_commands.command(name=N("gm.endday"), description=D("gm.endday"))
    @app_commands.rename(day=N("gm.day"))
    @app_commands.describe(day=D("gm.day"))
    async def endday(self, interaction: discord.Interaction, day: app_commands.Range[int, 1, 365]) -> None:
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        await defer(interaction)
        line = self.log_post(gid, interaction, "gm.act_endday", day=day)
        if not await self.apply(interaction, gid, game, Command.gm("set_end_day", day=day, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id)), log=line):
            return
        await reply(interaction, text(lang(interaction), "gm.done"))

    @app_commands.command(name=N("gm.end"), description=D("gm.end"))
    async def end(self, interaction: discord.Interaction) -> None:
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            await refuse_here(self.bot, interaction, gids)
            return
        await ask_end(self.bot, interaction, gids[0], lang(interaction))

    # ---- people and announcements ------------------------------------------------------------
    @app_commands.command(name=N("gm.say"), description=D("gm.say"))
    @app_commands.rename(where=N("gm.where"), message=N("gm.message"))
    @app_commands.describe(where=D("gm.where"), message=D("gm.message"))
    @app_commands.choices(where=[app_commands.Choice(name=C("gm.where_public"), value="public"),
                                 app_commands.Choice(name=C("gm.where_votes"), value="votes")])
    async def say(self, interaction: discord.Interaction, where: app_commands.Choice[str],
                  message: app_commands.Range[str, 1, 1900]) -> None:
        """An announcement posted by the bot itself in the game's public or vote channel."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, _game = found
        await defer(interaction)
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")
        # the announcement and its log line staged together, keyed by the interaction
        await self.log(gid, interaction, "gm.act_say", self.bot.deliverer.outgoing(gid, where.value, text(glang, "public.gm_says", text=safe.said(message))),
                       where=text(glang, f"gm.where_{where.value}"), text=safe.said(message))
        await reply(interaction, text(lang(interaction), "gm.done"))

    @app_commands.command(name=N("gm.substitute"), description=D("gm.substitute"))
    @app_commands.rename(player=N("gm.player"), member=N("gm.member"), name=N("gm.name"))
    @app_commands.describe(player=D("gm.player"), member=D("gm.member"), name=D("gm.name"))
    async def substitute(self, interaction: discord.Interaction, player: str, member: discord.Member,
                         name: app_commands.Range[str, 1, 32] | None = None) -> None:
        """«Замена»: the seat, with everything it holds, passes to ``member``; the channels
        follow the engine's holders, the role card is posted again, the public is told."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        pid = parse_player(game, player)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return
        info = self.bot.store.games.info(gid)
        if member.bot:
            await refuse(interaction, "err.substitute_bot")
            return
        if member.id in info.gm_user_ids:
            await refuse(interaction, "err.substitute_gm")
            return
        if name is not None:  # a seat name is normalised as at sign-up (lobbies.unique_name)
            wanted, name = name, safe.clean_name(name)
            if not name:
                await refuse(interaction, "err.blank_name", name=safe.name(wanted))
                return
            if any(q.name.casefold() == name.casefold() for q in game.state.players if q.pid != pid):
                await refuse(interaction, "err.name_taken", name=safe.name(name))
                return
        await defer(interaction)
        old = game.player(pid)
        old_name, old_user = old.name, old.user_id
        # built by hand: the engine's own ``user_id`` (the newcomer) is not the command's asker
        cmd = Command("gm_substitute", {"pid": pid, "user_id": member.id, "name": name},
                      user_id=interaction.user.id, request_id=str(interaction.id))
        def line(g: Game) -> Post:
            return self.log_post(gid, interaction, "gm.act_substitute", old=safe.name(old_name), old_user=f"<@{old_user}>" if old_user else "—",
                                 new_user=f"<@{member.id}>", player=safe.name(g.player(pid).name))

        if not await self.apply(interaction, gid, game, cmd, log=line):
            return
        await settle_seats(self.bot, gid)
        await reply(interaction, text(lang(interaction), "gm.done"))
        if old_user:  # they have lost every channel of the game: a DM is where the bot reaches them
            glang = info.meta.get("lang", "ru")
            await tell_privately(self.bot, gid, int(old_user), text(glang, "notice.substituted", title=info.meta.get("title", gid),
                                                                    player=old_name), once=f"substituted:{interaction.id}")

    @app_commands.command(name=N("gm.remove"), description=D("gm.remove"))
    @app_commands.rename(player=N("gm.player"), mode=N("gm.mode"))
    @app_commands.describe(player=D("gm.player"), mode=D("gm.mode"))
    @app_commands.choices(mode=[app_commands.Choice(name=C("gm.mode_modkill"), value="modkill"),
                                app_commands.Choice(name=C("gm.mode_left"), value="left")])
    async def remove(self, interaction: discord.Interaction, player: str, mode: app_commands.Choice[str]) -> None:
        """A «модкилл» or a player gone for good: out of play, counted as dead (engine)."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        pid = parse_player(game, player)
        if pid is None:
            await refuse(interaction, "err.unknown_player", name=player)
            return
        await defer(interaction)
        glang = self.bot.store.games.info(gid).meta.get("lang", "ru")
        line = self.log_post(gid, interaction, "gm.act_remove", player=safe.name(game.player(pid).name), mode=text(glang, f"gm.mode_{mode.value}"))
        if not await self.apply(interaction, gid, game, Command.gm("remove", pid=pid, mode=mode.value, user_id=interaction.user.id,
                                                                   request_id=str(interaction.id)), log=line):
            return
        await self.bot.channel_manager.sync(gid)
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.removed_notice(gid, pid, mode.value)
        await self.bot.scheduler.end_early(gid)

    async def removed_notice(self, gid: str, pid: int, mode: str) -> None:
        """The removed player reads, in their hidden channel (they keep it, as the dead do), that
        the GM took them out and where the dead talk; the channel of the dead its intro."""
        info = self.bot.store.games.info(gid)
        game = self.bot.store.games.game(gid)
        plang = info.meta.get("langs", {}).get(str(pid)) or info.meta.get("lang", "ru")
        dead = info.meta.get("channels", {}).get("dead")
        lines = [text(plang, f"notice.removed_{mode}")]
        lines.append(text(plang, "notice.removed_dead", channel=f"<#{dead}>") if dead else text(plang, "notice.removed_public"))
        uid = game.player(pid).user_id
        await self.bot.deliverer.post(gid, f"player:{pid}", (f"<@{uid}> " if uid else "") + "\n".join(lines), mention=uid or 0,
                                      once=f"removed:{pid}")
        await dead_intro(self.bot.store, self.bot.deliverer, gid)

    @app_commands.command(name=N("gm.spectate"), description=D("gm.spectate"))
    @app_commands.rename(member=N("gm.member"))
    @app_commands.describe(member=D("gm.member"))
    async def spectate(self, interaction: discord.Interaction, member: discord.Member) -> None:
        """The GM makes a member a spectator (no approval asked): they read what spectators read,
        and are told so by DM (the channels are new to them)."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        info = self.bot.store.games.info(gid)
        if member.bot:
            await refuse(interaction, "err.spectate_bot")
            return
        if member.id in info.gm_user_ids or any(p.user_id == member.id for p in game.state.players):
            await refuse(interaction, "err.spectate_player", name=member.display_name)
            return
        if member.id in info.meta.get("spectators", []):
            await refuse(interaction, "err.already_spectator", name=member.display_name)
            return
        await defer(interaction)
        await self.bot.store.meta.update_meta(gid, lambda m: m.update(
            pending_spectators=[u for u in m.get("pending_spectators", []) if u != member.id]))
        await self.bot.channel_manager.add_spectator(gid, member.id)
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_spectate", name=member.display_name)
        glang = info.meta.get("lang", "ru")
        chans = self.bot.store.games.info(gid).meta.get("channels", {})
        await tell_privately(self.bot, gid, member.id, text(glang, "notice.spectating", title=info.meta.get("title", gid),
                                                            public=f"<#{chans.get('public')}>"), once=f"spectate:{interaction.id}")
        await dead_intro(self.bot.store, self.bot.deliverer, gid)

    @app_commands.command(name=N("gm.unspectate"), description=D("gm.unspectate"))
    @app_commands.rename(member=N("gm.member"))
    @app_commands.describe(member=D("gm.member"))
    async def unspectate(self, interaction: discord.Interaction, member: discord.Member) -> None:
        """The GM takes a spectator away: they read none of the game's channels any more."""
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, _game = found
        if member.id not in self.bot.store.games.info(gid).meta.get("spectators", []):
            await refuse(interaction, "err.not_spectator", name=safe.name(member.display_name))
            return
        await defer(interaction)
        await self.bot.channel_manager.remove_spectator(gid, member.id)
        await reply(interaction, text(lang(interaction), "gm.done"))
        await self.log(gid, interaction, "gm.act_unspectate", name=safe.name(member.display_name))
        info = self.bot.store.games.info(gid)
        await tell_privately(self.bot, gid, member.id, text(info.meta.get("lang", "ru"), "notice.unspectated",
                                                            title=info.meta.get("title", gid)), once=f"unspectate:{interaction.id}")

    @app_commands.command(name=N("gm.undo"), description=D("gm.undo"))
    async def undo(self, interaction: discord.Interaction) -> None:
        """Take back the last resolve (a confirmation first): refused once anything happened
        since (a submission, a vote, a PM…) or the game is over (altmafia/bot/undo.py). Only
        one step back: after an undo, the refusal says which resolve it took back."""
        here = channel_game(self.bot, interaction)
        if here is not None and not games_here(self.bot, interaction):  # this channel's game is over
            info = self.bot.store.games.info(here) if self.bot.store.games.has(here) else await self.bot.store.games.find(here)
            if info is not None and is_gm(self.bot, interaction, info.gm_user_ids, info.players):
                await refuse(interaction, "err.undo_over")
                return
        found = await as_gm(self.bot, interaction)
        if found is None:
            return
        gid, game = found
        lng = lang(interaction)
        try:
            target = await self.bot.store.turns.undo_target(gid)
        except UndoRefused as exc:
            undone = await self.last_undone(gid) if exc.key in ("err.undo_nothing", "err.undo_moved_on") else None
            if undone is not None:
                await refuse(interaction, "err.undo_again", phase=Renderer(game, lng).label(game.clock.info(undone).label))
                return
            await refuse(interaction, exc.key)
            return
        info = self.bot.store.games.info(gid)
        view = discord.ui.View(timeout=600)
        view.add_item(GameButton("undo", gid, info.tick, text(lng, "btn.undo"), discord.ButtonStyle.danger))
        view.add_item(GameButton("cancel", gid, info.tick, text(lng, "btn.cancel")))
        r = Renderer(game, lng)
        await reply(interaction, text(lng, "gm.confirm_undo", phase=r.label(game.clock.info(target["tick"]).label),
                                      now=r.label(game.info.label)), view=view)

    async def last_undone(self, gid: str) -> int | None:
        """The tick of the resolve the last undo took back, when nothing but deadline moves
        came after that undo (a second undo in a row); None otherwise."""
        journal = await self.bot.store.games.journal(gid)
        last = next((e for e in reversed(journal) if e["kind"] != "deadline"), None)
        if last is None or last["kind"] != "undo":
            return None
        seq = last["args"].get("resolve_seq")
        resolved = next((e for e in journal if e.get("seq") == seq), None)
        return resolved.get("tick") if resolved else None

    # ---- autocomplete ---------------------------------------------------------------------------
    def _game(self, interaction: discord.Interaction) -> Game | None:
        gids = games_here(self.bot, interaction)
        return self.bot.store.games.game(gids[0]) if len(gids) == 1 else None

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
    substitute.autocomplete("player")(any_player)
    remove.autocomplete("player")(any_player)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Gm(bot))
