"""Building a game through slash commands, the way people do it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import simcord

NAMES = ["Аня", "Борис", "Вера", "Глеб", "Даша", "Егор", "Жанна", "Зоя", "Илья", "Кира", "Лев", "Маша", "Нина",
         "Олег", "Петя", "Рита"]


@dataclass
class Table:
    env: simcord.Env
    guild: Any
    lobby: Any  # the channel where the lobby was opened
    gm: Any
    players: list[Any]
    spectators: list[Any] = field(default_factory=list)
    others: list[Any] = field(default_factory=list)
    game_id: str | None = None

    @property
    def bot(self) -> Any:
        return self.env.bot

    @property
    def store(self) -> Any:
        return self.env.bot.store

    @property
    def game(self) -> Any:
        return self.store.games.game(self.game_id)

    @property
    def info(self) -> Any:
        return self.store.games.info(self.game_id)

    def channel(self, key: str) -> Any:
        cid = int(self.info.meta["channels"][key])
        found = next((c for c in self.guild.channels.values() if c.id == cid), None)
        if found is None:  # ``guild.channels`` is by name: two games' channels may share names
            from simcord.builders import ChannelHandle

            found = ChannelHandle(self.env, self.guild, self.env.backend.channels[cid])
        return found

    def hidden(self, pid: int) -> Any:
        return self.channel(f"player:{pid}")

    def member(self, pid: int) -> Any:
        uid = self.game.player(pid).user_id
        return next(m for m in self.players if m.id == uid)


async def gather(env: simcord.Env, n: int = 13, *, spectators: int = 1, others: int = 1, days: int | None = None,
                 language: str | None = None, timezone: str | None = None) -> Table:
    guild = env.create_guild("Мафия")
    lobby = guild.create_text_channel("набор")
    gm = guild.add_member(env.create_user("ведущий"))
    players = [guild.add_member(env.create_user(f"p{i}", global_name=NAMES[i])) for i in range(n)]
    specs = [guild.add_member(env.create_user(f"s{i}", global_name=f"Зритель{i}")) for i in range(spectators)]
    outs = [guild.add_member(env.create_user(f"o{i}", global_name=f"Прохожий{i}")) for i in range(others)]
    opts: dict[str, Any] = {}
    if days:
        opts["days"] = days
    if language:
        opts["language"] = language
    if timezone:
        opts["timezone"] = timezone
    r = await gm.slash(lobby, "lobby create", **opts)
    assert r.response is not None and not r.ephemeral, r
    for p in players:
        r = await p.slash(lobby, "lobby join")
        assert r.response is not None and not r.response.ephemeral, r.response
    for s in specs:
        await s.slash(lobby, "lobby spectate")
    return Table(env, guild, lobby, gm, players, specs, outs)


async def start(t: Table) -> Table:
    r = await t.gm.slash(t.lobby, "lobby start")
    assert r.response is not None and "<#" in r.response.content, r
    games = t.store.games.games()
    assert len(games) == 1, games
    t.game_id = games[0].game_id
    return t


async def act(t: Table, pid: int, rnd: Any) -> Any:
    """A player picks an ability, its targets and option through autocomplete, then submits."""
    m, ch = t.member(pid), t.hidden(pid)
    offered = await m.autocomplete(ch, "action submit", "ability", "")
    legal = {(la.via + "|" if la.via else "") + la.key: la for la in t.game.legal_actions(pid)}
    assert {c["value"] for c in offered} == set(list(legal)[:25]), (offered, list(legal))
    if not offered:
        return None
    value = rnd.choice(offered)["value"]
    la = legal[value]
    args: dict[str, Any] = {"ability": value}
    for name in ["target", "target2", "target3"][: la.ability.targets]:
        choices = await m.autocomplete(ch, "action submit", name, "", **args)
        assert choices, (value, name)
        args[name] = rnd.choice(choices)["value"]
    if la.ability.options or la.ability.number:
        choices = await m.autocomplete(ch, "action submit", "option", "", **args)
        if choices:
            args["option"] = rnd.choice(choices)["value"]
        else:
            args["option"] = "1"
    return await m.slash(ch, "action submit", **args)


async def force_resolve(t: Table, label: str = "Resolve") -> Any:
    r = await t.gm.slash(t.channel("gm"), "gm resolve")
    assert r.response is not None and r.response.ephemeral, r
    return await t.gm.click(r.response, label=label)


async def burst(env: simcord.Env, calls: list[tuple[Any, Any, str, dict[str, Any]]]) -> list[Any]:
    """Slash commands of several people at the same instant: every INTERACTION_CREATE is sent
    before the bot handles any (``slash`` one after the other would wait for each). SimCord
    allows one operation at a time, so this is one operation that dispatches many, built the
    way ``MemberActor.slash`` builds each (the locale shim applies)."""
    from simcord import actors as simcord_actors
    from simcord import interactions as simcord_interactions
    from simcord.enums import AppCommandType, InteractionType
    from simcord.results import InteractionResult

    env._begin_operation("slash")
    try:
        records = []
        for actor, channel, name, options in calls:
            actor._check(channel, "view_channel")
            parts = name.split()
            root = simcord_actors._resolve_visible_command(actor, channel.id, parts[0], AppCommandType.CHAT_INPUT)
            leaf, nesting = simcord_interactions.walk_to_subcommand(root, parts[1:])
            leaf_options, resolved = simcord_interactions.build_options(actor, name, leaf, options, channel_id=channel.id)
            data: dict[str, Any] = {"id": root["id"], "name": root["name"], "type": root.get("type", AppCommandType.CHAT_INPUT),
                                    "options": simcord_interactions.nest_options(root, nesting, leaf_options)}
            if resolved:
                data["resolved"] = resolved
            if root.get("guild_id"):
                data["guild_id"] = root["guild_id"]
            record, payload = simcord_interactions.base_payload(
                env.backend, type=InteractionType.APPLICATION_COMMAND, channel_id=channel.id, guild_id=actor.guild.id,
                user_id=actor.id, data=data,
            )
            env._notify_dispatch_observers(record)
            env.backend.emit("INTERACTION_CREATE", payload)
            records.append(record)
        await env._settle_internal(dispatch="INTERACTION_CREATE")
        return [InteractionResult(env, r) for r in records]
    finally:
        env._end_operation()


async def started_with(env: simcord.Env, n: int, *, spectators: int = 1, **options: Any) -> Table:
    """A table of ``n`` whose GM (reading Russian) set ``/lobby options`` (``dead_channel``,
    ``living_role``…) before the start, started."""
    from .conftest import LOCALES

    t = await gather(env, n, spectators=spectators)
    LOCALES[t.gm.id] = "ru"
    r = await t.gm.slash(t.lobby, "lobby options", **options)
    assert not r.response.content.startswith("⛔"), r.response.content
    return await start(t)
