"""Every page's head comes from one place (``pi_table.web.document``): each page the table serves
says its language, is UTF-8, fits a phone and sends no referrer, and its title is text."""

from html.parser import HTMLParser

from pi_table.web.document import document
from pi_table.web.night import team_page
from pi_table.web.texts import refusal_page


class Head(HTMLParser):
    """The page's language, its head's meta tags and its title, as a browser reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.lang, self.metas, self.title, self._in_title = None, [], "", False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.lang = attrs.get("lang")
        elif tag == "meta":
            self.metas.append(attrs)
        self._in_title = tag == "title"

    def handle_endtag(self, tag):
        self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data


def head_of(page: str) -> Head:
    head = Head()
    head.feed(page)
    return head


def test_a_page_has_every_pages_head_then_its_own_title_head_and_body():
    page = document("it", "Serata <1> & co", "<main>ciao</main>\n", head='<link rel="icon" href="data:,">\n')
    head = head_of(page)
    assert page.startswith("<!doctype html>\n") and head.lang == "it"
    assert {"charset": "utf-8"} in head.metas and {"name": "referrer", "content": "no-referrer"} in head.metas
    assert {"name": "viewport", "content": "width=device-width, initial-scale=1"} in head.metas
    assert head.title == "Serata <1> & co" and "<title>Serata &lt;1&gt; &amp; co</title>" in page  # text, not markup
    assert page.index('<link rel="icon"') < page.index("</head>") < page.index("<main>ciao</main>")


def test_the_pages_written_in_python_take_the_same_head():
    for page, lang, title in ((refusal_page("Questo posto è già aperto <altrove>", "it"), "it",
                               "Questo posto è già aperto <altrove>"),
                              (team_page("en"), "en", "Join the game night")):
        head = head_of(page)
        assert (head.lang, head.title) == (lang, title)
        assert {"name": "referrer", "content": "no-referrer"} in head.metas


def test_the_fleets_pages_keep_the_browsers_referrer_policy_for_their_forms_origin_check():
    """A no-referrer page's form is sent with ``Origin: null``, which the fleet's sign-in refuses
    as another site's (``fleet.dashboard.same_origin``)."""
    head = head_of(document("en", "pi-table: The fleet", "<main></main>\n", referrer=True))
    assert head.title == "pi-table: The fleet" and not [meta for meta in head.metas if meta.get("name") == "referrer"]
