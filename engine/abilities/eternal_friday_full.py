"""Seed 002 «Вечная пятница», the whole game (``config/rulesets/eternal_friday.yaml``).

Hidden HP and its public health words, the 29-step night, the day lynch with «за мир», the
weighted votes, masks, marks and revenge, the contract, the message and its revolver, the hunt,
the psycho's knife and false HP, guessing kills, observation and rest, and the open roles'
features. Decisions: ``docs/rules/eternal_friday.md``.

Every HP change goes through :func:`hurt` and :func:`heal`, which apply the book's modifiers
in one place: the contract's and the failed message's doubling, self-defence and protection
(25 % of each attack), the chief doctor's half in hospital, damage that cannot be reduced,
the student's 1.5× healing, the false HP of «Помутнение разума» and the paratrooper's
counterattack. What lasts between ticks is in ``GameState.memo["friday"]``, in statuses
(``friday_*`` ids, never reported) and in grants; what lasts one resolve is in the context's
scratch.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from ..errors import ActionError, GameError
from ..registry import VOTES, check, impl
from ..state import Faction, Status
from ..votes import Lynch, publish_tally, secret_passives

if TYPE_CHECKING:
    from ..game import Game
    from ..resolver import Ctx
    from ..ruleset import AbilityDef
    from ..state import Intent, Player, Vote

HP, HP_MAX = "hp", "hp_max"
WOUND = "mortally_wounded"
FOG, NAGAN, DOUBLE, AUTO_MED, BOSS_PISTOL = "friday_fog", "friday_nagan", "friday_mafia_double", "friday_auto_meditation", "friday_boss_pistol"
DEFAULT_WORDS = [
    {"min": 101, "status": "full"},
    {"min": 75, "max": 100, "status": "healthy"},
    {"min": 50, "max": 74, "status": "wounded"},
    {"min": 20, "max": 49, "status": "hospital"},
    {"min": 1, "max": 19, "status": "coma"},
]


# ---- state -------------------------------------------------------------------------------
def memo(g: Game) -> dict[str, Any]:
    """What this book keeps between ticks: marks, masks, revolver shots, messages, flags."""
    return g.state.memo.setdefault("friday", {})


def scratch(ctx: Ctx) -> dict[str, Any]:
    """What one resolve keeps: HP as it began, shields, who was lynched, who may not be healed…"""
    s = ctx.scratch.get("friday")
    if s is None:
        s = ctx.scratch["friday"] = {
            "hp0": {p.pid: effective_hp(ctx.game, p) for p in ctx.game.state.players},
            "words0": {p.pid: word_of(ctx.game, p) for p in ctx.game.state.players},
            "shields": set(), "lynched": set(), "no_heal": set(), "paid": set(), "extra_votes": {},
            "meditated": set(), "auto_used": set(), "observations": [], "nagan_shots": {}, "pistol_used": set(),
        }
    return s


def words(g: Game) -> list[dict[str, Any]]:
    return g.state.settings.get("health_words") or DEFAULT_WORDS


def word_ids(g: Game) -> set[str]:
    return {w["status"] for w in words(g)}


def word_of(g: Game, p: Player) -> str | None:
    return next((sid for sid in p.statuses if sid in word_ids(g)), None)


def effective_hp(g: Game, p: Player) -> int:
    """The HP every check reads: a mortally wounded avenger counts as 100 («считается живым
    персонажем со 100 хп для всех проверок»)."""
    if g.active(p, WOUND):
        return int(g.passives(p, "last_stand")[0].get("hp", 100)) if g.passives(p, "last_stand") else 100
    return p.stats.get(HP, 0)


def team_of(g: Game, p: Player) -> str | None:
    return g.rules.character(p.character).team if p.character else None


def seen_character(g: Game, p: Player) -> str | None:
    """The secret role a check sees: the mask, if the Shinobi put one on («любая проверка цели
    будет просчитываться для этой роли и соответствующей фракции»)."""
    return memo(g).get("masks", {}).get(str(p.pid), p.character)


PSYCHO_KNIFE_MASKS = ("partial", "ignore")


def psycho_knife_masks(g: Game) -> str:
    """How the psycho's knife reads masks: the setting ``psycho_knife_masks`` (``partial``: the
    book, change 33; ``ignore``: true roles only)."""
    mode = g.state.settings.get("psycho_knife_masks", "partial")
    if mode not in PSYCHO_KNIFE_MASKS:
        raise GameError(f"setting psycho_knife_masks={mode!r}: use one of {', '.join(PSYCHO_KNIFE_MASKS)}")
    return str(mode)


def is_vip(g: Game, p: Player) -> bool:
    return any("vip" in x.get("against", []) for x in g.passives(p, "protection"))


def night(ctx: Ctx) -> bool:
    return ctx.game.clock.info(ctx.tick).kind == "night"


def next_night(g: Game, tick: int) -> int:
    t = tick + 1
    while g.clock.info(t).kind != "night":
        t += 1
    return t


def only_civilians_left(g: Game) -> bool:
    """«мертва вся мафия и якудза, а из законников живы только мирные жители»."""
    civilians = set(g.state.settings.get("civilians", ["civilian"]))
    for p in g.living():
        team = team_of(g, p)
        if team in ("mafia", "yakuza") or (team == "law" and p.character not in civilians):
            return False
    return True


def owns_impl(g: Game, p: Player, name: str) -> bool:
    """Whether ``p``'s own secret role has an ability implemented by ``name``."""
    if not p.character:
        return False
    return any(e.impl == name for ab in g.rules.character(p.character).abilities for e in ab.effects)


