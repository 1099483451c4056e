"""Languages: which language a text is in, and the public resources of each language.

One place for what differs from one language to the next (so that ``cli/``, ``words/`` and
``text/`` do not each keep their own lists): the language identifier that picks a pack per message,
the identifier guard's lexicons (titles, greetings, verbs of address, month names, street types,
common words), chat slang, and which word pack and language model serve a language.

Who may import it: :mod:`edgedp.text` and everything above it. It imports only :mod:`edgedp.errors`,
:mod:`edgedp.privacy.validation`, :mod:`edgedp.packs.manifest` (CPython's built-in SHA-256, which
checks the identifier's model without loading OpenSSL), the standard library and numpy: public
data and pure functions, no randomness.
"""
