"""Signals that a grade the patterns decided rests on thin evidence, whichever way it went: the
grade then goes to a person, its points unchanged.

- a credited sentence that restricts its claim by a condition ("stacking linear layers is still
  linear only if the weights are tied", "... unless the heads share weights"): the condition may
  make a right statement wrong, or state exactly when it holds, which only a reader can tell;
- an answer that explains by analogy ("think of each layer as a stretch-and-rotate", "greedy is
  like always taking the steepest path uphill") graded zero: the similarity that decides how
  sure a zero is compares it with a definition, which an analogy does not resemble;
- a note whose steps are linked by arrows or an equals sign ("lots of small derivatives
  multiplied -> tiny", "tiny local derivs multiplied = vanishing") below full credit, where a
  step uses two or more of the words of an element the answer is not credited with, one of
  them not the question's own; or a note with a product in symbols ("sigmoid' <= 0.25, x 10
  layers = 0.25^10 ~ 0", "small deriv × small deriv × ...") where such an element speaks of a
  product: the sentence encoder reads a chain of noun phrases, arrows and signs as far from
  any prose statement, so the similarity that decides how sure a grade is says nothing;
- a credited sentence that gives its reason ("because ...", "since ...", "due to ...") in
  words none of which are the item's (its reference, its elements' phrasings, statements
  and labels; the question's own words aside): "a stack of linear layers is still linear
  because each layer has a bias" states the collapse for a reason the rubric does not give,
  which may be wrong; only a reader can tell;
- a pattern of an element the answer is not credited with, matched across clauses and
  rejected only for a negation in an earlier clause than the one the match ends in ("Yes -
  after adding p_i, X+P is no longer a permutation of the same rows, so outputs differ" for
  `yes ... differ`), below full credit: the negation may govern only its own clause;
- a definition of what an element is about, left unrecognised, in an answer credited in part
  ("Q: what a token asks, K: what it can be found by, V: what it passes on" credited for the
  query and the value): the element says what a named thing is ("the key is what a token
  offers to be matched on"), and the answer defines that thing (its name, or the capital
  letter that stands for it when the question names it, then "=", ":", "is" or an arrow, then
  a few words) in words no pattern or phrasing reads; the answer is on track, and whether
  the definition is right only a reader can tell;
- an answer that is only an example (of at most three sentences, or opening on one: "e.g.
  P(A)=0.6 ... greedy takes A, beam finds B", "for example one head tracks agreement while
  another follows coreference") graded zero: as with an analogy, the similarity that decides
  how sure a zero is compares it with a definition, which an example does not resemble,
  though it may show the idea;
- a credited sentence whose claim only restates the question and whose reason ("because ...")
  does not carry the element: the claim matches the element's pattern or phrasing because the
  question's words say it ("a stack of linear layers is still linear because the weights are
  shared across layers"), so the credit rests on the reason, which neither matches one of the
  element's patterns nor uses two of its own words (the question's aside; a formula is a
  reason in symbols): a person decides whether the reason holds;
- a credited sentence whose chained reason rests on a ground in none of the item's words ("a
  hidden layer fixes it because it's nonlinear since it has more neurons"): each reason is read
  up to the next (`reasons_of`), so the ground is read on its own;
- a missed element's pattern that matches once one of its qualifier groups is left out ("a
  trainable table added to the embeddings" for `add* ... (input|token|word) (embedding*|...)`)
  in an answer below full credit: the pattern may name the thing more narrowly than the answer
  does, which only a reader can weigh;
- a word-order example, two quoted word sequences that are each other's words in another order
  ("attention can't tell 'dog bites man' from 'man bites dog'"), in an answer below full credit:
  the example may state an idea (attention ignores order) that no pattern or phrasing reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from graders.written.config import WrittenConfig
from graders.written.matching import PatternVerdict
from graders.written.meaning import content_words, question_words, shared_words
from graders.written.patterns import find_any, negated_in_another_clause, without_qualifier
from graders.written.scoring import UNSURE_CONFIDENCE, Decision, sentence_evidence
from graders.written.text import GREEK, OPERATORS, Sentence

# A condition that restricts the claim of its sentence ("as long as" and a bare "provided" are
# more often a length or a participle: "sequences as long as 512", "the content provided").
CONDITION = re.compile(
    r"(?<![\w'’])(?:only\s+(?:if|when|whenever|in\s+case)|unless|provided\s+that|"
    r"on\s+(?:the\s+)?condition\s+that)(?![\w'’])", re.IGNORECASE)
# A quoted stretch of two to twelve words, in straight or typographic quotes.
_QUOTED = re.compile(r"(?:(?<![\w])'([^'\n]{3,120})'(?![\w])|\"([^\"\n]{3,120})\"|"
                     r"“([^”\n]{3,120})”|‘([^’\n]{3,120})’)")
_WORD = re.compile(r"[\w'’-]+")
# The words that announce an analogy.
ANALOGY = re.compile(
    r"(?<![\w'’])(?:think\s+of|imagine|analog(?:y|ies|ous)|metaphor|as\s+if|"
    r"(?:is|are|it'?s|it\s+is|works|acts|behaves)\s+(?:just\s+|a\s+bit\s+|kind\s+of\s+)?like)"
    r"(?![\w'’])", re.IGNORECASE)


# An arrow between two steps of a note (`text.normalise` writes every arrow as "->"), or an
# equals sign between two words ("tiny local derivs multiplied = vanishing"; not a formula's
# "d_model = 768").
ARROW = re.compile(r"(?:->|=>|(?<=[A-Za-z]{3})\s*=\s*(?=[A-Za-z]{3}))")
# A product written in symbols: a power ("0.25^10", "(0.25)^L"; not a transpose "^T"), a
# factor times a count ("x 10 layers", "× many layers"), or a repeated product ("a × a × ...").
PRODUCT = re.compile(
    r"\^\s*\(?\s*(?!T(?![\w'’])|top(?![\w'’]))(?:\d+|[A-Za-z][\w'’]{0,20})(?![\w'’])|"
    r"(?<![\w'’])[x*]\s*(?:\d+|many|lots|n|L|several)(?![\w'’])|\*\s*\.\.\.")
# The term a text uses when it speaks of a product ("multiplied", "a product of").
_PRODUCT_TERM = next(iter(content_words("multiply")))
# Content words an arrowed note must share with an element it is not credited with.
NOTE_WORDS = 2


def arrow_note(config: WrittenConfig, verdict: PatternVerdict, sentences: Sequence[Sentence],
               prompt: str = "") -> Sentence | None:
    """A sentence of arrowed steps that uses `NOTE_WORDS` of the words of an element the
    verdict misses (its phrasings, statement or label), one of them not the question's (a
    note that echoes the question, "gradients vanish -> bad", says nothing more)."""
    if not verdict.missing:
        return None
    asked = question_words(prompt)
    texts = [t for e in verdict.missing
             for t in (*e.phrasings, e.statement or "", e.label or "") if t]
    product = any(_PRODUCT_TERM in content_words(t) for t in texts)
    for sentence in sentences:
        if ARROW.search(sentence.norm) and any(
                shared_words(t, sentence.norm) >= NOTE_WORDS
                and shared_words(t, sentence.norm, asked) >= 1 for t in texts):
            return sentence
        if product and PRODUCT.search(sentence.norm[:2000]):
            return sentence
    return None


# What an element's label or statement defines: "the key is what a token offers ...".
_DEFINED = re.compile(r"^(?:the\s+|an?\s+)?([A-Za-z]{3,})\s+(?:is|are)\s")
_DEFINITION = r"\s*(?:=|:|->|\bis\b|\bare\b)\s*\w+(?:\W+\w+){2}"
_CLAUSE_START = r"(?:^|[,;(.]|\band\b)\W{0,3}(?:the\s+)?"
_WORDS = re.compile(r"[A-Za-z]+")


def unread_definition(verdict: PatternVerdict, sentences: Sequence[Sentence],
                      prompt: str = "") -> Sentence | None:
    """A sentence defining the subject of an element the partial verdict misses."""
    if verdict.level != "partial":
        return None
    asked = {w.lower() for w in _WORDS.findall(prompt)}
    for element in verdict.missing:
        defined = _DEFINED.match(element.label or element.statement or "")
        if defined is None:
            continue
        name = defined.group(1).lower().removesuffix("s")
        names = [re.escape(name) + "s?"]
        if name in asked or name + "s" in asked or name[:-1] + "ies" in asked:
            names.append(name[0].upper())  # "K" for the key, where the question asks for keys
        found = re.compile(_CLAUSE_START + r"(?:" + "|".join(names) + r")(?![\w'’])"
                           + _DEFINITION, re.IGNORECASE if len(names) == 1 else 0)
        for sentence in sentences:
            if found.search(sentence.norm[:2000]):
                return sentence
    return None


# A reason given for a claim, up to the end of its clause (a comma ends a fronted one: "since
# the norm varies, c jumps").
_REASON_MARK = re.compile(r"(?<![\w'’])(?:because|since|due\s+to|thanks\s+to|as\s+a\s+result\s+of)"
                          r"(?![\w'’])", re.IGNORECASE)
_REASON = re.compile(_REASON_MARK.pattern + r"([^.;:!?,()]{1,300})", re.IGNORECASE)
_REASON_END = re.compile(r"[.;:!?,()]")
_REASON_LENGTH = 300


def reasons_of(text: str) -> list[str]:
    """Each reason the text gives, up to the next reason: a chained one ("it fixes it because
    it's nonlinear since it has more neurons") gives two, and the second, the ground the
    first rests on, is read on its own."""
    marks = list(_REASON_MARK.finditer(text[:2000]))
    out = []
    for index, mark in enumerate(marks):
        stop = marks[index + 1].start() if index + 1 < len(marks) else len(text)
        reason = text[mark.end():min(stop, mark.end() + _REASON_LENGTH)]
        end = _REASON_END.search(reason)
        out.append(reason[:end.start()] if end else reason)
    return [r for r in out if r.strip()]


# Content words a reason must have (the question's aside), none of which the item's texts use.
# (A reason half in the rubric's words was too often right: on the development corpora, seven
# right explanations in long sentences, "because their queries are orthogonal to the
# problematic directions", went to review for one share bar of 0.5.)
REASON_WORDS = 1
# Words of a formula read out of LaTeX ("since epsilon_a ~ N(1, 1/2)"): no reason in words.
FORMULA_WORDS = frozenset(content_words(" ".join(GREEK | OPERATORS)))


def unsupported_reason(config: WrittenConfig, verdict: PatternVerdict, prompt: str = "",
                       rivals: Sequence[str] = ()) -> Sentence | None:
    """A credited sentence whose reason is in words that neither the item's texts nor
    the question's other items' (`rivals`: a sentence may answer two parts) use. Words only:
    a formula ("since a_i^T b_k = 0") is no reason in other words."""
    if verdict.level not in ("full", "partial"):
        return None
    texts = [*config.reference, *rivals] + [
        t for e in config.elements for t in (*e.phrasings, e.statement or "", e.label or "") if t]
    known = frozenset().union(*(content_words(t) for t in texts))
    asked = question_words(prompt)
    for found in verdict.found.values():
        for reason in reasons_of(found.sentence.norm):
            words = [w for w in content_words(reason) if w.isalpha() and len(w) >= 3
                     and w not in FORMULA_WORDS and not _inflected(w, asked)]
            if len(words) >= REASON_WORDS and not any(_inflected(w, known) for w in words):
                return found.sentence
    return None


def _inflected(word: str, words: frozenset[str]) -> bool:
    """Whether `word` (a stem) is one of `words` or a stem of one, or one is its stem ("var"
    from "varies" and "vary")."""
    return word in words or any(
        len(w) >= 3 and (w.startswith(word) or word.startswith(w)) for w in words)


def negation_elsewhere(verdict: PatternVerdict, sentences: Sequence[Sentence]
                       ) -> Sentence | None:
    """A sentence where a missed element's pattern is rejected for another clause's negation."""
    for element in verdict.missing:
        for sentence in sentences:
            if any(negated_in_another_clause(p, sentence.norm[:2000]) for p in element.patterns):
                return sentence
    return None


def qualifier_left_out(verdict: PatternVerdict, sentences: Sequence[Sentence]
                       ) -> Sentence | None:
    """A sentence that a missed element's pattern matches once one of its qualifier groups is
    left out ("added to the embeddings" for `add* ... (input|token|word) (embedding*|...)`):
    a pattern names the thing more narrowly than an answer may, which only a reader can
    weigh."""
    for element in verdict.missing:
        relaxed = tuple(v for p in element.patterns for v in without_qualifier(p))
        if not relaxed:
            continue
        for sentence in sentences:
            if find_any(relaxed, sentence.norm[:2000]) is not None:
                return sentence
    return None


def conditioned_credit(verdict: PatternVerdict) -> Sentence | None:
    """A sentence credited with an element that restricts its claim by a condition."""
    if verdict.level not in ("full", "partial"):
        return None
    for found in verdict.found.values():
        if CONDITION.search(found.sentence.text):
            return found.sentence
    return None


def _quoted_words(text: str) -> list[tuple[str, ...]]:
    out = []
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        words = tuple(w.lower() for w in _WORD.findall(inner))
        if 2 <= len(words) <= 12:
            out.append(words)
    return out


def swapped_order_example(sentences: Sequence[Sentence]) -> Sentence | None:
    """A sentence quoting two word sequences made of the same words in another order (or the
    second such quote in the next sentence: "'the cat saw the dog'. And 'the dog saw the cat'")."""
    for index, sentence in enumerate(sentences):
        following = sentences[index + 1].text if index + 1 < len(sentences) else ""
        quoted = _quoted_words(sentence.text + " " + following)
        for first, words in enumerate(quoted):
            if any(sorted(words) == sorted(other) and words != other
                   for other in quoted[first + 1:]):
                return sentence
    return None


# What announces an example.
EXAMPLE = re.compile(r"(?<![\w'’])(?:e\.\s?g\.?|eg\.|for\s+(?:example|instance)|"
                     r"example\s*:|say\s+(?:p|the\s+probabilit)|suppose|consider)(?![\w'’])",
                     re.IGNORECASE)


# An answer of more sentences than this is only an example when its first opens on one.
EXAMPLE_SENTENCES = 3
EXAMPLE_OPENING = 40


def example_for_zero(verdict: PatternVerdict, sentences: Sequence[Sentence]
                     ) -> Sentence | None:
    """A sentence announcing an example, in an answer that the patterns found nothing in."""
    if verdict.level != "none" or not sentences:
        return None
    if len(sentences) > EXAMPLE_SENTENCES:  # a long answer: only one that opens on it
        opening = EXAMPLE.search(sentences[0].text[:EXAMPLE_OPENING])
        return sentences[0] if opening is not None else None
    return next((s for s in sentences if EXAMPLE.search(s.text[:2000])), None)


# Verbs that link a claim's subject to what it says of it ("stacked layers stay linear").
COPULAS = content_words("stay stays stayed remain remains remained become becomes still")
# Content words of the element's own (not the question's) a reason must use to carry it.
ELEMENT_REASON_WORDS = 2
# A reason in symbols: a formula's name with a digit or a sign ("because W2W1 = W").
_SYMBOLIC = re.compile(r"[=^*/+×·∘√]|\b[A-Za-z]+_?\d|\d\s*[A-Za-z]")


def restated_reason(verdict: PatternVerdict, prompt: str) -> Sentence | None:
    """A credited sentence whose claim is the question's words and whose reason does not
    carry the element it is credited with."""
    if verdict.level not in ("full", "partial") or not prompt:
        return None
    asked = question_words(prompt)
    for found in verdict.found.values():
        norm = found.sentence.norm[:2000]
        reason = _REASON.search(norm)
        if reason is None or _SYMBOLIC.search(reason.group(1)):
            continue
        claim = [w for w in content_words(norm[:reason.start()])
                 if w.isalpha() and w not in COPULAS]
        if not claim or not all(_inflected(w, asked) for w in claim):
            continue
        element = found.element
        texts = [t for t in (*element.phrasings, element.statement, element.label) if t]
        carried = any(find_any((p,), reason.group(1)) for p in element.patterns) or any(
            shared_words(t, reason.group(1), asked) >= ELEMENT_REASON_WORDS for t in texts)
        if not carried:
            return found.sentence
    return None


def analogy_for_zero(verdict: PatternVerdict, sentences: Sequence[Sentence]) -> Sentence | None:
    """A sentence announcing an analogy, in an answer that the patterns found nothing in."""
    if verdict.level != "none":
        return None
    return next((s for s in sentences if ANALOGY.search(s.text)), None)


def doubt(decision: Decision, verdict: PatternVerdict, sentences: Sequence[Sentence],
          max_points: Decimal, offset_known: bool, config: WrittenConfig | None = None,
          prompt: str = "", rivals: Sequence[str] = ()) -> None:
    """Keep a pattern verdict below any review threshold when one of the signals above holds."""
    below, zero = decision.points < max_points, decision.points == 0
    signals: list[tuple[Sentence | None, str, str]] = [
        (arrow_note(config, verdict, sentences, prompt) if config is not None and below
         else None,
         "The answer is a note of steps linked by arrows, in words of a key idea it is not "
         "credited with; a grader should check it.", "a note of arrowed steps"),
        (analogy_for_zero(verdict, sentences) if zero else None,
         "The answer explains by an analogy, which may state an idea in other words; a grader "
         "should check it.", "an analogy"),
        (example_for_zero(verdict, sentences) if zero else None,
         "The answer gives an example, which may show an idea no definition states; a grader "
         "should check it.", "an example"),
        (unread_definition(verdict, sentences, prompt) if config is not None else None,
         "The answer defines what a key idea it is not credited with is about, in other "
         "words; a grader should check it.", "an unrecognised definition"),
        (unsupported_reason(config, verdict, prompt, rivals) if config is not None else None,
         "A credited sentence gives a reason in words the rubric does not use; a grader "
         "should check that the reason holds.", "gives its own reason"),
        (restated_reason(verdict, prompt),
         "A credited sentence restates the question and gives a reason that does not state "
         "the key idea; a grader should check that the reason holds.",
         "restates the question with a reason"),
        (negation_elsewhere(verdict, sentences) if below else None,
         "A sentence states a key idea after a negation in another clause; a grader should "
         "check which the negation governs.", "a negation in another clause"),
        (qualifier_left_out(verdict, sentences) if below else None,
         "A sentence states a key idea in words a pattern of it reads once a qualifier is left "
         "out; a grader should check it.", "a qualifier left out"),
        (conditioned_credit(verdict),
         "A credited sentence restricts its claim by a condition; a grader should check that "
         "the claim holds as stated.", "states a condition on its claim"),
        (swapped_order_example(sentences) if below else None,
         "The answer gives an example of the same words in another order, which may state an "
         "idea in other words; a grader should check it.",
         "an example of the same words in another order"),
    ]
    for sentence, feedback, label in signals:
        if sentence is not None:
            decision.feedback.append(feedback)
            decision.evidence.append(sentence_evidence(sentence, label, offset_known))
            decision.confidence = min(decision.confidence, UNSURE_CONFIDENCE)
