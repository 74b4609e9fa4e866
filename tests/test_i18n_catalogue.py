"""The catalogues are what the standard tools make of the sources, and a count reads right.

``python -m pi_table.ui.messages`` extracts ``pi_table.pot`` with Babel (babel.cfg), merges it into
the Italian ``.po`` and compiles the ``.mo`` the table reads with the standard library's gettext:
these tests fail when someone changed a sentence and forgot to run it. A sentence that says a
number takes its plural form, in English and in Italian.
"""

from __future__ import annotations

import gettext
import io
import subprocess
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from pi_table.engine import Team
from pi_table.engine.phrase import Phrase
from pi_table.fleet.schema import ListOf, MapOf
from pi_table.fleet.schema import Text as TextField
from pi_table.ui import i18n, messages

RUN = "run: python -m pi_table.ui.messages"
ROOT = Path(__file__).resolve().parents[1]


def said(catalog) -> list[tuple]:
    """What a template says, message by message, where each is said (by file), leaving out its
    header's dates and tool."""
    return [(message.id, sorted(message.flags), sorted({file for file, _ in message.locations}))
            for message in catalog if message.id]


@pytest.mark.slow  # some 5 s of CPU by itself: out of ./dev test (issue 40)
def test_the_template_is_what_babel_extracts_from_the_sources():
    written = read_po(io.BytesIO(messages.rendered(messages.template())))  # in the order a file keeps
    assert said(messages.read_catalogue(messages.TEMPLATE)) == said(written), RUN


def test_the_italian_catalogue_follows_the_template_with_every_entry_translated():
    po = messages.read_catalogue(messages.po_path("it"), "it")
    template = messages.read_catalogue(messages.TEMPLATE)
    assert [message.id for message in po if message.id] == [message.id for message in template if message.id], RUN
    assert not po.obsolete, f"entries nothing uses (#~): {list(po.obsolete)}"
    assert messages.untranslated(po) == [], "add the Italian of these by hand in " + str(messages.po_path("it"))
    assert po.plural_forms == "nplurals=2; plural=(n != 1);"


def italian(*entries) -> Catalog:
    """An Italian catalogue of ``(english, italian)`` entries (a plural's as two tuples), each
    marked fuzzy where a third item says so."""
    catalog = Catalog(locale="it")
    catalog.mime_headers = [("Plural-Forms", "nplurals=2; plural=(n != 1);")]  # as pi_table.po's header says
    for english, said, *fuzzy in entries:
        catalog.add(english, said, flags=("fuzzy",) if fuzzy else ())
    return catalog


def test_each_entry_without_its_whole_italian_is_named():
    catalog = italian(("Lock", "Blocca"), ("Clock", "blocca", "fuzzy"), ("Close", ""),
                      (("{n} card", "{n} cards"), ("{n} carta", "{n} carte")),
                      (("{n} seat", "{n} seats"), ("{n} posto", "")), (("{n} game", "{n} games"), ("{n} partita",)))
    assert messages.untranslated(catalog) == ["Clock", "Close", "{n} seat", "{n} game"]


def test_the_merge_guesses_no_translation_for_a_new_or_changed_sentence():
    """Babel's fuzzy matching gave "Clock" the Italian of "Lock" (issue 61.7): a new sentence near
    an old one, a reworded one and a singular turned plural come back untranslated, not guessed."""
    catalog = italian(("Lock the table", "Blocca il tavolo"), ("Start the game", "Inizia la partita"),
                      ("{n} card left", "{n} carta rimasta"), ("Pause", "Pausa"))
    template = Catalog()
    for english in ("Pause", "Clock the table", "Start the games", ("{n} card left", "{n} cards left")):
        template.add(english)
    messages.merge(catalog, template)
    assert [(message.id, any(_forms(message.string)), message.fuzzy) for message in catalog if message.id] == [
        ("Pause", True, False), ("Clock the table", False, False), ("Start the games", False, False),
        (("{n} card left", "{n} cards left"), False, False)]
    assert not catalog.obsolete
    assert messages.untranslated(catalog) == ["Clock the table", "Start the games", "{n} card left"]


def test_the_compiled_catalogue_is_the_italian_one_compiled():
    po = messages.read_catalogue(messages.po_path("it"), "it")
    with open(messages.po_path("it").with_suffix(".mo"), "rb") as file:
        mo = read_mo(file)
    assert translated(mo) == translated(po), RUN


def translated(catalog) -> dict:
    return {_one(message.id): _one(message.string) for message in catalog if message.id and not message.fuzzy}


def _forms(text) -> tuple:
    return tuple(text) if isinstance(text, (list, tuple)) else (text,)


