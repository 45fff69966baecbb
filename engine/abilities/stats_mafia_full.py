"""Seed 003, the stats mafia, complete (ruleset ``stats_mafia``; decisions: docs/rules/stats_mafia.md).

Contests of secret stats: an attack is the attacker's initiative − the target's defense, a
check the checker's initiative − the target's stealth read from the book's table
(``settings.check_table``). Hospital days are a timed status summed over attacks; the dead are
in the Morgue, the jailed in Prison (``life_sentence`` on top for the rest of the game). The day
vote («Вече») is the vote kind ``stats_prison``; letters («Почта», «Записка на волю») are the
mail policy ``stats_mafia``; victory is the kind ``stats_mafia``.

Everything this module remembers between resolves is in ``GameState.memo["stats_mafia"]``.
Stats in contests are read with the purpose ``contest``: a bonus nobody knows of (the Гик's)
counts there and nowhere else.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ..effects import kill
from ..errors import ActionError
from ..registry import VOTES, impl, mail, step
from ..registry import victory as register_victory
from ..state import Anon, Modifier, Player, Pm, Status
from ..votes import publish_tally, secret_passives

if TYPE_CHECKING:
    from ..game import Game
    from ..resolver import Ctx
    from ..state import Intent, Vote

STATS = ("initiative", "defense", "stealth")
PRISON, LIFE, HOSPITAL = "prison", "life_sentence", "hospital"


def memo(g: Game) -> dict[str, Any]:
    return g.state.memo.setdefault("stats_mafia", {})


def setting(g: Game, key: str, default: Any) -> Any:
    return g.state.settings.get(key, default)


# ---- reading the table --------------------------------------------------------------------
def stat(g: Game, p: Player, sid: str) -> int:
    """A stat as contests read it: with every bonus, the hidden ones («Google-fu») too."""
    return g.true_stat(p, sid, "contest")


def parts(g: Game, p: Player, sid: str, tick: int) -> list[int]:
    """The pieces a contest value is made of: the base, each timed or lasting bonus, each status."""
    out = [p.stats.get(sid, 0)]
    out += [m.amount for m in p.modifiers if m.stat == sid and (m.until is None or m.until > tick) and m.scope in ("all", "contest")]
    out += [f.stat_modifiers.get(sid, 0) for f in g.status_flags(p)]
    return out


def team(g: Game, role: str | None) -> str | None:
    return g.rules.character(role).team if role else None


def seen_role(g: Game, p: Player, test: str = "check") -> str | None:
    """The secret role a test of ``p`` reads: the Maniac's disguise («Двойная жизнь») fools the
    checks, and with ``settings.disguise_scope: all`` every test of his role or team."""
    d = memo(g).get("disguise", {}).get(str(p.pid))
    if d and (test == "check" or setting(g, "disguise_scope", "checks") == "all"):
        return d
    return p.character


def in_prison(g: Game, p: Player, tick: int | None = None) -> bool:
    return g.active(p, PRISON, tick) is not None


def free(g: Game, p: Player, tick: int | None = None) -> bool:
    return g.alive(p) and not in_prison(g, p, tick)


def may_escape(g: Game, p: Player) -> bool:
    """A prisoner who can still leave by his own ability («Побег» not yet used)."""
    for key, ab in g.abilities(p):
        if any(e.impl == "sm_escape" for e in ab.effects) and p.uses.get(key, 0) < (ab.uses_per_game or 1):
            return True
    return False


def out_of_play(g: Game, p: Player) -> bool:
    """Out for victory: dead, or (setting ``life_prisoners_out``) in Prison for the rest of the
    game with no way out of it."""
    if not g.alive(p):
        return True
    return bool(setting(g, "life_prisoners_out", True)) and g.active(p, LIFE) is not None and not may_escape(g, p)


# ---- hospital, death, prison ---------------------------------------------------------------
def next_day(g: Game, tick: int) -> int:
    t = tick + 1
    while g.clock.info(t).kind != "day":
        t += 1
    return t


def hospitalize(ctx: Ctx, t: Player, days: int, start: int) -> None:
    """``days`` сутки of Hospital from the tick ``start``, added to what is left of a stay."""
    g = ctx.game
    s = t.statuses.get(HOSPITAL)
    until = max(s.until, start) if s is not None and s.until is not None else start
    until += g.clock.cycles(days)
    since = min(s.since, start) if s is not None else start
    t.statuses[HOSPITAL] = Status(id=HOSPITAL, since=since, until=until, data={})
    ctx.scratch.setdefault("sm_hospital", set()).add(t.pid)


def die(ctx: Ctx, t: Player, cause: str) -> None:
    """Death, unless a ``reprieve`` («Незавершенное дело») turns a night's death into Prison
    for the rest of the game at the end of the next day."""
    g = ctx.game
    if not g.alive(t):
        return
    if g.passives(t, "reprieve") and g.clock.info(ctx.tick).kind == "night":
        due = memo(g).setdefault("reprieve", {})
        if str(t.pid) not in due and g.active(t, LIFE) is None:
            due[str(t.pid)] = next_day(g, ctx.tick)
            ctx.emit("sm.reprieve", "players", [t.pid])
        ctx.emit("sm.gm_reprieve", "gm", player=t.pid, cause=cause)
        return
    kill(ctx, t, cause)


def jail(ctx: Ctx, p: Player, life: bool, cause: str) -> bool:
    """Prison from the next phase: for ``settings.prison_term_cycles`` сутки, or for the rest of
    the game (``life_sentence`` too). True when something changed."""
    g = ctx.game
    since = ctx.tick + 1
    old = p.statuses.get(PRISON)
    if old is not None and old.until is None:
        return False  # in for good already
    if life:
        p.statuses[PRISON] = Status(id=PRISON, since=old.since if old else since, until=None, data={"cause": cause})
        p.statuses[LIFE] = Status(id=LIFE, since=since, until=None, data={"cause": cause})
    else:
        until = since + g.clock.cycles(int(setting(g, "prison_term_cycles", 2)))
        if old is not None and old.until is not None and old.until >= until:
            return False
        p.statuses[PRISON] = Status(id=PRISON, since=old.since if old else since, until=until, data={"cause": cause})
    # «Находящийся в Тюрьме Джокер может применить Ва-Банк на следующую фазу после попадания в Тюрьму»
    window = setting(g, "jail_window_status", "all_in_ready")
    if any(window in r.status for _, ab in g.abilities(p) for r in ab.requires):
        p.statuses[window] = Status(id=window, since=since, until=since + 1, data={})
    ctx.emit("sm.gm_jailed", "gm", player=p.pid, cause=cause)
    return True


# ---- start ---------------------------------------------------------------------------------
@step("sm_start")
def start(ctx: Ctx, sd: Any) -> None:
    """«Контакты - в начале игры все члены Мафии узнают Явные роли друг друга»; the Гик's stat,
    drawn by the game's generator and told to the GM only; the Maniac's default disguise."""
    g = ctx.game
    for p in g.state.players:
        for x in g.passives(p, "team_contacts"):
            mates = [q.pid for q in g.state.players if team(g, q.character) == x["team"]]
            ctx.emit("sm.contacts", "players", mates, players=mates, by=p.pid)
        for x in g.passives(p, "random_bonus"):
            random_bonus(g, p, x)
        for _, ab in g.abilities(p):
            for effs in ab.options.values():
                for e in effs:
                    if e.impl == "sm_disguise" and e.params.get("default"):
                        memo(g).setdefault("disguise", {})[str(p.pid)] = e.params["default"]
    upkeep(ctx, sd)


def random_bonus(g: Game, p: Player, x: dict[str, Any]) -> None:
    """«Google-fu - имеет +1 к случайному стату, к какому - не знает даже сам Гик»."""
    picked = setting(g, "random_bonus_choice", {}).get(p.name)  # the GM's (or a scenario's) pick
    stat_id = picked or g.rng.choice(sorted(x.get("stats", STATS)))
    amount = int(x.get("amount", 1))
    p.modifiers.append(Modifier(stat=stat_id, amount=amount, source="random_bonus", scope="contest"))
    g.emit("sm.gm_random_bonus", "gm", player=p.pid, stat=stat_id, count=amount)


# ---- boosts --------------------------------------------------------------------------------
def _night_mod(ctx: Ctx, intent: Intent, t: Player, sid: str, delta: int) -> None:
    t.modifiers.append(Modifier(stat=sid, amount=delta, source=intent.ability, until=ctx.tick + 1))


@impl("sm_guard")
def guard(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Защищать и Служить - ночью может добавить 4 (или 1, если Полицейский в Госпитале) к
    защите цели на ночь»."""
    g = ctx.game
    actor = g.player(intent.pid)
    delta = int(eff.params.get("delta", 4))
    for sid, d in eff.params.get("in_status", {}).items():
        if g.active(actor, sid):
            delta = int(d)
    for t in people:
        _night_mod(ctx, intent, t, eff.params.get("stat", "defense"), delta)


