"""Names a package exports without importing their modules until first use.

``import edgedp`` and ``import edgedp.words`` stay cheap: a name such as ``BRR`` is imported from
its module on first access, so a words-only program never loads the sentence encoder's modules.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, exports: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package that exports names lazily.

    Parameters
    ----------
    package : str
        The package's name (``"edgedp.words"``), for the error message.
    exports : Mapping[str, str]
        Public name -> the module that defines it.
    namespace : dict
        The package's ``globals()``: a name, once imported, is stored there, so later lookups
        do not call ``__getattr__`` again.

    Returns
    -------
    tuple of callable
        ``(__getattr__, __dir__)`` to assign in the package.

    Raises
    ------
    AttributeError
        From ``__getattr__``, for a name the package does not export.

    Examples
    --------
    >>> from edgedp.runtime.lazy_names import lazy_names
    >>> getattr_, dir_ = lazy_names("demo", {"sqrt": "math"}, {})
    >>> getattr_("sqrt")(4.0), dir_()
    (2.0, ['sqrt'])
    """

    def module_getattr(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def module_dir() -> list[str]:
        return sorted(exports)

    return module_getattr, module_dir
