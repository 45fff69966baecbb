"""Seed 002 «Вечная пятница», the whole game (``config/rulesets/eternal_friday.yaml``).

Hidden HP and its public health words, the 29-step night, the day lynch with «за мир», the
weighted votes, masks, marks and revenge, the contract, the message and its revolver, the hunt,
the psycho's knife and false HP, guessing kills, observation and rest, and the open roles'
features. Decisions: ``docs/rules/eternal_friday.md``.

Every HP change goes through :func:`hurt` and :func:`heal`, which apply the book's modifiers
in one place: the contract's and the failed message's doubling, self-defence and protection
(25 % of each attack), the chief doctor's half in hospital, damage that cannot be reduced,
the student's 1.5× healing, the false HP of «Помутнение разума» and the paratrooper's
counterattack. What lasts between ticks is in ``core.FridayMemory`` (the snapshot's ``memo["friday"]``), in statuses
(``friday_*`` ids, never reported) and in grants; what lasts one resolve is in the context's
scratch.
"""

from . import attacks, checks, core, day, info, lynch, medicine, params, steps, traps, tricks  # noqa: F401  (register)
