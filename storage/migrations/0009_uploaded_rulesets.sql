-- 0009: rulesets a server's GMs upload (/gm ruleset upload). ruleset_texts keeps each
-- uploaded ruleset as the engine reads it (its ``extends:`` merged in), by its fingerprint
-- (the hash games.ruleset_fingerprint holds): a game finds the exact rules it began with
-- there, after a re-upload, a removal or a restart. A row goes only when no server, game
-- or lobby refers to its fingerprint any more. guild_rulesets is each server's current
-- upload of an id: the file as uploaded, who uploaded it and when.

CREATE TABLE ruleset_texts (
    fingerprint  TEXT PRIMARY KEY,
    ruleset_id   TEXT NOT NULL,
    rules        TEXT NOT NULL,
    created_at   TEXT NOT NULL
);

CREATE TABLE guild_rulesets (
    guild_id     BIGINT NOT NULL,
    ruleset_id   TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    name_ru      TEXT NOT NULL,
    name_en      TEXT NOT NULL,
    file_name    TEXT NOT NULL,
    source       TEXT NOT NULL,
    uploader     BIGINT NOT NULL,
    uploaded_at  TEXT NOT NULL,
    PRIMARY KEY (guild_id, ruleset_id)
);

CREATE INDEX games_by_ruleset ON games (ruleset_fingerprint);
