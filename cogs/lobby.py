"""/lobby: create a game, join, leave, list the players, start, spectate, end."""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from altmafia.bot import deadlines, lobbies, rulesets, spectators
from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.buttons import GameButton
from altmafia.bot.interact import (
    D,
    N,
    channel_game,
    defer,
    games_here,
    holds_gm_role,
    is_gm,
    lang,
    refuse,
    refuse_here,
    reply,
    seated,
)
from altmafia.bot.living import can_manage_roles
from altmafia.bot.settings import SettingsError, check_timezone
from altmafia.text import safe
from altmafia.text.guide import slash
from altmafia.text.i18n import count, lang_of, text
from config.loader import RulesetFileError


class Lobby(commands.GroupCog, group_name=N("lobby"), group_description=D("lobby")):
    def __init__(self, bot: AltMafiaBot) -> None:
        self.bot = bot
        self.starting: dict[str, asyncio.Lock] = {}  # one start of a lobby at a time
        super().__init__()

    async def lobby_here(self, interaction: discord.Interaction, *, quiet: bool = False,
                         mine: bool = False) -> tuple[str, dict[str, Any]] | None:
        """The lobby of this channel; in a channel of no lobby and no game, the server's only
        lobby. ``mine``: among several of one channel (opened before the one-per-channel rule),
        the newest of the user's own (so that its GM can always end it)."""
        found = await self.bot.store.lobbies.lobbies(interaction.guild_id)
        here = [(k, v) for k, v in found.items() if v["channel_id"] == interaction.channel_id]
        if not here and len(found) == 1 and channel_game(self.bot, interaction) is None:
            here = list(found.items())
        if len(here) > 1 and mine:
            here = [(k, v) for k, v in here if interaction.user.id in v["gms"]][-1:] or here
        if len(here) == 1:
            return here[0]
        if not quiet:
            await refuse(interaction, "err.many_lobbies" if found else "err.no_lobby")
        return None

    async def no_lobby(self, interaction: discord.Interaction, running_key: str) -> None:
        """The refusal of a sign-up move where no lobby is open: the game begun from this channel
        (or whose channel this is) is running (``running_key``, naming it), else no lobby here."""
        store = self.bot.store
        here = channel_game(self.bot, interaction)
        running = [i for i in store.games.games() if i.status == "running" and i.guild_id == interaction.guild_id
                   and (i.game_id == here or i.meta.get("lobby_channel") == interaction.channel_id)]
        if len(running) == 1:
            await refuse(interaction, running_key, title=running[0].meta.get("title", running[0].game_id),
                         spectate=slash(lang(interaction), "lobby", "spectate"))
            return None
        found = await store.lobbies.lobbies(interaction.guild_id)
        await refuse(interaction, "err.many_lobbies" if found else "err.no_lobby")
        return None

    async def change(self, interaction: discord.Interaction, lobby_id: str, fn: Any) -> tuple[dict[str, Any], Any] | None:
        """``fn`` applied to the lobby as committed, in one transaction (``Store.lobbies.update_lobby``):
        ``(lobby, result)``, or None after an ephemeral refusal (``fn`` refused, or the lobby is
        gone: started or ended meanwhile)."""
        try:
            done = await self.bot.store.lobbies.update_lobby(lobby_id, fn)
        except lobbies.LobbyError as exc:
            await refuse(interaction, exc.key, **exc.args_)
            return None
        if done is None:
            await refuse(interaction, "err.no_lobby")
        return done

    # ---- create ---------------------------------------------------------------------------
    @app_commands.command(name=N("lobby.create"), description=D("lobby.create"))
    @app_commands.rename(ruleset=N("lobby.create.ruleset"), days=N("lobby.create.days"), timezone=N("lobby.create.timezone"),
                         language=N("lobby.create.language"), practice=N("lobby.create.practice"))
    @app_commands.describe(ruleset=D("lobby.create.ruleset"), days=D("lobby.create.days"), timezone=D("lobby.create.timezone"),
                           language=D("lobby.create.language"), practice=D("lobby.create.practice"))
    @app_commands.choices(language=[app_commands.Choice(name="русский", value="ru"), app_commands.Choice(name="English", value="en")])
    async def create(self, interaction: discord.Interaction, ruleset: str = "godfather", days: app_commands.Range[int, 1, 60] | None = None,
                     timezone: str | None = None, language: str | None = None, practice: bool = False) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            await refuse(interaction, "err.guild_only")
            return
        try:  # the server's uploads and the shipped rulesets only: no test-only one, no file
            rules, fingerprint = await rulesets.for_lobby(self.bot, interaction.guild_id, ruleset)
        except RulesetFileError as exc:
            await rulesets.refuse_lobby_ruleset(interaction, ruleset, exc, lang(interaction))
            return
        tz = self.bot.settings.tz if timezone is None else timezone.strip()  # an empty one is no zone
        try:
            check_timezone(tz)
        except (SettingsError, OSError):  # OSError: a name too long for a file of the zone database
            await refuse(interaction, "err.bad_timezone", tz=tz)
            return
        if days is not None and not rules.calendar.min_days <= days <= rules.calendar.max_days:
            await refuse(interaction, "err.bad_days", min=rules.calendar.min_days, max=rules.calendar.max_days)
            return
        if practice and rules.table.practice_min is None:
            await refuse(interaction, "err.no_practice_table", ruleset=getattr(rules.names, lang(interaction)))
            return
        game_lang = language or self.bot.settings.lang
        lobby_id, lobby = lobbies.new_lobby(interaction.guild_id, interaction.channel_id, interaction.user.id, rules.id, game_lang, tz, days,
                                            practice, fingerprint)
        # one open lobby per channel: decided by the database in one transaction (two creates
        # at the same instant: one opens, the other is told which one is open)
        other = await self.bot.store.lobbies.create_lobby(lobby_id, lobby, guild_id=interaction.guild_id, channel_id=interaction.channel_id)
        if other is not None:
            await refuse(interaction, "err.lobby_exists", id=other)
            return
        await defer(interaction, ephemeral=False)
        lo, hi = lobbies.seats(rules, lobby)
        body = text(game_lang, "lobby.created", ruleset=getattr(rules.names, game_lang), gm=interaction.user.mention,
                    min=lo, max=hi, default=rules.table.default, id=lobby_id)
        note = lobbies.practice_note(rules, lobby)
        when = "\n".join(deadlines.times_lines(rules, None, tz, game_lang, self.bot.settings.min_phase_minutes))
        body += f"\n{when}\n" + text(game_lang, "lobby.times_hint")
        await reply(interaction, body + (f"\n{note}" if note else ""), ephemeral=False, allowed_mentions=discord.AllowedMentions.none())
        if not interaction.permissions.manage_guild:  # /gm is shown by default to who manages the server (cogs/gm.py)
            await reply(interaction, text(lang(interaction), "start.gm_commands_hidden"))

    @create.autocomplete("ruleset")
    async def ruleset_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await rulesets.choices(self.bot, interaction.guild_id, current, lang(interaction))

    # ---- join / leave / players ------------------------------------------------------------
    @app_commands.command(name=N("lobby.join"), description=D("lobby.join"))
    @app_commands.rename(role=N("lobby.join.role"))
    @app_commands.describe(role=D("lobby.join.role"))
    async def join(self, interaction: discord.Interaction, role: str | None = None) -> None:
        found = await self.lobby_here(interaction, quiet=True)
        if found is None:
            await self.no_lobby(interaction, "err.join_running")
            return
        lobby_id, lobby = found
        uid = interaction.user.id
        if holds_gm_role(self.bot, interaction.user):  # the server's GMs are GMs of every game: they never play
            await refuse(interaction, "err.gm_role_cannot_play")
            return
        rules = await rulesets.of_lobby(self.bot, lobby)
        if role is not None:  # a public role claimed at sign-up: one each, first come
            if not rules.game_settings.claim_roles:
                await refuse(interaction, "err.roles_not_claimed")
                return
            found_role = lobbies.find_role(rules, role, lobby["lang"])
            if found_role is None:
                await refuse(interaction, "err.unknown_role", role=role)
                return
            role = found_role  # whether it is still free is decided in the transaction (sign_up)
        player_lang = lang_of(interaction.locale, lobby["lang"])

        def sign_up(data: dict[str, Any]) -> str:
            """Run on the lobby as committed, in the transaction that writes it."""
            if data.get("starting"):
                raise lobbies.LobbyError("err.lobby_starting")
            if any(p["user_id"] == uid for p in data["players"]):
                raise lobbies.LobbyError("err.already_joined")
            if uid in data["gms"]:
                raise lobbies.LobbyError("err.gm_cannot_play")
            if len(data["players"]) >= rules.table.max:
                raise lobbies.LobbyError("err.lobby_full", max=rules.table.max)
            if role is not None and role not in lobbies.free_roles(rules, data):
                raise lobbies.LobbyError("err.role_taken")
            name = lobbies.unique_name(data, interaction.user.display_name, lobby["lang"])
            entry = {"user_id": uid, "name": name, "lang": player_lang}
            if role is not None:
                entry["role"] = role
            data["players"].append(entry)
            data["spectators"] = [s for s in data["spectators"] if s != uid]
            return name

        done = await self.change(interaction, lobby_id, sign_up)
        if done is None:
            return
        lobby, name = done
        lng = lobby["lang"]
        joined = text(lng, "lobby.joined", name=safe.name(name), count=count(len(lobby["players"]), "player", lng))
        if role is not None:
            joined += "\n" + text(lng, "lobby.role_claimed", name=safe.name(name), role=getattr(rules.role(role).name, lng))
        await reply(interaction, joined, ephemeral=False, allowed_mentions=discord.AllowedMentions.none())

    @join.autocomplete("role")
    async def role_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        found = await self.lobby_here(interaction, quiet=True)
        if found is None:
            return []
        _, lobby = found
        rules = await rulesets.of_lobby(self.bot, lobby)
        lng = lang(interaction)
        out = []
        for rid in lobbies.free_roles(rules, lobby):
            name = getattr(rules.role(rid).name, lng)
            if current.casefold() in f"{rid} {name}".casefold():
                out.append(app_commands.Choice(name=name[:100], value=rid))
        return out[:25]

    @app_commands.command(name=N("lobby.leave"), description=D("lobby.leave"))
    async def leave(self, interaction: discord.Interaction) -> None:
        found = await self.lobby_here(interaction, quiet=True)
        if found is None:
            await self.no_lobby(interaction, "err.leave_running")
            return
        lobby_id, lobby = found
        uid = interaction.user.id

        def drop(data: dict[str, Any]) -> str:
            if data.get("starting"):
                raise lobbies.LobbyError("err.lobby_starting")
            before = (len(data["players"]), len(data["spectators"]))
            # the seat name given at sign-up (a spectator has none: their name normalised)
            seat = next((p["name"] for p in data["players"] if p["user_id"] == uid), None)
            data["players"] = [p for p in data["players"] if p["user_id"] != uid]
            data["spectators"] = [s for s in data["spectators"] if s != uid]
            if before == (len(data["players"]), len(data["spectators"])):
                raise lobbies.LobbyError("err.not_in_lobby")
            return seat or lobbies.unique_name({"lang": data["lang"], "players": []}, interaction.user.display_name)

        done = await self.change(interaction, lobby_id, drop)
        if done is None:
            return
        lobby, name = done
        lng = lobby["lang"]
        await reply(interaction, text(lng, "lobby.left", name=safe.name(name), count=count(len(lobby["players"]), "player", lng)),
                    ephemeral=False, allowed_mentions=discord.AllowedMentions.none())

    @app_commands.command(name=N("lobby.players"), description=D("lobby.players"))
    async def players(self, interaction: discord.Interaction) -> None:
        lng = lang(interaction)
        found = await self.lobby_here(interaction, quiet=True)
        note = None
        if found is not None:
            _, lobby = found
            names = [safe.name(p["name"]) for p in lobby["players"]]
            specs = len(lobby["spectators"])
            rules = await rulesets.of_lobby(self.bot, lobby)
            note = lobbies.practice_note(rules, lobby, lng)
            when = "\n".join(deadlines.times_lines(rules, lobby.get("times"), lobby["tz"], lng, self.bot.settings.min_phase_minutes))
            note = f"{note}\n{when}" if note else when
        else:
            gids = games_here(self.bot, interaction)
            if len(gids) != 1:
                await refuse_here(self.bot, interaction, gids, "err.no_lobby")
                return
            game = self.bot.store.games.game(gids[0])
            names = [safe.name(p.name) + ("" if game.alive(p) else " †") for p in game.state.players]
            specs = len(self.bot.store.games.info(gids[0]).meta.get("spectators", []))
        body = "\n".join(f"{i + 1}. {n}" for i, n in enumerate(names)) or "—"
        listing = text(lng, "lobby.list", count=count(len(names), "player", lng), names=body, spectators=count(specs, "spectator", lng))
        await reply(interaction, listing + (f"\n{note}" if note else ""))

    # ---- the game's times ----------------------------------------------------------------------
    @app_commands.command(name=N("lobby.times"), description=D("lobby.times"))
    @app_commands.rename(ends=N("lobby.times.ends"), day_hours=N("lobby.times.day_hours"), night_hours=N("lobby.times.night_hours"),
                         first=N("lobby.times.first"), min_phase=N("lobby.times.min_phase"), reset=N("lobby.times.reset"))
    @app_commands.describe(ends=D("lobby.times.ends"), day_hours=D("lobby.times.day_hours"), night_hours=D("lobby.times.night_hours"),
                           first=D("lobby.times.first"), min_phase=D("lobby.times.min_phase"), reset=D("lobby.times.reset"))
    async def times(self, interaction: discord.Interaction, ends: str | None = None,
                    day_hours: app_commands.Range[int, 1, 23] | None = None, night_hours: app_commands.Range[int, 1, 23] | None = None,
                    first: str | None = None, min_phase: app_commands.Range[int, 0, 1440] | None = None, reset: bool = False) -> None:
        """The game's own times before its start (the GM); without options: the times shown.
        Defaults: the ruleset's calendar, the lobby's time zone (Moscow unless chosen)."""
        found = await self.lobby_here(interaction, quiet=True)
        if found is None:
            gids = games_here(self.bot, interaction)
            await refuse(interaction, "err.times_started" if gids else "err.no_lobby")
            return
        lobby_id, lobby = found
        rules = await rulesets.of_lobby(self.bot, lobby)
        lng = lang(interaction)
        changes = any(v is not None for v in (ends, day_hours, night_hours, first, min_phase)) or reset
        if changes and not is_gm(self.bot, interaction, lobby["gms"], lobby["players"]):
            await refuse(interaction, "err.not_gm")
            return
        default_min = self.bot.settings.min_phase_minutes
        if changes:
            try:
                own: dict[str, Any] = {} if reset else dict(lobby.get("times") or {})
                cur = deadlines.period_ends(rules, own)
                if ends is not None:
                    cur = deadlines.parse_ends(rules, ends)
                cur = deadlines.with_lengths(rules, cur, day_hours, night_hours)
                if cur != deadlines.period_ends(rules):
                    own["ends"] = cur
                else:
                    own.pop("ends", None)
                if first is not None:
                    own["first"] = deadlines.parse_first(first, lobby["tz"], deadlines.now()).isoformat()
                if min_phase is not None:
                    own["min_phase"] = min_phase
            except deadlines.TimesError as exc:
                await refuse(interaction, exc.key, **exc.args_)
                return

            def put(data: dict[str, Any]) -> None:
                if data.get("starting"):
                    raise lobbies.LobbyError("err.lobby_starting")
                data["times"] = own

            done = await self.change(interaction, lobby_id, put)
            if done is None:
                return
            lobby = done[0]
        lines = deadlines.times_lines(rules, lobby.get("times"), lobby["tz"], lobby["lang"] if changes else lng, default_min)
        if changes:  # the table is told (in the game's language), publicly, where it gathers
            await reply(interaction, text(lobby["lang"], "lobby.times_set", gm=safe.name(interaction.user.display_name)) + "\n" + "\n".join(lines),
                        ephemeral=False, allowed_mentions=discord.AllowedMentions.none())
        else:
            await reply(interaction, "\n".join(lines))

    # ---- the table's options -------------------------------------------------------------------
    @app_commands.command(name=N("lobby.options"), description=D("lobby.options"))
    @app_commands.rename(dead_channel=N("lobby.options.dead_channel"), living_role=N("lobby.options.living_role"),
                         approve_spectators=N("lobby.options.approve_spectators"))
    @app_commands.describe(dead_channel=D("lobby.options.dead_channel"), living_role=D("lobby.options.living_role"),
                           approve_spectators=D("lobby.options.approve_spectators"))
    async def options(self, interaction: discord.Interaction, dead_channel: bool | None = None, living_role: bool | None = None,
                      approve_spectators: bool | None = None) -> None:
        """The GM's choices for the table before the start: a channel for the dead and the
        spectators (where the ruleset lets the dead talk), a server role for the living players,
        spectators only by the GM's approval. Without options: what is chosen."""
        found = await self.lobby_here(interaction, quiet=True)
        if found is None:
            await refuse(interaction, "err.times_started" if games_here(self.bot, interaction) else "err.no_lobby")
            return
        lobby_id, lobby = found
        rules = await rulesets.of_lobby(self.bot, lobby)
        wanted = {k: v for k, v in (("dead_channel", dead_channel), ("living_role", living_role),
                                    ("approve_spectators", approve_spectators)) if v is not None}
        if wanted:
            if not is_gm(self.bot, interaction, lobby["gms"], lobby["players"]):
                await refuse(interaction, "err.not_gm")
                return
            if wanted.get("dead_channel") and not rules.game_settings.dead_talk:
                await refuse(interaction, "err.no_dead_talk", ruleset=getattr(rules.names, lang(interaction)))
                return
            if wanted.get("living_role") and not can_manage_roles(interaction.guild):
                await refuse(interaction, "err.no_manage_roles")
                return

            def put(data: dict[str, Any]) -> None:
                if data.get("starting"):
                    raise lobbies.LobbyError("err.lobby_starting")
                data["options"] = {**(data.get("options") or {}), **wanted}

            done = await self.change(interaction, lobby_id, put)
            if done is None:
                return
            lobby = done[0]
        chosen = lobby.get("options") or {}
        lng = lobby["lang"] if wanted else lang(interaction)
        yes_no = {True: text(lng, "options.on"), False: text(lng, "options.off")}
        lines = [text(lng, f"options.{k}", value=yes_no[bool(chosen.get(k))]) for k in ("dead_channel", "living_role", "approve_spectators")]
        if wanted:
            await reply(interaction, text(lng, "lobby.options_set", gm=safe.name(interaction.user.display_name)) + "\n" + "\n".join(lines),
                        ephemeral=False, allowed_mentions=discord.AllowedMentions.none())
        else:
            await reply(interaction, "\n".join(lines))

    # ---- spectate -----------------------------------------------------------------------------
    @app_commands.command(name=N("lobby.spectate"), description=D("lobby.spectate"))
    async def spectate(self, interaction: discord.Interaction) -> None:
        uid = interaction.user.id
        found = await self.lobby_here(interaction, quiet=True)
        if found is not None:
            lobby_id, lobby = found

            def watch(data: dict[str, Any]) -> str:
                if any(p["user_id"] == uid for p in data["players"]) or uid in data["gms"]:
                    raise lobbies.LobbyError("err.player_cannot_spectate")
                if uid in data["spectators"]:
                    return "already"
                if data.get("starting"):
                    raise lobbies.LobbyError("err.lobby_starting")
                if (data.get("options") or {}).get("approve_spectators"):  # the GM's approval first
                    if uid in data.get("pending_spectators", []):
                        raise lobbies.LobbyError("err.spectator_pending")
                    data["pending_spectators"] = [*data.get("pending_spectators", []), uid]
                    return "asked"
                data["spectators"].append(uid)
                return "added"

            done = await self.change(interaction, lobby_id, watch)
            if done is None:
                return
            if done[1] == "asked":
                await spectators.ask_lobby(interaction, lobby_id, done[0])
                return
            await reply(interaction, text(lang(interaction), "lobby.spectating"))
            return
        infos = [i for i in self.bot.store.games.games() if i.status == "running" and i.guild_id == interaction.guild_id]
        here = games_here(self.bot, interaction)
        gids = here if len(here) == 1 or channel_game(self.bot, interaction) else [i.game_id for i in infos]
        if len(gids) != 1:
            await refuse_here(self.bot, interaction, gids, "err.no_lobby")
            return
        info = self.bot.store.games.info(gids[0])
        if uid in info.gm_user_ids or seated(self.bot, info.game_id, uid):
            await refuse(interaction, "err.player_cannot_spectate")
            return
        if info.meta.get("options", {}).get("approve_spectators") and uid not in info.meta.get("spectators", []):
            if uid in info.meta.get("pending_spectators", []):
                await refuse(interaction, "err.spectator_pending")
                return
            await defer(interaction)
            await spectators.ask_game(self.bot.store, self.bot.deliverer, interaction, gids[0])
            await reply(interaction, text(lang(interaction), "spectate.waiting"))
            return
        await defer(interaction)
        await self.bot.channel_manager.add_spectator(gids[0], uid)
        await reply(interaction, text(lang(interaction), "lobby.spectating"))

    # ---- start / end ----------------------------------------------------------------------------
    @app_commands.command(name=N("lobby.start"), description=D("lobby.start"))
    async def start(self, interaction: discord.Interaction) -> None:
        """Start the game (its GM). Deferred (ephemerally) before the first REST call: the GM
        role's check fetches every player, the start makes every channel. The GM is answered
        privately (with the GM channel), the table publicly where it gathered."""
        found = await self.lobby_here(interaction)
        if found is None:
            return
        lobby_id, lobby = found
        if not is_gm(self.bot, interaction, lobby["gms"], lobby["players"]):
            await refuse(interaction, "err.not_gm")
            return
        lock = self.starting.setdefault(lobby_id, asyncio.Lock())
        if lock.locked():
            await refuse(interaction, "err.lobby_starting")
            return
        await defer(interaction)
        gm_players = await self.gm_role_players(interaction, lobby)
        if gm_players:  # given the GM role after signing up: they leave first, or the role goes
            await refuse(interaction, "err.gm_role_players", names=", ".join(gm_players))
            return
        rules = await rulesets.of_lobby(self.bot, lobby)
        async with lock:

            def begin(data: dict[str, Any]) -> None:
                lobbies.check(data, rules)  # the deal of the lobby as committed now
                data["starting"] = True  # from here on the sign-up is closed

            done = await self.change(interaction, lobby_id, begin)
            if done is None:
                return
            lobby = done[0]
            game_lang = lobby["lang"]

            async def started(gid: str) -> None:
                """The GM and the table told where the game is, while its first posts go out."""
                channels = self.bot.store.games.info(gid).meta["channels"]
                await reply(interaction, text(lang(interaction), "start.done_gm", gm=f"<#{channels['gm']}>"))
                await reply(interaction, text(game_lang, "lobby.started", channel=f"<#{channels['public']}>"), ephemeral=False)

            try:
                await lobbies.start(self.bot, lobby_id, lobby, started)
            except lobbies.LobbyError as exc:  # nothing of it left: the lobby is open again
                await refuse(interaction, exc.key, **exc.args_)
                return

    async def gm_role_players(self, interaction: discord.Interaction, lobby: dict[str, Any]) -> list[str]:
        """The signed-up players who hold the server's GM role now (given it after signing up).
        Without the members intent the bot's cache does not follow role changes: each player is
        fetched (at once, in parallel), only where a GM role is configured."""
        guild = interaction.guild
        if not self.bot.settings.gm_role or guild is None:
            return []

        async def member(uid: int) -> Any:
            try:
                return await guild.fetch_member(uid)
            except discord.HTTPException:  # gone from the server: not a GM either
                return None

        found = await asyncio.gather(*(member(p["user_id"]) for p in lobby["players"]))
        return [p["name"] for p, m in zip(lobby["players"], found, strict=True) if m is not None and holds_gm_role(self.bot, m)]

    @app_commands.command(name=N("lobby.end"), description=D("lobby.end"))
    async def end(self, interaction: discord.Interaction) -> None:
        found = await self.lobby_here(interaction, quiet=True, mine=True)
        lng = lang(interaction)
        if found is not None:
            lobby_id, lobby = found
            if not is_gm(self.bot, interaction, lobby["gms"], lobby["players"]):
                await refuse(interaction, "err.not_gm")
                return
            await self.bot.store.lobbies.delete_lobby(lobby_id)
            await reply(interaction, text(lobby["lang"], "lobby.cancelled"), ephemeral=False)
            return
        gids = games_here(self.bot, interaction)
        if len(gids) != 1:
            await refuse_here(self.bot, interaction, gids, "err.no_lobby")
            return
        await ask_end(self.bot, interaction, gids[0], lng)


async def ask_end(bot: AltMafiaBot, interaction: discord.Interaction, gid: str, lng: str) -> None:
    info = bot.store.games.info(gid)
    if not is_gm(bot, interaction, info.gm_user_ids, info.players):
        await refuse(interaction, "err.not_gm")
        return
    view = discord.ui.View(timeout=600)
    view.add_item(GameButton("end", gid, info.tick, text(lng, "btn.end"), discord.ButtonStyle.danger))
    view.add_item(GameButton("cancel", gid, info.tick, text(lng, "btn.cancel")))
    await reply(interaction, text(lng, "gm.confirm_end"), view=view)


async def setup(bot: AltMafiaBot) -> None:
    await bot.add_cog(Lobby(bot))