# ---- HP: the one place every change goes through -------------------------------------------
def _fog(g: Game, p: Player, tick: int, which: str = "ticks") -> Status | None:
    s = p.statuses.get(FOG)
    return s if s is not None and tick in s.data.get(which, []) else None


def _touch_fog(ctx: Ctx, p: Player, delta: int) -> None:
    """«Дневное лечение и дневной урон действуют и на настоящие, и на фальшивые хп. Фальшивые хп не
    могут опуститься ниже 1 и подняться выше максимума хп.»"""
    s = _fog(ctx.game, p, ctx.tick)
    if s is not None and not night(ctx):
        s.data["fake"] = max(1, min(p.stats.get(HP_MAX, 100), s.data["fake"] + delta))


def hurt(ctx: Ctx, t: Player, amount: int, *, by: int | None = None, labels: list[str] | tuple[str, ...] = (),
         ability: str = "", unreducible: bool = False) -> int:
    """Deal ``amount`` damage to ``t``; the damage actually dealt, rounded up.

    Doubled at night by the contract («удвоенный урон от всех источников») and, for the Mafia's
    night abilities, by a failed message; then, unless it cannot be reduced, 25 % of an attack
    under self-defence or protection (they do not add up), or else the chief doctor's half in
    hospital. Whoever hurts a contracted target regains 15 HP once that night; an attack on the
    paratrooper is answered with his counterattack.
    """
    g = ctx.game
    s = scratch(ctx)
    at_night = night(ctx)
    contract = g.active(t, "contracted")
    contracted = at_night and contract is not None and contract.data.get("night") == ctx.tick
    total = amount * (2 if contracted else 1)
    if at_night and "mafia" in labels and g.active(t, DOUBLE):
        total *= 2
    factor = 1.0
    if not unreducible:
        if "attack" in labels and t.pid in s["shields"]:
            factor = 0.25
        else:
            for x in g.passives(t, "damage_factor"):
                if g.active(t, x.get("status", "hospital")):
                    factor = min(factor, float(x["factor"]))
    dealt = math.ceil(total * factor)
    t.stats[HP] = t.stats.get(HP, 0) - dealt
    _touch_fog(ctx, t, -dealt)
    ctx.emit("friday.gm_hurt", "gm", player=t.pid, amount=dealt, ability=ability, by=by if by is not None else "—")
    if contracted and by is not None and (by, t.pid) not in s["paid"]:
        s["paid"].add((by, t.pid))
        heal(ctx, g.player(by), int(contract.data.get("heal", 15)), ability="character:boss:contract")
    if at_night and "attack" in labels and by is not None and by != t.pid:
        attacker = g.player(by)
        for x in g.passives(t, "counterattack"):
            if g.active(t, x.get("not_in", "coma")) or is_vip(g, attacker):
                continue
            hurt(ctx, attacker, int(x["damage"]), by=t.pid, labels=["counterattack"], ability="counterattack")
    return dealt


def heal(ctx: Ctx, t: Player, amount: int, *, ability: str = "", regen: bool = False) -> int:
    """Restore HP: never to the victim of a guessed «Убийство» («не получает никакого
    лечения»); 1.5× for the student unless it is the hospital's («кроме больницы»)."""
    g = ctx.game
    if t.pid in scratch(ctx)["no_heal"] or not g.alive(t):
        return 0
    factor = 1.0
    if not regen:
        for x in g.passives(t, "heal_factor"):
            factor = max(factor, float(x["factor"]))
    gain = math.ceil(amount * factor)
    t.stats[HP] = t.stats.get(HP, 0) + gain
    _touch_fog(ctx, t, gain)
    ctx.emit("friday.gm_healed", "gm", player=t.pid, amount=gain, ability=ability)
    return gain


# ---- health words, death, the morning --------------------------------------------------------
def word_for(g: Game, p: Player, tick: int) -> str | None:
    """The health word: from the false HP while «Помутнение разума» holds, else the real HP;
    the stuntman shows only «здоров» and «тяжело ранен» (hospital below 30, out above 49)."""
    fog = _fog(g, p, tick)
    v = fog.data["fake"] if fog is not None else p.stats.get(HP, 0)
    for d in g.passives(p, "health_display"):
        stay = "hospital" in p.statuses and v <= int(d.get("leave_above", 49))
        if stay or v < int(d.get("enter_below", 30)):
            return d.get("words", ["healthy", "hospital"])[-1]
        return d.get("words", ["healthy", "hospital"])[0]
    for w in words(g):
        if (w.get("min") is None or v >= w["min"]) and (w.get("max") is None or v <= w["max"]):
            return w["status"]
    return None


def set_word(g: Game, p: Player, want: str | None, tick: int) -> None:
    for sid in word_ids(g) - {want}:
        p.statuses.pop(sid, None)
    if want and want not in p.statuses:
        p.statuses[want] = Status(id=want, since=tick)


def will_die(ctx: Ctx, p: Player) -> bool:
    """Whether ``p`` dies when this resolve is over (HP at 0 or below, hanged, or a mortally
    wounded avenger whose last day or night it is) without a last stand to spare."""
    g = ctx.game
    if not g.alive(p):
        return False
    w = g.active(p, WOUND)
    if w is not None:
        return w.since < ctx.tick
    down = p.stats.get(HP, 0) <= 0 or p.pid in scratch(ctx)["lynched"]
    return down and not (g.passives(p, "last_stand") and not memo(g).get("stood", {}).get(str(p.pid)))


