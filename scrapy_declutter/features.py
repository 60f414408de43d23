"""Language and stop-word features that need more than one block's text.

Stop lists come from the jusText package (the seed's own lists, about 100
languages) and are loaded lazily, once per language, into a small cache.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import filterfalse

#: ISO 639-1 codes to the names jusText's stop lists go by.
ISO_TO_STOPLIST = {
    "af": "Afrikaans", "sq": "Albanian", "ar": "Arabic", "hy": "Armenian",
    "az": "Azerbaijani", "eu": "Basque", "be": "Belarusian", "bn": "Bengali",
    "bs": "Bosnian", "br": "Breton", "bg": "Bulgarian", "ca": "Catalan",
    "hr": "Croatian", "cs": "Czech", "da": "Danish", "nl": "Dutch",
    "en": "English", "eo": "Esperanto", "et": "Estonian", "fi": "Finnish",
    "fr": "French", "gl": "Galician", "ka": "Georgian", "de": "German",
    "el": "Greek", "gu": "Gujarati", "ht": "Haitian", "he": "Hebrew",
    "hi": "Hindi", "hu": "Hungarian", "is": "Icelandic", "id": "Indonesian",
    "ga": "Irish", "it": "Italian", "jv": "Javanese", "kn": "Kannada",
    "kk": "Kazakh", "ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz",
    "la": "Latin", "lv": "Latvian", "lt": "Lithuanian", "lb": "Luxembourgish",
    "mk": "Macedonian", "ms": "Malay", "ml": "Malayalam", "mt": "Maltese",
    "mr": "Marathi", "ne": "Nepali", "nb": "Norwegian_Bokmal", "no": "Norwegian_Bokmal",
    "nn": "Norwegian_Nynorsk", "oc": "Occitan", "fa": "Persian", "pl": "Polish",
    "pt": "Portuguese", "qu": "Quechua", "ro": "Romanian", "ru": "Russian",
    "sr": "Serbian", "sk": "Slovak", "sl": "Slovenian", "es": "Spanish",
    "su": "Sundanese", "sw": "Swahili", "sv": "Swedish", "tl": "Tagalog",
    "ta": "Tamil", "te": "Telugu", "tr": "Turkish", "tk": "Turkmen",
    "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese",
    "cy": "Welsh", "fy": "West_Frisian", "yo": "Yoruba",
}  # fmt: skip
DEFAULT_LANGUAGE = "en"

_WORD = re.compile(r"\w+")


def normalise_language(code: str | None) -> str | None:
    """``en-GB`` / ``EN_us`` → ``en``; None for codes we have no stop list for."""
    if not code:
        return None
    primary = code.strip().lower().replace("_", "-").split("-")[0]
    return primary if primary in ISO_TO_STOPLIST else None


@lru_cache(maxsize=32)
def stoplist(language: str) -> frozenset[str]:
    """The lower-cased stop words of an ISO 639-1 language; empty when unknown."""
    name = ISO_TO_STOPLIST.get(language)
    if name is None:
        return frozenset()
    import justext  # deferred: importing it costs ~50 ms that extract() need not pay up front

    return frozenset(w.lower() for w in justext.get_stoplist(name))


def count_stopwords(text: str, stops: frozenset[str]) -> int:
    """Words of a block that are stop words; punctuation around a word is ignored.

    Runs once per block of every page, so the common case (a bare word) is
    counted by C-level ``map``; only words with punctuation take the regex.
    """
    words = text.lower().split()
    n = sum(map(stops.__contains__, words))
    for w in filterfalse(str.isalnum, words):
        if w not in stops:
            m = _WORD.search(w)
            if m and m.group() in stops:
                n += 1
    return n
