"""A GM restores last night's backup: the messages the backup holds as not yet sent had gone
out after it; the bot started on the restored database looks for each in its channel and
posts none of them again (``altmafia restore``, docs/storage.md "Restoring a backup")."""

from __future__ import annotations

from altmafia.bot.bot import create_bot
from altmafia.cli import main as cli
from storage.backups import backup

from .helpers import gather, start


async def test_a_restored_backup_posts_nothing_twice(env, settings, tmp_path, capsys):
    t = await start(await gather(env, 5, spectators=0))
    real = env.bot.deliverer.flush

    async def not_yet(*args, **kwargs):  # committed, staged or not, and not sent when the backup is taken
        return 0

    env.bot.deliverer.flush = not_yet
    await t.member(1).slash(t.hidden(1), "pm send", to="2", message="встретимся у маяка")  # the copy staged, the PM a row
    await t.gm.slash(t.channel("gm"), "gm tell", player="3", message="тайное слово: чайка")
    env.bot.deliverer.flush = real
    assert await t.store.outbox.pending_parts(t.game_id) and await t.store.outbox.pending_deliveries(t.game_id)
    copy = tmp_path / "nightly.sqlite3"
    backup(settings.db_path, copy)
    await env.bot.deliverer.flush()  # the bot plays on: everything goes out after the backup point
    assert not await t.store.outbox.pending_parts(t.game_id)

    def seen() -> dict[str, int]:
        where = {"copy": t.hidden(1), "received": t.hidden(2), "told": t.hidden(3), "logged": t.channel("gm")}
        words = {"copy": "встретимся у маяка", "received": "встретимся у маяка", "told": "тайное слово: чайка",
                 "logged": "тайное слово: чайка"}
        return {k: len([m for m in c.history() if m.author.bot and words[k] in m.content]) for k, c in where.items()}

    before = seen()
    assert before == {"copy": 1, "received": 1, "told": 1, "logged": 1}, before

    # a bot process on the database: the restore refuses to touch it
    assert cli(["restore", str(copy), str(settings.db_path)]) == 1
    assert "altmafia" in capsys.readouterr().err

    old = env.bot  # the GM stops the bot, restores the copy, starts it again
    old.scheduler.stop()
    await old.store.close()
    assert cli(["restore", str(copy), str(settings.db_path), "--lang", "en"]) == 0
    said = capsys.readouterr().out
    assert "before-restore" in said and "lost" in said, said
    await env.restart_bot(create_bot(settings))
    store = env.bot.store
    assert not await store.outbox.pending_parts(t.game_id) and not await store.outbox.pending_deliveries(t.game_id)
    assert seen() == before, seen()  # each found in its channel, none posted again
    # what the backup did not know is still there, as it was: the replaced database is kept
    assert settings.db_path.with_name(settings.db_path.name + ".before-restore").is_file()
