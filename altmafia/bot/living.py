"""The server role of a game's living players (the GM's lobby option ``living_role``).

Created with the game's channels (it needs the bot's Manage Roles right: the lobby option is
refused without it, and a role that cannot be made is said in the GM channel), given to every
living seat's holder and taken away at a death, a removal or a substitution (the seat's old
holder), at every channel sync (:meth:`ChannelManager.sync` calls :func:`sync_living_role`);
who is living is the engine's answer (``Game.alive``). The role is mentioned when a phase
starts (:func:`announce_phase`): the public channel's «<@&role> Началась фаза …», on the last
lines of the resolve's public report (``Deliverer.resolve_posts``: one message), alone at the
start."""

from __future__ import annotations

import logging
from typing import Any

import discord
from discord.http import HTTPClient

from altmafia.text.i18n import Renderer, text
from storage import Store

from .failures import UNREACHED, reason
from .services import Delivering

log = logging.getLogger(__name__)


def can_manage_roles(guild: discord.Guild | None) -> bool:
    me = guild.me if guild is not None else None
    return bool(me is not None and me.guild_permissions.manage_roles)


async def sync_living_role(store: Store, deliverer: Delivering, http: HTTPClient, game_id: str,
                           record: list[Any] | None = None) -> None:
    """Give the living players the role and take it from the rest; ``living_holders`` records
    who has it, committed here or, with ``record`` (a list), appended to it as a meta change for
    the caller to commit (the channel sync of a resolve: with the delivery's marks)."""
    if not store.games.has(game_id):
        return
    info = store.games.info(game_id)
    meta = info.meta
    if not meta.get("options", {}).get("living_role") or info.guild_id is None:
        return
    rid = meta.get("living_role")
    if rid is None:
        try:
            made = await http.create_role(int(info.guild_id), name=text(meta.get("lang", "ru"), "living.role_name",
                                                                          title=meta.get("title", ""))[:100], mentionable=True)
        except UNREACHED as exc:  # maybe made, maybe not: the next sync tries again
            log.warning("game %s: the role of the living not made yet: %s", game_id, reason(exc))
            return
        except discord.HTTPException as exc:
            log.warning("game %s: the role of the living cannot be made: %s", game_id, exc)
            if not meta.get("living_role_failed"):
                await store.meta.update_meta(game_id, lambda m: m.update(living_role_failed=True))
                await deliverer.post(game_id, "gm", text(meta.get("lang", "ru"), "living.role_failed"), once="living:failed")
            return
        rid = int(made["id"])
        await store.meta.update_meta(game_id, lambda m: m.update(living_role=rid))
    game = store.games.game(game_id)
    want = sorted({int(p.user_id) for p in game.state.players if p.user_id and game.alive(p)})
    have = [int(u) for u in store.games.info(game_id).meta.get("living_holders", [])]
    done = list(have)
    try:
        for uid in want:
            if uid not in have:
                await http.add_role(int(info.guild_id), uid, rid, reason="altmafia: living player")
                done.append(uid)
        for uid in have:
            if uid not in want:
                await http.remove_role(int(info.guild_id), uid, rid, reason="altmafia: out of play")
                done.remove(uid)
    finally:
        if sorted(done) != sorted(have):
            holders = sorted(done)
            if record is None:
                await store.meta.update_meta(game_id, lambda m: m.update(living_holders=holders))
            else:  # committed by the caller with its own record (the channel sync's)
                record.append(lambda m: m.update(living_holders=holders))


async def announce_phase(store: Store, deliverer: Delivering, game_id: str) -> None:
    """«<@&role> Началась фаза …» in the public channel, once per phase begun (the key names
    the journal entry that began it, so a phase begun again after an undo is announced again)."""
    found = phase_announcement(store.games.game(game_id), store.games.info(game_id))
    if found is not None:
        await deliverer.post(game_id, "public", found[0], once=found[1])


def phase_announcement(game: Any, info: Any) -> tuple[str, str] | None:
    """The text and ``once`` key of :func:`announce_phase` (None: no living role, or the game is
    not running); also staged with the resolve that begins the phase."""
    rid = info.meta.get("living_role")
    if rid is None or info.status != "running":
        return None
    lang = info.meta.get("lang", "ru")
    dl = info.deadline
    when = f"<t:{int(dl.timestamp())}:f>" if dl else "—"
    # a phase announced before an undo (its role pinged then) is announced again without the ping
    again = info.tick <= int(info.meta.get("pinged_upto", -1))
    role = text(lang, "living.again") if again else f"<@&{rid}>"
    body = text(lang, "living.phase_start", role=role, phase=Renderer(game, lang).label(game.info.label), deadline=when)
    return body, f"phase:{info.tick}:{info.version}"
