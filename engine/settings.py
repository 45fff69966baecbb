"""The game settings: every key a ruleset's ``settings`` or a game's settings may hold.

A ruleset's ``settings`` (``config/rulesets/*.yaml``) and the settings a game is created with
(the lobby's, a scenario's) merge into ``GameState.settings``. :class:`GameSettings` is their
schema: each key the code reads, typed, with its default and its meaning. A key it does not
know (a misspelt one) is an error naming the key: in a ruleset file like every other schema
error of that file, for a game's own settings a :class:`~engine.errors.GameError` from
:meth:`engine.game.Game.new`.

The state keeps the plain mapping (snapshots store it as is); every reader reads the typed
model instead: ``World.settings`` (a game's, the ruleset's merged with the game's own) or
``Ruleset.game_settings`` (the ruleset's alone, before there is a game), so a key is spelt
once, here, with its default.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import GameError
from .registry import EARLY_ENDS


class GameSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # ---- the game as a whole ------------------------------------------------------------
    days: int | None = Field(None, description="the game's length in days (None: the calendar's `days`)")
    practice_table: Any = Field(False, description="a table below the book's minimum (true/false; checked by Game.practice_table)")
    action_order: Literal["seat", "ops", "dependencies"] | None = Field(
        None, description="the order of an `actions` step's actions for every step (None: each step's `params.order`)")
    blocked_spends: bool = Field(True, description="a blocked action still spends its turn, cooldown and use («считаются ходом»)")
    tell_blocked: bool = Field(True, description="a player whose action was blocked is told so")
    dead_learn_nothing: bool = Field(
        False, description="an action whose actor died earlier in the same resolve tells them nothing (the classic: a cop killed "
                           "tonight gets no answer); the whole resolve's news to the dead: a dead status with `messages: drop` and a "
                           "`messages` step (seed 002)")
    tell_results: bool = Field(False, description="a performer is told whether each of their actions was carried out or had no effect (never why)")
    refused_anon_spends: bool = Field(False, description="an anonymous post the GM refused still counts against the day's quota")
    death_reveals: list[str] | None = Field(None, description="what a death reveals publicly: `role`, `character`, `in_faction`")
    poison_cycles: int = Field(2, description="cycles a poison takes to kill when its effect gives none")
    hp_stat: str | None = Field(None, description="the stat that is HP (Eternal Friday: `hp`; None: no HP, the books default to `hp`)")
    leader_slots: list[str] = Field(["day", "night"], description="the slots whose actions a faction leader may perform for a member")
    faction_changes_blocked_until: int = Field(-1, description="no faction move is allowed before this tick")
    hidden_bonus_choice: dict[str, str] = Field(
        {}, description="a player's preset pick of their hidden bonus stat, by name (seed 000's Стратег)")
    early_end: str | None = Field(
        None, description="the book's early end of a phase: an `engine.registry.EARLY_ENDS` entry (an `EarlyEnd` subclass; None: no early end)")
    min_next_phase_minutes: int = Field(
        0, ge=0, description="minutes a phase lasts at least once it began after an early or forced end (or the game's start): "
                             "no early end before, no deadline sooner (0: no minimum)")
    # ---- read by the bot (who may talk where, how votes are shown) ----------------------
    vote_display: str = Field("open", description="how the bot shows a vote: `open` (who votes for whom) or the ruleset's other modes")
    public_chat: str | None = Field(None, description="`day`: the public channel is open by day only")
    faction_channels: bool = Field(True, description="factions get channels of their own")
    silenced_statuses: list[str] = Field([], description="statuses whose holders may not write in the public channel")
    public_slots: list[str] = Field([], description="slots whose abilities are used in public (Eternal Friday's day abilities)")
    claim_roles: bool = Field(False, description="players may claim a role in the lobby")
    dead_talk: bool = Field(True, description="the book lets the dead talk among themselves and with the spectators (seed 003: "
                                               "«Участие мертвых персонажей в дальнейшей игре и ее обсуждении категорически порицается»: false)")
    dead_channel: bool = Field(False, description="the game has a channel for the dead and the spectators (the GM's lobby option; "
                                                  "only where `dead_talk`); `engine.visibility`")
    team_talk: dict[str, list[int]] = Field(
        {}, description="teams with a channel of their own: team -> the nights its members talk there (and write to one "
                        "another at once: seed 003's «мафия может общаться между собой в первую ночь»); `engine.visibility`")
    # ---- seed 000, Godfather's Legacy -----------------------------------------------------
    prison_reads: str = Field("public", description="`true`: the prison thresholds read the true stat, else the public one")
    execution_status: str | None = Field(None, description="the dead status an execution gives (None: the ruleset's death status)")
    # ---- seed 002, Eternal Friday -----------------------------------------------------------
    civilians: list[str] = Field(["civilian"], description="the teams that count as civilians (victory: only civilians left)")
    health_words: list[dict[str, Any]] | None = Field(None, description="the public words of health by HP (None: the book's table)")
    psycho_knife_masks: Literal["partial", "ignore"] = Field("partial", description="how masks answer the psycho's knife")
    # ---- seed 003, the stats mafia --------------------------------------------------------
    kill_at: int = Field(4, description="an attack's initiative − defense from which the target dies («>=4»)")
    hospital_death_days: int = Field(5, description="days owed to the hospital from which a patient dies («не мене 5 суток»)")
    prison_term_days: list[int] = Field([1, 2], description="the days on which a jailing is for two сутки")
    prison_term_cycles: int = Field(2, description="cycles of a prison term")
    jail_window_status: str | None = Field(None, description="the status that opens the window for a jailing (the ruleset names it: seed 003's `all_in_ready`)")
    mail_per_phase: int = Field(1, description="letters («Почта») per phase (0: no limit)")
    notes_per_phase: int = Field(1, description="notes («Записка на волю») per phase (0: no limit)")
    slowpoke_status: str | None = Field(None, description="the GM's status whose holder holds up no early end (the ruleset names it: seed 003's `slowpoke`)")
    disguise_scope: Literal["checks", "all"] = Field("checks", description="what the maniac's disguise answers: the checks, or every role test")
    life_prisoners_out: bool = Field(True, description="a prisoner for the rest of the game counts as dead for victory")
    check_table: list[dict[str, Any]] = Field([], description="the book's table of a check by initiative − stealth")
    random_bonus_choice: dict[str, Any] = Field({}, description="the GM's (or a scenario's) pick of a random bonus, by player name")


def check_settings(values: dict[str, Any], where: str = "settings") -> None:
    """Raise :class:`GameError` naming the first key of ``values`` that is unknown or of the
    wrong type (``where`` names the mapping, e.g. ``settings``)."""
    try:
        GameSettings.model_validate(values)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(x) for x in err["loc"])
            if err["type"] == "extra_forbidden":
                problems.append(f"{where}.{key}: unknown setting (known: {', '.join(sorted(GameSettings.model_fields))})")
            else:
                problems.append(f"{where}.{key}: {err['msg']}")
        raise GameError("; ".join(problems)) from None
    name = values.get("early_end")
    if name is not None and name not in EARLY_ENDS:
        raise GameError(f"{where}.early_end: unknown early end {name!r} (known: {', '.join(sorted(EARLY_ENDS)) or 'none'})")
