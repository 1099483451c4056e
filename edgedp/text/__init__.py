"""Text on its way in and out: segmentation, the identifier guard, sentence splitting.

* :mod:`~edgedp.text.segmentation`: words, whitespace and the public pass-through punctuation as
  slots, and reassembly (layout passes through, nothing else is copied).
* :mod:`~edgedp.text.identifiers`: the identifier guard (Presidio's pattern entity types: e-mail,
  URLs and hosts under IANA's top-level domains ``tlds.txt``, IBANs, dates, numbers, ...; the
  public names of many origins ``names.txt``, those also common words ``ambiguous_names.txt``,
  protected only in a naming context; the common words ``common_words.txt`` of the proper-noun
  guard),
  recognised as whole spans before word splitting.
* :mod:`~edgedp.text.sentences`: sentence splitting for the sentence-level mechanisms (sentencex on
  the native tier, the English rules of :mod:`~edgedp.text.sentence_rules` on the numpy tier).

Who may import it: the mechanisms and everything above them. It imports only
:mod:`edgedp.errors`, :mod:`edgedp.privacy.validation` and :mod:`edgedp.runtime.backend`: pure
functions of public rules, no packs, no randomness.
"""
