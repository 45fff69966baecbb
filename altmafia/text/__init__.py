"""The texts built from a game: the message catalogs and their renderer (``i18n``), the reveal
and its chart, the HTML end-of-game report. Imports the engine and config, never the bot."""
