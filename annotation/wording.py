"""Small helpers that keep sentences built from names grammatical."""

from __future__ import annotations

# Spelled with a vowel but said with a consonant ('a user'), or the reverse ('an hour').
_CONSONANT_SOUND = ("eu", "one", "uni", "usa", "use", "usu", "uti")
_VOWEL_SOUND = ("hour", "honest", "honour", "honor", "heir")


def with_article(noun: str) -> str:
    """'a lead', 'an annotator', 'a user': the noun with its indefinite article."""
    if not noun:
        return noun
    word = noun.lower()
    vowel = word[0] in "aeiou" and not word.startswith(_CONSONANT_SOUND)
    if word.startswith(_VOWEL_SOUND):
        vowel = True
    return f"{'an' if vowel else 'a'} {noun}"
