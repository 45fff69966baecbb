"""The Discord bot: ``bot.create_bot`` wires the store, the scheduler, the delivery and the
cogs (``cogs/``, one thin cog per concern). It renders with ``altmafia.text`` and asks the
engine every rule question."""
