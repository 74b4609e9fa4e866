"""One reader for JSON from outside the table (``files.read_json``): a document nested deeper than
any the table writes is refused in words before Python's parser, which recurses once a level,
meets it. At its recursion limit that parser raised RecursionError, and a finalizer run at that
depth failed too (issue 66's flake)."""

from __future__ import annotations

import ast
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pi_table.files import MAX_JSON_NESTING, TooDeep, read_json, sealed_line

from helpers import JOURNAL_VERSION_1, ROOT, parsed


@pytest.mark.parametrize("opening", ["[", "{\"a\": "])
def test_a_document_nested_past_the_bound_is_refused_in_words_before_the_parser(opening, monkeypatch):
    parsed = []
    monkeypatch.setattr(json, "loads", lambda *args, **kwargs: parsed.append(args))
    with pytest.raises(TooDeep) as refused:
        read_json(opening * 100_000)
    said = str(refused.value)
    assert f"at most {MAX_JSON_NESTING} levels" in said and "nested deeper" in said
    assert isinstance(refused.value, ValueError) and parsed == []


def test_the_bound_itself_is_read_and_one_more_level_is_not():
    assert read_json("[" * MAX_JSON_NESTING + "]" * MAX_JSON_NESTING) is not None
    with pytest.raises(TooDeep):
        read_json("[" * (MAX_JSON_NESTING + 1) + "]" * (MAX_JSON_NESTING + 1))
    assert read_json(b"[[[]]]", deepest=3) == [[[]]]
    with pytest.raises(TooDeep, match="at most 2 levels"):
        read_json(b"[[[]]]", deepest=2)


def test_brackets_inside_strings_nest_nothing():
    text = json.dumps({"note": "[{" * 5_000, "more": ["}]" * 5_000]})
    assert read_json(text) == json.loads(text)
    assert read_json(text.encode()) == json.loads(text)


@pytest.mark.parametrize("text", [
    r'["\"", ' + "[" * 40 + "]" * 40 + "]",  # an escaped quote does not end the string
    r'["\\", ' + "[" * 40 + "]" * 40 + "]",  # an escaped backslash does not escape the quote after it
    r'["\\\"[[[[", ' + "[" * 40 + "]" * 40 + "]",
])
def test_escaped_quotes_do_not_hide_the_brackets_after_them(text):
    with pytest.raises(TooDeep):
        read_json(text)


def test_a_string_never_closed_is_no_json_and_read_in_one_pass():
    with pytest.raises(ValueError):
        read_json('["' + '\\"' * 200_000)


def test_the_documents_the_table_writes_are_read():
    for line in JOURNAL_VERSION_1.splitlines():
        assert read_json(line) == json.loads(line)
    sealed = sealed_line({"n": 1, "view": {"board": [[{"word": "a[", "seen": {"by": ["red"]}}]]}})
    assert read_json(sealed) == json.loads(sealed)
    assert read_json('{"a": [1]}'.encode("utf-16")) == {"a": [1]}


def test_what_is_not_json_is_a_value_error_as_before():
    for text in (b"", b"{not json", b"\xff\xfe\xfd", "]]]]" * 100):
        with pytest.raises(ValueError):
            read_json(text)


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                    max_leaves=40)


def depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    return 0


@given(value=JSON, ascii_only=st.booleans(), as_bytes=st.booleans())
def test_within_the_bound_it_reads_what_json_loads_reads(value, ascii_only, as_bytes):
    text = json.dumps(value, ensure_ascii=ascii_only)
    document = text.encode() if as_bytes else text
    if depth(value) <= MAX_JSON_NESTING:
        assert read_json(document) == json.loads(document)
    else:
        with pytest.raises(TooDeep):
            read_json(document)


def json_reads_around_the_reader(tree: ast.Module) -> list[int]:
    """The lines of ``tree`` that parse JSON other than through ``read_json``: ``json.loads`` and
    ``json.load`` (by whatever name the module or the function is imported), a ``JSONDecoder``, and an
    HTTP body's ``.json()`` (aiohttp's, requests') not given ``loads=read_json``."""
    modules, functions = {"json"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.asname or alias.name for alias in node.names if alias.name == "json"}
        elif isinstance(node, ast.ImportFrom) and node.module == "json":
            functions |= {alias.asname or alias.name for alias in node.names
                          if alias.name in ("loads", "load", "JSONDecoder")}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        call = node.func
        if isinstance(call, ast.Name) and call.id in functions \
                or isinstance(call, ast.Attribute) and isinstance(call.value, ast.Name) and call.value.id in modules \
                and call.attr in ("loads", "load", "JSONDecoder") \
                or isinstance(call, ast.Attribute) and call.attr == "json" and not any(
                    keyword.arg == "loads" and isinstance(keyword.value, ast.Name) and keyword.value.id == "read_json"
                    for keyword in node.keywords):
            found.append(node.lineno)
    return found


def test_every_json_the_table_reads_goes_through_the_one_reader():
    """What the table parses as JSON (a request, a file, a program's answer, a broker's message,
    a page's body) is outside input, whoever wrote it last: its depth bounded first, by ``read_json``.
    A ``json.loads`` anywhere else goes around the bound, as the staff page's body did (issue 66)."""
    package = ROOT / "pi_table"
    around = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(package.rglob("*.py"))
              if path != package / "files.py" for line in json_reads_around_the_reader(parsed(path))]
    assert around == []


@pytest.mark.parametrize("source", [
    "import json\njson.loads(text)", "import json as j\nj.load(handle)", "from json import loads\nloads(text)",
    "from json import loads as parse\nparse(text)", "import json\njson.JSONDecoder().decode(text)",
    "async def f(request):\n    return await request.json()", "async def f(answer):\n    return await answer.json(loads=json.loads)",
])
def test_the_walk_finds_each_way_of_reading_json_around_the_reader(source):
    assert json_reads_around_the_reader(ast.parse(source)) != []


def test_the_walk_lets_the_reader_through():
    source = "from .files import read_json\nasync def f(request):\n    return read_json(await request.read()), await request.json(loads=read_json)"
    assert json_reads_around_the_reader(ast.parse(source)) == []
