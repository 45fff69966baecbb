"""The ``altmafia`` command line: ``run``, ``scenario``, ``rules``, ``simulate``, ``bench``.

The top of the package: it alone imports both the bot and the tools. Each command imports its
wing inside its own function, so that ``altmafia rules`` or ``altmafia scenario`` start without
loading discord.py, aiohttp or matplotlib (start-up time); those imports say so.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from config.loader import RulesetFileError, available_rulesets, load_ruleset, load_ruleset_file

if TYPE_CHECKING:  # the bot's type only: discord.py loads only for the commands that need it
    from .bot.bot import AltMafiaBot

from .text.i18n import text

TOKEN_HELP = """\
DISCORD_TOKEN is not set, so the bot cannot log in to Discord.

How to get a token:
  1. Open https://discord.com/developers/applications and create an application (New Application).
  2. In its "Bot" tab press "Reset Token" and copy the token.
  3. No privileged intent is needed (leave "Server Members" and "Message Content" off).
  4. Invite the bot: "OAuth2" -> "URL Generator", scopes "bot" and "applications.commands",
     permissions "View Channels", "Manage Channels", "Manage Roles", "Send Messages",
     "Read Message History", "Embed Links", "Attach Files", "Manage Messages",
     "Add Reactions", "Create Public Threads", "Create Private Threads",
     "Send Messages in Threads".

Where to put it:
  cp .env.example .env      # in the folder you start the bot from
  then set  DISCORD_TOKEN=<your token>  in .env  (or export DISCORD_TOKEN in the shell).

