"""Sphinx configuration of the edgedp documentation site.

Build (from the repository root, with ``pip install ".[docs]"``)::

    python -m sphinx -W --keep-going -n -b html docs docs/_build/html

No inventory is fetched (no intersphinx): the build works offline. References to Python's and
numpy's own objects that Sphinx cannot resolve without an inventory are ignored by the narrow
patterns of ``nitpick_ignore_regex`` below; every reference to an edgedp object must resolve.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import os
import re
import sys
from pathlib import Path
from typing import Any

import edgedp

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))  # edgedp_cli_parser, for sphinx-argparse

project = "edgedp"
author = "edgedp developers"
copyright = "edgedp developers"
release = version = edgedp.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",  # MathJax served from the built site: readable without a network
    "myst_parser",
    "sphinxarg.ext",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "README.md", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]
# No typographic quotes or dashes: the pages and the CLI reference print commands and options
# ("--json", '--deny "Acme Corp"') that must read and copy as typed, not as "–json" or “Acme Corp”.
# tests/test_docs_site.py fails on an option rendered with an en dash.
smartquotes = False

# -- Markdown (MyST) ------------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
# "[Results](benchmarks.md#results)": anchors for headings down to ####
myst_heading_anchors = 4

# -- API reference --------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
# A class's page shows every public member it has, inherited ones included: BRR's page has
# privatize() and privatize_batch() (defined on WordMechanism), SubspaceMean's embed() and
# embed_batch() (defined on a base that is not public). Not those of Python's exceptions (args,
# with_traceback) or of object.
autodoc_default_options = {
    "members": True,
    "inherited-members": "object,BaseException",
    "show-inheritance": True,
    "member-order": "bysource",
}
autodoc_typehints = "signature"
autodoc_class_signature = "mixed"
autodoc_preserve_defaults = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
# "words : int, default DEFAULT_WORDS": "default" is a keyword, the rest a reference
napoleon_preprocess_types = True

# -- Nitpicky: every reference resolves, or is one of these -------------------------------------
nitpicky = True
# Without intersphinx there is no inventory of Python's or numpy's objects: references to them
# (mostly from type hints) cannot resolve. They are the only ones ignored.
_STDLIB = (
    "abc|argparse|collections|collections\\.abc|concurrent\\.futures|contextlib|dataclasses|enum|"
    "io|logging|multiprocessing|numbers|os|pathlib|random|re|sqlite3|subprocess|threading|types|"
    "typing|typing_extensions|warnings|zipfile"
)
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|numpy\.typing|npt)(\..+)?"),
    # (a dataclass field's "Mapping[str, ndarray] = <factory>" reaches the fallback signature
    # parser, which splits it at the comma: "collections.abc.Mapping[str")
    (r"py:.*", rf"({_STDLIB})\.[A-Za-z_][\w.]*(\[[\w.]*)?"),
    # names typing writes without their module (np.ndarray[Any, np.dtype[np.uint8]] and friends)
    (
        r"py:class",
        r"(ndarray|NDArray|dtype|floating|integer|generic|uint8|uint64|int64|float32|"
        r"float64|bool_|Path|PathLike|Sequence|Iterable|Iterator|Mapping|Callable|Generator)",
    ),
    # a parameter type "callable" (Python's builtin function, not a class)
    (r"py:class", r"callable"),
    # the Hugging Face tokenizer object (the native tier's; no inventory either). Imported only for
    # type checking where a hint names it, so a hint reaches Sphinx unqualified ("Tokenizer")
    (r"py:class", r"(tokenizers\.)?Tokenizer"),
]

# -- HTML -----------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"edgedp {release}"
html_static_path: list[str] = []


# -- Links between the included Markdown files of the repository --------------------------------
#: Repository files that are pages of this site (the includes), by the document that holds them.
_PAGES = {
    "CHANGELOG.md": "changelog.md",
    "CONTRIBUTING.md": "contributing.md",
    "bench/README.md": "benchmarks.md",
}
_LINK = re.compile(r"\]\(([^)\s#]*)(#[^)\s]*)?\)")


def _write_report_pages() -> None:
    """One page per dated benchmark report (``reports/NAME.md`` includes ``bench/reports/NAME.md``),
    written before the build reads its sources, so that a new report needs no edit here."""
    pages = DOCS / "reports"
    pages.mkdir(exist_ok=True)
    reports = {path.name for path in (ROOT / "bench" / "reports").glob("*.md")}
    for stale in pages.glob("*.md"):
        if stale.name not in reports:
            stale.unlink()
    for name in sorted(reports):
        text = f"```{{include}} ../../bench/reports/{name}\n```\n"
        page = pages / name
        if not page.exists() or page.read_text(encoding="utf-8") != text:
            page.write_text(text, encoding="utf-8")


_write_report_pages()


def _remove_stale_stubs() -> None:
    """autosummary writes ``api/edgedp.NAME.rst`` for every name docs/api.md lists, and never
    removes one: a stub of a name no longer listed (a constant now described by hand) would be a
    page in no table of contents, which fails the build."""
    listed = set(re.findall(r"^   (\w+)$", (DOCS / "api.md").read_text(encoding="utf-8"), re.M))
    for stub in (DOCS / "api").glob("*.rst"):
        if stub.stem.removeprefix("edgedp.") not in listed:
            stub.unlink()


_remove_stale_stubs()


def _page_of(path: Path) -> str | None:
    relative = path.relative_to(ROOT).as_posix()
    if relative in _PAGES:
        return _PAGES[relative]
    if relative.startswith("bench/reports/") and relative.endswith(".md"):
        return "reports/" + relative.removeprefix("bench/reports/")
    if relative.startswith("docs/") and relative.endswith(".md"):  # README.md links the pages
        return relative.removeprefix("docs/")
    return None


def _rewrite_links(app: Any, relative_path: Path, parent_docname: str, content: list[str]) -> None:
    """The repository's Markdown links each other by repository path (``bench/README.md#results``,
    ``docs/guide/words.md``); included here, a link points at the page that holds the target
    (``/benchmarks.md#results``, ``/guide/words.md``)."""
    included = (Path(app.srcdir) / relative_path).resolve()

    def replace(match: re.Match[str]) -> str:
        target, anchor = match.group(1), match.group(2) or ""
        if not target or re.match(r"[a-z]+:", target):
            return match.group(0)  # an anchor in the same file, or a web address
        page = _page_of((included.parent / target).resolve())
        return f"](/{page}{anchor})" if page else match.group(0)

    content[0] = _LINK.sub(replace, content[0])


def _find(qualified: str) -> tuple[list[str], Any] | None:
    """The object at a dotted path ``edgedp.module.Class.attribute``: (its path, it), or None."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for index, attribute in enumerate(parts[cut:]):
            try:
                obj = inspect.getattr_static(obj, attribute)
            except AttributeError:
                last = index == len(parts) - cut - 1
                if last and inspect.isclass(obj) and _assigns_attribute(obj, attribute):
                    return parts, None  # an instance attribute, set in the class's methods
                return None
        return parts, obj
    return None


@functools.cache
def _assigns_attribute(cls: type, attribute: str) -> bool:
    """Whether a method of ``cls`` (or of a base class) sets ``self.<attribute>``."""
    for base in cls.__mro__:
        try:
            source = inspect.getsource(base)
        except (OSError, TypeError):
            continue
        if re.search(rf"\bself\.{re.escape(attribute)}\s*(:[^=]*)?=", source):
            return True
    return False


@functools.cache
def _imported_names(module_name: str) -> dict[str, str]:
    """Name -> dotted path of every ``from X import Name`` of a module, those under
    ``if TYPE_CHECKING:`` included (type hints written as strings name them)."""
    try:
        source = inspect.getsource(importlib.import_module(module_name))
    except (ImportError, OSError, TypeError):
        return {}
    names = {}
    for statement in ast.walk(ast.parse(source)):
        if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
            for alias in statement.names:
                names[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return names


@functools.cache
def _public_modules() -> tuple[str, ...]:
    """The modules that define the public names, in ``edgedp.__all__``'s order."""
    modules = [getattr(getattr(edgedp, name), "__module__", None) for name in edgedp.__all__]
    return tuple(dict.fromkeys(module for module in modules if isinstance(module, str)))


def _defining_modules(node: Any) -> list[str]:
    """The modules that define the documented object a reference sits in (``edgedp.BRR`` is
    defined in ``edgedp.words.brr``), and its base classes (inherited fields and methods)."""
    cls = node.get("py:class")
    name = cls.split(".")[0] if cls else node.get("refdoc", "").rpartition("/")[2]
    name = name.removeprefix("edgedp.")
    if name not in edgedp.__all__:
        return []
    obj = getattr(edgedp, name)
    owners = obj.__mro__ if inspect.isclass(obj) else (obj,)
    modules = [getattr(owner, "__module__", None) for owner in owners]
    return [m for m in dict.fromkeys(modules) if isinstance(m, str) and m.startswith("edgedp")]


def _public_target(parts: list[str], obj: Any) -> str | None:
    """``edgedp.errors.AssetError`` is documented as ``edgedp.AssetError``, and a method where its
    public class (or the public base class that defines it) is documented."""
    for index, name in enumerate(parts):
        if index == 0 or name not in edgedp.__all__:
            continue
        holder = getattr(edgedp, name)
        if index == len(parts) - 1:
            return f"edgedp.{name}" if holder is obj or parts[:index] == ["edgedp"] else None
        if inspect.isclass(holder):
            member = parts[index + 1]
            for base in holder.__mro__:
                public = base.__name__ in edgedp.__all__ and getattr(edgedp, base.__name__) is base
                if member in vars(base) and public:
                    return ".".join(["edgedp", base.__name__, *parts[index + 1 :]])
        return None
    return None


def _resolve_edgedp(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    """References to edgedp objects that the API reference does not show under that path.

    The site documents the public names (``edgedp.__all__``). A reference by the defining module's
    path (``edgedp.errors.AssetError``), or relative to the current class (``embed``, defined on a
    public base class), links to the public page. A reference to an internal object (a function
    of ``edgedp.privacy.noise``, a module) is shown as code, without a link, once it is found
    by import: a reference to something that does not exist still fails the build.
    """
    if node.get("refdomain") != "py":
        return None
    target = node.get("reftarget", "").lstrip("~.")
    module, cls = node.get("py:module") or "", node.get("py:class") or ""
    candidates = [target]
    defining = _defining_modules(node)
    for context in [module, *defining]:
        if context and cls:
            candidates.append(f"{context}.{cls}.{target}")
        if context:
            candidates.append(f"{context}.{target}")
    # a name imported where the object is defined (type hints under TYPE_CHECKING); in a summary
    # table, where the object is unknown, the modules that define public names
    head, _, rest = target.partition(".")
    for context in defining or _public_modules():
        if not defining:
            candidates.append(f"{context}.{target}")
        imported = _imported_names(context)
        if head in imported:
            candidates.append(imported[head] + (f".{rest}" if rest else ""))
    for candidate in candidates:
        if not candidate.startswith("edgedp"):
            continue
        found = _find(candidate)
        if found is None:
            continue
        public = _public_target(*found)
        if public is not None and public != target:
            domain = env.get_domain("py")
            for reftype in (node["reftype"], "obj"):
                resolved = domain.resolve_xref(
                    env, node["refdoc"], app.builder, reftype, public, node, contnode
                )
                if resolved is not None:
                    return resolved
        return contnode  # it exists and is internal: code, no link
    if os.environ.get("EDGEDP_DOCS_DEBUG"):
        print("unresolved:", target, dict(node.attributes))
    return None


def _no_inline_attribute_type(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """Napoleon reads the first line of an attribute's or property's docstring as ``type:
    description`` (Google style); this project's attribute docstrings are prose ("Whether the
    algorithm is differentially private at all: False only for ..."), typed by annotations. A
    first line that is an empty comment leaves the prose as it is (napoleon skips a blank first
    line). Runs before napoleon: priority 400."""
    if what in ("attribute", "property", "data") and lines and ":" in lines[0]:
        lines[:0] = ["..", ""]  # an empty comment, then the prose


def _no_type_docstring(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """A constant has no docstring of its own: Python hands out its type's (``OOV_MASK``, a
    ``str``, would read "str(object='') -> str ..."). Dropped: docs/api.md describes each constant
    by hand, in the body of its ``autodata``."""
    own = type(obj).__doc__
    if what in ("data", "attribute") and own and "\n".join(lines).strip() == inspect.cleandoc(own):
        lines.clear()


class _Annotation:
    """An annotation written as a string (``from __future__ import annotations``), shown unquoted."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _init_signature(
    app: Any, what: str, name: str, obj: Any, options: Any, signature: str | None, annotation: Any
) -> tuple[str, Any] | None:
    """A mechanism's signature is its ``__init__``'s (``Mechanism.__new__`` takes ``*args,
    **kwargs`` only to refuse privacy parameters given by position, and autodoc prefers it)."""
    if what != "class" or signature is None or not signature.startswith("(*args"):
        return None
    init = obj.__dict__.get("__init__") or next(
        (vars(base)["__init__"] for base in obj.__mro__ if "__init__" in vars(base)), None
    )
    if init is None:
        return None
    parameters = [
        parameter.replace(annotation=_Annotation(parameter.annotation))
        if isinstance(parameter.annotation, str)
        else parameter
        for parameter in list(inspect.signature(init).parameters.values())[1:]  # without self
    ]
    return str(inspect.Signature(parameters)), annotation


def _field_separators(app: Any, doctree: Any) -> None:
    """Sphinx separates a parameter's name and type from its description by " -- " and leaves the
    en dash to smart quotes, which this site turns off (``smartquotes`` above): the separators,
    and only they (a text node of exactly " -- " in a field list), become " – "."""
    from docutils import nodes

    for text in list(doctree.findall(nodes.Text)):
        if text.astext() == " -- " and any(
            isinstance(ancestor, nodes.field_body) for ancestor in _ancestors(text)
        ):
            text.parent.replace(text, nodes.Text(" – "))


def _ancestors(node: Any) -> Any:
    while node.parent is not None:
        node = node.parent
        yield node


def setup(app: Any) -> None:
    app.connect("autodoc-process-signature", _init_signature)
    app.connect("autodoc-process-docstring", _no_inline_attribute_type, priority=400)
    app.connect("autodoc-process-docstring", _no_type_docstring, priority=300)
    app.connect("include-read", _rewrite_links)
    app.connect("missing-reference", _resolve_edgedp)
    app.connect("doctree-read", _field_separators)
