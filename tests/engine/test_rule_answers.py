"""Rule questions the bot and the texts ask, each answered once by the engine: pending
invitations, a PM already sent, the PMs left, the cooldowns, a repeated submission and what the
public report shows; whom a PM may go to."""

from __future__ import annotations

from config import load_ruleset
from engine import DEAL, ActionError, Game, PlayerSpec
from engine.visibility import in_public_report


def godfather() -> Game:
    """Seed 000 with every stat high enough for any slot's threshold."""
    g = Game.new(load_ruleset("godfather"), 3, [PlayerSpec(f"P{i}", DEAL) for i in range(12)])
    for p in g.state.players:
        for stat in ("vo", "tv"):
            g.gm_set_stat(p.pid, stat, 30)
    return g


def to_night(g: Game) -> None:
    while g.info.kind != "night":
        g.resolve()


def test_pending_invitations_are_this_nights_by_seat():
    g = godfather()
    to_night(g)
    assert g.pending_invitations(5) == []
    g.faction_op(3, "invite", 5)
    g.faction_op(1, "invite", 5)
    assert g.pending_invitations(5) == [1, 3]  # by seat, not by the order they came
    assert g.pending_invitations(3) == []  # an inviter is not invited
    g.faction_op(5, "decline", 3)  # accept and decline take exactly these
    try:
        g.faction_op(5, "accept", 4)
    except ActionError as err:
        assert err.key == "no_invitation"
    else:
        raise AssertionError("an invitation nobody made was accepted")
    g.resolve()
    assert g.pending_invitations(5) == []  # an invitation lasts its night


def test_a_pm_already_sent_in_this_phase():
    g = godfather()
    assert not g.pm_already_sent(0, 1, "hi")
    g.send_pm(0, 1, "hi")
    assert g.pm_already_sent(0, 1, "hi")
    assert not g.pm_already_sent(0, 1, "hi again")  # another text
    assert not g.pm_already_sent(0, 2, "hi")  # another recipient
    assert not g.pm_already_sent(1, 0, "hi")  # the other way
    g.resolve()
    assert not g.pm_already_sent(0, 1, "hi")  # a new phase: the same words are a new message


def test_pms_left_today():
    g = godfather()
    p = g.player(0)
    quota = g.pm_quota(p)
    assert quota is not None and g.pm_left(p) == quota
    g.send_pm(0, 1, "one")
    g.send_pm(0, 2, "two")
    assert g.pm_left(p) == quota - 2
    while g.info.day == 1:
        g.resolve()
    assert g.pm_left(p) == quota  # a new day, a new quota


def test_anonymous_posts_left_today():
    g = godfather()
    p = g.player(0)
    quota = g.anon_quota(p)
    assert quota is not None and g.anon_left(p) == quota
    g.post_anon(0, "a rumour")
    assert g.anon_left(p) == quota - 1
    while g.info.day == 1:
        g.resolve()
    assert g.anon_left(p) == quota


def test_cooldowns_are_what_check_available_refuses():
    g = godfather()
    p = g.player(0)
    assert g.cooldowns(p) == {}
    la = next(la for la in g.legal_actions(0) if la.key.endswith(":philosophy"))
    g.submit(0, la.key, la.targets[:1], None)
    g.resolve()
    cooling = g.cooldowns(p)
    assert list(cooling) == [la.key] and cooling[la.key] > g.state.tick
    while g.state.tick < cooling[la.key]:
        try:
            g.check_available(p, la.key)
        except ActionError as err:
            assert err.key in ("cooldown", "turn_used", "wrong_phase")
        else:
            raise AssertionError("an ability still cooling down was available")
        assert g.cooldowns(p) == cooling
        g.resolve()
    assert g.cooldowns(p) == {}


def test_a_repeated_submission_is_the_recorded_one():
    g = godfather()
    la = g.legal_actions(0)[0]
    assert g.same_submission(0, la.key, [1]) is None
    intent = g.submit(0, la.key, [1], None)
    assert g.same_submission(0, la.key, [1]) is intent
    assert g.same_submission(0, la.key, [1], by=0) is intent  # one's own order is one's own
    assert g.same_submission(0, la.key, [2]) is None  # another target
    assert g.same_submission(0, la.key, [1], "x") is None  # another option
    assert g.same_submission(0, la.key, [1], by=4) is None  # given by someone else
    assert g.same_submission(1, la.key, [1]) is None  # another player
    g.resolve()
    assert g.same_submission(0, la.key, [1]) is None  # resolved: no longer pending


def test_the_public_report_leaves_out_private_texts_only():
    g = godfather()
    g.send_pm(0, 1, "a secret")
    g.post_anon(2, "a rumour")
    g.gm_message(3, "a word from the GM")
    g.resolve()
    events = g.state.events
    hidden = [ev for ev in events if not in_public_report(ev)]
    assert hidden and all(ev.audience != "public" and "text" in ev.args for ev in hidden)
    assert {"pm.received"} <= {ev.key for ev in hidden}
    assert all(in_public_report(ev) for ev in events if ev.audience == "public")
    assert any(in_public_report(ev) for ev in events if ev.audience != "public")  # the rest of the private news is shown


def test_pm_recipients_are_the_living_but_oneself():
    g = godfather()
    assert g.pm_recipients(0) == list(range(1, 12))
    g.gm_remove(5, "modkill")
    assert 5 not in g.pm_recipients(0) and 0 not in g.pm_recipients(0)
    g.send_pm(0, g.pm_recipients(0)[0], "hello")  # one offered is written to
    try:
        g.send_pm(0, 5, "hello")
    except ActionError as err:
        assert err.key == "target_not_alive"
    else:
        raise AssertionError("a PM to a seat out of play went through")
