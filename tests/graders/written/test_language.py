"""An answer in another language goes to review, never to a confident 0."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from graders.results import Status
from graders.written.language import foreign_language
from tests.graders.written.conftest import Grade

OTHER_LANGUAGES = [
    "La diagonal contiene el producto de la consulta de cada token con su propia clave, por "
    "eso los tokens se atienden mucho a sí mismos.",
    "Die Diagonale ist das Produkt der Anfrage eines Tokens mit seinem eigenen Schlüssel, "
    "deshalb ist die Aufmerksamkeit auf sich selbst groß.",
    "La diagonale est le produit de la requête de chaque token avec sa propre clé, donc les "
    "tokens se regardent beaucoup eux-mêmes.",
    "对角线是每个词的查询与自身键的点积，所以每个词对自己的注意力很大。",
    "Диагональ содержит скалярное произведение запроса токена с его собственным ключом.",
]


@pytest.mark.parametrize("text", OTHER_LANGUAGES)
def test_another_language_goes_to_review(grade: Grade, text: str) -> None:
    assert foreign_language(text)
    for result in grade("A4", text):
        assert result.status is Status.NEEDS_REVIEW, result.feedback
        assert "language" in result.feedback


ENGLISH_WORDS = ["the", "token", "attends", "to", "its", "own", "key", "because", "query",
                 "and", "key", "come", "from", "same", "vector", "so", "diagonal", "is", "large",
                 "q_i", "k_i", "d_k", "softmax", "sqrt"]


@given(st.lists(st.sampled_from(ENGLISH_WORDS), min_size=0, max_size=60))
@example(["the", "the", "token", "come", "come", "come", "come", "come"])  # "come" is English
def test_english_prose_and_notation_are_read(words: list[str]) -> None:
    assert not foreign_language(" ".join(words))
