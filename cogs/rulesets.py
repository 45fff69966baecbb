"""/gm ruleset: a server's own rulesets. ``upload`` (a .yaml file attached), ``list``, ``remove``.

Who manages the server or holds its GM role may use them; every answer is ephemeral, in the
asker's language. The work is :mod:`altmafia.bot.rulesets`; this group is added to the ``/gm``
group of the GM cog (loaded before it, ``COGS``).
"""

from __future__ import annotations

import discord
from discord import app_commands

from altmafia.bot import rulesets
from altmafia.bot.bot import AltMafiaBot
from altmafia.bot.interact import D, N, defer, lang, refuse, reply
from altmafia.text import safe
from altmafia.text.guide import slash
from altmafia.text.i18n import count, text
from config.loader import RulesetFileError
from storage.records import from_ts


def when(stamp: str) -> str:
    """A stored moment as every reader's client shows it (how long ago)."""
    at = from_ts(stamp)
    return f"<t:{int(at.timestamp())}:R>" if at else "—"


def commands_named(lng: str) -> dict[str, str]:
    """The commands the texts of this group point to, as the reader types them."""
    return {"upload": slash(lng, "gm", "ruleset", "upload"), "remove": slash(lng, "gm", "ruleset", "remove"),
            "create": slash(lng, "lobby", "create")}


class RulesetCommands(app_commands.Group):
    def __init__(self, bot: AltMafiaBot) -> None:
        super().__init__(name=N("gm.ruleset"), description=D("gm.ruleset"))
        self.bot = bot

    async def managed_guild(self, interaction: discord.Interaction) -> int | None:
        """The server whose rulesets the user may manage here; None after a refusal (a DM, or
        no right to)."""
        if interaction.guild_id is None:
            await refuse(interaction, "err.guild_only")
            return None
        if not rulesets.may_manage(self.bot, interaction):
            await refuse(interaction, "err.ruleset_not_allowed")
            return None
        return interaction.guild_id

    @app_commands.command(name=N("gm.ruleset.upload"), description=D("gm.ruleset.upload"))
    @app_commands.rename(file=N("gm.ruleset.file"))
    @app_commands.describe(file=D("gm.ruleset.file"))
    async def upload(self, interaction: discord.Interaction, file: discord.Attachment) -> None:
        guild_id = await self.managed_guild(interaction)
        if guild_id is None:
            return
        lng = lang(interaction)
        await defer(interaction)  # the file is fetched from Discord's CDN, then checked
        try:
            done = await rulesets.upload(self.bot, guild_id, interaction.user.id, file)
        except rulesets.UploadRefused as exc:
            await refuse(interaction, exc.key, **exc.args_, **commands_named(lng))
            return
        except RulesetFileError as exc:
            await reply(interaction, "⛔ " + text(lng, "err.ruleset_refused", file=safe.name(file.filename)) + "\n"
                        + rulesets.loader_text(lng, exc))
            return
        up, rules = done.upload, done.rules
        lines = [text(lng, "gm.ruleset_uploaded", name=safe.name(getattr(rules.names, lng)), id=safe.name(rules.id),
                      fp=up.fingerprint, **commands_named(lng))]
        if done.replaced is not None and done.replaced.fingerprint != up.fingerprint:
            lines.append(text(lng, "gm.ruleset_replaced", old=done.replaced.fingerprint))
        elif done.replaced is not None:
            lines.append(text(lng, "gm.ruleset_same"))
        if done.notes:
            lines.append(text(lng, "gm.ruleset_notes"))
            lines.append(rulesets.loader_text(lng, *done.notes))
        await reply(interaction, "\n".join(lines))

    @app_commands.command(name=N("gm.ruleset.list"), description=D("gm.ruleset.list"))
    async def listing(self, interaction: discord.Interaction) -> None:
        if interaction.guild_id is None:
            await refuse(interaction, "err.guild_only")
            return
        lng = lang(interaction)
        found = await self.bot.store.rulesets.guild_rulesets(interaction.guild_id)
        if not found:
            await reply(interaction, text(lng, "gm.ruleset_none", **commands_named(lng)))
            return
        kept = await self.bot.store.rulesets.stored_rulesets(u.fingerprint for u in found)
        lines = [text(lng, "gm.ruleset_list", count=count(len(found), "ruleset", lng), max=rulesets.MAX_PER_GUILD)]
        for u in found:
            r = kept[u.fingerprint]
            lo, hi = r.table.seats(False)
            lines.append(text(lng, "gm.ruleset_row", name=safe.name(u.names.get(lng) or u.ruleset_id), id=safe.name(u.ruleset_id),
                              fp=u.fingerprint, roles=count(len(r.roles), "role", lng), min=lo, max=hi,
                              user=f"<@{u.uploader}>", when=when(u.uploaded_at)))
        await reply(interaction, "\n".join(lines))

    @app_commands.command(name=N("gm.ruleset.remove"), description=D("gm.ruleset.remove"))
    @app_commands.rename(ruleset=N("gm.ruleset.id"))
    @app_commands.describe(ruleset=D("gm.ruleset.id"))
    async def remove(self, interaction: discord.Interaction, ruleset: str) -> None:
        guild_id = await self.managed_guild(interaction)
        if guild_id is None:
            return
        lng = lang(interaction)
        gone = await self.bot.store.rulesets.remove_ruleset(guild_id, ruleset)
        if gone is None:
            await refuse(interaction, "err.ruleset_no_upload", id=safe.name(ruleset))
            return
        await reply(interaction, text(lng, "gm.ruleset_removed", name=safe.name(gone.names.get(lng) or gone.ruleset_id),
                                      id=safe.name(gone.ruleset_id), fp=gone.fingerprint))

    @remove.autocomplete("ruleset")
    async def uploaded_ac(self, interaction: discord.Interaction, current: str) -> list[app_commands.Choice[str]]:
        if interaction.guild_id is None:
            return []
        lng, cur = lang(interaction), current.casefold()
        return [app_commands.Choice(name=f"{u.names.get(lng) or u.ruleset_id} ({u.ruleset_id})"[:100], value=u.ruleset_id)
                for u in await self.bot.store.rulesets.guild_rulesets(interaction.guild_id)
                if cur in f"{u.ruleset_id} {u.names.get(lng)}".casefold()][:25]


async def setup(bot: AltMafiaBot) -> None:
    gm = bot.tree.get_command("gm")
    if not isinstance(gm, app_commands.Group):
        raise RuntimeError("the /gm group (cogs.gm) is loaded before its ruleset commands")
    gm.add_command(RulesetCommands(bot))


async def teardown(bot: AltMafiaBot) -> None:
    gm = bot.tree.get_command("gm")
    if isinstance(gm, app_commands.Group):
        gm.remove_command("ruleset")