def _one(text):
    return text if isinstance(text, str) else tuple(text)


def test_the_compiled_catalogue_says_plurals_to_the_standard_librarys_gettext():
    with open(messages.po_path("it").with_suffix(".mo"), "rb") as file:
        read = gettext.GNUTranslations(file)
    assert read.ngettext("{online} of {count} tables online", "{online} of {count} tables online", 1) == (
        "{online} tavolo collegato su {count}")
    assert read.ngettext("{online} of {count} tables online", "{online} of {count} tables online", 2) == (
        "{online} tavoli collegati su {count}")


def test_parse_po_reads_each_translated_form_by_its_english_one():
    po = ('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\nPlural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
          'msgid "b"\nmsgstr "b"\n"ì"\n\n#, fuzzy\nmsgid "c"\nmsgstr "not yet"\n\nmsgid "a"\nmsgstr "à\\n\\"q\\""\n\n'
          'msgid "{n} card"\nmsgid_plural "{n} cards"\nmsgstr[0] "{n} carta"\nmsgstr[1] "{n} carte"\n')
    entries = messages.parse_po(po)
    assert {msgid: text for msgid, text in entries.items() if msgid} == {
        "b": "bì", "a": 'à\n"q"', "{n} card": "{n} carta", "{n} cards": "{n} carte"}
    with pytest.raises(ValueError, match="broken.po"):
        messages.parse_po('msgid "a"\nmsgstr "b"\nnonsense\n', "broken.po")


# --- a count reads right in both languages -------------------------------------------------------


def test_a_counting_phrase_takes_the_form_of_its_number():
    one = Phrase.counting("count", "{count} card left", "{count} cards left", count=1)
    assert str(one) == "1 card left" and str(Phrase.counting("count", "{count} card left", "{count} cards left",
                                                             count=0)) == "0 cards left"
    with pytest.raises(TypeError):
        Phrase.counting("count", "{count} card left", "{count} cards left", cards=1)


COUNTED = [
    pytest.param(lambda n: Phrase.counting("count", "{name}: {count} distinct word; a game needs {needed}",
                                           "{name}: {count} distinct words; a game needs {needed}", name="deck.txt",
                                           count=n, needed=25),
                 ("deck.txt: 1 distinct word; a game needs 25", "deck.txt: 2 distinct words; a game needs 25"),
                 ("deck.txt: 1 parola diversa; per una partita ne servono 25", "deck.txt: 2 parole diverse; per una partita ne servono 25"),
                 id="words"),
    pytest.param(lambda n: Phrase.counting("count", "{agent} has no message {number}: its inbox holds {count}",
                                           "{agent} has no message {number}: its inbox holds {count}", agent="Moon",
                                           number=3, count=n),
                 ("Moon has no message 3: its inbox holds 1", "Moon has no message 3: its inbox holds 2"),
                 ("Moon non ha la comunicazione 3: ne ha ricevuta 1", "Moon non ha la comunicazione 3: ne ha ricevute 2"),
                 id="inbox"),
]


@pytest.mark.parametrize("phrase, english, italian", COUNTED)
def test_one_and_two_read_right_in_english_and_italian(phrase, english, italian):
    for count, en, it in zip((1, 2), english, italian, strict=True):
        counted = phrase(count)
        assert (str(counted), i18n.say(counted, "en"), i18n.say(counted, "it")) == (en, en, it)


def test_the_fleets_limits_say_one_and_many():
    assert str(TextField(1).expected()) == "a text of at most 1 character"
    assert i18n.say(TextField(1).expected(), "it") == "un testo di al massimo 1 carattere"
    assert i18n.say(TextField(2).expected(), "it") == "un testo di al massimo 2 caratteri"
    listed, fields = ListOf(TextField(5), most=1).expected(), MapOf(TextField(5), most=2).expected()
    assert str(listed) == "a list of at most 1 item, each a text of at most 5 characters"
    assert i18n.say(listed, "it") == "una lista di al massimo 1 elemento, ciascuno un testo di al massimo 5 caratteri"
    assert i18n.say(fields, "it") == "un oggetto di al massimo 2 campi, ciascuno un testo di al massimo 5 caratteri"


def test_a_count_inside_a_sentence_is_said_in_its_language_too():
    inner = Phrase.counting("count", "{name}: {count} distinct word; a game needs {needed}",
                            "{name}: {count} distinct words; a game needs {needed}", name="x", count=1, needed=25)
    side = Phrase.of("the {team} team", team=Team.RED)
    assert i18n.say(Phrase.of("{side} must guess at least once before ending its turn", side=side), "it").startswith(
        "la squadra rossa")
    assert i18n.say(inner, "it") == "x: 1 parola diversa; per una partita ne servono 25"


