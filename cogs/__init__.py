"""discord.py cogs, one per concern; thin: they render and deliver what the engine decides."""
