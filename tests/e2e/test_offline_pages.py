"""Every page Cardhall serves works without internet: nothing outside is referenced, everything referenced is there.

The pages are found, not listed: every GET route of the app without a parameter is fetched,
and every HTML answer among them is a page; so a page added later is checked too.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import pytest

from api import create_app
from service.bootstrap import open_service
from tests.e2e.web.conftest import CHROMIUM

app = create_app(open_service("memory://", migrate=False), CARDHALL_RATE_LIMIT="off")
OUTSIDE = re.compile(r"(?i)\b(?:https?:)?//[a-z0-9.-]+\.[a-z]{2,}")
CSS_URL = re.compile(r"url\(\s*['\"]?([^'\")]+)")


class References(HTMLParser):
    """The URLs an HTML page makes a browser load or follow: src, href, poster, data, action."""

    ATTRIBUTES = frozenset({"src", "href", "poster", "data", "action", "srcset"})

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [value.split()[0] for name, value in attrs if name in self.ATTRIBUTES and value]


def pages() -> list[str]:
    """The paths of the app's GET routes without parameters that answer HTML."""
    client = app.test_client()
    paths = sorted(rule.rule for rule in app.url_map.iter_rules() if "GET" in rule.methods and not rule.arguments)
    return [path for path in paths if client.get(path).mimetype == "text/html"]


def referenced(page: str, body: str) -> list[str]:
    parser = References()
    parser.feed(body)
    return [urljoin(page, url) for url in parser.urls if not url.startswith(("#", "data:", "mailto:"))]


def test_the_interactive_docs_are_among_the_pages_checked():
    assert "/docs" in pages()


@pytest.mark.parametrize("page", pages())
def test_a_page_references_nothing_outside_cardhall(page):
    body = app.test_client().get(page).get_data(as_text=True)
    assert not OUTSIDE.findall(body), f"{page} names an outside address"
    assert all(not urlsplit(url).netloc for url in referenced(page, body))


@pytest.mark.parametrize("page", pages())
def test_every_file_a_page_references_answers_200(page):
    client = app.test_client()
    body = client.get(page).get_data(as_text=True)
    for url in referenced(page, body):
        response = client.get(url)
        assert response.status_code == 200, f"{page} references {url}: {response.status_code}"
        if response.mimetype == "text/css":
            inner = [urljoin(url, found) for found in CSS_URL.findall(response.get_data(as_text=True))
                     if not found.startswith("data:")]
            assert all(not urlsplit(one).netloc and client.get(one).status_code == 200 for one in inner)


def test_swagger_ui_asks_no_outside_validator_and_its_licence_is_served():
    body = app.test_client().get("/docs").get_data(as_text=True)
    assert '"validatorUrl": null' in body  # the bundle's default would send the document to an outside service
    licence = app.test_client().get("/docs/assets/LICENSE")
    assert licence.status_code == 200 and b"Apache License" in licence.data


def test_swagger_ui_renders_every_operation_in_a_browser_that_can_reach_nothing_else(live_server, tmp_path):
    browser = shutil.which(CHROMIUM)
    if browser is None:
        pytest.fail(f"this test needs {CHROMIUM} (Debian package chromium-headless-shell or chromium)")
    offline = "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"  # every outside name fails to resolve
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", offline,
                          "--virtual-time-budget=15000", f"--user-data-dir={tmp_path}", "--dump-dom",
                          f"{live_server}/docs"], capture_output=True, text=True, timeout=120, check=True).stdout
    paths = app.test_client().get("/openapi.json").json["paths"]
    operations = sum(method in ("get", "post", "put", "patch", "delete") for item in paths.values() for method in item)
    assert dom.count('class="opblock-summary-path"') == operations > 0
