"""Seed 003, the stats mafia, complete (ruleset ``stats_mafia``; decisions: docs/rules/stats_mafia.md).

Contests of secret stats: an attack is the attacker's initiative − the target's defense, a
check the checker's initiative − the target's stealth read from the book's table
(``settings.check_table``). Hospital days are a timed status summed over attacks; the dead are
in the Morgue, the jailed in Prison (``life_sentence`` on top for the rest of the game). The day
vote («Вече») is the vote kind ``stats_prison``; letters («Почта», «Записка на волю») are the
mail policy ``stats_mafia``; victory is the kind ``stats_mafia``.

Everything this book remembers between resolves is in its typed memory ``core.StatsMafiaMemory``
(the snapshot's ``memo["stats_mafia"]``).
Stats in contests are read with the purpose ``contest``: a bonus nobody knows of (the Гик's)
counts there and nowhere else.
"""

from . import (  # noqa: F401  (register)
    attacks,
    boosts,
    checks,
    core,
    day,
    early_end,
    mail,
    params,
    start,
    steps,
    victory,
    vote,
)
