"""One list of exported names: each package's ``__all__``, its lazy table and its type-checking
imports name the same things, and every subpackage export is the top-level ``edgedp`` one."""

from __future__ import annotations

import ast
import importlib
import warnings

import pytest
from helpers import REPO_ROOT

import edgedp

PACKAGES = ["edgedp", "edgedp.words", "edgedp.documents", "edgedp.encoder", "edgedp.adept"]


def type_checking_imports(package: str) -> dict[str, str]:
    """Name -> module of the ``if TYPE_CHECKING:`` imports of a package's ``__init__.py``."""
    path = REPO_ROOT / package.replace(".", "/") / "__init__.py"
    found: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom) and statement.module
                found.update({alias.name: statement.module for alias in statement.names})
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_all_the_lazy_table_and_the_type_stubs_agree(package):
    module = importlib.import_module(package)
    exports = module._EXPORTS
    assert set(module.__all__) - {"__version__"} == set(exports)
    assert type_checking_imports(package) == exports
    for name, defining in exports.items():
        assert getattr(importlib.import_module(defining), name) is getattr(module, name)


@pytest.mark.parametrize("package", PACKAGES[1:])
def test_subpackages_export_what_edgedp_exports_from_them(package):
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is getattr(edgedp, name), name
    mine = {name for name, where in edgedp._EXPORTS.items() if where.startswith(package + ".")}
    assert mine == set(module.__all__)


def test_an_unknown_name_is_an_attribute_error_naming_the_package():
    with pytest.raises(AttributeError, match=r"module .edgedp\.words. has no attribute .Nope."):
        edgedp.words.Nope  # noqa: B018
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert "BRR" in dir(edgedp.words)
