"""The Discord bot and its services: ``bot.create_bot`` wires the store, the scheduler, the
delivery and the cogs (the top-level ``cogs`` package, one thin cog per concern, loaded as
extensions by name: they import these services, never the reverse). It renders with
``altmafia.text`` and asks the engine every rule question."""
