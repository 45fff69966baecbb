"""An anonymous post: published at the next resolve, its author nowhere a non-GM can read."""

from __future__ import annotations

from .helpers import force_resolve, gather, start

SECRET = "Капитан Флинт прячет карту под третьим камнем"


def visible_messages(t, member):
    """Every message ``member`` can read in the server (ephemeral ones only if theirs)."""
    out = []
    for ch in t.guild.channels.values():
        try:
            out += [(ch.name, m) for m in ch.history(viewer=member)]
        except Exception:  # a channel this member cannot read
            continue
    return out


async def test_anonymous_post_has_no_trace_of_its_author(env):
    t = await start(await gather(env, 6, spectators=1, others=1))
    author = t.member(2)
    name = t.game.player(2).name
    r = await author.slash(t.channel("public"), "anon post", message=SECRET)
    assert r.response is not None and r.response.ephemeral
    assert name not in r.response.content and SECRET not in r.response.content
    assert r.response.message.interaction_metadata is None or r.response.ephemeral
    # nothing is published before the resolve
    assert not any(SECRET in m.content for m in t.channel("public").history())
    await force_resolve(t)
    published = [m for m in t.channel("public").history() if SECRET in m.content]
    assert len(published) == 1
    assert published[0].interaction_metadata is None  # posted by the bot, not as anyone's reply
    # the GM learns the author in the GM channel
    assert any(name in m.content and "Автор анонимки" in m.content for m in t.channel("gm").history())

    marks = {name, author.mention, f"<@{author.id}>", str(author.id), author.name}
    readers = [m for m in t.players if m.id != author.id] + t.spectators + t.others
    for reader in readers:
        seen = visible_messages(t, reader)
        with_text = [(ch, m) for ch, m in seen if SECRET in m.content]
        for ch, m in with_text:
            assert not any(x in m.content for x in marks), (reader.name, ch, m.content)
            assert m.interaction_metadata is None or m.interaction_metadata.user.id != author.id, (reader.name, ch)
        assert not any(ch == t.channel("gm").name for ch, _ in seen), reader.name
    # and the author's own channel shows nothing that would give it away to an onlooker either
    for ch, m in visible_messages(t, author):
        if SECRET in m.content and ch != t.channel("public").name:
            raise AssertionError((ch, m.content))
