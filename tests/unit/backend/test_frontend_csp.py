"""The frontend's HTML loads scripts only from files, so the API's Content-Security-Policy
(``script-src 'self'``, no ``'unsafe-inline'``) lets it run."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

from subflow_backend.headers import APP_CSP

FRONTEND = Path(__file__).resolve().parents[3] / "frontend"


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[dict[str, str | None]] = []
        self.inline_handlers: list[str] = []
        self._in_script = False
        self.inline_code = ""

    def handle_starttag(self, tag, attrs):
        attrs_d = dict(attrs)
        self.inline_handlers += [k for k in attrs_d if k.startswith("on")]
        if tag == "script":
            self.scripts.append(attrs_d)
            self._in_script = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline_code += data.strip()


@pytest.mark.parametrize("html", ["index.html", "dist/index.html"])
def test_no_inline_script(html):
    path = FRONTEND / html
    if not path.exists():
        pytest.skip(f"{path} not built")
    parser = _Scripts()
    parser.feed(path.read_text())
    assert parser.scripts and all(s.get("src") for s in parser.scripts)
    assert parser.inline_code == "" and parser.inline_handlers == []


def test_policy_forbids_inline_scripts_and_framing():
    directives = dict(d.strip().split(" ", 1) for d in APP_CSP.split(";"))
    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'" and directives["object-src"] == "'none'"