Токен Discord не задан (DISCORD_TOKEN). Создайте приложение на
https://discord.com/developers/applications, во вкладке «Bot» нажмите «Reset Token»,
скопируйте токен и впишите его в файл .env (скопируйте .env.example в .env):
DISCORD_TOKEN=<ваш токен>
"""


def cmd_sync(args: argparse.Namespace) -> int:
    """Send the slash commands to Discord and stop: for a bot run as several processes (shards),
    where no process syncs at start (``ALTMAFIA_SYNC_COMMANDS=no``)."""
    # imported here: start-up time (the module's docstring)
    from .bot.settings import Settings, SettingsError

    try:
        settings = Settings.from_env(dotenv=Path.cwd() / ".env")
    except SettingsError as exc:
        print(f"altmafia: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    # imported here: start-up time (discord.py and the bot load only for the commands that need them)
    import asyncio

    import aiohttp
    import discord

    from .bot.bot import create_bot

    bot = create_bot(settings)
    bot.sync_only = True
    token = settings.token  # checked above

    async def main() -> int:
        async with bot:
            await bot.login(token)  # runs setup_hook: the commands are synced there
        where = f"server {settings.guild_id}" if settings.guild_id else "every server"
        print(f"altmafia: {len(bot.synced)} slash commands synced ({where})")
        return 0

    try:
        return asyncio.run(main())
    except discord.LoginFailure:
        print("altmafia: Discord refused the token (DISCORD_TOKEN in .env): reset it in the Developer Portal.", file=sys.stderr)
        return 2
    except (OSError, aiohttp.ClientError, discord.HTTPException) as exc:
        print(f"altmafia: cannot sync the commands ({exc}); check the network and try again.", file=sys.stderr)
        return 1


def cmd_run(args: argparse.Namespace) -> int:
    # imported here: start-up time (the module's docstring)
    from .bot.settings import Settings, SettingsError

    try:
        settings = Settings.from_env(dotenv=Path.cwd() / ".env")
    except SettingsError as exc:
        print(f"altmafia: {exc}", file=sys.stderr)
        return 2
    if not settings.token:
        print(TOKEN_HELP, file=sys.stderr)
        return 2
    # imported here: start-up time (the module's docstring)
    import asyncio

    import aiohttp
    import discord

    from storage import DatabaseInUse, StorageError

    from .bot.bot import create_bot

    discord.utils.setup_logging(level=logging.INFO)
    bot = create_bot(settings)
    try:
        bot.store.acquire()  # one bot process per database, refused before Discord is contacted
    except DatabaseInUse as exc:
        print(f"altmafia: {text(settings.lang, 'cli.db_in_use', db=exc.location, owner=exc.owner)}", file=sys.stderr)
        return 1
    try:
        asyncio.run(serve(bot, settings.token))
    except KeyboardInterrupt:  # Ctrl-C: asyncio cancelled the bot, whose ``async with`` closed it
        pass
    except discord.LoginFailure:
        print("altmafia: Discord refused the token (DISCORD_TOKEN in .env): reset it in the Developer Portal.", file=sys.stderr)
        return 2
    except discord.PrivilegedIntentsRequired:
        print("altmafia: Discord refused an intent the bot asked for.", file=sys.stderr)
        return 2
    except StorageError as exc:
        print(f"altmafia: {exc}", file=sys.stderr)
        return 1
    except (OSError, aiohttp.ClientError) as exc:
        print(f"altmafia: cannot reach Discord ({exc}); check the network and try again.", file=sys.stderr)
        return 1
    return 0


async def serve(bot: AltMafiaBot, token: str) -> None:
    """``bot.run`` with SIGTERM (systemd, ``docker stop``) closing the bot as Ctrl-C does: the
    scheduler stopped, the database closed, the gateway left."""
    # imported here: start-up time (the module's docstring)
    import asyncio

    loop = asyncio.get_running_loop()
    closing: list[asyncio.Task[None]] = []
    with contextlib.suppress(NotImplementedError, AttributeError):  # Windows has no SIGTERM handlers
        loop.add_signal_handler(signal.SIGTERM, lambda: closing.append(loop.create_task(bot.close())))
    async with bot:
        await bot.start(token)
    for task in closing:
        await task


def missing_path(paths: list[str], what: str) -> int | None:
    """Exit code 2 with one line when a path given on the command line does not exist."""
    gone = [p for p in paths if not Path(p).exists()]
    if not gone:
        return None
    print(f"altmafia: no such {what}: {', '.join(gone)}", file=sys.stderr)
    return 2


def is_path(ref: str) -> bool:
    return ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref


def cmd_scenario(args: argparse.Namespace) -> int:
    # imported here: start-up time (the module's docstring)
    from .tools.scenario import collect, run_file

    if (code := missing_path(args.paths, "file or folder")) is not None:
        return code
    files = collect(args.paths)
    if not files:
        print("no scenario files found in: " + " ".join(args.paths), file=sys.stderr)
        return 1
    if args.census:
        # imported here: start-up time (the module's docstring)
        from .tools.census import census, table

        print("\n".join(table(census(files))))
        return 0
    if args.typify:
        # imported here: start-up time (the module's docstring)
        from .tools.typify import typify

        outcomes = typify(files)
        for o in outcomes:
            if o.typed or o.note:
                print(f"{o.path}: " + (o.note or f"{o.typed} typed"))
        print(f"{sum(o.typed for o in outcomes)} text expectations typed in {sum(1 for o in outcomes if o.typed)} files")
        return 0
    passed = failed = 0
    for f in files:
        res = run_file(f)
        if res.ok:
            passed += 1
            if args.verbose:
                print(f"ok    {f}")
        else:
            failed += 1
            print(f"FAIL  {f}")
            for line in res.failures:
                print(f"    {line}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def cmd_rules(args: argparse.Namespace) -> int:
    lang = args.lang
    if args.reference:
        # imported here: start-up time (the module's docstring)
        from .tools.reference import reference

        print("\n".join(reference(lang)))
        return 0
    if not args.ruleset:
        bad = 0
        for rid, path in available_rulesets(include_tests=args.all).items():
            try:
                r = load_ruleset_file(path)
                print(f"{rid:20} {r.names.ru} / {r.names.en}  ({len(r.roles)} roles, {len(r.characters)} characters)")
            except RulesetFileError as exc:
                bad += 1
                print(exc.render(lang), file=sys.stderr)
        return 1 if bad else 0
    if is_path(args.ruleset) and (code := missing_path([args.ruleset], "ruleset file")) is not None:
        return code
    notes: list[RulesetFileError] = []
    try:
        if args.ruleset.endswith((".yaml", ".yml")):
            r = load_ruleset_file(args.ruleset, notes)
        else:
            r = load_ruleset(args.ruleset, include_tests=True)
    except RulesetFileError as exc:
        print(exc.render(lang), file=sys.stderr)
        return 1
    # imported here: start-up time (the module's docstring)
    from config.texts import say

    from .tools.coverage import features, gaps, scenario_use, table, text_gaps
    from .tools.reference import summary

    print(f"{getattr(r.names, lang)} [{r.id}]")
    print("  " + ", ".join(f"{getattr(s.abbr, lang)} ({s.visibility})" for s in r.stats))
    for line in summary(r, lang):
        print(line)
    for note in notes:
        print(say(lang, "rules.note", text=note.render(lang)), file=sys.stderr)
    for kind, steps in r.steps.items():
        print(f"  {kind}: " + " → ".join(s.id for s in steps))
    if args.summary:
        return 0
    use = scenario_use(r)
    rows = table(r, lang, use)
    head = ("owner", "slot", "ability", "step", "frequency", "implemented", "scenarios")
    print(" | ".join(head))
    for row in rows:
        print(" | ".join([row.owner, row.ability.slot, getattr(row.ability.name, lang), row.step, row.frequency, row.implemented, str(len(row.scenarios))]))
    feats = features(r, lang, use)
    for fr in feats:
        print(" | ".join([fr.owner, "feature", ", ".join(fr.kinds), "-", "-", "yes", str(len(fr.scenarios))]))
    missing = gaps(rows) + [f"{fr.owner}: the feature has no scenario" for fr in feats if not fr.scenarios] + text_gaps(r)
    done = sum(1 for row in rows if row.implemented != "NO" and row.scenarios)
    print(f"{done} of {len(rows)} abilities implemented with a scenario; "
          f"{sum(1 for fr in feats if fr.scenarios)} of {len(feats)} character features played")
    if args.coverage:
        for line in missing:
            print("missing: " + line, file=sys.stderr)
        return 1 if missing else 0
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    # imported here: start-up time (the module's docstring)
    from .tools.simulate.table import (
        Run,
        SimulationError,
        format_report,
        plot,
        replay,
        run_games,
        summarize,
    )

    if is_path(args.ruleset) and (code := missing_path([args.ruleset], "ruleset file")) is not None:
        return code
    if args.plot and (code := missing_path([str(Path(args.plot).parent)], "folder for the chart")) is not None:
        return code
    run = Run(ruleset=args.ruleset, games=args.games, seed=args.seed, players=args.players, policy=args.policy)
    if args.report:
        return write_report(run, args)
    try:
        if args.game is not None:
            rec, log = replay(run, args.game, args.lang)
            print(json.dumps(rec, ensure_ascii=False, sort_keys=True, indent=2) if args.json else "\n".join(log))
            return 0
        jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
        records = run_games(run, jobs=jobs, progress=not args.json)
        rep = summarize(run, records, args.lang)
    except (RulesetFileError, SimulationError) as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.plot:
        plot(rep, args.plot)
    if args.json:
        print(json.dumps(rep, ensure_ascii=False, sort_keys=True, indent=2))
    else:
        print(format_report(rep))
        if args.plot:
            print(f"\nchart: {args.plot}")
    return 0


def write_report(run: Any, args: argparse.Namespace) -> int:
    """``simulate --game I --report FILE``: game ``I`` of the run, played again, as the HTML
    review of the game (``--public``: the public variant)."""
    # imported here: start-up time (the module's docstring)
    from .text.report import render_report
    from .tools.simulate.table import SimulationError, Table, new_table

    if args.game is None:
        print("--report needs --game INDEX: the report is of one game", file=sys.stderr)
        return 2
    try:
        game, policies, rnd = new_table(load_ruleset(run.ruleset, include_tests=True, files=True), run.seed, args.game, run.players, run.policy)
        Table(game, policies, rnd).play()
    except (RulesetFileError, SimulationError) as exc:
        print(exc, file=sys.stderr)
        return 1
    page = render_report(game, None, args.lang, "public" if args.public else "gm")
    Path(args.report).write_text(page, encoding="utf-8")
    print(f"report: {args.report}")
    return 0


def bench_bot(db_path: Path) -> AltMafiaBot:
    """The real bot for the bench's Discord section (the tools do not import the bot)."""
    # imported here: start-up time (the module's docstring)
    from .bot.bot import create_bot
    from .bot.settings import Settings

    return create_bot(Settings(token=None, db_path=db_path, scheduler_seconds=3600.0))


