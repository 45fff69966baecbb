"""Persistence on aiosqlite: games, intents, events and the delivery outbox (see issue: Storage)."""
