"""Written answers as sentences: OCR and LaTeX noise removed, spans kept for the evidence."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from graders.notation import skip_invisible

_STRUCK = re.compile(r"~~.*?~~|<(s|del|strike)>[^<]{0,2000}</\1>", re.S | re.I)
# A full stop ends a sentence unless a lower-case word follows (OCR'd notes abbreviate: "mult."),
# except a word that starts sentences: answers typed all in lower case ("... two halves. for
# XOR you'd need ...") are several sentences, not one.
_STARTERS = ("the|a|an|it|its|this|that|these|those|there|they|we|i|you|he|she|so|but|and|"
             "then|thus|hence|therefore|for|if|in|on|when|since|because|as|each|every|with|"
             "without|also|however|our|my|both|all|not")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+(?=[^\sa-z]|(?:" + _STARTERS + r")\b)")
# Whatever the writer's case, a full stop before a note's label ("diagonal: ...", "sinusoidal
# PE: ...", "sqrt(d_k): ...") or a formula's name ("d_model = ...", "h = 8") ends a sentence.
_NOTE_START = re.compile(
    r"(?<=[.!?])\s+(?=[a-z][\w()'/-]*(?:\s[\w()'/-]+){0,2}:\s|"
    r"[A-Za-z]+_\w+|[A-Za-z]\s?=[^=])")
# An answer typed without capitals ("greedy takes the top word each time. beam search keeps k
# of them."): each full stop before a lower-case word ends a sentence, unless a word that
# continues one follows ("the model is mult. by x").
_LOWER_END = re.compile(
    r"(?<=[.!?])\s+(?=[a-z])(?!(?:by|of|to|from|than|per|into|via|vs)\b)")
_CAPITAL_START = re.compile(r"(?:^|[.!?])\s*[A-Z]")
# A line that starts with a capital, after signs on that line (`^\W*` crossed line breaks, so
# each of n empty lines read all the others: quadratic; a capital it found after blank lines
# starts its own line as well).
_LINE_CAPITAL = re.compile(r"(?m)^[^\w\n]*+[A-Z]")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|eg|ie|vs|etc|resp|approx|cf|no|fig|eq)\.|(?<![^\s(])\d+\.)$", re.I)
# How far back from a full stop an abbreviation can start ("approx." and its boundary).
_ABBREVIATION_REACH = 12

_UNICODE = {
    "≠": " != ", "→": " -> ", "⇒": " -> ", "⟹": " -> ", "←": " <- ", "≤": " <= ", "≥": " >= ",
    "≈": " ~ ", "∼": " ~ ", "×": " * ", "·": " * ", "⋅": " * ", "−": "-", "–": "-", "—": " - ",
    "√": "sqrt", "∴": " therefore ", "∞": "infinity", "≫": " >> ", "≪": " << ", "’": "'",
    "“": '"', "”": '"', "ᵀ": "^T", "²": "^2", "∑": " sum ", "∈": " in ",
}
_SYMBOLS = {
    "rightarrow": " -> ", "Rightarrow": " -> ", "to": " -> ", "implies": " -> ",
    "longrightarrow": " -> ", "Longrightarrow": " -> ", "mapsto": " -> ", "leftarrow": " <- ",
    "neq": " != ", "ne": " != ", "leq": " <= ", "le": " <= ", "geq": " >= ", "ge": " >= ",
    "approx": " ~ ", "sim": " ~ ", "simeq": " ~ ", "times": " * ", "cdot": " * ", "odot": " * ",
    "therefore": " therefore ", "because": " because ", "infty": " infinity ", "gg": " >> ",
    "ll": " << ", "sum": " sum ", "prod": " product ", "in": " in ", "propto": " proportional to ",
    "lVert": "||", "rVert": "||", "|": "||", "langle": "<", "rangle": ">", "top": "T",
}
GREEK = frozenset(
    re.findall(r"\w+", "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota "
               "kappa lambda mu nu xi pi rho sigma tau upsilon phi varphi chi psi omega "
               "Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega")
)
OPERATORS = frozenset(
    re.findall(r"\w+", "max min exp log ln cos sin tan tanh arg argmax argmin det dim lim "
               "sup inf softmax Pr")
)
_UNWRAP = re.compile(
    r"\\(?:text|mathrm|mathbf|mathit|mathcal|operatorname|underline|overline|textbf|textit|emph|"
    r"boxed|textcircled|bm|hat|tilde|bar|vec|widehat|mathbb|textsf|texttt)\s*\{([^{}]*)\}"
)
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SUBSCRIPT = re.compile(r"([_^])\{([^{}]*)\}")
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?")
_COMMAND = re.compile(r"\\([A-Za-z]+|[|,;:! ])")
_WORD_SLASH = re.compile(r"(?<![\w^])([A-Za-z]{2,})/(?!(?:sqrt|exp|log)\b)([a-z]{2,})\b")
# Arithmetic said in words between a formula's names or numbers ("d_model divided by h",
# "d_model over h", "768 times 3"): read as the symbol, as a pattern for the formula spells it.
_OPERAND = r"(?:[A-Za-z]+_\w+|(?![aAI]\b)[A-Za-z]\d*|\d+(?:\.\d+)?)"
_SPOKEN_OPERATOR = re.compile(
    rf"(?<![\w(])({_OPERAND})\s+(divided\s+by|over|times|multiplied\s+by)\s+({_OPERAND})(?![\w(])",
    re.IGNORECASE)
_OPERATOR_SYMBOLS = {"divided by": "/", "over": "/", "times": "*", "multiplied by": "*"}
# A derivative in Lagrange's notation ("relu'(x) = 1", "sigmoid' <= 1/4", "σ'(z)"): the
# derivative of the function named.
# (A primed single letter without an argument, "q' = W q", is another variable.)
# (`\w*+`: a word is read once; `[A-Za-z]{3,}\w*` gave a word of n letters n ways to split,
# each tried to its end: quadratic)
_PRIME = re.compile(r"\b([A-Za-z]{3}\w*+'(?:\s*\(\s*\w*\s*\))?|[A-Za-z]\w*+'\s*\(\s*\w*\s*\))"
                    r"(?=\s*(?:[=<>~]|is\b|$))")
# The offset between two positions written as a difference of their indices ("q_m·k_n
# depends only on m - n", "a function of i-j"): the relative offset, in words.
_INDEX_DIFFERENCE = re.compile(r"(?<![\w'])([ijkmnst])\s*-\s*([ijkmnst])(?![\w'(])")
# Quotation marks, but not apostrophes inside words (don't) or primes after symbols (q').
_QUOTE = re.compile(r"[\"“”‘]|(?<![\w])'|'(?![\w])(?<=\w')")
_SIMPLE = re.compile(r"^[\w.']+$")
# A dot product written with a centred dot between two vectors' names ("q·k_j >> q·k_i",
# "q \cdot k_{j}"): the transposed product a pattern or a phrasing spells ("q^T k_j"). Single
# lower-case letters only: a product of numbers or of matrices keeps its dot.
_VECTOR = r"[a-z](?:_\{?\w{1,6}\}?)?"
_DOT_PRODUCT = re.compile(
    rf"(?<![\w^\\])({_VECTOR})\s*(?:·|⋅|•|\\cdot(?![A-Za-z]))\s*({_VECTOR})(?![\w^(])")
# A product of weight matrices said to be one matrix ("W2 W1 is just some W", "(W2W1)x = W'x",
# "W3 W2 W1 is one matrix anyway", "(W2W1)x, one matrix"): said in words too, as the rubric's
# phrasings say it.
_MATRIX = r"[Ww](?:_?\(?\d{1,2}\)?|\^\(?\d{1,2}\)?)"
_MATRIX_PRODUCT = re.compile(
    rf"(?<![\w])\(?{_MATRIX}(?:\s*\*?\s*{_MATRIX}){{1,7}}\)?\s*(?:\*\s*)?(?:x\b\s*)?"
    r"(?:=|,|->|(?i:is|are|becomes|gives|collapses\s+(?:in)?to|reduces\s+to))\s*"
    r"(?i:(?:just|simply|only|still|really|basically|effectively|equivalent\s+to)\s+){0,2}"
    r"(?i:(?:some|a|one|another|single|a\s+single|just\s+one)\s+)?"
    r"(?i:(?:new|big|combined|effective|different|single|other)\s+)?"
    r"(?:(?i:(?:weight\s+)?matri(?:x|ces))\b|[Ww](?![\d_^(])(?:['’]|_\w+)?(?:\s*x\b)?)")


@dataclass(frozen=True)
class Sentence:
    text: str  # as written
    start: int  # span in the submission's text (or in the answer when its place is unknown)
    end: int
    norm: str  # cleaned for matching and similarity


def _group(inner: str) -> str:
    inner = inner.strip()
    return inner if _SIMPLE.match(inner) else f"({inner})"


def _command(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    if name in GREEK or name in OPERATORS:
        return f" {name}"  # no space after: `\\alpha_a` -> `alpha_a`
    return " "


# The prefix "non" written apart from its word (`normalise`, `patterns.compile_pattern`).
NON_PREFIX = re.compile(r"\bnon[\s\-]+(?=[a-z])", re.IGNORECASE)


@lru_cache(maxsize=50_000)
def normalise(text: str) -> str:
    """Plain text from OCR'd prose and LaTeX (`d_{\\text{model}}` -> `d_model`), without the
    invisible format characters no page shows (`atten<U+00AD>tion`, `Q<U+200B>K`)."""
    text = _DOT_PRODUCT.sub(r"\1^T * \2", skip_invisible(text))
    for symbol, plain in _UNICODE.items():
        text = text.replace(symbol, plain)
    text = _ENVIRONMENT.sub(" ", text)
    for _ in range(6):
        before = text
        text = _UNWRAP.sub(r"\1", text)
        text = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", text)
        text = _SQRT.sub(lambda m: f"sqrt({m.group(1).strip()})", text)
        text = _SUBSCRIPT.sub(
            lambda m: m.group(1) + (m.group(2).strip() if _SIMPLE.match(m.group(2).strip())
                                    else f"({m.group(2).strip()})"),
            text,
        )
        if text == before:
            break
    text = text.replace("\\\\", " ")
    text = _COMMAND.sub(_command, text)
    text = text.replace("$", " ").replace("{", " ").replace("}", " ")
    text = text.replace("**", " ").replace("`", " ")
    text = re.sub(r"\s&\s", " and ", text).replace("&", " ")
    text = _INDEX_DIFFERENCE.sub(r"the relative offset \1 minus \2", text)
    text = re.sub(r"(?<=[A-Za-z])-(?=[A-Za-z])", " ", text)
    # "non-linear", "non linear" and "nonlinear" are one word, the opposite of "linear": a
    # pattern or a comparison looking for "linear" must not find it in "non-linear".
    text = NON_PREFIX.sub("non", text)
    text = _PRIME.sub(lambda m: "derivative of " + m.group(1).split("'")[0], text)
    text = _SPOKEN_OPERATOR.sub(lambda m: f"{m.group(1)} "
                                f"{_OPERATOR_SYMBOLS[' '.join(m.group(2).lower().split())]} "
                                f"{m.group(3)}", text)
    text = _MATRIX_PRODUCT.sub(
        lambda m: f"{m.group(0)}, the product of the weight matrices is a single matrix", text)
    text = _QUOTE.sub(" ", text)
    text = _WORD_SLASH.sub(r"\1 or \2", text)  # "has/offers"; formulas like d_model/h stay
    return re.sub(r"\s+", " ", text).strip()


def _abbreviation_before(chunk: str, start: int, end: int) -> bool:
    """Whether the sentence chunk[start:end] ends in an abbreviation or a list number (`3.`).

    Only the end is read (a word's length, or the number's digits): searching the whole
    sentence so far at each full stop it did not end at was quadratic ("e.g. A e.g. A ..."
    repeated: 56 KB took 50 s). The characters before `begin` still answer the pattern's
    boundary and look-behind, as they did for the whole sentence."""
    begin = max(start, end - _ABBREVIATION_REACH)
    while begin > start and chunk[begin - 1].isdigit():
        begin -= 1
    return _ABBREVIATION.search(chunk, begin, end) is not None


def _chunks(text: str) -> Iterator[tuple[int, str]]:
    """(start, text) of each display-math block (`$$...$$`, `\\[...\\]`, lines and all) and each
    line between them, as `$$.*?$$|\\[.*?\\]|[^\n]+` would find them; an opening with no
    closing after it is read as a line without searching the rest of the text for one each
    time (a line of `$$` or `\\[` repeated was quadratic)."""
    last = {"$$": text.rfind("$$"), "\\[": text.rfind("\\]")}
    closing = {"$$": "$$", "\\[": "\\]"}
    at, n = 0, len(text)
    while at < n:
        opening = text[at:at + 2]
        if opening in last and last[opening] >= at + 2:
            end = text.index(closing[opening], at + 2) + 2
        elif text[at] == "\n":
            at += 1
            continue
        else:
            end = _wrapped_end(text, at)
        yield at, text[at:end]
        at = end


# A sentence wrapped at a page's or an editor's width (a PDF's text layer, a transcript, a
# block of comments): a long line with no end of sentence, and a next line that goes on in
# lower case (`... and any text is just a` / `sequence of bytes, so ...`)
_WRAP_WIDTH = 45
_CONTINUES = re.compile(r"[ \t]*[a-z][a-z'-]*(?:[ \t,.;:!?]|$)", re.M)
_OPEN_END = re.compile(r"[\w,]$")


def _wrapped_end(text: str, at: int) -> int:
    """Where the line at `at` ends, with the lines that continue its sentence."""
    end = text.find("\n", at)
    while end >= 0:
        line = text[text.rfind("\n", 0, end) + 1:end].rstrip()
        if len(line) < _WRAP_WIDTH or not _OPEN_END.search(line) \
                or not _CONTINUES.match(text, end + 1):
            return end
        end = text.find("\n", end + 1)
    return len(text)


def _split_prose(chunk: str, lower: bool = False) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    start = 0
    ends = [_SENTENCE_END, _NOTE_START, *([_LOWER_END] if lower else [])]
    for match in sorted({m.span(): m for end in ends for m in end.finditer(chunk)}.values(),
                        key=lambda m: m.start()):
        if match.start() < start:
            continue
        if _abbreviation_before(chunk, start, match.start()):
            continue
        spans.append((start, match.start()))
        start = match.end()
    spans.append((start, len(chunk)))
    return spans


def split_sentences(text: str, offset: int | None = None) -> list[Sentence]:
    """Sentences of an answer: lines, display-math blocks, and prose split at full stops.

    Struck-through text (`~~...~~`, HTML's `<s>`, `<del>`, `<strike>`) was deleted by the
    student and is not read.
    """
    base = offset or 0
    visible = _STRUCK.sub(lambda m: " " * len(m.group(0)), text)
    # typed without capitals: no sentence (nor line) of the answer starts with one
    lower = _CAPITAL_START.search(visible) is None and \
        _LINE_CAPITAL.search(visible) is None
    sentences: list[Sentence] = []
    for at, raw in _chunks(visible):
        pieces = [(0, len(raw))] if raw.startswith(("$$", "\\[")) else _split_prose(raw, lower)
        for begin, end in pieces:
            piece = raw[begin:end]
            stripped = piece.strip()
            if not stripped:
                continue
            lead = len(piece) - len(piece.lstrip())
            norm = normalise(stripped)
            if not re.search(r"\w", norm):
                continue
            first = at + begin + lead
            sentences.append(Sentence(stripped, base + first, base + first + len(stripped), norm))
    return sentences
