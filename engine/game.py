"""A game: the commands, every way a player or GM may change it.

Submissions are validated here (one :class:`~engine.errors.ActionError` with a message key);
``legal_actions`` runs the very same checks to say what a player may do now, on whom.
The read-only questions live in :mod:`engine.world`, the checks in :mod:`engine.legality`, the
messages in :mod:`engine.mail`, the deal in :mod:`engine.deal`; resolution in :mod:`engine.resolve`.
"""

from __future__ import annotations

import copy
from typing import Any

from . import mail
from .deal import PlayerSpec, apply_passive_modifiers, deal
from .errors import ActionError, GameError
from .factions import check_op, pending_invitations, remove_member
from .legality import Legality, cooldowns
from .orders import moves_due, same_submission, submit
from .phase_end import PhaseEnd
from .registry import VOTES
from .resolve.notices import tell
from .resolve.pipeline import resolve_tick, run_start
from .resolve.upkeep import apply_bands
from .ruleset import Ruleset, StatDef
from .settings import check_settings
from .state import (
    VIAS,
    Anon,
    Event,
    Faction,
    FactionOp,
    GameState,
    Intent,
    Player,
    Status,
    Vote,
    new_rng_state,
)
from .votes import announce_ballot, announce_open_action, announce_withdrawn, vote_candidates
from .world import World

#: how far a GM may set a stat on a side its ruleset leaves open: the books write stats in two
#: digits (HP in three), so four digits cover every correction and refuse a slip of the keyboard
GM_STAT_LIMIT = 9_999


def gm_stat_range(sdef: StatDef) -> tuple[int, int]:
    """The values ``/gm setstat`` accepts for a stat: its own bounds where the ruleset sets them,
    else ±:data:`GM_STAT_LIMIT`."""
    lo = sdef.min if sdef.min is not None else -GM_STAT_LIMIT
    hi = sdef.max if sdef.max is not None else GM_STAT_LIMIT
    return lo, hi


class _Job:
    """The method ``name`` of the game's job ``job`` (``legality``, ``phase_end``), offered as
    the game's own: the bot, storage, the texts and the tools ask the game. Looked up on each
    use and never kept in the game's own attributes: a game's attributes stay the few its
    ``__init__`` sets, in that order, which keeps Python's fast path for every read of
    ``state`` and ``rules`` (writing dozens of others, in whichever order a game first asks
    them, makes every attribute read of every game take the slow, general lookup)."""

    def __init__(self, job: str, name: str) -> None:
        self.job, self.name = job, name
        self.__doc__ = f"{job}.{name}"

    def __get__(self, g: Any, owner: type | None = None) -> Any:
        if g is None:
            return self
        return getattr(getattr(g, self.job), self.name)


def _job(job: str, name: str) -> Any:
    return _Job(job, name)


