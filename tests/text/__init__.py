"""Tests of altmafia/text/: the catalogs, the renderer, the reveal and the HTML report."""
