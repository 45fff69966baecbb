"""Eternal Friday's shared state: memory, the words of health, HP, wounds and death."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...errors import GameError
from ...registry import book_memory
from ...resolve.effects import lynched
from ...resolve.guards import intercept
from ...state import Status

if TYPE_CHECKING:
    from ...resolve.context import Ctx
    from ...state import Intent, Player
    from ...world import World


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
@book_memory("friday")
@dataclass
class FridayMemory:
    """What this book keeps between ticks (the snapshot's ``memo["friday"]``); players by seat
    as a string."""

    marks: dict[str, int] = field(default_factory=dict)  # the sensei's marks on each player
    masks: dict[str, str] = field(default_factory=dict)  # «Маскировка»: the secret role checks see
    shots_fired: dict[str, int] = field(default_factory=dict)  # "pid:ability" -> shots of a weapon by use
    nagans: list[dict[str, Any]] = field(default_factory=list)  # the boss's message with its revolver, by night
    stood: dict[str, int] = field(default_factory=dict)  # the avenger's last stand: the tick it began
    revenged: dict[str, int] = field(default_factory=dict)  # the sensei's revenge used: the tick
    revenge_due: list[int] = field(default_factory=list)  # a dying sensei's revenge, after the night
    inherited: dict[str, int] = field(default_factory=dict)  # "pid:from" -> the tick a role's weapon passed


def memo(g: World) -> FridayMemory:
    """What this book keeps between ticks: marks, masks, revolver shots, messages, flags."""
    return g.state.place(FridayMemory)


def scratch(ctx: Ctx) -> dict[str, Any]:
    """What one resolve keeps: HP as it began, shields, who may not be healed… (the hanged and
    the extra votes counted are the core's: ``Ctx.hanged``, ``Ctx.extra_votes``)"""
    s = ctx.scratch.get("friday")
    if s is None:
        s = ctx.scratch["friday"] = {
            "hp0": {p.pid: effective_hp(ctx.game, p) for p in ctx.game.state.players},
            "words0": {p.pid: word_of(ctx.game, p) for p in ctx.game.state.players},
            "shields": set(), "no_heal": set(), "paid": set(),
            "meditated": set(), "auto_used": set(), "observations": [], "nagan_shots": {}, "pistol_used": set(),
        }
    return s


def words(g: World) -> list[dict[str, Any]]:
    return g.settings.health_words or DEFAULT_WORDS


def word_ids(g: World) -> set[str]:
    return {w["status"] for w in words(g)}


def word_of(g: World, p: Player) -> str | None:
    return next((sid for sid in p.statuses if sid in word_ids(g)), None)


def effective_hp(g: World, p: Player) -> int:
    """The HP every check reads: a mortally wounded avenger counts as 100 («считается живым
    персонажем со 100 хп для всех проверок»)."""
    if g.active(p, WOUND):
        return int(g.passives(p, "last_stand")[0].get("hp", 100)) if g.passives(p, "last_stand") else 100
    return p.stats.get(HP, 0)


def team_of(g: World, p: Player) -> str | None:
    return g.rules.character(p.character).team if p.character else None


def seen_character(g: World, p: Player) -> str | None:
    """The secret role a check sees: the mask, if the Shinobi put one on («любая проверка цели
    будет просчитываться для этой роли и соответствующей фракции»)."""
    return memo(g).masks.get(str(p.pid), p.character)


PSYCHO_KNIFE_MASKS = ("partial", "ignore")


def psycho_knife_masks(g: World) -> str:
    """How the psycho's knife reads masks: the setting ``psycho_knife_masks`` (``partial``: the
    book, change 33; ``ignore``: true roles only)."""
    mode = g.settings.psycho_knife_masks
    if mode not in PSYCHO_KNIFE_MASKS:
        raise GameError(f"setting psycho_knife_masks={mode!r}: use one of {', '.join(PSYCHO_KNIFE_MASKS)}")
    return str(mode)


def is_vip(g: World, p: Player) -> bool:
    return any("vip" in x.get("against", []) for x in g.passives(p, "protection"))


def night(ctx: Ctx) -> bool:
    return ctx.game.clock.info(ctx.tick).kind == "night"


def next_night(g: World, tick: int) -> int:
    t = tick + 1
    while g.clock.info(t).kind != "night":
        t += 1
    return t


def only_civilians_left(g: World) -> bool:
    """«мертва вся мафия и якудза, а из законников живы только мирные жители»."""
    civilians = set(g.settings.civilians)
    for p in g.living():
        team = team_of(g, p)
        if team in ("mafia", "yakuza") or (team == "law" and p.character not in civilians):
            return False
    return True


def owns_impl(g: World, p: Player, name: str) -> bool:
    """Whether ``p``'s own secret role has an ability implemented by ``name``."""
    if not p.character:
        return False
    return any(e.impl == name for ab in g.rules.character(p.character).abilities for e in ab.effects)


# ---- HP: the one place every change goes through -------------------------------------------
def _fog(g: World, p: Player, tick: int, which: str = "ticks") -> Status | None:
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
    if by is not None and by != t.pid and t.statuses:
        hit = intercept(ctx, by, t, labels, _strike)
        if hit is None:
            return 0
        t = hit
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


def _strike(ctx: Ctx, attacker: Player, guard: int) -> None:
    """A bodyguard strikes the attacker down (``op: guard``, mode ``strike`` or ``both``): HP
    to 0, whatever shields it has; the morning tells whether the attacker dies."""
    hurt(ctx, attacker, max(attacker.stats.get(HP, 0), 0), by=None, labels=["guard"], ability="guard", unreducible=True)


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
def word_for(g: World, p: Player, tick: int) -> str | None:
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


def set_word(g: World, p: Player, want: str | None, tick: int) -> None:
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
    down = p.stats.get(HP, 0) <= 0 or p.pid in ctx.hanged
    return down and not (g.passives(p, "last_stand") and not memo(g).stood.get(str(p.pid)))


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
    if cause == "hanged":  # the day's lynch (a passive wins_if_lynched wins now)
        lynched(ctx, p)
    if owns_impl(g, p, "friday_revenge") and not memo(g).revenged.get(str(p.pid)):
        # died by day: «урон пройдёт после всех ночных способностей, даже если сэнсэй умрёт днём»
        memo(g).revenge_due.append(p.pid)


# ---- the night ----------------------------------------------------------------------------
def _each(intent: Intent) -> list[int]:
    return list(intent.targets)
