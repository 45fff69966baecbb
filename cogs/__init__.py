"""discord.py cogs, one per concern; thin: they parse the interaction, ask the bot's services
(``altmafia.bot``) and render what the engine decides. ``altmafia.bot.bot.COGS`` loads them by
name; nothing in ``altmafia`` imports them."""
