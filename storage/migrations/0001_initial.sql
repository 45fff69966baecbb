-- 0001: games, their command journal, the event log and the delivery outbox.
-- Portable SQL only (SQLite and PostgreSQL): see docs/storage.md.

CREATE TABLE schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at TEXT NOT NULL
);

CREATE TABLE games (
    game_id             TEXT PRIMARY KEY,
    guild_id            BIGINT,
    ruleset             TEXT NOT NULL,
    ruleset_fingerprint TEXT NOT NULL,
    seed                BIGINT NOT NULL,
    players             TEXT NOT NULL,
    settings            TEXT NOT NULL,
    gm_user_ids         TEXT NOT NULL,
    meta                TEXT NOT NULL,
    status              TEXT NOT NULL,
    tick                INTEGER NOT NULL,
    version             INTEGER NOT NULL,
    state               TEXT NOT NULL,
    deadline_tick       INTEGER,
    deadline_at         TEXT,
    resolving_tick      INTEGER,
    created_at          TEXT NOT NULL,
    updated_at          TEXT NOT NULL
);

CREATE INDEX games_by_status ON games (status);

CREATE TABLE commands (
    game_id    TEXT NOT NULL REFERENCES games (game_id),
    seq        INTEGER NOT NULL,
    tick       INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    args       TEXT NOT NULL,
    result     TEXT,
    user_id    BIGINT,
    request_id TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE UNIQUE INDEX commands_by_request ON commands (game_id, request_id);

CREATE TABLE events (
    game_id  TEXT NOT NULL REFERENCES games (game_id),
    idx      INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    tick     INTEGER NOT NULL,
    msg_key  TEXT NOT NULL,
    audience TEXT NOT NULL,
    ids      TEXT NOT NULL,
    args     TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);

CREATE TABLE outbox (
    delivery_key TEXT PRIMARY KEY,
    game_id      TEXT NOT NULL REFERENCES games (game_id),
    tick         INTEGER NOT NULL,
    event_idx    INTEGER NOT NULL,
    dest_ord     INTEGER NOT NULL,
    dest_kind    TEXT NOT NULL,
    dest_id      TEXT,
    created_at   TEXT NOT NULL,
    delivered_at TEXT
);

CREATE INDEX outbox_pending ON outbox (delivered_at, game_id, event_idx, dest_ord);
