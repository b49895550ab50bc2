"""Reading answers: every rule that turns a judge's text into a score or a verdict lives in this package.

One module per thing read: ``scores`` (the project's score parser, with ``score_rules``, ``score_patterns``,
``score_types``, ``structured``, ``normal_form``), ``weighted`` (scores from token probabilities), ``verdicts``
(pairwise verdicts), ``untrusted`` (copies of the judged texts blanked, planted markers). A method's own
readings live in its folder, built on these: ``debate/authors_scores`` (DEBATE's released scripts),
``chateval/referee_scores`` (ChatEval's referees), ``chateval/faireval_scores`` (ChatEval's FairEval scripts),
``fennec/branch_judgments`` (Fennec's branches).
"""

# The version of the parsing rules in this package, recorded in every result record (``parser_version``).
# Bump it whenever a rule changes so that the same answer can be read differently (a new pattern, a changed
# precedence, a new set-aside). It is not part of the configuration hash: run directories stay resumable.
PARSER_VERSION = 1