def die(ctx: Ctx, p: Player, cause: str) -> None:
    g = ctx.game
    for sid in [*word_ids(g), WOUND]:
        p.statuses.pop(sid, None)
    dead = next(s.id for s in g.rules.statuses if s.dead)
    p.statuses[dead] = Status(id=dead, since=ctx.tick, data={"cause": cause})
    p.stats[HP] = min(p.stats.get(HP, 0), 0)
    for f in list(g.factions_of(p.pid)):  # a team channel keeps only the living
        f.members.pop(p.pid, None)
        if not f.members:
            del g.state.factions[f.fid]
        elif f.leader == p.pid:
            f.leader = min(f.members)
    ctx.emit("gm.death", "gm", player=p.pid, cause=cause)
    if owns_impl(g, p, "friday_revenge") and not memo(g).get("revenged", {}).get(str(p.pid)):
        # died by day: «урон пройдёт после всех ночных способностей, даже если сэнсэй умрёт днём»
        memo(g).setdefault("revenge_due", []).append(p.pid)


@impl("friday_health")
def friday_health(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The morning after the night, or the evening after the vote: deaths, the last stand, the
    undertaker, the cap at each player's maximum, the health words, the inherited weapons."""
    g = ctx.game
    st = g.state
    if not sd.params.get("start"):
        died = []
        for p in st.players:
            if not will_die(ctx, p):
                w = g.active(p, WOUND) is None and g.alive(p)
                down = p.stats.get(HP, 0) <= 0 or p.pid in scratch(ctx)["lynched"]
                if w and down:  # killed, but the avenger lives one more day or night
                    x = g.passives(p, "last_stand")[0]
                    memo(g).setdefault("stood", {})[str(p.pid)] = ctx.tick
                    for sid in word_ids(g):
                        p.statuses.pop(sid, None)
                    p.statuses[x.get("status", WOUND)] = Status(id=x.get("status", WOUND), since=ctx.tick)
                    p.stats[HP] = int(x.get("hp", 100))
                    ctx.emit("friday.gm_last_stand", "gm", player=p.pid)
                continue
            die(ctx, p, "wound" if g.active(p, WOUND) else "hanged" if p.pid in scratch(ctx)["lynched"] else "hp")
            died.append(p.pid)
        if night(ctx) and died:
            for p in g.living():
                for x in g.passives(p, "heal_per_death"):
                    heal(ctx, p, int(x["amount"]) * len(died), ability="undertaker")
    for p in st.players:
        cap = p.stats.get(HP_MAX)
        if cap is not None and p.stats.get(HP, 0) > cap:
            p.stats[HP] = cap
    for p in st.players:
        if g.alive(p) and not g.active(p, WOUND):
            set_word(g, p, word_for(g, p, ctx.tick), ctx.tick)
    _inherit(ctx)


def _inherit(ctx: Ctx) -> None:
    """The katana passes to the sensei, the pistol with its saved shots to the thug."""
    g = ctx.game
    done = memo(g).setdefault("inherited", {})
    for p in g.living():
        for x in g.passives(p, "inherits"):
            key = f"{p.pid}:{x['from']}"
            if done.get(key) or not any(q.character == x["from"] and not g.alive(q) for q in g.state.players):
                continue
            done[key] = ctx.tick
            if x.get("grant"):
                p.grants.append({"key": x["grant"], "since": ctx.tick + 1, "until": None})
                ctx.emit("friday.inherited", "players", [p.pid], ability=x["grant"])
            if x.get("auto"):
                p.statuses[AUTO_MED] = Status(id=AUTO_MED, since=ctx.tick + 1)
            if x.get("status"):
                p.statuses[x["status"]] = Status(id=x["status"], since=ctx.tick + 1)
                ctx.emit("friday.inherited_pistol", "players", [p.pid])
            if x.get("stat"):
                for q in g.state.players:
                    if q.character == x["from"] and not g.alive(q):
                        p.stats[x["stat"]] = p.stats.get(x["stat"], 0) + q.stats.get(x["stat"], 0)
                        q.stats[x["stat"]] = 0
                ctx.emit("friday.shots", "players", [p.pid], value=p.stats.get(x["stat"], 0))


@impl("friday_settings")
def friday_settings(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The game's settings of this book are checked when it is created, not in a resolve."""
    psycho_knife_masks(ctx.game)


@impl("friday_teams")
def friday_teams(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """Mafia and Yakuza know each other from the start and share a channel (a faction each)."""
    g = ctx.game
    for team in sd.params.get("teams", []):
        members = [p.pid for p in g.state.players if team_of(g, p) == team]
        if not members or team in g.state.factions:
            continue
        g.state.factions[team] = Faction(fid=team, leader=members[0], members={m: -1 for m in members}, name=team)
        ctx.emit("friday.team", "faction", [team], players=members)


@impl("friday_begin")
def friday_begin(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """The resolve begins: HP and words as they are now; by day, the open role actions are
    read out to the town («нужно писать открыто»)."""
    scratch(ctx)
    if night(ctx):
        return
    for i in ctx.intents:
        extra = f" ({i.option})" if i.option else ""
        if i.targets:
            ctx.emit("friday.day_action", "public", actor=i.pid, ability=i.ability, targets=list(i.targets), extra=extra)
        else:
            ctx.emit("friday.day_action_alone", "public", actor=i.pid, ability=i.ability, extra=extra)


@impl("friday_morning")
def friday_morning(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """What the night's end tells: observations, the revolver's report to the boss, the
    psycho's HP, the stuntman's warning; the boss's saved shots."""
    g = ctx.game
    s = scratch(ctx)
    used = {i.ability for i in ctx.intents} | s["auto_used"]
    for pid, keys in s["observations"]:
        ctx.emit("friday.observation", "players", [pid], ability=keys[0], value=any(k in used for k in keys))
    m = memo(g)
    for n in [x for x in m.get("nagans", []) if x["night"] == ctx.tick]:
        shot = s["nagan_shots"].get(n["holder"])
        boss = g.player(n["boss"])
        if g.alive(boss):
            if shot is None:
                ctx.emit("friday.nagan_report_none", "players", [boss.pid], player=n["holder"])
            else:
                ctx.emit("friday.nagan_report", "players", [boss.pid], player=n["holder"], target=shot)
        holder = g.player(n["holder"])
        if shot != n["victim"] and g.alive(holder):
            holder.statuses[DOUBLE] = Status(id=DOUBLE, since=ctx.tick + 1)
            ctx.emit("friday.gm_doubled", "gm", player=holder.pid)
        m["nagans"].remove(n)
    for p in g.living():
        if g.passives(p, "hp_report"):
            ctx.emit("friday.hp_report", "players", [p.pid], value=effective_hp(g, p))
        for d in g.passives(p, "health_display"):
            if d.get("warn_below") and p.stats.get(HP, 0) < int(d["warn_below"]):
                ctx.emit("friday.hp_low", "players", [p.pid], value=int(d["warn_below"]))
    # «За каждую ночь, когда босс не использует эту способность и не находится в больнице, он
    # накапливает 1 выстрел»: the night's own words count (hospital or coma: no shot)
    for p in g.living():
        if not p.character or p.pid in s["pistol_used"] or s["words0"].get(p.pid) in ("hospital", "coma"):
            continue
        for ab in g.rules.character(p.character).abilities:
            for e in ab.effects:
                if e.impl == "friday_shots" and e.params.get("saves"):
                    p.stats[e.params["saves"]] = p.stats.get(e.params["saves"], 0) + 1
                    ctx.emit("friday.shots", "players", [p.pid], value=p.stats[e.params["saves"]])


# ---- the night ----------------------------------------------------------------------------
def _each(intent: Intent) -> list[int]:
    return list(intent.targets)


@impl("friday_note")
def friday_note(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A choice read by another step (the auto-meditation switched off)."""
    ctx.note(intent, "noted")


@impl("friday_shield")
def friday_shield(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Самозащита (on oneself) and Защита: 25 % of each attack tonight; they do not add up."""
    to = [intent.pid] if eff.params.get("to") == "self" else _each(intent)
    scratch(ctx)["shields"].update(to)


@impl("friday_attack")
def friday_attack(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """An attack on each target: a fixed damage, half of the target's HP as the night began
    (Нападение), or by the number of shots fired so far (Револьвер). The revolver of a message
    is remembered for the boss's report."""
    g = ctx.game
    prm = eff.params
    ab = g.ability_def(intent.ability)
    s = scratch(ctx)
    for tid in _each(intent):
        t = g.player(tid)
        if prm.get("share_of_hp"):
            amount = max(0, math.ceil(s["hp0"].get(tid, 0) / int(prm["share_of_hp"])))
        elif prm.get("damage_by_use"):
            shots = memo(g).setdefault("shots_fired", {})
            n = shots.get(f"{intent.pid}:{intent.ability}", 0)
            table = prm["damage_by_use"]
            amount = int(table[min(n, len(table) - 1)])
            shots[f"{intent.pid}:{intent.ability}"] = n + 1
        else:
            amount = int(prm["damage"])
        hurt(ctx, t, amount, by=intent.pid, labels=ab.labels, ability=intent.ability)
        if prm.get("nagan"):
            s["nagan_shots"][intent.pid] = tid


@impl("friday_shots")
def friday_shots(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The pistol and the shuriken: each shot (target, repeats allowed) is a separate attack.
    The pistol's extra shots are spent from the saved ones; «Если за ночь делается больше
    одного выстрела из пистолета, урон пистолета в эту ночь не может быть уменьшен»."""
    g = ctx.game
    prm = eff.params
    ab = g.ability_def(intent.ability)
    actor = g.player(intent.pid)
    shots = _each(intent)
    if ab.checks and any(c.params.get("stat") for c in ab.checks):
        stat = next(c.params["stat"] for c in ab.checks if c.params.get("stat"))
        actor.stats[stat] = max(0, actor.stats.get(stat, 0) - (len(shots) - 1))
    if prm.get("unreducible_over") is not None:
        scratch(ctx)["pistol_used"].add(intent.pid)
    firm = prm.get("unreducible_over") is not None and len(shots) > int(prm["unreducible_over"])
    for tid in shots:
        hurt(ctx, g.player(tid), int(prm["damage"]), by=intent.pid, labels=ab.labels, ability=intent.ability, unreducible=firm)


@impl("friday_maniac_knife")
def friday_maniac_knife(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """95 damage; 45 from hospital unless only civilians are left of the others; the maniac
    learns whether he attacked the psycho, masks or not."""
    g = ctx.game
    prm = eff.params
    actor = g.player(intent.pid)
    ab = g.ability_def(intent.ability)
    weak = g.active(actor, "hospital") is not None and not only_civilians_left(g)
    for tid in _each(intent):
        t = g.player(tid)
        hurt(ctx, t, int(prm["hospital_damage"] if weak else prm["damage"]), by=actor.pid, labels=ab.labels, ability=intent.ability)
        if t.character == prm.get("notice"):
            ctx.emit("friday.knife_found", "players", [actor.pid], target=tid, value=t.character)


@impl("friday_psycho_knife")
def friday_psycho_knife(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Any damage 1–5000 and half of it to himself (a quarter on a hunted target, none when only
    civilians are left of the others); on a hunted target he learns its secret role and the
    maniac learns the target and the role.

    Masks (setting ``psycho_knife_masks``): ``partial``, the book's change 33 («частично
    игнорирует маскировку: игнорирует маскировку, если цель маньяк»): the true maniac is seen
    through any mask, anyone else is seen as their mask, so one masked as the maniac gives the
    notice too; ``ignore``: the knife reads true roles only."""
    g = ctx.game
    prm = eff.params
    actor = g.player(intent.pid)
    ab = g.ability_def(intent.ability)
    amount = int(intent.option or 1)
    masks = psycho_knife_masks(g)
    for tid in _each(intent):
        t = g.player(tid)
        hunted = g.active(t, "hunted")
        hunted = hunted is not None and hunted.since < ctx.tick  # «Начиная со следующей ночи»
        hurt(ctx, t, amount, by=actor.pid, labels=ab.labels, ability=intent.ability)
        if not only_civilians_left(g):
            share = float(prm["hunted_share"] if hunted else prm["self_share"])
            hurt(ctx, actor, math.ceil(amount * share), by=actor.pid, labels=["self"], ability=intent.ability)
        maniac = t.character == prm.get("notice")
        seen = t.character if maniac or masks == "ignore" else seen_character(g, t)
        if seen == prm.get("notice"):  # «Если атаковал маньяка, узнаёт об этом»
            ctx.emit("friday.knife_found", "players", [actor.pid], target=tid, value=seen)
        if hunted:
            ctx.emit("friday.hunt_role", "players", [actor.pid], target=tid, value=seen)
            hunters = [q.pid for q in g.living() if q.character == prm.get("notice")]
            if hunters:
                ctx.emit("friday.hunt_report", "players", hunters, target=tid, value=seen)


@impl("friday_trap")
def friday_trap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Ловушка»: armed for the target's next night only («действует только на следующую ночь»)."""
    g = ctx.game
    nxt = next_night(g, ctx.tick)
    for tid in _each(intent):
        sid = f"friday_trap:{intent.seq}"
        g.player(tid).statuses[sid] = Status(id=sid, since=ctx.tick, until=nxt + 1,
                                             data={"night": nxt, "damage": int(eff.params["damage"]), "by": intent.pid})


@impl("friday_trap_trigger")
def friday_trap_trigger(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """A trapped player who tries any night action on the trap's night takes its damage; not an
    attack: neither self-defence, protection nor the paratrooper touch it."""
    g = ctx.game
    acting = {i.pid for i in ctx.intents if "toggle" not in g.ability_def(i.ability).labels}
    for p in g.state.players:
        for sid, s in sorted(p.statuses.items()):
            if sid.startswith("friday_trap:") and s.data.get("night") == ctx.tick:
                if p.pid in acting:
                    dealt = hurt(ctx, p, int(s.data["damage"]), by=s.data["by"], labels=["trap"], ability="character:ninja:trap")
                    ctx.emit("gm.trap", "gm", player=p.pid, damage=dealt, by=s.data["by"])
                del p.statuses[sid]


def activate_marks(ctx: Ctx, by: int, tell: bool) -> None:
    """«Месть – активирует все метки в игре. Каждая метка наносит 45 урона.» Marks on the dead
    are not activated; all marks are gone afterwards."""
    g = ctx.game
    marks = memo(g).get("marks", {})
    p = g.player(by)
    damage = next((int(e.params.get("damage", 45)) for ab in g.rules.character(p.character).abilities
                   for e in ab.effects if e.impl == "friday_revenge"), 45) if p.character else 45
    hit = False
    for pid_s, n in sorted(marks.items(), key=lambda kv: int(kv[0])):
        t = g.player(int(pid_s))
        if not g.alive(t):
            continue
        for _ in range(int(n)):
            hurt(ctx, t, damage, by=by, labels=["revenge"], ability="character:sensei:revenge")
        hit = hit or n > 0
    memo(g)["marks"] = {}
    scratch(ctx)["auto_used"].add("character:sensei:revenge")
    if tell:
        ctx.emit("friday.revenge", "players", [by], value=hit)
    else:
        ctx.emit("friday.gm_revenge", "gm", player=by, value=hit)


@impl("friday_revenge")
def friday_revenge(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    activate_marks(ctx, intent.pid, tell=True)


@impl("friday_dying_revenge")
def friday_dying_revenge(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """«Используется автоматически, если сэнсей погибает (в этом случае урон пройдёт после всех
    ночных способностей, даже если сэнсэй умрёт днём)»."""
    g = ctx.game
    m = memo(g)
    due = list(m.pop("revenge_due", []))
    for p in g.state.players:
        if owns_impl(g, p, "friday_revenge") and will_die(ctx, p):
            due.append(p.pid)
    for pid in due:
        m.setdefault("revenged", {})[str(pid)] = ctx.tick
        activate_marks(ctx, pid, tell=False)


def meditate(ctx: Ctx, sensei: int) -> None:
    """Each non-yakuza player (by the true role: it «игнорирует маскировку») who uses a targeted
    night ability on the sensei tonight gets a mark, one for each use; «Убийство» gives none."""
    g = ctx.game
    s = scratch(ctx)
    if sensei in s["meditated"]:
        return
    s["meditated"].add(sensei)
    marks = memo(g).setdefault("marks", {})
    for i in ctx.intents:
        if i.pid == sensei or sensei not in i.targets or team_of(g, g.player(i.pid)) == "yakuza":
            continue
        if "no_mark" in g.ability_def(i.ability).labels:
            continue
        marks[str(i.pid)] = marks.get(str(i.pid), 0) + 1
    ctx.emit("friday.gm_meditation", "gm", player=sensei)


@impl("friday_meditation")
def friday_meditation(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    meditate(ctx, intent.pid)


@impl("friday_auto_meditation")
def friday_auto_meditation(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """After the ninja's death the sensei meditates every night unless he says otherwise; it
    works from hospital, not from a coma."""
    g = ctx.game
    off = {i.pid for i in ctx.intents if "toggle" in g.ability_def(i.ability).labels}
    for p in g.living():
        if g.active(p, AUTO_MED) and p.pid not in off and not g.active(p, "coma"):
            meditate(ctx, p.pid)
            scratch(ctx)["auto_used"].add("character:sensei:meditation")


@impl("friday_mask")
def friday_mask(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Маскировка действует вечно. Можно замаскировать одну цель дважды, при этом первая
    маскировка спадает.»"""
    masks = memo(ctx.game).setdefault("masks", {})
    for tid in _each(intent):
        masks[str(tid)] = intent.option


@impl("friday_message")
def friday_message(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«наутро персонаж обнаруживает у себя наган и явную роль жертвы. На следующую ночь (и только
    на неё) этот наган добавляется к его действиям на выбор»."""
    g = ctx.game
    holder, victim = intent.targets[0], intent.targets[1]
    nxt = next_night(g, ctx.tick)
    p = g.player(holder)
    p.statuses[NAGAN] = Status(id=NAGAN, since=nxt, until=nxt + 1)
    p.grants.append({"key": "character:boss:nagan", "since": nxt, "until": nxt + 1})
    memo(g).setdefault("nagans", []).append({"holder": holder, "victim": victim, "boss": intent.pid, "night": nxt})
    ctx.emit("friday.nagan_found", "players", [holder], value=g.player(victim).role)


@impl("friday_contract")
def friday_contract(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«на следующий день публично объявляется, что цель заказана. Следующей ночью цель получает
    удвоенный урон от всех источников, а каждый наносящий урон цели восстанавливает себе 15 хп»."""
    g = ctx.game
    nxt = next_night(g, ctx.tick)
    for tid in _each(intent):
        g.player(tid).statuses["contracted"] = Status(id="contracted", since=ctx.tick, until=nxt + 1,
                                                      data={"night": nxt, "heal": int(eff.params.get("restore", 15))})


@impl("friday_hunt")
def friday_hunt(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«следующим днём публично объявляется, что на цель началась охота ... Охота действует вечно»."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if "hunted" not in t.statuses:
            t.statuses["hunted"] = Status(id="hunted", since=ctx.tick)


@impl("friday_fog")
def friday_fog(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """False HP (1 … the target's maximum) for the words of the next day and night; diagnostics
    reads them this night and the next («диагностика также возвращает фальшивые хп»)."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        fake = max(1, min(int(intent.option or 1), t.stats.get(HP_MAX, 100)))
        nxt = next_night(g, ctx.tick)
        t.statuses[FOG] = Status(id=FOG, since=ctx.tick, until=nxt + 1,
                                 data={"fake": fake, "ticks": [ctx.tick, ctx.tick + 1], "diagnostics": [ctx.tick, nxt], "by": intent.pid})


@impl("friday_guess_kill")
def friday_guess_kill(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«называет тайную роль цели. Если угадывает, цель теряет все свои хп и не получает никакого
    лечения»: the true role, not an attack, not reducible."""
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if t.character == intent.option:
            t.stats[HP] = min(t.stats.get(HP, 0), 0)
            scratch(ctx)["no_heal"].add(tid)
            ctx.emit("friday.gm_guessed", "gm", player=tid, value=t.character)
        else:
            ctx.note(intent, f"wrong_guess:{tid}")


@impl("friday_wiretap")
def friday_wiretap(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        ctx.emit("friday.wiretap", "players", [intent.pid], target=tid, value=seen_character(g, g.player(tid)))


@impl("friday_dossier")
def friday_dossier(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    peaceful = set(eff.params.get("peaceful", []))
    for tid in _each(intent):
        ctx.emit("friday.dossier", "players", [intent.pid], target=tid, value=seen_character(g, g.player(tid)) in peaceful)


def _targeted(ctx: Ctx) -> list[Intent]:
    return [i for i in ctx.intents if i.targets]


@impl("friday_surveillance")
def friday_surveillance(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«узнаёт, на кого цель применяла свои способности этой ночью. Если цель бездействовала или
    применяла нецелевую способность, сообщается, что цель применяла способности на саму себя»."""
    for tid in _each(intent):
        out: list[int] = []
        for i in _targeted(ctx):
            if i.pid == tid:
                out += [x for x in i.targets if x not in out]
        ctx.emit("friday.surveillance", "players", [intent.pid], target=tid, players=out or [tid])


@impl("friday_shadow")
def friday_shadow(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Whom the target aimed its night abilities at, and who aimed theirs at it."""
    for tid in _each(intent):
        outgoing: list[int] = []
        incoming: list[int] = []
        for i in _targeted(ctx):
            if i.pid == tid:
                outgoing += [x for x in i.targets if x not in outgoing]
            if tid in i.targets and i.pid not in incoming:
                incoming.append(i.pid)
        ctx.emit("friday.shadow", "players", [intent.pid], target=tid, targets=outgoing, players=sorted(incoming))


@impl("friday_observe")
def friday_observe(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """Answered in the morning: whether anyone used the named ability tonight."""
    scratch(ctx)["observations"].append((intent.pid, list(eff.params["abilities"])))


@impl("friday_rest")
def friday_rest(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The named spent ability may be used once more."""
    p = ctx.game.player(intent.pid)
    key = eff.params["ability"]
    if p.uses.get(key, 0) > 0:
        p.uses[key] -= 1
        ctx.emit("friday.rested", "players", [p.pid], ability=key)


@impl("friday_heal")
def friday_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        heal(ctx, g.player(tid), int(eff.params["amount"]), ability=intent.ability)


@impl("friday_regen")
def friday_regen(ctx: Ctx, intent: Intent | None, sd: Any, people: list[Player]) -> None:
    """28) Any passive recovery: the hospital's and the coma's 15 (the chief doctor's 20 in
    hospital) from the night after entering it, and the monk's 10."""
    g = ctx.game
    for p in g.living():
        if g.active(p, WOUND):
            continue
        for status in ("hospital", "coma"):
            s = g.active(p, status)
            if s is not None and s.since < ctx.tick:
                own = [x for x in g.passives(p, "regen") if x.get("status") == status]
                heal(ctx, p, int(own[0]["amount"]) if own else int(sd.params.get(status, 15)), ability=status, regen=True)
        for x in g.passives(p, "regen"):
            if not x.get("status"):
                heal(ctx, p, int(x["amount"]), ability="regen")


@impl("friday_diagnostics")
def friday_diagnostics(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """29) The morning HP (after the cap), or the false HP while «Помутнение разума» holds."""
    g = ctx.game
    p = g.player(intent.pid)
    fog = _fog(g, p, ctx.tick, "diagnostics")
    ctx.emit("friday.diagnostics", "players", [p.pid], value=fog.data["fake"] if fog is not None else effective_hp(g, p))


# ---- the day ------------------------------------------------------------------------------
@impl("friday_extra_votes")
def friday_extra_votes(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Вечером после казни получает 20 урона за каждый дополнительный голос» (those counted)."""
    g = ctx.game
    n = scratch(ctx)["extra_votes"].get(intent.pid, 0)
    if n:
        hurt(ctx, g.player(intent.pid), int(eff.params["damage"]) * n, by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_day_heal")
def friday_day_heal(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«Лечение подействует сразу после дневной казни (если цель останется в живых) и восстановит
    10 хп (15 хп, если цель днём находилась в больнице)»."""
    g = ctx.game
    s = scratch(ctx)
    for tid in _each(intent):
        t = g.player(tid)
        if tid in s["lynched"] or t.stats.get(HP, 0) <= 0:
            ctx.note(intent, f"not_alive:{tid}")
            continue
        amount = eff.params["hospital_amount"] if g.active(t, "hospital") else eff.params["amount"]
        heal(ctx, t, int(amount), ability=intent.ability)


@impl("friday_day_damage")
def friday_day_damage(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    g = ctx.game
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        hurt(ctx, t, int(eff.params["damage"]), by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_squeeze")
def friday_squeeze(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """«отжать у цели 5 хп и восстановить их себе. Если у цели было меньше 5 хп, всё равно
    восстанавливает себе 5 хп»; nothing from the VIP."""
    g = ctx.game
    amount = int(eff.params["amount"])
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        hurt(ctx, t, amount, by=intent.pid, labels=["day"], ability=intent.ability)
        heal(ctx, g.player(intent.pid), amount, ability=intent.ability)


@impl("friday_cultist")
def friday_cultist(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """A third of the cultist's own missing HP as the day began, rounded up, at most 33."""
    g = ctx.game
    actor = g.player(intent.pid)
    missing = max(0, actor.stats.get(HP_MAX, 100) - scratch(ctx)["hp0"].get(actor.pid, 0))
    amount = min(int(eff.params.get("max", 33)), math.ceil(missing / int(eff.params.get("share", 3))))
    for tid in _each(intent):
        t = g.player(tid)
        if is_vip(g, t):
            ctx.note(intent, f"immune:{tid}")
            continue
        if amount:
            hurt(ctx, t, amount, by=intent.pid, labels=["day"], ability=intent.ability)


@impl("friday_copy_role")
def friday_copy_role(ctx: Ctx, intent: Intent, eff: Any, people: list[Player]) -> None:
    """The target's open role, its abilities and features, from the next night: for good (the
    marauder, who also takes a larger maximum HP, never the HP itself) or for the next night
    and day (the plagiarist)."""
    g = ctx.game
    p = g.player(intent.pid)
    since = next_night(g, ctx.tick)
    until = None if eff.params.get("permanent") else since + 2
    for tid in _each(intent):
        role = g.rules.role(g.player(tid).role)
        for ab in role.abilities:
            p.grants.append({"key": f"role:{role.id}:{ab.id}", "since": since, "until": until})
        if role.passives:
            p.grants.append({"passives": role.id, "since": since, "until": until})
        for stat in eff.params.get("raise", []):
            if stat in role.stats:
                p.stats[stat] = max(p.stats.get(stat, 0), role.stats[stat])
        ctx.emit("friday.copied", "players", [p.pid], target=tid, value=role.id)


# ---- the vote -----------------------------------------------------------------------------
class FridayLynch(Lynch):
    """The day vote with the open roles' weights: the authority's 2.5 and the lawyer's 1.5 (one
    against the VIP), the revolutionary's extra votes (none for the VIP), the 1.5 the lawyer
    takes off himself unless in a coma. The most votes hang (all HP, «не спасает ничего»); a tie
    gives 50 damage to each tied player (also against «за мир»), which cannot be reduced."""

    @staticmethod
    def named_choices(g: Game, vdef: Any) -> list[str]:
        return ["peace"] if vdef.params.get("peace") else []

    @staticmethod
    def secret_weights(g: Game, vdef: Any) -> bool:
        """The weights belong to open roles («Все дневные действия ... и голоса нужно писать
        открыто»): shown, unless a secret character has one."""
        return secret_passives(g, ("vote_weight",))

    @staticmethod
    def count(ctx: Ctx, vdef: Any, ballots: list[Vote]) -> None:
        g = ctx.game
        s = scratch(ctx)
        tally: dict[Any, float] = defaultdict(float)
        by_voter: dict[int, Any] = {}
        for b in sorted(ballots, key=lambda b: b.pid):
            voter = g.player(b.pid)
            if b.choice is None or not g.alive(voter) or any(not f.can_vote for f in g.status_flags(voter)):
                continue
            weight = 1.0
            if not (isinstance(b.choice, int) and is_vip(g, g.player(b.choice))):
                weight = max([float(x["weight"]) for x in g.passives(voter, "vote_weight")] or [1.0])
            tally[b.choice] += weight
            by_voter[b.pid] = b.choice
        for i in ctx.intents:
            if not any(e.impl == "friday_extra_votes" for e in g.ability_def(i.ability).effects):
                continue
            choice = by_voter.get(i.pid)
            if isinstance(choice, int) and not is_vip(g, g.player(choice)):
                tally[choice] += int(i.option or 0)
                s["extra_votes"][i.pid] = int(i.option or 0)
        for c in list(tally):
            if isinstance(c, int):
                p = g.player(c)
                for x in g.passives(p, "vote_weight"):
                    if x.get("against_self") and not g.active(p, x.get("not_in", "coma")):
                        tally[c] = max(0.0, tally[c] - float(x["against_self"]))

        def num(v: float) -> int | float:
            return int(v) if v == int(v) else v

        shown = sorted(((c, num(n)) for c, n in tally.items()), key=lambda kv: (-kv[1], str(kv[0])))
        publish_tally(g, vdef, [[c, n] for c, n in shown], ballots)
        top = max([n for n in tally.values()] or [0])
        if top <= 0:
            g.emit("vote.nobody", "public", vote=vdef.id)
            return
        leaders = sorted((c for c, n in tally.items() if n == top), key=str)
        if len(leaders) == 1:
            if leaders[0] == "peace":
                g.emit("vote.peace", "public", vote=vdef.id)
                return
            victim = g.player(leaders[0])
            g.emit("vote.lynched", "public", vote=vdef.id, player=victim.pid)
            s["lynched"].add(victim.pid)
            victim.stats[HP] = min(victim.stats.get(HP, 0), 0)
            return
        hurt_ = [c for c in leaders if c != "peace"]
        g.emit("vote.tie", "public", vote=vdef.id, players=hurt_)
        for c in hurt_:
            hurt(ctx, g.player(c), int(vdef.params.get("tie_damage", 50)), labels=["vote"], ability="vote", unreducible=True)


VOTES["friday_lynch"] = FridayLynch


# ---- what may be submitted ------------------------------------------------------------------
@check("friday_not_roles")
def not_roles(g: Game, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Нельзя применить к здоровяку, каскадёру, амбалу, мародёру» (by the open role)."""
    for t in targets or []:
        if g.player(t).role in params.get("roles", []):
            return ActionError("illegal_target", target=t)
    return None


@check("friday_not_characters")
def not_characters(g: Game, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Нельзя замаскировать ниндзя или сэнсэя» (by the true secret role)."""
    for t in targets or []:
        if g.player(t).character in params.get("characters", []):
            return ActionError("illegal_target", target=t)
    return None


@check("friday_shot_count")
def shot_count(g: Game, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """How many shots may be fired: 1 + the saved shots (pistol: «максимальное количество не
    ограничено», no other cap), 1 + the dead of the team (shuriken). Fewer is always fine
    («можно бросить только часть»). The refusal names the ability and what it allows now."""
    if targets is None or option is not None:
        return None
    most = int(params.get("base", 1))
    if params.get("stat"):
        most += p.stats.get(params["stat"], 0)
    if params.get("dead_of_team"):
        most += sum(1 for q in g.state.players if team_of(g, q) == params["dead_of_team"] and not g.alive(q))
    if len(targets) > most:
        key = next((k for k, a in g.abilities(p) if a is ab), f"character:{p.character}:{ab.id}")
        return ActionError("too_many_shots", most=most, ability=key)
    return None


@check("friday_rest")
def rest_check(g: Game, p: Player, ab: AbilityDef, params: dict[str, Any], targets: list[int] | None, option: str | None) -> ActionError | None:
    """«Отдых не может быть использован, если у мирного жителя потрачено менее 2 способностей»;
    the option must name a spent one."""
    limited = [(f"character:{p.character}:{a.id}", a.uses_per_game) for a in g.rules.character(p.character).abilities if a.uses_per_game] if p.character else []
    spent = {k for k, n in limited if p.uses.get(k, 0) >= n}
    if len(spent) < int(params.get("at_least", 2)):
        return ActionError("rest_too_early", need=int(params.get("at_least", 2)))
    if option is not None:
        effs = ab.options.get(option) or []
        if not effs or effs[0].params.get("ability") not in spent:
            return ActionError("rest_not_spent", ability=effs[0].params.get("ability", option) if effs else option)
    return None

