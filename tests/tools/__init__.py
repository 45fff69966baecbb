"""Tests of altmafia/tools/: the simulator, the bench and the scenario runner."""
