"""The action panel in each player's hidden channel: what the slash commands do, by selects
and buttons (docs/bot.md, *The action panel*).

One panel per seat per phase, posted through the outbox (``once=panel:<tick>:<seat>``, view
spec ``panel:<seat>:<tick>:<lang>``, :meth:`altmafia.bot.delivery.Deliverer.build_view`): after a
resolve it rides on the last message of the seat's news (its lines after the news, its controls
on that message; the batch staged under the panel's id ``<game>/panel:<tick>:<seat>>player:<seat>``),
a seat with no news gets it alone. A redraw keeps the news above it (:func:`news_above`).
Its controls are dynamic items whose custom id names the game, the seat and the tick, so they
answer after a restart: selects ``amx:<kind>:<game>:<seat>:<tick>`` (``ab`` the ability, ``t0``…
``t2`` its targets, ``op`` its option, ``v<n>`` the ballot of the ruleset's n-th vote) and
buttons ``amy:<kind>:<game>:<seat>:<tick>`` (``go`` submit, ``cx.<lane>`` cancel the newest
submission, in its lane, ``pm`` / ``an`` the PM and anonymous post forms, ``u<n>`` take the ballot of the
n-th vote back). Every choice offered comes from the
engine (``Game.legal_actions``, the vote's candidates, ``Game.vote_withdrawable``); the choice
being made (the draft) is kept in the game's meta (``panel``), so it survives a restart too.
Submitting goes through the same function as the slash command (the same journal command).
A select holds at most 25 options (Discord): a longer list (a target or a ballot at a big
table) shows pages of 23 with an option to the page before and one to the page after (value
``page:<n>``; choosing it redraws the panel there, the page kept in the draft's ``pages``).
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import discord

from altmafia.text.cards import option_label
from altmafia.text.i18n import Renderer, text
from engine import ActionError, Game, LegalAction

from .ballots import candidates, cast_vote, withdraw_vote
from .failures import FAILED
from .interact import deadline_text, lang, refuse, refuse_engine
from .mail import open_anon_form, open_pm_form
from .moves import (
    ability_label,
    ability_value,
    cancel_action,
    find_legal,
    number_values,
    submit_action,
)
from .services import Services, services

#: Discord's limit on a component's custom id
CUSTOM_ID_MAX = 100
ID = r"(?P<game>[0-9a-zA-Z_-]+):(?P<pid>\d+):(?P<tick>-?\d+)"
MAX_OPTIONS = 25  # Discord's limit of a select's options
ROWS = 5  # Discord's limit of rows of a message


PAGE = MAX_OPTIONS - 2  # the choices of one page of a long select: the other two turn the pages
PAGE_VALUE = "page:"  # a page-turning option's value (``page:<n>``): never a seat


def paged(lng: str, choices: list[Any], page: int, option: Any) -> list[discord.SelectOption]:
    """The options of a select whose choices may be more than Discord's 25 a select: all of
    them when they fit, else page ``page`` of :data:`PAGE`, with an option to the page before
    and one to the page after (choosing one redraws the panel on that page)."""
    if len(choices) <= MAX_OPTIONS:
        return [option(c) for c in choices]
    pages = (len(choices) + PAGE - 1) // PAGE
    page = max(0, min(page, pages - 1))
    out = [option(c) for c in choices[page * PAGE:(page + 1) * PAGE]]
    total = len(choices)

    def turn(key: str, to: int) -> discord.SelectOption:
        first, last = to * PAGE + 1, min(total, (to + 1) * PAGE)
        return discord.SelectOption(label=text(lng, key, first=first, last=last, total=total)[:100], value=f"{PAGE_VALUE}{to}")

    if page > 0:
        out.insert(0, turn("panel.page_prev", page - 1))
    if page < pages - 1:
        out.append(turn("panel.page_next", page + 1))
    return out


def page_of(draft: dict[str, Any], kind: str, choices: list[Any], chosen: Any = None) -> int:
    """The page a select shows: the one last turned to, else the one holding the choice made."""
    pages = draft.get("pages", {})
    if kind in pages:
        return int(pages[kind])
    if chosen is not None and chosen in choices and len(choices) > MAX_OPTIONS:
        return choices.index(chosen) // PAGE
    return 0


def vote_choices(game: Game, vdef: Any, pid: int) -> list[int | str]:
    """The ballots this player may cast in this vote: the ONE place the panel asks (the same
    answer as ``/vote cast``'s autocomplete)."""
    return candidates(game, vdef, pid)


def option_values(game: Game, la: LegalAction, targets: list[Any] | None = None) -> list[str]:
    """The options of an ability now: its named options left for the drafted ``targets``
    (seats as the draft keeps them; the engine's spent pairs left out), or the numbers it takes."""
    if la.ability.number is not None:
        return number_values(game, la)
    return list(la.options_for([int(t) for t in targets or [] if t is not None]))


def draft_of(meta: dict[str, Any], pid: int, tick: int) -> dict[str, Any]:
    """The choice a seat is making on its panel of this tick (empty on a new phase)."""
    d = meta.get("panel", {}).get(str(pid))
    return dict(d) if d and d.get("tick") == tick else {"tick": tick}


def panel_content(game: Game, pid: int, lng: str, info: Any, draft: dict[str, Any]) -> str:
    """The panel's text: the phase, what is submitted, the ballots, the choice being made."""
    r = Renderer(game, lng)
    lines = [text(lng, "panel.title", phase=r.label(game.info.label))]
    pend = [f"{r.ability(i.ability)} → {', '.join(r.player(t) for t in i.targets) or '—'}"
            + (f" ({option_label(game, lng, i.option)})" if i.option else "") for i in game.pending(pid)]
    lines.append(text(lng, "panel.pending", pending="; ".join(pend) or "—"))
    for v in game.open_votes():
        mine = next((b for b in game.state.votes if b.pid == pid and b.vote == v.id), None)
        lines.append(text(lng, "panel.ballot", vote=getattr(v.names, lng), target=r.player(mine.choice) if mine else "—"))
    la = find_legal(game, pid, draft.get("ability"))
    if la is not None:
        names = ", ".join(r.player(int(t)) for t in draft.get("targets", []) if t is not None) or "—"
        opt = f" ({option_label(game, lng, draft['option'])})" if draft.get("option") else ""
        lines.append(text(lng, "panel.draft", ability=r.ability(la.key), targets=names, option=opt))
    lines.append(deadline_text(info, lng))
    return "\n".join(lines)


def panel_view(game_id: str, game: Game, pid: int, tick: int, lng: str, draft: dict[str, Any]) -> discord.ui.View:
    """The panel's controls for this seat now, the draft's choices selected."""
    r = Renderer(game, lng)
    view = discord.ui.View(timeout=None)
    rows = 0
    legal = game.legal_actions(pid) if tick == game.state.tick else []
    if legal:
        options = [discord.SelectOption(label=ability_label(game, la, lng), value=ability_value(la),
                                        default=ability_value(la) == draft.get("ability")) for la in legal[:MAX_OPTIONS]]
        view.add_item(PanelSelect("ab", game_id, pid, tick, options, text(lng, "panel.pick_ability"), rows))
        rows += 1
    la = find_legal(game, pid, draft.get("ability"))
    if la is not None:
        chosen = list(draft.get("targets", []))
        for i in range(min(la.ability.targets, 3)):
            if not la.targets:
                break
            mine = chosen[i] if i < len(chosen) else None
            seats = [str(t) for t in la.targets]
            options = paged(lng, seats, page_of(draft, f"t{i}", seats, mine),
                            lambda t, mine=mine: discord.SelectOption(label=game.player(int(t)).name[:100], value=t, default=t == mine))
            view.add_item(PanelSelect(f"t{i}", game_id, pid, tick, options, text(lng, "panel.pick_target", n=i + 1), rows))
            rows += 1
        values = option_values(game, la, chosen)
        if values and rows < ROWS - 1:
            options = paged(lng, values, page_of(draft, "op", values, draft.get("option")),
                            lambda o: discord.SelectOption(label=option_label(game, lng, o)[:100], value=o, default=o == draft.get("option")))
            view.add_item(PanelSelect("op", game_id, pid, tick, options, text(lng, "panel.pick_option"), rows))
            rows += 1
    withdraw = []
    for v in game.open_votes() if tick == game.state.tick else []:
        idx = game.rules.votes.index(v)
        mine = next((b for b in game.state.votes if b.pid == pid and b.vote == v.id), None)
        pool = vote_choices(game, v, pid) if game.can_vote(game.player(pid)) else []
        if pool and rows < ROWS - 1:
            kind = f"v{idx}"
            options = paged(lng, pool, page_of(draft, kind, pool, mine.choice if mine is not None else None),
                            lambda c, mine=mine: discord.SelectOption(label=(game.player(c).name if isinstance(c, int) else r.player(c))[:100], value=str(c),
                                                                     default=mine is not None and mine.choice == c))
            view.add_item(PanelSelect(f"v{idx}", game_id, pid, tick, options, getattr(v.names, lng)[:150], rows))
            rows += 1
        if mine is not None and game.vote_withdrawable(v.id):
            withdraw.append((idx, getattr(v.names, lng)))
    row = min(rows, ROWS - 1)
    if legal:
        view.add_item(PanelButton("go", game_id, pid, tick, text(lng, "panel.submit"), discord.ButtonStyle.primary, row))
    pending = game.pending(pid) if tick == game.state.tick else []
    if pending:  # the newest submission (a ruleset with lanes has several: the slash command names the rest)
        last = max(pending, key=lambda i: i.seq)
        kind = "cx." + last.lane.replace(":", "~")  # a lane may hold colons ("free:role:…"), the id's separator
        if len(f"amy:{kind}:{game_id}:{pid}:{tick}") <= CUSTOM_ID_MAX:  # else the slash command cancels it
            view.add_item(PanelButton(kind, game_id, pid, tick, text(lng, "panel.cancel", ability=r.ability(last.ability)),
                                      discord.ButtonStyle.secondary, row))
    for idx, name in withdraw[:1 if legal else 2]:
        label = text(lng, "panel.unvote") if len(withdraw) == 1 else text(lng, "panel.unvote_of", vote=name)
        view.add_item(PanelButton(f"u{idx}", game_id, pid, tick, label, discord.ButtonStyle.danger, row))
    mail = bool(game.rules.mail)  # the ruleset's mail (seed 003): anonymous letters, not PMs
    view.add_item(PanelButton("pm", game_id, pid, tick, text(lng, "panel.letter" if mail else "panel.pm"), discord.ButtonStyle.secondary, row))
    view.add_item(PanelButton("an", game_id, pid, tick, text(lng, "panel.letter_town" if mail else "panel.anon"),
                              discord.ButtonStyle.secondary, row))
    return view


def panel_batch(game_id: str, tick: int, pid: int) -> str:
    """The outbox batch of a seat's panel of one tick (its key for ``Deliverer.post``)."""
    return f"{game_id}/panel:{tick}:{pid}>player:{pid}"


async def post_panels(bot: Services, game_id: str) -> None:
    """Each living seat's panel of the current phase, once (a restart or a second call posts
    nothing new)."""
    store = bot.store
    if not store.games.has(game_id) or store.games.info(game_id).status != "running":
        return
    for key, content, view, once in panels(store.games.game(game_id), store.games.info(game_id)):
        await bot.deliverer.post(game_id, key, content, view=view, once=once)


def panels(game: Game, info: Any) -> list[tuple[str, str, str, str]]:
    """The panels of the current phase: (channel key, text, view spec, ``once`` key) a seat;
    also staged with the resolve that begins the phase (``Deliverer.resolve_posts``)."""
    return [found for p in game.state.players if (found := panel_of(game, info, p.pid)) is not None]


def panel_of(game: Game, info: Any, pid: int) -> tuple[str, str, str, str] | None:
    """One seat's panel of the current phase, as :func:`panels` gives it (None: no member, or
    out of the game)."""
    p = game.player(pid)
    if not p.user_id or not game.alive(p):
        return None
    tick = game.state.tick
    plang = info.meta.get("langs", {}).get(str(p.pid)) or info.meta.get("lang", "ru")
    return (f"player:{p.pid}", panel_content(game, p.pid, plang, info, {"tick": tick}),
            f"panel:{p.pid}:{tick}:{plang}", f"panel:{tick}:{p.pid}")


async def _seat(interaction: discord.Interaction, game_id: str, pid: int, tick: int) -> Game | None:
    """The game of a panel control, or None after refusing: no such game, over, not this seat's
    member (another player, a spectator), out of the game, or a panel of an old phase."""
    bot = services(interaction)
    store = bot.store
    if not store.games.has(game_id):
        await refuse(interaction, "err.no_game")
        return None
    if store.games.info(game_id).status != "running":
        await refuse(interaction, "err.game_over")
        return None
    game = store.games.game(game_id)
    if not 0 <= pid < len(game.state.players) or game.player(pid).user_id != interaction.user.id:
        await refuse(interaction, "panel.not_yours")
        return None
    if not game.alive(game.player(pid)):
        await refuse_engine(interaction, game, ActionError("not_alive"))
        return None
    if tick != game.state.tick:
        info = store.games.info(game_id)
        now = await store.outbox.parts(panel_batch(game_id, game.state.tick, pid))
        mid = next((q.message_id for q in reversed(now) if q.message_id), None)
        cid = info.meta.get("channels", {}).get(f"player:{pid}")
        if mid and cid:
            link = f"https://discord.com/channels/{info.guild_id}/{cid}/{mid}"
            await refuse(interaction, "panel.stale", phase=Renderer(game, lang(interaction)).label(game.info.label), link=link)
        else:
            await refuse(interaction, "panel.stale_none", phase=Renderer(game, lang(interaction)).label(game.info.label))
        return None
    return game


def news_above(old: str, content: str, limit: int = 2000) -> str:
    """The panel's new text under the news its message carries: a panel rides on the last
    message of its seat's news batch (``Deliverer.resolve_posts``), so a redraw keeps every line
    above the panel's title (cut at the front if the panel has grown past Discord's limit)."""
    mark = "\n" + text("ru", "panel.title", phase="").split(" ", 1)[0]  # 🎛, in every language
    cut = old.rfind(mark)
    if cut < 0:
        return content  # a panel alone
    news = old[: cut + 1]
    if len(news) + len(content) > limit:
        news = "…" + news[len(news) + len(content) + 1 - limit:]
    return news + content


async def _redraw(interaction: discord.Interaction, game_id: str, pid: int, tick: int, draft: dict[str, Any]) -> None:
    """Show the panel as it is now (after a choice: its response; after a command: an edit)."""
    bot = services(interaction)
    if not bot.store.games.has(game_id) or bot.store.games.info(game_id).status != "running" or bot.store.games.game(game_id).state.tick != tick:
        return  # the phase ended meanwhile (an early end): the new phase has its own panel
    game = bot.store.games.game(game_id)
    lng = lang(interaction)
    content = news_above(interaction.message.content if interaction.message else "", panel_content(
        game, pid, lng, bot.store.games.info(game_id), draft))
    view = panel_view(game_id, game, pid, tick, lng, draft)
    if not interaction.response.is_done():
        await interaction.response.edit_message(content=content, view=view)
    elif interaction.message is not None:
        with contextlib.suppress(*FAILED):  # the panel is gone: the command itself was answered
            await interaction.message.edit(content=content, view=view)


async def _save(bot: Services, game_id: str, pid: int, draft: dict[str, Any] | None) -> None:
    def put(meta: dict[str, Any]) -> None:
        panels = meta.setdefault("panel", {})
        if draft is None:
            panels.pop(str(pid), None)
        else:
            panels[str(pid)] = draft

    await bot.store.meta.update_meta(game_id, put)


class PanelSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"amx:(?P<kind>ab|t[0-2]|op|v\d{1,2}):" + ID):
    def __init__(self, kind: str, game_id: str, pid: int, tick: int, options: list[discord.SelectOption] | None = None,
                 placeholder: str | None = None, row: int | None = None) -> None:
        self.kind, self.game_id, self.pid, self.tick = kind, game_id, pid, tick
        super().__init__(discord.ui.Select(custom_id=f"amx:{kind}:{game_id}:{pid}:{tick}", options=options or [],
                                           placeholder=placeholder, row=row))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PanelSelect:
        assert isinstance(item, discord.ui.Select)  # discord.py hands the component the id is on: a select menu
        return cls(match["kind"], match["game"], int(match["pid"]), int(match["tick"]), item.options, item.placeholder)

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        game = await _seat(interaction, self.game_id, self.pid, self.tick)
        if game is None:
            return
        value = next(iter(self.item.values), None)  # discord.py reads them from the interaction first
        draft = draft_of(bot.store.games.info(self.game_id).meta, self.pid, self.tick)
        if isinstance(value, str) and value.startswith(PAGE_VALUE) and self.kind != "ab":
            page = value[len(PAGE_VALUE):]
            if not page.isascii() or not page.isdigit():
                await refuse(interaction, "panel.not_offered")
                return
            draft["pages"] = {**draft.get("pages", {}), self.kind: int(page)}  # another page of the same choices
            await _save(bot, self.game_id, self.pid, draft)
            await _redraw(interaction, self.game_id, self.pid, self.tick, draft)
            return
        if self.kind.startswith("v"):
            idx = int(self.kind[1:])
            if idx >= len(game.rules.votes) or value is None:
                await refuse(interaction, "panel.not_offered")
                return
            if await cast_vote(bot, interaction, str(value), game.rules.votes[idx].id):
                await _redraw(interaction, self.game_id, self.pid, self.tick, draft)
            return
        la = find_legal(game, self.pid, value if self.kind == "ab" else draft.get("ability"))
        if self.kind == "ab":
            if la is None:  # no longer legal (a cooldown, a status since the panel was drawn)
                await refuse(interaction, "panel.not_offered")
                return
            draft = {"tick": self.tick, "ability": value, "targets": [], "option": None,
                     **({"pages": {k: v for k, v in draft["pages"].items() if k.startswith("v")}} if draft.get("pages") else {})}
        elif la is None:
            await refuse(interaction, "panel.no_ability")
            return
        elif self.kind == "op":
            draft["option"] = value
        else:
            i = int(self.kind[1:])
            targets = list(draft.get("targets", []))
            targets += [None] * (i + 1 - len(targets))
            targets[i] = value
            draft["targets"] = targets
            if la.spent and draft.get("option") is not None and draft["option"] not in option_values(game, la, targets):
                draft["option"] = None  # already used on the new target: not offered for it
        await _save(bot, self.game_id, self.pid, draft)
        await _redraw(interaction, self.game_id, self.pid, self.tick, draft)


