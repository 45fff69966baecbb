-- 0003: lobbies of the Discord bot (a game being gathered: its ruleset, GMs, players and
-- spectators so far), kept so that a restart loses no sign-up. A lobby becomes a game at its
-- start and its row is then removed.

CREATE TABLE lobbies (
    lobby_id   TEXT PRIMARY KEY,
    guild_id   BIGINT,
    data       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX lobbies_by_guild ON lobbies (guild_id);
