-- 0007: a Discord channel's creation is recorded before the REST call (the intent), so a
-- crash between creating a channel and saving its id is found at the next attempt or start:
-- the channel carrying the intent's marker (its guild, type, exact name and parent) is
-- adopted instead of a second one being created, and a channel whose game or lobby is gone
-- is deleted. owner_id is the lobby id (it becomes the game id) or the game id.

CREATE TABLE channel_intents (
    owner_id     TEXT NOT NULL,
    channel_key  TEXT NOT NULL,
    guild_id     BIGINT NOT NULL,
    kind         INTEGER NOT NULL,
    name         TEXT NOT NULL,
    parent_id    BIGINT,
    created_at   TEXT NOT NULL,
    channel_id   BIGINT,
    settled_at   TEXT,
    PRIMARY KEY (owner_id, channel_key)
);

CREATE INDEX channel_intents_open ON channel_intents (settled_at);