def test_a_plural_is_found_in_the_source_and_one_built_from_pieces_is_caught(tmp_path):
    source = tmp_path / "counted.py"
    source.write_text(
        "def left(n, canvas):\n"
        "    canvas.text(canvas.ngettext('{n} card left', '{n} cards left', n).format(n=n))\n"
        "    return Phrase.counting('n', '{n} agent left', '{n} agents left', n=n)\n"
        "def broken(n, word):\n"
        "    return Phrase.counting('n', f'{n} {word} left', '{n} agents left', n=n)\n",
        encoding="utf-8",
    )
    assert messages.msgids_in_source([source]) == {"{n} card left", "{n} cards left", "{n} agent left", "{n} agents left"}
    assert [where.rsplit(":", 1)[1] for where in messages.unmarked_sentences([source])] == ["5"]
    with open(source, "rb") as file:
        extracted = list(messages.extract_sentences(file, None, None, None))
    assert extracted == [(2, "ngettext", ("{n} card left", "{n} cards left"), []),
                         (3, "ngettext", ("{n} agent left", "{n} agents left"), [])]


def test_the_dashboard_counts_its_tables_in_the_page_with_both_forms():
    catalogue = i18n.translation("it")
    forms = [catalogue.ngettext("{online} of {count} tables online", "{online} of {count} tables online", n)
             for n in (1, 2)]
    assert [form.format(online=n, count=3) for n, form in zip((1, 2), forms, strict=True)] == [
        "1 tavolo collegato su 3", "2 tavoli collegati su 3"]


def _branch_adds(english: str, italian: str) -> tuple[bytes, bytes]:
    """The template and the Italian catalogue as ``python -m pi_table.ui.messages`` writes them on a
    branch whose code says one new sentence, translated by hand."""
    made = messages.read_catalogue(messages.TEMPLATE)
    made.add(english, locations=[("pi_table/engine/game.py", None)])
    po = messages.read_catalogue(messages.po_path("it"), "it")
    messages.merge(po, made)
    po[english].string = italian
    return messages.rendered(made), messages.rendered(po)


@pytest.mark.slow  # Babel reads and writes the whole catalogue six times: seconds
def test_two_branches_that_add_different_sentences_merge_without_a_conflict(tmp_path):
    """Issue 77: the catalogues were the most changed files, dated afresh at every run and kept in
    the order of the sources, so any two branches that added a word met in a conflict. Now each is
    sorted by its English and undated: two branches' new sentences merge as git merges text."""
    names = ("pi_table.pot", "pi_table.po")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t.invalid"]

    def commit(files: tuple[bytes, bytes], message: str) -> None:
        for name, content in zip(names, files, strict=True):
            (tmp_path / name).write_bytes(content)
        subprocess.run([*git, "commit", "-q", "-a", "-m", message], check=True)

    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    for name, path in zip(names, (messages.TEMPLATE, messages.po_path("it")), strict=True):
        (tmp_path / name).write_bytes(path.read_bytes())
    subprocess.run([*git, "add", *names], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], check=True)
    for file in (messages.TEMPLATE, messages.po_path("it")):
        assert not any(line.startswith(messages.UNDATED) for line in file.read_bytes().splitlines()), file
    subprocess.run([*git, "checkout", "-q", "-b", "one"], check=True)
    commit(_branch_adds("A cat sits on the grid", "Un gatto siede sulla griglia"), "one")
    subprocess.run([*git, "checkout", "-q", "main"], check=True)
    commit(_branch_adds("The wind moves the cards", "Il vento muove le carte"), "two")
    merged = subprocess.run([*git, "merge", "-q", "one", "-m", "both"], capture_output=True, text=True)
    assert merged.returncode == 0, merged.stdout + merged.stderr
    po = messages.parse_po((tmp_path / "pi_table.po").read_text(encoding="utf-8"))
    assert po["A cat sits on the grid"] == "Un gatto siede sulla griglia"
    assert po["The wind moves the cards"] == "Il vento muove le carte"
    template = read_po(io.BytesIO((tmp_path / "pi_table.pot").read_bytes()))
    assert {"A cat sits on the grid", "The wind moves the cards"} <= {message.id for message in template}


def test_git_keeps_no_compiled_catalogue():
    """The .mo is made by every build (build_backend/), never committed (issue 77)."""
    listed = subprocess.run(["git", "ls-files", "--", "*.mo"], cwd=ROOT, capture_output=True, text=True, check=True)
    assert listed.stdout == ""