def cmd_bench(args: argparse.Namespace) -> int:
    # imported here: start-up time (the module's docstring)
    from .tools.bench import format_rows, run_bench

    rows = run_bench(quick=args.quick, only=args.only, progress=not args.json, make_bot=bench_bot,
                     round_trip=args.round_trip_ms / 1000)
    if args.json:
        print(json.dumps({"quick": args.quick, "machine": rows.machine, "rows": rows.rows}, ensure_ascii=False, indent=2))
    else:
        print(format_rows(rows))
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    """A consistent copy of a live database with SQLite's backup API (docs/storage.md)."""
    # imported here: start-up time (the storage loads only for the commands that need it)
    from storage import StorageError
    from storage.backups import backup

    if Path(args.out).resolve() == Path(args.db).resolve():
        print(f"altmafia: {args.db} and {args.out} are the same file: name another file for the copy "
              "(for example altmafia-backup.sqlite3).", file=sys.stderr)
        return 1
    try:
        done = backup(args.db, args.out)
    except StorageError as exc:
        print(f"altmafia: {exc}", file=sys.stderr)
        return 1
    print(f"altmafia: {args.db} backed up to {args.out}: {done['pages']} pages, {done['bytes']} bytes, quick_check {done['check']}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    """Put a backup in place of the database, marking what it holds as not yet sent to be
    looked for in its channel first (docs/storage.md, "Restoring a backup")."""
    # imported here: start-up time (the storage loads only for the commands that need it)
    from storage import DatabaseInUse, StorageError
    from storage.backups import restore

    try:
        done = restore(args.backup, args.db)
    except DatabaseInUse as exc:
        print(f"altmafia: {text(args.lang, 'cli.db_in_use', db=exc.location, owner=exc.owner)}", file=sys.stderr)
        return 1
    except StorageError as exc:
        print(f"altmafia: {exc}", file=sys.stderr)
        return 1
    print("altmafia: " + text(args.lang, "cli.restored", backup=args.backup, db=args.db, parts=done["parts"] + done["rows"],
                              games=done["games"]))
    if done["kept"]:
        print("altmafia: " + text(args.lang, "cli.restored_kept", kept=done["kept"]))
    return 0


def count(lo: int, hi: int) -> Callable[[str], int]:
    """An argparse type: a whole number in ``lo..hi`` (argparse prints the error, exit code 2)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is out of range: use {lo} to {hi}")
        return value

    return parse


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="altmafia", description="Alternative-mafia games on Discord, computed exactly.")
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start the Discord bot (needs DISCORD_TOKEN in .env)")
    run.set_defaults(func=cmd_run)
    sy = sub.add_parser("sync", help="send the slash commands to Discord and stop (for a bot run as several shard processes)")
    sy.set_defaults(func=cmd_sync)
    sc = sub.add_parser("scenario", help="play scenario files or folders and compare with what they expect")
    sc.add_argument("paths", nargs="+")
    sc.add_argument("-v", "--verbose", action="store_true", help="list passing files too")
    sc.add_argument("--census", action="store_true", help="count the typed and the text expectations instead of playing")
    sc.add_argument("--typify", action="store_true", help="rewrite the files' text expectations as typed facts where an event says the same")
    sc.set_defaults(func=cmd_scenario)
    ru = sub.add_parser("rules", help="list and validate rulesets, or show one")
    ru.add_argument("ruleset", nargs="?", help="a ruleset id or a .yaml file")
    ru.add_argument("--lang", choices=["ru", "en"], default="ru")
    ru.add_argument("--all", action="store_true", help="include the test-only rulesets")
    ru.add_argument("--coverage", action="store_true", help="the ability table; exit 1 while any ability lacks an implementation or a scenario")
    ru.add_argument("--reference", action="store_true", help="every op, implementation, step, vote, victory, check and passive a ruleset may use, with parameters")
    ru.add_argument("--summary", action="store_true", help="what a GM tunes only (calendar, table and deck, quotas, thresholds, votes, victory, roles), without the ability table")
    ru.set_defaults(func=cmd_rules)
    si = sub.add_parser("simulate", help="play many games with automatic players: win rates, game length, abilities, victory paths")
    si.add_argument("--ruleset", default="godfather", help="a ruleset id (shipped or test-only) or a .yaml file")
    si.add_argument("--games", type=count(1, 1_000_000), default=100)
    si.add_argument("--seed", type=int, default=1, help="the same seed gives the same report")
    si.add_argument("--players", type=count(1, 10_000), help="table size (default: the ruleset's)")
    si.add_argument("--policy", choices=["random", "greedy", "mixed"], default="random",
                    help="random legal play, a greedy heuristic player, or half of each (seats drawn per game)")
    si.add_argument("--json", action="store_true", help="machine-readable report on stdout (no progress bar)")
    si.add_argument("--plot", metavar="FILE", help="write a PNG chart of the win rates")
    si.add_argument("--lang", choices=["ru", "en"], default="ru", help="names of roles, characters and abilities")
    si.add_argument("--jobs", type=count(0, 256), default=1, help="worker processes (0: one per CPU); the report does not depend on it")
    si.add_argument("--game", type=count(0, 1_000_000), metavar="INDEX", help="replay game INDEX of this run alone, with its log")
    si.add_argument("--report", metavar="FILE", help="with --game: write that game's HTML review (docs/report.md)")
    si.add_argument("--public", action="store_true", help="with --report: the public variant (no private texts)")
    si.set_defaults(func=cmd_simulate)
    be = sub.add_parser("bench", help="measure the engine, scale, storage (and the Discord command path when built)")
    be.add_argument("--json", action="store_true", help="machine-readable rows on stdout")
    be.add_argument("--quick", action="store_true", help="tiny sizes (for tests): the shape, not the figures")
    be.add_argument("--only", action="append", choices=["engine", "peer", "scale", "storage", "discord", "postgres", "load", "deadline"],
                    help="run only these sections")
    be.add_argument("--round-trip-ms", type=float, default=100.0, metavar="MS",
                    help="the round trip of each REST call in the deadline section (default 100)")
    be.set_defaults(func=cmd_bench)
    bk = sub.add_parser("backup", help="copy a database, even while the bot runs, with SQLite's backup API")
    bk.add_argument("db", help="the database file (ALTMAFIA_DB)")
    bk.add_argument("out", help="the copy to write (must not exist)")
    bk.set_defaults(func=cmd_backup)
    rs = sub.add_parser("restore", help="put a backup in place of a database (the bot stopped); nothing is posted twice")
    rs.add_argument("backup", help="the backup file (altmafia backup)")
    rs.add_argument("db", help="the database file to replace (ALTMAFIA_DB); kept as DB.before-restore")
    rs.add_argument("--lang", choices=["ru", "en"], default="ru", help="the language of the answer")
    rs.set_defaults(func=cmd_restore)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
