"""A rubric of questions numbered 1..count, each two numeric sub-parts (a) and (b) worth
100 + n and 200 + n, labelled `Qn`, `Question n` and `n`: the shape the label tests generate
answers for."""


def numbered_rubric(slug: str, count: int) -> str:
    return f"slug: {slug}\ntitle: {slug.title()}\nquestions:\n" + "".join(
        f"""  - id: Q{n}
    labels: ["Q{n}", "Question {n}", "{n}"]
    answer_kind: numeric
    items:
      - {{id: q{n}.a, points: 1, grader: numeric, config: {{expected: {100 + n}, cues: ["(a)"]}}}}
      - {{id: q{n}.b, points: 1, grader: numeric, config: {{expected: {200 + n}, cues: ["(b)"]}}}}
""" for n in range(1, count + 1))