class Game(World):
    """A game: the world (every read-only question, :class:`engine.world.World`) and the
    commands (new, submit, vote, faction_op, gm_*, resolve) that change it. The rules of a
    command live in jobs that take the world: :class:`~engine.legality.Legality` and
    :class:`~engine.phase_end.PhaseEnd` (objects over the world), :mod:`engine.orders`,
    :mod:`engine.mail` and :mod:`engine.deal` (functions of it); the game delegates to them."""

    def __init__(self, ruleset: Ruleset, state: GameState) -> None:
        super().__init__(ruleset, state)
        self.legality = Legality(self)
        self.phase_end = PhaseEnd(self, self.legality)

    # ---- the jobs' answers, asked of the game -----------------------------------------
    VIAS = VIAS
    borrow_params = staticmethod(Legality.borrow_params)
    find_ability = _job("legality", "find_ability")
    borrowers = _job("legality", "borrowers")
    borrow_keys = _job("legality", "borrow_keys")
    obligation = _job("legality", "obligation")
    order_targets = _job("legality", "order_targets")
    leader_keys = _job("legality", "leader_keys")
    extra_slots = _job("legality", "extra_slots")
    lane_for = _job("legality", "lane_for")
    check_available = _job("legality", "check_available")
    check_submission = _job("legality", "check_submission")
    run_checks = _job("legality", "run_checks")
    legal_actions = _job("legality", "legal_actions")
    open_vote = _job("legality", "open_vote")
    vote_choices = _job("legality", "vote_choices")
    voter = _job("legality", "voter")
    declared_idle = _job("phase_end", "declared_idle")
    submitted = _job("phase_end", "submitted")
    has_turn_action = _job("phase_end", "has_turn_action")
    turn_done = _job("phase_end", "turn_done")
    owes_action = _job("phase_end", "owes_action")
    may_vote = _job("phase_end", "may_vote")
    owes_votes = _job("phase_end", "owes_votes")
    owed = _job("phase_end", "owed")
    phase_roll = _job("phase_end", "phase_roll")
    early_end_rule = _job("phase_end", "early_end_rule")
    waiting_for = _job("phase_end", "waiting_for")
    held_up_by_nobody = _job("phase_end", "held_up_by_nobody")
    may_end_early = _job("phase_end", "may_end_early")
    can_declare_idle = _job("phase_end", "can_declare_idle")
    pm_quota = mail.pm_quota  # (functions of the world: the game is one)
    pm_left = mail.pm_left
    pm_already_sent = mail.already_sent
    pm_recipients = mail.recipients
    cooldowns = cooldowns
    same_submission = same_submission
    pending_invitations = pending_invitations
    anon_quota = mail.anon_quota
    anon_left = mail.anon_left
    mail_quotas = mail.mail_quotas
    send_pm = mail.send_pm
    post_anon = mail.post_anon

    # ---- creation -------------------------------------------------------------------
    @classmethod
    def new(cls, ruleset: Ruleset, seed: int, players: list[PlayerSpec], settings: dict[str, Any] | None = None) -> Game:
        state = GameState(ruleset=ruleset.id, seed=seed, rng_state=new_rng_state(seed), end_day=ruleset.calendar.days)
        state.settings = {**ruleset.settings, **(settings or {})}
        check_settings(state.settings)
        game = cls(ruleset, state)
        if game.settings.days is not None:
            state.end_day = game.settings.days
        players = deal(game, players)
        names = set()
        for seat, spec in enumerate(players):
            if spec.name in names:
                raise GameError(f"two players named {spec.name!r}")
            names.add(spec.name)
            role = ruleset.role(spec.role)
            char = ruleset.character(spec.character) if spec.character else None
            stats = {s.id: s.default for s in ruleset.stats}
            for src in (role, char):
                if src:
                    stats.update(src.stats)
            for k, v in (spec.stats or {}).items():
                stats[ruleset.stat(k).id] = v
            p = Player(pid=seat, name=spec.name, role=role.id, character=char.id if char else None, user_id=spec.user_id, stats=stats)
            for st in spec.statuses or []:
                sid = ruleset.status(st).id
                p.statuses[sid] = Status(id=sid, since=-1)
            state.players.append(p)
        for seat, spec in enumerate(players):
            if spec.faction:
                f = state.factions.get(spec.faction)
                if f is None:
                    f = state.factions[spec.faction] = Faction(fid=spec.faction, leader=seat)
                f.members[seat] = -1
                if spec.leader:
                    f.leader = seat
        apply_passive_modifiers(game)
        game._apply_bands()
        for vdef in ruleset.votes:
            VOTES[vdef.kind].on_start(game, vdef)
        if ruleset.steps.get("start"):
            run_start(game)
        game.sync_rng()
        return game

    def choose_bonus(self, pid: int, stat: str) -> str:
        """The player picks (or changes) the stat of their hidden bonus; refused after the first resolve."""
        p = self.player(pid)
        if self.state.over:
            raise ActionError("game_over")
        ch = self.bonus_choice(p)
        if ch is None or ch["modifier"] is None:
            raise ActionError("no_bonus_choice")
        if not ch["open"]:
            raise ActionError("bonus_locked")
        sid = next((s.id for s in self.rules.stats if stat in (s.id, s.abbr.ru, s.abbr.en)), None)
        if sid not in ch["choices"]:
            raise ActionError("bad_bonus_stat", stats=ch["choices"])
        ch["modifier"].stat = sid
        self.state.core.bonus_choice[str(pid)] = sid
        self.emit("private.bonus_chosen", "players", [pid], stat=sid, amount=ch["amount"])
        self.emit("gm.bonus_chosen", "gm", player=pid, stat=sid, amount=ch["amount"])
        return sid

    # ---- submissions ----------------------------------------------------------------
    def submit(self, pid: int, ability: str, targets: list[int] | None = None, option: str | None = None, via: str | None = None,
               *, by: int | None = None, tick: int | None = None) -> Intent:
        """Submit or replace an action. Raises :class:`ActionError` when refused.

        ``by``: a teammate gives ``pid``'s action (``FactionRules.orders``); it never replaces
        what the player submitted themself, and the player's own submission replaces it.
        ``tick``: an order for a later phase, checked when that phase resolves."""
        return submit(self.legality, pid, ability, targets, option, via, by=by, tick=tick)

    def cancel(self, pid: int, lane: str = "action") -> bool:
        cut = self.state.core.end_now
        if cut and cut.tick == self.state.tick and cut.by == pid and lane == "action":
            return False  # a riot that ended the turn cannot be taken back
        gone = [i for i in self.state.intents if i.pid == pid and i.lane == lane and not self.ability_def(i.ability).irrevocable]
        self.state.intents = [i for i in self.state.intents if all(i is not x for x in gone)]
        for i in gone:
            if i.tick == self.state.tick:
                announce_open_action(self, i, cancelled=True)
        return bool(gone)

    def pending(self, pid: int) -> list[Intent]:
        return [i for i in self.state.intents if i.pid == pid]

    def vote(self, pid: int, vote_id: str, choice: int | str | None) -> Vote:
        """Cast or change a ballot; a new or changed one is told in the vote channel
        (:func:`engine.votes.announce_ballot`). Only what :meth:`vote_choices` lists is accepted."""
        vdef, p = self.legality.voter(pid, vote_id)  # game_over, vote_closed, cannot_vote
        VOTES[vdef.kind].check_choice(self, vdef, p, choice)  # the counter's own reason
        if choice not in vote_candidates(self, vdef):  # what vote_choices lists: asked of the counter and a candidate
            raise ActionError("illegal_target", target=choice)
        existing = [v for v in self.state.votes if v.pid == pid and v.vote == vote_id]
        if existing and existing[0].choice == choice:
            return existing[0]  # the same ballot again is not a change: nothing is spent, nothing told
        if existing:
            limit = vdef.params.get("changes")
            per_game = vdef.params.get("changes_per_game")
            used = f"vote_change:{vote_id}"
            if limit is not None and existing[0].changes >= limit:
                raise ActionError("vote_change_limit")
            if per_game is not None and p.uses.get(used, 0) >= per_game:
                raise ActionError("vote_change_limit")
            existing[0].choice = choice
            existing[0].changes += 1
            if per_game is not None:
                p.uses[used] = p.uses.get(used, 0) + 1
            announce_ballot(self, vdef, existing[0], changed=True)
            return existing[0]
        v = Vote(vote=vote_id, pid=pid, choice=choice)
        self.state.votes.append(v)
        # a vote that reads something at the moment of voting (seed 001: the voter's ТВ)
        VOTES[vdef.kind].on_ballot(self, vdef, v)
        announce_ballot(self, vdef, v, changed=False)
        return v

    def unvote(self, pid: int, vote_id: str) -> Vote:
        """Take one's ballot back where the vote allows it (``vote_withdrawable``)."""
        p = self.player(pid)
        if self.state.over:
            raise ActionError("game_over")
        if not self.vote_withdrawable(vote_id):
            raise ActionError("vote_no_withdraw")
        if vote_id not in {v.id for v in self.open_votes()} or self.phase_cut():
            raise ActionError("vote_closed", vote=vote_id)
        mine = [v for v in self.state.votes if v.pid == p.pid and v.vote == vote_id]
        if not mine:
            raise ActionError("no_ballot")
        self.state.votes.remove(mine[0])
        announce_withdrawn(self, self.legality.open_vote(vote_id), p.pid)
        return mine[0]

    # ---- factions -------------------------------------------------------------------
    def faction_op(self, pid: int, op: str, target: int | None = None, fid: str | None = None) -> FactionOp:
        check_op(self, self.player(pid), op, target, fid)
        o = FactionOp(seq=self.next_seq(), op=op, pid=pid, target=target, fid=fid, tick=self.state.tick)
        self.state.faction_ops.append(o)
        return o

    # ---- GM operations --------------------------------------------------------------
    def gm_set_stat(self, pid: int, stat: str, value: int) -> None:
        p = self.player(pid)
        sdef = self.rules.stat(stat)
        sid = sdef.id
        lo, hi = gm_stat_range(sdef)
        if not lo <= value <= hi:  # a slip of the keyboard, not a correction (docs/bot.md)
            raise ActionError("stat_out_of_range", stat=sid, value=value, lo=lo, hi=hi)
        old = p.stats[sid]
        p.stats[sid] = value
        self.emit("gm.set_stat", "gm", player=pid, stat=sid, old=old, new=value)
        # a correction, not a game result: marked so (its own text), and nothing told when unchanged
        if value == old:
            pass
        elif sdef.visibility == "public":
            self.emit("report.stat", "public", player=pid, stat=sid, delta=value - old, value=value, correction=True)
            tell(self, pid, "notice.stat", stat=sid, delta=value - old, value=self.true_stat(p, sid), correction=True)
        elif sdef.visibility == "secret":
            self.emit("private.stat", "players", [pid], stat=sid, delta=value - old, value=self.true_stat(p, sid), correction=True)
        self._apply_bands()

    def gm_set_status(self, pid: int, status: str, cycles: int | None = None) -> None:
        p = self.player(pid)
        sdef = self.rules.status(status)
        # set between resolves, it is in force at once, for this period's resolve too: it counts
        # as if it had taken hold at the previous resolve, so it covers as many resolves as an
        # action's «на сутки» and never outlasts the GM's n × 24 hours (docs/rules/godfather.md)
        until = self.clock.lasts_until(self.state.tick - 1, cycles) if cycles else None
        p.statuses[sdef.id] = Status(id=sdef.id, since=self.state.tick, until=until)
        for sid in sdef.clears:
            p.statuses.pop(sid, None)
        self.emit("gm.set_status", "gm", player=pid, status=sdef.id)
        self.emit("report.status_on", "public" if sdef.public else "players", [] if sdef.public else [pid], player=pid, status=sdef.id)
        if sdef.public:  # the player's own line (engine/resolve/notices.py); a secret one is theirs above
            tell(self, pid, "notice.status_on", status=sdef.id)

    def gm_clear_status(self, pid: int, status: str) -> None:
        p = self.player(pid)
        sdef = self.rules.status(status)
        if p.statuses.pop(sdef.id, None) is not None:
            self.emit("gm.clear_status", "gm", player=pid, status=sdef.id)
            self.emit("report.status_off", "public" if sdef.public else "players", [] if sdef.public else [pid], player=pid, status=sdef.id)
            if sdef.public:
                tell(self, pid, "notice.status_off", status=sdef.id)

    def gm_message(self, pid: int, text: str) -> None:
        self._gm_tells(pid, "gm.message", text=text)

    def _gm_tells(self, pid: int, key: str, **args: Any) -> None:
        """A GM's word to one player, held while a status holds their messages (seed 002's coma)."""
        if any(f.messages == "hold" for f in self.status_flags(self.player(pid))):
            self.state.held.setdefault(str(pid), []).append({"key": key, "args": args})
            self.emit("gm.message_held", "gm", player=pid)
            return
        self.emit(key, "players", [pid], **args)

    def gm_refuse_anon(self, seq: int) -> Anon:
        """«При несоответствии ведущий может отказать»: a queued anonymous post is dropped and
        its author told. It gives the day's quota back unless ``refused_anon_spends``."""
        if self.state.over:
            raise ActionError("game_over")
        a = next((a for a in self.state.anons if a.seq == seq), None)
        if a is None:
            published = any(x.seq == seq for x in self.state.core.anons)
            raise ActionError("anon_published" if published else "unknown_anon", seq=seq)
        self.state.anons.remove(a)
        spends = self.settings.refused_anon_spends
        p, day = self.player(a.pid), str(self.clock.info(a.tick).day)
        if not spends and p.anon_sent.get(day):
            p.anon_sent[day] -= 1
        self.emit("gm.anon_refused", "gm", player=a.pid, text=a.text)
        self.emit("private.anon_refused_spent" if spends else "private.anon_refused", "players", [a.pid], text=a.text)
        return a

    def gm_set_end_day(self, day: int) -> None:
        cal = self.rules.calendar
        if not cal.min_days <= day <= cal.max_days or self.clock.cycles(day) <= self.state.tick:
            raise ActionError("bad_end_day", day=day)
        old, self.state.end_day = self.state.end_day, day
        self.emit("gm.end_day", "gm", old=old, new=day)

    def gm_settle_task(self, index: int, note: str = "") -> None:
        """The GM has settled a task: the actor, if still in play, is told privately with the
        GM's decision (seed 003: the dead «не может получать игровых сообщений от Мастера»)."""
        if not 0 <= index < len(self.state.gm_tasks):
            raise ActionError("unknown_task", task=index)
        task = self.state.gm_tasks[index]
        task["settled"] = note or True
        self.emit("gm.task_settled", "gm", index=index)
        label = self.clock.info(task["tick"]).label
        if self.alive(self.player(task["actor"])):
            self._gm_tells(task["actor"], "private.task_settled" if note else "private.task_settled_plain",
                           ability=task["ability"], phase=label, text=note)

    # ---- people: a seat handed to another member, a player taken out ------------------------
    def gm_substitute(self, pid: int, user_id: int, name: str | None = None) -> None:
        """«Замена»: the seat passes to another member with everything it holds (role,
        character, stats, statuses, history, pending actions, factions). Its name stays
        unless the GM gives ``name`` (docs/rules/people.md)."""
        if self.state.over:
            raise ActionError("game_over")
        p = self.player(pid)
        if not self.alive(p):
            raise ActionError("seat_out", player=pid)
        if any(q.user_id == user_id for q in self.state.players):
            raise ActionError("already_seated", player=next(q.pid for q in self.state.players if q.user_id == user_id))
        name = (name or "").strip() or p.name
        if any(q.name == name for q in self.state.players if q is not p):
            raise ActionError("name_taken", name=name)
        old_user, old_name = p.user_id, p.name
        p.user_id, p.name = user_id, name
        self.emit("gm.substituted", "gm", player=pid, old=old_name, old_user=old_user, new_user=user_id)
        self.emit("public.substituted", "public", player=pid, old=old_name, new_user=user_id)

    def gm_remove(self, pid: int, mode: str = "modkill") -> None:
        """The GM takes a player out of the game: ``modkill`` (a death by the GM's hand) or
        ``left`` (gone for good). Either way the seat holds the ruleset's dead status, so it is
        out of play and counted as dead for victory; its pending actions and open votes go."""
        if mode not in ("modkill", "left"):
            raise ActionError("bad_remove_mode", mode=mode)
        if self.state.over:
            raise ActionError("game_over")
        p = self.player(pid)
        if not self.alive(p):
            raise ActionError("seat_out", player=pid)
        ddef = self.rules.death_status()  # the ruleset's, never an id named here
        dead = ddef.id
        tell(self, pid, "notice.status_on", status=dead)  # told while the seat still reads its news (the dead's are dropped)
        p.statuses[dead] = Status(id=dead, since=self.state.tick, data={"cause": f"gm_{mode}"})
        for sid in ddef.clears:
            p.statuses.pop(sid, None)
        self.state.intents = [i for i in self.state.intents if i.pid != pid]
        self.state.votes = [v for v in self.state.votes if v.pid != pid]
        for f in list(self.factions_of(pid)):
            remove_member(self, f, pid, reason="death")
        self.emit(f"gm.removed_{mode}", "gm", player=pid)
        self.emit(f"public.removed_{mode}", "public", player=pid)

    def declare_idle(self, pid: int) -> None:
        """The GM says ``pid`` does nothing this phase («Если вы ничего не делаете в эту ночь,
        напишите Мастеру»): the phase waits for them no more (until the tick advances).
        Refused where it has no effect: a ruleset without an early end, a dead player, a
        player the phase does not wait for."""
        p = self.player(pid)
        why = self.phase_end.can_declare_idle(p)
        if why is not None:
            raise ActionError(why, player=pid)
        self.state.idle.append(pid)
        self.emit("gm.declared_idle", "gm", player=pid)

    # ---- resolution -----------------------------------------------------------------
    def resolve(self) -> list[Event]:
        """Resolve the current tick; returns the events it produced."""
        if self.state.over:
            raise GameError("the game is over")
        first = len(self.state.events)
        moves_due(self.legality)  # orders given for this tick, forced moves, random actions
        events = resolve_tick(self, first)
        self.state.idle = []
        return events

    def _apply_bands(self) -> None:
        apply_bands(self, announce=False)

    # ---- persistence ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        self.sync_rng()
        return self.state.to_dict()

    def to_encodable(self) -> dict[str, Any]:
        """:meth:`to_dict`'s layout, leaves uncopied, for an encoder that writes dataclasses
        (``GameState.to_encodable``): encode it at once."""
        self.sync_rng()
        return self.state.to_encodable()

    def copy(self) -> Game:
        """An independent copy of the game (a preview resolves it): the same random draws to come."""
        self.sync_rng()
        return Game(self.rules, copy.deepcopy(self.state))

    @classmethod
    def from_dict(cls, ruleset: Ruleset, data: dict[str, Any]) -> Game:
        return cls(ruleset, GameState.from_dict(data))
