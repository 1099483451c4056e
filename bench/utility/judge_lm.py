"""The judge language model of the benchmark's fluency measure, from text the decoder's LM never saw.

The context decoder scores candidates with ``lm-general`` (public corpora, fortunes held apart);
measuring the fluency of its output with that same model would reward it for agreeing with itself.
The judge is a second bigram model, built by the same exporter code from held-apart text: the BBC
News ``train`` split (research use: bench only, never committed or shipped; the benchmark's
evaluation documents are the ``test`` split, which no model reads) and the Debian fortunes (the
``train`` split of each; their ``validation`` split gives the perplexity in the judge's manifest).
Built once into ``~/.cache/edgedp-bench/lm-judge`` (about a minute) and loaded from there.
"""

from __future__ import annotations

import sys
from pathlib import Path

import edgedp
from edgedp.errors import AssetError
from edgedp.words.language_model import LanguageModelPack

CACHE = Path.home() / ".cache" / "edgedp-bench" / "lm-judge"
#: The judge keeps every bigram (size does not matter in the benchmark; fidelity does).
JUDGE_MIN_COUNT = 1


def judge_language_model(words: edgedp.WordPack | None = None) -> LanguageModelPack:
    """The judge LM over the vocabulary of ``words`` (the default words pack), built on first use."""
    words = words if words is not None else edgedp.load_pack()
    if CACHE.is_dir():
        try:
            judge = edgedp.load_pack(CACHE, kind="lm")
            judge.check_vocabulary(words)
            return judge
        except AssetError as error:
            print(f"rebuilding the judge language model: {error}", file=sys.stderr)
    from edgedp_export.corpus import bbc_news
    from edgedp_export.language_model import LanguageModelConfig, build_language_model_pack
    from edgedp_export.public_corpora import fortunes

    config = LanguageModelConfig(
        "lm-judge",
        "bench.utility.judge_lm.judge_language_model()",
        JUDGE_MIN_COUNT,
        "the benchmark's judge bigram model: BBC News train split and Debian fortunes "
        "(held apart from lm-general); bench only, never shipped",
    )
    corpora = {"bbc": bbc_news(), "fortunes": fortunes()}
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    out = build_language_model_pack(corpora, words, config, CACHE, force=True)
    return edgedp.load_pack(out, kind="lm")
