"""The command-line tools: the scenario runner, the ability coverage table, the benchmark and
the simulator (``simulate/``). Independent of the bot."""
