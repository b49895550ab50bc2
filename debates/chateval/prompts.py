"""The texts a ChatEval panel is sent.

``paper`` mode: the project's words for the paper's template (Appendix A, Table 6), adapted to scoring one
text. ``authors-code`` mode: the released FairEval configuration of ``chanchimin/ChatEval`` (Apache-2.0;
``agentverse/tasks/llm_eval/config.yaml``; the summary prompt from the ``two_turns_summary`` configuration
in its history, commit 029f2f2), quoted as it is - "referee assigned", "judgement" and the space before each
"!" included - except, in the single-score form, where a pairwise line has to become a single-score line
(marked below); the pairwise form (FairEval) is theirs unchanged.
"""

from __future__ import annotations

# ------------------------------------------------------------------------------------------------ paper

PANEL_INSTRUCTIONS = (
    "You are a referee on a panel of {count} scoring this text together. Discuss it with the other "
    "referees: weigh what they say, question it where you disagree, and think critically for yourself "
    "before you settle on a judgment. Keep what you say short and clear. End every message with your "
    'score on its own line, as "Score: X", where X is a number from {low:g} to {high:g}.'
)
NAME_LINE = (
    "On this panel your name is {name}. The other referees' messages are shown with their names in "
    "brackets, like [{name}]."
)
SUMMARIZER_SYSTEM_MESSAGE = (
    "You keep the record of a panel of referees who are scoring a text. You receive what the referees "
    "said in the latest turn of their discussion, each message headed by its author's name in brackets. "
    "Summarise it briefly and neutrally: for each referee, by name, the main arguments and the score given. "
    "Do not judge the text yourself and do not give a score of your own."
)
REASK = (
    'Your last message has no score of your own on its own line. Reply with one line, "Score: X", where X '
    "is your score from {low:g} to {high:g}."
)

# --------------------------------------------------------------------------------------- authors' code

# Their template's discussion sentence and closing lines, the same in the single and the pairwise form.
_FAIREVAL_DISCUSS = (
    "There are a few other referee assigned the same task, it's your responsibility to discuss with them and "
    "think critically before you make your final judgement.\n"
)
_FAIREVAL_TURN = (
    "\n"
    "{role_description}\n"
    "\n"
    "Now it's your time to talk, please make your talk short and clear, {agent_name} !\n"
    "\n"
    "{final_prompt}"
)
# Their prompt template with the pairwise part ([Question] ... [System] and the two-assistant sentences)
# replaced by the task prompt P: {task} stands where their question and answers stood.
FAIREVAL_FRAME = "{task}\n[System]\n" + _FAIREVAL_DISCUSS + _FAIREVAL_TURN
# Their final_prompt_to_use; "Then, output two lines indicating the scores for Assistant 1 and 2,
# respectively." and the two score lines become one line for one text (and the presentation-order clause,
# which concerns two responses, is dropped).
FAIREVAL_FINAL_PROMPT = (
    "Please first provide a comprehensive explanation of your evaluation, avoiding any potential bias.\n"
    "Then, output one line indicating the score of the text.\n"
    "\n"
    "Remember that you are not required to output the same value as other referees !\n"
    "Output with the following format strictly:\n"
    "Evaluation evidence: [your explanation here]\n"
    "The score: [score only]"
)
FAIREVAL_SUMMARY_PROMPT = (
    "Summarize the lines of the new lines which contains the currently observed chat history with other "
    "people.\n"
    "Based on the Current summary, you need to summarize from the New lines, add it onto the previous "
    "summary, and eventually return a New summary.\n"
    "\n"
    "Now, try to summarize the following record.\n"
    "\n"
    "Current summary:\n"
    "{summary}\n"
    "\n"
    "New lines:\n"
    "{new_lines}\n"
    "\n"
    "New summary:\n"
)
FAIREVAL_SILENCE = "[Silence]"  # their updater's message when nobody in a step said anything

# The pairwise form (``--method chateval --fidelity authors-code`` on a pairwise dataset): their prompt
# template and final_prompt_to_use as they are, ’ (U+2019) in "Assistant 1’s" included. Filled in one pass
# (their string.Template.safe_substitute), so text inserted from the judged answers is never filled again.
FAIREVAL_PAIRWISE_FRAME = (
    "[Question]\n"
    "{question}\n"
    "[The Start of Assistant 1\u2019s Answer]\n"
    "{answer_1}\n"
    "[The End of Assistant 1\u2019s Answer]\n"
    "[The Start of Assistant 2\u2019s Answer]\n"
    "{answer_2}\n"
    "[The End of Assistant 2\u2019s Answer]\n"
    "[System]\n"
    "We would like to request your feedback on the performance of two AI assistants in response to the user "
    "question displayed above.\n"
    "Please consider the helpfulness, relevance, accuracy, and level of detail of their responses.\n"
    + _FAIREVAL_DISCUSS
    + "Each assistant receives an overall score on a scale of 1 to 10, where a higher score indicates better "
    "overall performance.\n" + _FAIREVAL_TURN
)
FAIREVAL_PAIRWISE_FINAL_PROMPT = (
    "Please first provide a comprehensive explanation of your evaluation, avoiding any potential bias and "
    "ensuring that the order in which the responses were presented does not affect your judgment.\n"
    "Then, output two lines indicating the scores for Assistant 1 and 2, respectively.\n"
    "\n"
    "Remember that you are not required to output the same value as other referees !\n"
    "Output with the following format strictly:\n"
    "Evaluation evidence: [your explanation here]\n"
    "The score of Assistant 1: [score only]\n"
    "The score of Assistant 2: [score only]"
)