@impl("sm_sabotage")
def sabotage(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Саботаж»: a guessed secret role gives −2 to every stat for the night (−1 to the roles
    the book names)."""
    g = ctx.game
    for t in people:
        role = seen_role(g, t, "guess")
        if role != intent.option:
            ctx.note(intent, f"wrong_guess:{t.pid}")
            continue
        delta = int(eff.params.get("mild", -1)) if role in eff.params.get("mild_roles", []) else int(eff.params.get("delta", -2))
        for sid in STATS:
            _night_mod(ctx, intent, t, sid, delta)
        ctx.note(intent, f"guessed:{t.pid}")


@impl("sm_disguise")
def disguise(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Двойная жизнь - в любой момент может выбрать Тайную роль, кроме Маньяка»."""
    memo(ctx.game).setdefault("disguise", {})[str(intent.pid)] = intent.option
    ctx.emit("sm.disguised", "players", [intent.pid], value=intent.option)


# ---- checks --------------------------------------------------------------------------------
def read_table(g: Game, diff: int, role: str | None) -> str | None:
    """The book's table: the secret role at 5+, the answers by team at 4, by role at 3 and
    1–2; a role a row does not name, and 0 or less, fail."""
    for row in setting(g, "check_table", []):
        if row.get("min", -99) <= diff <= row.get("max", 99):
            if row.get("answer") == "role":
                return role
            if "by_team" in row:
                return row["by_team"].get(team(g, role))
            return row.get("answers", {}).get(role)
    return None


def check(ctx: Ctx, actor: Player, t: Player, initiative: int, *, steady: bool = False) -> None:
    """``steady``: the target's temporary stealth increases are ignored (Журналист)."""
    g = ctx.game
    stealth = stat(g, t, "stealth")
    if steady:
        stealth -= sum(m.amount for m in t.modifiers if m.stat == "stealth" and m.until is not None and m.until > ctx.tick and m.amount > 0)
    diff = initiative - stealth
    answer = read_table(g, diff, seen_role(g, t))
    ctx.emit("sm.gm_check", "gm", actor=actor.pid, target=t.pid, count=diff, value=answer or "")
    if answer is None:
        ctx.emit("check.failed", "players", [actor.pid], target=t.pid)
    else:
        ctx.emit("sm.check", "players", [actor.pid], target=t.pid, value=answer)


@impl("sm_check")
def check_ability(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A check with one's initiative, or with a fixed one (``initiative``: Гробокопательство)."""
    g = ctx.game
    actor = g.player(intent.pid)
    fixed = eff.params.get("initiative")
    for t in people:
        check(ctx, actor, t, stat(g, actor, "initiative") if fixed is None else int(fixed))


@impl("sm_investigate")
def investigate(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Расследование»: the check itself comes the next night (step ``sm_journalist``)."""
    g = ctx.game
    night = ctx.tick + 1
    while g.clock.info(night).kind != "night":
        night += 1
    for t in people:
        memo(g).setdefault("investigations", []).append({"by": intent.pid, "target": t.pid, "night": night, **eff.params})
        ctx.emit("sm.investigation", "players", [intent.pid], target=t.pid)


@step("sm_journalist")
def journalist(ctx: Ctx, sd: Any) -> None:
    """«Если цель использует свою активную ночную способность на следующую ночь, Журналист
    проверяет её ночью с инициативой 2, иначе с инициативой 0», ignoring the target's temporary
    stealth increases."""
    g = ctx.game
    todo = memo(g).get("investigations", [])
    slots = set(sd.params.get("night_slots", ["night", "night_role"]))
    for inv in [x for x in todo if x["night"] == ctx.tick]:
        actor, t = g.player(inv["by"]), g.player(inv["target"])
        if not free(g, actor):
            continue  # the dead and prisoners get no game messages
        acted = any(
            i.pid == t.pid and g.ability_def(i.ability).slot in slots and ctx.outcome.get(i.seq) != "blocked" for i in ctx.intents
        )
        check(ctx, actor, t, int(inv.get("active", 2) if acted else inv.get("idle", 0)), steady=True)
    memo(g)["investigations"] = [x for x in todo if x["night"] > ctx.tick]


# ---- attacks -------------------------------------------------------------------------------
def attack(ctx: Ctx, intent: Intent, t: Player, *, initiative: int | None = None, defense: int | None = None) -> None:
    """≥ kill_at: death; 1 … kill_at − 1: that many сутки of Hospital from the next day; ≤ 0: nothing."""
    g = ctx.game
    actor = g.player(intent.pid)
    if not g.alive(t) or in_prison(g, t):
        ctx.note(intent, f"unreachable:{t.pid}")
        return
    a = stat(g, actor, "initiative") if initiative is None else initiative
    d = stat(g, t, "defense") if defense is None else defense
    diff = a - d
    ctx.emit("sm.gm_attack", "gm", actor=actor.pid, target=t.pid, ability=intent.ability, count=diff)
    if diff >= int(setting(g, "kill_at", 4)):
        die(ctx, t, intent.ability)
    elif diff >= 1:
        hospitalize(ctx, t, diff, next_day(g, ctx.tick))
    else:
        ctx.note(intent, f"no_effect:{t.pid}")


@impl("sm_attack")
def attack_ability(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    for t in people:
        attack(ctx, intent, t)


@impl("sm_punish")
def punish(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Кара - ... выбрать цель и Тайную роль. Если цель является Законом или имеет эту Тайную
    роль, атакует её.»"""
    g = ctx.game
    for t in people:
        role = seen_role(g, t, "guess")
        if team(g, role) in eff.params.get("teams", ["law"]) or role == intent.option:
            attack(ctx, intent, t)
        else:
            ctx.note(intent, f"spared:{t.pid}")


@impl("sm_bloodbath")
def bloodbath(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Кровавая баня»: a guessed unique secret role dies; a guessed Гражданский or Криминалист
    is attacked without any plus to defense and any minus to the attack."""
    g = ctx.game
    actor = g.player(intent.pid)
    for t in people:
        if seen_role(g, t, "guess") != intent.option:
            ctx.note(intent, f"wrong_guess:{t.pid}")
            continue
        if not g.alive(t) or in_prison(g, t):
            ctx.note(intent, f"unreachable:{t.pid}")
        elif g.rules.character(intent.option).copies == 1:
            ctx.emit("sm.gm_attack", "gm", actor=actor.pid, target=t.pid, ability=intent.ability, count="∞")
            die(ctx, t, intent.ability)
        else:
            a = sum(x for x in parts(g, actor, "initiative", ctx.tick) if x > 0)
            d = sum(x for x in parts(g, t, "defense", ctx.tick) if x < 0)
            attack(ctx, intent, t, initiative=a, defense=d)


@impl("sm_shotgun")
def shotgun(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Обрез под столом»: attacks everyone who used an ability on the Boss this night, except
    the Mafia."""
    g = ctx.game
    boss = intent.pid
    shot: list[int] = []
    for i in ctx.intents:
        if i.pid == boss or boss not in i.targets or ctx.outcome.get(i.seq) == "blocked" or i.pid in shot:
            continue
        if team(g, seen_role(g, g.player(i.pid), "guess")) in eff.params.get("spare_teams", ["mafia"]):
            continue
        shot.append(i.pid)
    for pid in sorted(shot):
        attack(ctx, intent, g.player(pid))
    if not shot:
        ctx.note(intent, "nobody_came")


@impl("sm_poison")
def poison(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Отравление»: «На следующий день и ночь цель ложится в Госпиталь вне зависимости от
    жизней» — one сутки from the next day, added to any stay, whatever the defense."""
    g = ctx.game
    for t in people:
        if g.alive(t):
            hospitalize(ctx, t, int(eff.params.get("days", 1)), next_day(g, ctx.tick))


@impl("sm_loot")
def loot(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Мародёрство»: from the morning, for the rest of the game, every ability of the dead
    target's open role: its actions, its features, its stat bonuses."""
    g = ctx.game
    actor = g.player(intent.pid)
    since = ctx.tick + 1
    for t in people:
        role = g.rules.role(t.role)
        for ab in role.abilities:
            actor.grants.append({"key": f"role:{role.id}:{ab.id}", "since": since, "until": None, "by": intent.ability})
        actor.grants.append({"passives": role.id, "since": since, "until": None, "by": intent.ability})
        for sid, v in role.stats.items():
            actor.modifiers.append(Modifier(stat=sid, amount=v - g.rules.stat(sid).default, source=intent.ability))
        for pas in role.passives:
            if pas.kind == "hidden_bonus":
                actor.modifiers.append(Modifier(stat=pas.params["stat"], amount=int(pas.params["amount"]), source=intent.ability))
            elif pas.kind == "random_bonus":
                random_bonus(g, actor, pas.params)
        ctx.emit("sm.loot", "public", actor=actor.pid, target=t.pid, value=role.id)


# ---- day abilities -------------------------------------------------------------------------
@impl("sm_notice")
def notice(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A public ability announced in the report («публично»)."""
    for t in people:
        ctx.emit(eff.params["key"], "public", actor=intent.pid, target=t.pid)


@impl("sm_cook")
def cook(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Карательная кулинария»: Hospital «на этот день и следующую ночь» — one сутки from this
    day, added to any stay."""
    for t in people:
        if ctx.game.alive(t):
            hospitalize(ctx, t, 1, ctx.tick)
            ctx.emit("sm.cooked", "public", actor=intent.pid, target=t.pid)


@impl("sm_treat")
def treat(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Лечение - днём может уменьшить на 1 сутки срок нахождения цели в Госпитале»."""
    g = ctx.game
    for t in people:
        s = t.statuses.get(HOSPITAL)
        if s is None or s.until is None:
            ctx.note(intent, f"not_in_hospital:{t.pid}")
            continue
        s.until -= g.clock.cycles(1)
        if s.until <= max(ctx.tick + 1, s.since):
            del t.statuses[HOSPITAL]
        else:
            ctx.scratch.setdefault("sm_hospital", set()).add(t.pid)
        ctx.emit("sm.treated", "players", [intent.pid], target=t.pid)


@impl("sm_indict")
def indict(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Обвинительный приговор»: 3 more votes against the target today; the target's own vote
    does not count today."""
    m = memo(ctx.game)
    n = int(eff.params.get("votes", 3))
    for t in people:
        extra = m.setdefault("vote_extra", {}).setdefault(str(ctx.tick), {})
        extra[str(t.pid)] = extra.get(str(t.pid), 0) + n
        m.setdefault("vote_void", {}).setdefault(str(ctx.tick), []).append(t.pid)
        ctx.emit("sm.indicted", "public", actor=intent.pid, target=t.pid, count=n)


@impl("sm_bank_save")
def bank_save(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Компромат - вместо голосования может сохранить голос "в копилку"»."""
    bank = memo(ctx.game).setdefault("bank", {})
    bank[str(intent.pid)] = bank.get(str(intent.pid), 0) + 1
    ctx.emit("sm.bank_saved", "players", [intent.pid], count=bank[str(intent.pid)])


@impl("sm_bank_spend")
def bank_spend(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Голоса из "копилки" могут быть использованы в любой день вместе с обычным»: added to
    today's ballot when it is counted (step ``vote``)."""
    spend = memo(ctx.game).setdefault("bank_spend", {}).setdefault(str(ctx.tick), {})
    spend[str(intent.pid)] = int(intent.option or 0)


@impl("sm_escape")
def escape(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Побег - Находящийся в Тюрьме Маньяк один раз за игру может в любой момент публично
    сбежать (не может действовать в эту фазу)»: out with this phase's results."""
    g = ctx.game
    p = g.player(intent.pid)
    for sid in (PRISON, LIFE):
        p.statuses.pop(sid, None)
    ctx.emit("sm.escaped", "public", player=p.pid)


# ---- built-in steps ------------------------------------------------------------------------
@step("sm_hospital_death")
def hospital_death(ctx: Ctx, sd: Any) -> None:
    """«Если наутро оказывается, что персонаж должен пробыть в Госпитале не мене 5 суток, он
    умирает»: the сутки still owed from the morning on."""
    g = ctx.game
    limit = int(setting(g, "hospital_death_days", 5))
    morning = ctx.tick + 1
    for p in g.living():
        s = p.statuses.get(HOSPITAL)
        if s is None or s.until is None:
            continue
        owed = -(-(s.until - morning) // g.clock.per_cycle)
        if owed >= limit:
            die(ctx, p, "hospital")


@step("sm_reprieve")
def reprieve_step(ctx: Ctx, sd: Any) -> None:
    """«... вместо этого в конце следующего дня попадает в Тюрьму до конца игры»."""
    g = ctx.game
    due = memo(g).get("reprieve", {})
    for pid, tick in sorted(due.items()):
        p = g.player(int(pid))
        if tick == ctx.tick:
            del due[pid]
            if g.alive(p):
                jail(ctx, p, True, "reprieve")
                ctx.emit("sm.reprieve_jailed", "public", player=p.pid)


@step("sm_upkeep")
def upkeep(ctx: Ctx, sd: Any) -> None:
    """After every resolve: the bonuses that count players in a status («Скользкий ублюдок»),
    the flag that lets the Boss aim his shotgun, the patients told their term."""
    g = ctx.game
    nxt = ctx.tick + 1
    for p in g.state.players:
        for x in g.passives(p, "stat_per_status"):
            n = sum(1 for q in g.state.players if g.active(q, x["status"], nxt)) * int(x.get("amount", 1))
            mod = next((m for m in p.modifiers if m.source == "stat_per_status" and m.stat == x["stat"]), None)
            if mod is None:
                p.modifiers.append(Modifier(stat=x["stat"], amount=n, source="stat_per_status"))
            else:
                mod.amount = n
    flag = sd.params.get("flag")
    if flag:
        down = not any(q.character == flag["character"] and free(g, q, nxt) for q in g.state.players)
        for p in g.living():
            if not any(flag["status"] in r.status for _, ab in g.abilities(p) for r in ab.requires):
                continue
            if down and flag["status"] not in p.statuses:
                p.statuses[flag["status"]] = Status(id=flag["status"], since=nxt)
            elif not down:
                p.statuses.pop(flag["status"], None)
    for pid in sorted(ctx.scratch.get("sm_hospital", set())):
        p = g.player(pid)
        s = p.statuses.get(HOSPITAL)
        if s is not None and s.until is not None and g.alive(p):
            ctx.emit("sm.hospital_term", "players", [pid], phase=g.clock.info(s.until).label)


@step("sm_mail")
def deliver_mail(ctx: Ctx, sd: Any) -> None:
    """Letters of this phase reach their readers «в начале следующей фазы», with its report."""
    g = ctx.game
    box = memo(g).get("mail", [])
    for m in [x for x in box if x["tick"] <= ctx.tick]:
        # an anonymous letter carries no author, not even in the event's data; a note is signed
        author = {"sender": m["from"]} if m["signed"] else {}
        if m["to"] is None:
            ctx.emit("sm.note_town" if author else "sm.mail_town", "public", text=m["text"], **author)
            ctx.emit("sm.gm_mail_town", "gm", sender=m["from"], text=m["text"])
            continue
        r = g.player(m["to"])
        if not free(g, r, ctx.tick + 1):
            ctx.emit("sm.gm_mail_lost", "gm", sender=m["from"], target=r.pid)
            continue
        ctx.emit("sm.note" if author else "sm.mail", "players", [r.pid], text=m["text"], **author)
        ctx.emit("sm.gm_mail", "gm", sender=m["from"], target=r.pid, text=m["text"])
    memo(g)["mail"] = [x for x in box if x["tick"] > ctx.tick]
    for key in ("sent", "vote_extra", "vote_void", "bank_spend"):  # per-phase records, now read
        for t in [t for t in memo(g).get(key, {}) if int(t) <= ctx.tick]:
            del memo(g)[key][t]


# ---- the day vote («Вече») -----------------------------------------------------------------
def _instead_of_vote(g: Game, pid: int, tick: int, outcome: dict[int, str] | None = None) -> str | None:
    """An ability used instead of the day's vote (label ``instead_of_vote``), if ``pid`` has one."""
    for i in g.state.intents:
        if (
            i.pid == pid and i.tick == tick and "instead_of_vote" in g.ability_def(i.ability).labels
            and (outcome is None or outcome.get(i.seq) != "blocked")
        ):
            return i.ability
    return None


def _detained(g: Game, p: Player, tick: int) -> bool:
    for sid, s in p.statuses.items():
        if sid.startswith("blocked") and g.active(p, sid, tick) and (not s.data.get("slots") or "day" in s.data["slots"]):
            return True
    return False


class StatsPrisonVote:
    """«Голосование»: public, changeable (the last ballot counts); at the end of the day the
    most-voted goes to Prison, for ``prison_term_cycles`` сутки on the days of ``term_days``,
    for the rest of the game later; a tie (or no vote) jails nobody."""

    @staticmethod
    def secret_weights(g: Game, vdef: Any) -> bool:
        """Деспотия (Политик), «Обвинительный приговор» (Прокурор, «публично»), the VIP's cap
        (Авторитет) and «Компромат» (Сплетник) belong to open roles: shown, unless a secret
        character has such a weight. (Скользкий ублюдок's secret discount is applied after the
        public tally: only the outcome tells.)"""
        return secret_passives(g, ("vote_bonus", "vote_cap_against"))

    @staticmethod
    def is_open(g: Game, vdef: Any) -> bool:
        return g.info.kind == "day"

    @staticmethod
    def check_choice(g: Game, vdef: Any, p: Player, choice: Any) -> None:
        if not isinstance(choice, int) or not 0 <= choice < len(g.state.players):
            raise ActionError("illegal_target", target=choice)
        if not g.alive(g.player(choice)):
            raise ActionError("target_not_alive", target=choice)
        instead = _instead_of_vote(g, p.pid, g.state.tick)
        if instead:
            raise ActionError("vote_replaced", ability=instead)

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        m = memo(g)
        tick = str(ctx.tick)
        void = set(m.get("vote_void", {}).get(tick, []))
        spend = m.get("bank_spend", {}).get(tick, {})
        bank = m.setdefault("bank", {})
        tally: dict[int, int] = defaultdict(int)
        for b in sorted(ballots, key=lambda b: b.pid):
            voter = g.player(b.pid)
            why = None
            if not g.alive(voter) or any(not f.can_vote for f in g.status_flags(voter)):
                why = "cannot_vote"
            elif _detained(g, voter, ctx.tick):
                why = "detained"
            elif b.pid in void:
                why = "indicted"
            elif _instead_of_vote(g, b.pid, ctx.tick, ctx.outcome):
                why = "instead"
            if why or b.choice is None or not g.alive(g.player(int(b.choice))):
                if why:
                    ctx.emit("sm.gm_vote_void", "gm", player=b.pid, reason=why)
                continue
            target = g.player(int(b.choice))
            weight = 1 + sum(int(x.get("amount", 1)) for x in g.passives(voter, "vote_bonus"))
            saved = min(int(spend.get(str(b.pid), 0)), bank.get(str(b.pid), 0))
            weight += saved
            caps = [int(x.get("max", 1)) for x in g.passives(target, "vote_cap_against")]
            if caps and weight > min(caps):
                saved = max(0, saved - (weight - min(caps)))
                weight = min(caps)
            if saved:
                bank[str(b.pid)] -= saved
                ctx.emit("sm.bank_spent", "players", [b.pid], count=saved, left=bank[str(b.pid)])
            tally[target.pid] += weight
        for pid, n in m.get("vote_extra", {}).get(tick, {}).items():
            tally[int(pid)] += n
        shown = sorted(((k, n) for k, n in tally.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))
        if shown:
            publish_tally(g, vdef, [[k, n] for k, n in shown], ballots)
        # «Скользкий ублюдок ... Каждый день списывает число голосов, равное его Инициативе»: the
        # public saw the ballots; only the outcome tells (the GM trace says how)
        for pid in list(tally):
            for x in g.passives(g.player(pid), "vote_discount"):
                cut = max(0, stat(g, g.player(pid), x.get("stat", "initiative")))
                if cut:
                    tally[pid] = max(0, tally[pid] - cut)
                    ctx.emit("sm.gm_vote_discount", "gm", player=pid, count=cut)
        top = max(tally.values(), default=0)
        leaders = sorted(pid for pid, n in tally.items() if n == top)
        if top <= 0:
            g.emit("sm.vote_nobody", "public")
            return
        if len(leaders) > 1:
            g.emit("sm.vote_tie", "public", players=leaders)
            return
        p = g.player(leaders[0])
        reprieves = [x for x in g.passives(p, "vote_reprieve")]
        used = m.setdefault("vote_reprieves", {})
        if reprieves and used.get(str(p.pid), 0) < sum(int(x.get("uses", 1)) for x in reprieves):
            used[str(p.pid)] = used.get(str(p.pid), 0) + 1
            g.emit("sm.bribe", "public", player=p.pid)
            return
        day = g.clock.info(ctx.tick).day
        life = day not in setting(g, "prison_term_days", [1, 2])
        if not jail(ctx, p, life, f"vote:{vdef.id}"):
            g.emit("sm.vote_already", "public", player=p.pid)
            return
        g.emit("sm.vote_jailed_life" if life else "sm.vote_jailed_term", "public", player=p.pid)


VOTES["stats_prison"] = StatsPrisonVote


# ---- mail («Почта», «Записка на волю») -------------------------------------------------------
@mail("stats_mafia")
class StatsMafiaMail:
    """No private messages: «Почта» is an anonymous letter to one player or the whole town, any
    phase, read at the start of the next; a prisoner's «Записка на волю» is the same, signed;
    the Mafia talk freely on the first night (``mafia_talk_nights``)."""

    @staticmethod
    def _letter(g: Game, p: Player, to: int | None, text: str) -> tuple[int, bool]:
        if not g.alive(p):
            raise ActionError("not_alive")
        if not text.strip():
            raise ActionError("empty_message")
        if to is not None:
            if to == p.pid:
                raise ActionError("self_target")
            r = g.player(to)
            if not g.alive(r):
                raise ActionError("target_not_alive", target=to)
            if in_prison(g, r):
                raise ActionError("target_unreachable", target=to)
        signed = in_prison(g, p)
        kind = "notes" if signed else "letters"
        quota = int(setting(g, "notes_per_phase" if signed else "mail_per_phase", 1))
        sent = memo(g).setdefault("sent", {}).setdefault(str(g.state.tick), {}).setdefault(kind, {})
        if quota and sent.get(str(p.pid), 0) >= quota:
            raise ActionError("mail_quota", quota=quota)
        sent[str(p.pid)] = sent.get(str(p.pid), 0) + 1
        seq = g.next_seq()
        memo(g).setdefault("mail", []).append({"seq": seq, "from": p.pid, "to": to, "text": text, "tick": g.state.tick, "signed": signed})
        return seq, signed

    @staticmethod
    def send(g: Game, p: Player, r: Player, text: str) -> Pm:
        info = g.info
        talk = setting(g, "mafia_talk_nights", [1])
        if (
            info.kind == "night" and info.day in talk and free(g, p) and free(g, r) and p.pid != r.pid
            and team(g, p.character) == "mafia" and team(g, r.character) == "mafia" and text.strip()
        ):
            # «мафия может общаться между собой в первую ночь»: signed and at once
            pm = Pm(seq=g.next_seq(), sender=p.pid, recipient=r.pid, text=text, tick=g.state.tick)
            g.state.pms.append(pm)
            g.emit("pm.received", "players", [r.pid], sender=p.pid, text=text)
            return pm
        seq, _ = StatsMafiaMail._letter(g, p, r.pid, text)
        return Pm(seq=seq, sender=p.pid, recipient=r.pid, text=text, tick=g.state.tick)

    @staticmethod
    def post(g: Game, p: Player, text: str) -> Anon:
        seq, _ = StatsMafiaMail._letter(g, p, None, text)
        return Anon(seq=seq, pid=p.pid, text=text, tick=g.state.tick)


# ---- victory -------------------------------------------------------------------------------
@register_victory("stats_mafia")
def victory(g: Game, params: dict[str, Any], final: bool) -> list[int] | None:
    """«Мафия достигает победы, если мертв весь Закон и Маньяк. Закон достигает победы, если
    мертва вся Мафия и Маньяк.» «Я легенда! - если остался единственным живым персонажем,
    побеждает.» After day 12 nobody wins; a living Злой Гений takes half a win. Winners are the
    team's members who may win: alive and not in Prison."""
    players = g.state.players
    for p in g.living():
        last = all(q.pid == p.pid or not g.alive(q) for q in players)
        if last and any(x.get("last_alive") for x in g.passives(p, "victory")) and not in_prison(g, p):
            return [p.pid]
    teams = params.get("teams", {"mafia": ["law", "maniac"], "law": ["mafia", "maniac"]})

    def gone(t: str) -> bool:
        return all(out_of_play(g, q) for q in players if team(g, q.character) == t)

    won = [t for t, rivals in teams.items() if all(gone(r) for r in rivals)]
    if len(won) == len(teams) or (won and all(gone(t) for t in won)):
        return []  # nobody is left to win
    for t in won:
        winners = [q.pid for q in players if team(g, q.character) == t and free(g, q)]
        if winners:
            return winners
    if not final:
        return None
    for p in g.living():
        if any(x.get("half_at_end") for x in g.passives(p, "victory")) and not in_prison(g, p):
            g.emit("sm.half_win", "public", player=p.pid)
            memo(g).setdefault("half_winners", []).append(p.pid)
    return []


# ---- when a phase may end early ------------------------------------------------------------
def waiting_for(g: Game, declared: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Who the current phase still waits for. «День может быть закончен раньше, если голосование
    завершено»: at day, every free living player who has not voted (nor used an ability instead
    of the vote). «Ночь может закончиться раньше, если все, кто могли дать заявки, их дали»: at
    night, every free living player who may act, has submitted nothing and has not ``declared``
    that they do nothing; a Слоупок (status ``slowpoke``) holds up nobody."""
    tick = g.state.tick
    out = []
    for p in g.living():
        if p.pid in declared or in_prison(g, p):
            continue
        if g.info.kind == "day":
            if not any(v.pid == p.pid for v in g.state.votes) and not _instead_of_vote(g, p.pid, tick):
                out.append(p.pid)
        elif (
            not g.active(p, setting(g, "slowpoke_status", "slowpoke"))
            and not any(i.pid == p.pid for i in g.state.intents) and g.legal_actions(p.pid)
        ):
            out.append(p.pid)
    return out


__all__ = ["StatsMafiaMail", "StatsPrisonVote", "waiting_for"]
