"""The bot and its services offer what the protocols of altmafia/bot/services.py say they do.

CI's type checker sees the same (``python3 -m mypy`` in ``.ci/run``, where bot.py hands the
real classes to the protocols); this test keeps the check in the suite, which runs none: every
member of a protocol is there on the real object, a method with the protocol's parameters
(names, kinds, defaults), so a service written against the protocol calls what exists.
"""

import inspect
from typing import Any

import pytest

from altmafia.bot import services
from altmafia.bot.bot import create_bot

PROTOCOLS = [
    (services.Services, lambda bot: bot),
    (services.Delivering, lambda bot: bot.deliverer),
    (services.ChannelKeeping, lambda bot: bot.channel_manager),
    (services.Scheduling, lambda bot: bot.scheduler),
]


def members(protocol: type) -> dict[str, object]:
    """The members a protocol declares (its own, not ``Protocol``'s)."""
    return {name: value for name, value in vars(protocol).items()
            if not name.startswith("_") and (callable(value) or isinstance(value, property))}


def parameters(fn: Any) -> list[tuple[str, object, object]]:
    """A method's parameters after ``self``: name, kind and default."""
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


@pytest.mark.parametrize(("protocol", "part"), PROTOCOLS, ids=[p.__name__ for p, _ in PROTOCOLS])
def test_the_real_parts_offer_what_their_protocol_says(settings, protocol, part):
    real = part(create_bot(settings))
    declared = members(protocol)
    assert declared, protocol
    for name, member in declared.items():
        assert hasattr(real, name), f"{type(real).__name__} has no {name} ({protocol.__name__} says it has)"
        if isinstance(member, property):
            continue
        there = getattr(type(real), name)
        assert inspect.iscoroutinefunction(there) == inspect.iscoroutinefunction(member), name
        assert parameters(there) == parameters(member), f"{type(real).__name__}.{name} differs from {protocol.__name__}"
