"""edgedp.runtime.backend: the tier each component runs on, from EDGEDP_BACKEND and what imports."""

from __future__ import annotations

import sys

import pytest

from edgedp.errors import DependencyError, InputError
from edgedp.runtime.backend import backend


@pytest.mark.parametrize("value", ["", "auto", "AUTO "])
def test_auto_takes_the_native_tier_where_it_imports(monkeypatch, value):
    monkeypatch.setenv("EDGEDP_BACKEND", value)
    assert backend("search") == "native"
    monkeypatch.setitem(sys.modules, "faiss", None)  # as on a phone: no faiss
    assert backend("search") == "numpy"
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    assert backend("encoder") == "numpy"


def test_numpy_is_chosen_even_where_the_native_tier_imports(monkeypatch):
    monkeypatch.setenv("EDGEDP_BACKEND", "numpy")
    assert backend("search") == backend("encoder") == "numpy"


def test_native_without_its_library_is_an_error_not_a_fallback(monkeypatch):
    monkeypatch.setenv("EDGEDP_BACKEND", "native")
    assert backend("search") == "native"
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    with pytest.raises(DependencyError, match="onnxruntime"):
        backend("encoder")


def test_unknown_values_are_refused(monkeypatch):
    monkeypatch.setenv("EDGEDP_BACKEND", "gpu")
    with pytest.raises(InputError, match="EDGEDP_BACKEND"):
        backend("search")
    monkeypatch.setenv("EDGEDP_BACKEND", "numpy")
    with pytest.raises(InputError, match="component"):
        backend("words")
