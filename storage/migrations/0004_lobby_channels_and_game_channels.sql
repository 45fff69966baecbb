-- 0004: one open lobby per channel (the channel a lobby was opened in, unique), which game
-- every Discord channel belongs to (so a command in a finished game's channel still finds
-- that game), and a version of a game's meta of its own (bumped by every meta update; the
-- engine's journal version is left alone). The store fills the new columns and table from
-- the JSON it kept so far once, right after this migration (Store._backfill_v4).

ALTER TABLE lobbies ADD COLUMN channel_id BIGINT;

CREATE UNIQUE INDEX lobbies_by_channel ON lobbies (channel_id);

ALTER TABLE games ADD COLUMN meta_version INTEGER NOT NULL DEFAULT 0;

CREATE TABLE game_channels (
    channel_id  BIGINT PRIMARY KEY,
    game_id     TEXT NOT NULL,
    channel_key TEXT NOT NULL
);

CREATE INDEX game_channels_by_game ON game_channels (game_id);
