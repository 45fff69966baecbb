-- 0010: two reads of the outbox's parts that every resolve makes, found without reading the
-- rest of the table. A game's unsent parts (Store.pending_parts(game_id): every resolve
-- stages its delivery after reading them, every flush of a game sends them) through an index
-- that leads with the game: outbox_parts_pending leads with sent_at, so a game's read went
-- through every unsent part of every game (hundreds of games staged at one deadline). And the
-- highest batch_ord (the next batch's place in the staging order, read for each batch staged)
-- through an index of its own instead of a walk of every part ever staged.

CREATE INDEX outbox_parts_by_game ON outbox_parts (game_id, sent_at, batch_ord, part_idx);

CREATE INDEX outbox_parts_by_order ON outbox_parts (batch_ord);