class PanelButton(discord.ui.DynamicItem[discord.ui.Button], template=r"amy:(?P<kind>go|pm|an|u\d{1,2}|cx\.[a-z0-9_~]{1,80}):" + ID):
    def __init__(self, kind: str, game_id: str, pid: int, tick: int, label: str = "OK",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None) -> None:
        self.kind, self.game_id, self.pid, self.tick = kind, game_id, pid, tick
        super().__init__(discord.ui.Button(label=label[:80], style=style, custom_id=f"amy:{kind}:{game_id}:{pid}:{tick}", row=row))

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction, item: discord.ui.Item[Any],
                             match: re.Match[str]) -> PanelButton:
        assert isinstance(item, discord.ui.Button)  # discord.py hands the component the id is on: a button
        return cls(match["kind"], match["game"], int(match["pid"]), int(match["tick"]), item.label or "OK", item.style)

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = services(interaction)
        game = await _seat(interaction, self.game_id, self.pid, self.tick)
        if game is None:
            return
        if self.kind == "pm":
            await open_pm_form(bot, interaction)
            return
        if self.kind == "an":
            await open_anon_form(bot, interaction)
            return
        draft = draft_of(bot.store.games.info(self.game_id).meta, self.pid, self.tick)
        if self.kind.startswith("cx."):
            if await cancel_action(bot, interaction, self.kind[3:].replace("~", ":")):
                await _redraw(interaction, self.game_id, self.pid, self.tick, draft)
            return
        if self.kind.startswith("u"):
            idx = int(self.kind[1:])
            if idx >= len(game.rules.votes):
                await refuse(interaction, "panel.not_offered")
                return
            if await withdraw_vote(bot, interaction, game.rules.votes[idx].id):
                await _redraw(interaction, self.game_id, self.pid, self.tick, draft)
            return
        if not draft.get("ability"):
            await refuse(interaction, "panel.no_ability")
            return
        targets = [t for t in draft.get("targets", []) if t is not None]
        if await submit_action(bot, interaction, draft["ability"], targets, draft.get("option")):
            await _save(bot, self.game_id, self.pid, None)
            await _redraw(interaction, self.game_id, self.pid, self.tick, {"tick": self.tick})


def build(bot: Services, game_id: str, spec: str) -> discord.ui.View | None:
    """The panel view of a stored part's spec ``<seat>:<tick>:<lang>`` (delivery's build_view)."""
    if not bot.store.games.has(game_id):
        return None
    pid, tick, lng = spec.split(":", 2)
    game = bot.store.games.game(game_id)
    draft = draft_of(bot.store.games.info(game_id).meta, int(pid), int(tick))
    return panel_view(game_id, game, int(pid), int(tick), lng, draft)


DYNAMIC_ITEMS = (PanelSelect, PanelButton)
