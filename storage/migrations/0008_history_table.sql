-- 0008: a save costs the same on day 7 as on day 1. The engine's event log and action
-- history leave the snapshot (games.state): the events were already in their own table
-- (events); the history gets one here, append-only like it: one row per record of
-- GameState.history, in order. games.log_apart = 1 once a game's snapshot holds neither;
-- older snapshots are split once by Store._split_old (at every start while any is left:
-- JSON is not read in SQL, for portability).

CREATE TABLE history (
    game_id  TEXT NOT NULL,
    idx      INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    tick     INTEGER NOT NULL,
    record   TEXT NOT NULL,
    PRIMARY KEY (game_id, idx)
);

ALTER TABLE games ADD COLUMN log_apart INTEGER NOT NULL DEFAULT 0;
