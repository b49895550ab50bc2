"""``run --fidelity authors-code`` with a CRLF prompt file sends, request for request, the
bodies the DEBATE authors' scripts send: the same ``messages`` (role and content, byte for byte) and the same
other keys and values (``"temperature": 0`` as an integer, nothing else; the Tie-breaker call with their
``n``, ``stop: null`` and integer zeros), for the official ``debate.py`` and the ``tiebreaker`` branch.

The expected bodies come from ``TheirScripts`` below, a model of their scripts written for this test from
their published code (``gunny97/DEBATE`` ``debate.py``; ``sangwongenip/geval`` branch ``tiebreaker``
``autogen_eval_debate.py``) and of pyautogen 0.1's ``ConversableAgent`` rules they ran on (per-peer message
lists, ``max_consecutive_auto_reply`` counters, reply-at-receive after ``initiate_chat``, the request
``{model, messages: [system, *history], temperature: 0}`` after the cache seed and timeout are taken out).
Their prompt files are not shipped (no licence): the fixtures are written here in the same layout (CRLF
prompt, LF Tie-breaker file with ``{{Evaluation Criteria}}:`` / ``{{Evaluation Steps}}:`` / ``<Source
Text>:`` / ``<Summary>:`` / ``<Debate Log of Other Agents>:`` sections and three trailing newlines).

The bodies are compared as canonical JSON (sorted keys), so ``0`` and ``0.0`` differ, as on the wire; the
order of keys inside an object and the JSON spacing are the HTTP library's and are not compared.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from debate_eval.agents.models.providers.scripted_server import ScriptedOpenAIServer, role_of_request
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.datasets import load_items, select_items

MODEL = "gpt-4-1106-preview"

# A prompt file in the layout of their prompts/summeval/*_detailed.txt (CRLF line endings, as in their
# repository), in this test's own words.
PROMPT_LINES = [
    "You will be given a summary of a news article.",
    "",
    "Your task is to rate the summary on one quality.",
    "",
    "Keep these instructions at hand while you read.",
    "",
    "Evaluation Criteria:",
    "",
    "Coherence (1-5) - how well the sentences of the summary hang together.",
    "",
    "Evaluation Steps:",
    "",
    "1. Read the article and note its topic.",
    "2. Read the summary and check its order and flow.",
    "3. Give a score from 1 to 5.",
    "",
    "",
    "Source Text:",
    "",
    "{{Document}}",
    "",
    "Summary:",
    "",
    "{{Summary}}",
    "",
    "",
    "Evaluation Form (scores ONLY):",
    "",
    "- Coherence:",
]
PROMPT_CRLF = "\r\n".join(PROMPT_LINES)
# A Tie-breaker file in the layout of their prompts/summeval/*_tiebreak.txt (LF line endings, as theirs).
TIEBREAK_LF = (
    "You are a Tiebreaker. You read a news article, one summary of it, and a debate about its score.\n"
    "\n"
    "Take a side between the Scorer and the Critic and give the final score.\n"
    "\n"
    "Read the <Debate Log of Other Agents> and decide by the {{Evaluation Criteria}} and the {{Evaluation Steps}}.\n"
    "\n"
    "{{Evaluation Criteria}}:\n"
    "\n"
    "Coherence (1-5) - how well the sentences of the summary hang together.\n"
    "\n"
    "{{Evaluation Steps}}:\n"
    "\n"
    "1. Read the debate.\n"
    "2. Decide.\n"
    "\n"
    "<Source Text>:\n"
    "\n"
    "{{Document}}\n"
    "\n"
    "<Summary>:\n"
    "\n"
    "{{Summary}}\n"
    "\n"
    "<Debate Log of Other Agents>:\n"
    "\n"
    "{{Debate}}\n"
    "\n"
    "<Answer (integer from 1 to 5)>\n"
    "\n"
    "\n"
)

# Their system messages and relay texts, as written in their scripts.
OFFICIAL = {
    "commander": "Your role is to initiate and lead the debate. Tell other agents think step-by-step.",
    "scorer": "Your role is to score a given text. Read the instructions and the text carefully. Then evaluate "
    "the text logically.",
    "critic": "\n            Your role is to play a Devil\u2019s Advocate. Your logic has to be step-by-step. "
    "Critically review the score provided and assess whether the score is accurate. If you don\u2019t think "
    "that the score is accurate, criticize the score. Try to criticize the score as much as possible."
    "\n            ",
}
BRANCH = {
    "commander": "Help me calculate the score, and tell other agetns think step-by-step.",
    "scorer": "Logically think to score the following sentence.",
    "critic": "\n            Do you think this score is really accurate? If you think it's not justified, please share "
    "your opinion. \n            On the other hand, if you find the score acceptable, just say NO_ISSUES.\n"
    "            ",
}
REVIEW = (
    "Check if the score is justified. Task description and the following source texts are as follows: "
    "\n{task}\n And the responses from Scoring assistant as follows: \n{answer}"
)
FEEDBACK = "Here is the feedback to your response. Please calculate the score again!\n{feedback}"

Answer = Callable[[str, dict[str, Any]], str]


class Agent:
    """A pyautogen 0.1 AssistantAgent as their scripts built it (human_input_mode NEVER)."""

    def __init__(self, role: str, system: str, max_auto_reply: int = 100) -> None:
        self.role = role
        self.system = system
        self.max_auto_reply = max_auto_reply  # pyautogen's default is 100
        self.history: dict[Agent, list[dict[str, str]]] = defaultdict(list)  # _oai_messages
        self.counter: dict[Agent, int] = defaultdict(int)  # _consecutive_auto_reply_counter
        self.reply_at_receive: dict[Agent, bool] = defaultdict(bool)


class TheirScripts:
    """Their scripts' request bodies, in order, given how each role answers."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []

    def send(self, sender: Agent, text: str, recipient: Agent, request_reply: bool | None = None) -> None:
        sender.history[recipient].append({"content": text, "role": "assistant"})
        recipient.history[sender].append({"content": text, "role": "user"})
        if request_reply is False or (request_reply is None and not recipient.reply_at_receive[sender]):
            return
        # check_termination_and_human_reply: at the counter's limit (or on TERMINATE) no reply, counter reset
        if recipient.counter[sender] >= recipient.max_auto_reply or text.rstrip().endswith("TERMINATE"):
            recipient.counter[sender] = 0
            return
        recipient.counter[sender] += 1
        messages = [{"content": recipient.system, "role": "system"}, *(dict(m) for m in recipient.history[sender])]
        body = {"model": MODEL, "messages": messages, "temperature": 0}  # llm_config after seed/timeout/key
        self.requests.append(body)
        self.send(recipient, self.answer(recipient.role, body), sender)

    def initiate_chat(self, sender: Agent, recipient: Agent, text: str) -> None:
        sender.reply_at_receive[recipient] = recipient.reply_at_receive[sender] = True
        self.send(sender, text, recipient)

    def debate(self, prompt: str, rounds: int, texts: dict[str, str], marker: str) -> tuple[str, bool]:
        """One item of their MultiAgentsDebate._reply_user; returns (their debate log, agreed)."""
        commander = Agent("commander", texts["commander"], max_auto_reply=1)
        scorer = Agent("scorer", texts["scorer"], max_auto_reply=1)
        critic = Agent("critic", texts["critic"])
        self.initiate_chat(commander, scorer, prompt)
        log = ""
        for _ in range(rounds):
            first = commander.history[scorer][1]["content"]
            self.send(commander, REVIEW.format(task=prompt, answer=first), critic, request_reply=True)
            feedback = commander.history[critic][-1]["content"]
            log += f"(Scorer)\n{first}\n(Critic)\n{feedback}\n"
            if feedback.find(marker) >= 0:
                return log, True
            self.send(commander, FEEDBACK.format(feedback=feedback), scorer, request_reply=True)
        return log, False

    def tiebreak(self, tiebreak_prompt: str, log: str) -> None:
        """Their inference_tiebreaker's openai.ChatCompletion.create."""
        body = {
            "model": MODEL,
            "messages": [{"role": "system", "content": tiebreak_prompt.replace("{{Debate}}", log)}],
            "temperature": 0,
            "max_tokens": 10,
            "top_p": 0,
            "frequency_penalty": 0,
            "presence_penalty": 0,
            "stop": None,
            "n": 1,
        }
        self.requests.append(body)
        self.answer("tiebreaker", body)


def scripted(critic_says: list[str]) -> Answer:
    """Scorer: "Coherence: k" for its k-th answer; Critic: ``critic_says`` in turn; Commander: one line;
    Tie-breaker: "4"."""

    def answer(role: str, body: dict[str, Any]) -> str:
        answered = sum(1 for m in body["messages"] if m["role"] == "assistant")
        if role == "scorer":
            return f"Coherence: {answered + 1}\nThe sentences follow one another well."
        if role == "critic":
            return critic_says[answered]
        if role == "commander":
            return "Thank you. Let us check it step by step."
        return "4"

    return answer


def serve(answer: Answer) -> ScriptedOpenAIServer:
    return ScriptedOpenAIServer(reply=lambda request: answer(role_of_request(request), dict(request)))


def canonical(bodies: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(body, sort_keys=True, ensure_ascii=False) for body in bodies]


def their_prompt(template: str) -> tuple[str, dict[str, str]]:
    """``open(prompt_fp).read()`` filled as their script filled it, for the run's first item."""
    inputs = dict(select_items(load_items("summeval"), limit=1)[0].inputs)
    text = template.replace("\r\n", "\n")  # universal newlines
    return text.replace("{{Document}}", inputs["Document"]).replace("{{Summary}}", inputs["Summary"]), inputs


def run(server: ScriptedOpenAIServer, out: Path, *extra: str) -> dict[str, Any]:
    argv = ["run", "--dataset", "summeval", "--aspect", "coherence", "--limit", "1", "--no-preflight"]
    argv += ["--no-cache", "--fidelity", "authors-code", "--base-url", server.base_url, "--model", MODEL]
    assert main([*argv, "--out", str(out), *extra]) == 0
    return json.loads((out / "results.jsonl").read_text(encoding="utf-8").splitlines()[0])


CRITICS = {
    "never agrees": ["Too high: the second sentence breaks the flow.", "Still too high.", "No.", "No."],
    "agrees in round 1": ["The score is fair. NO_ISSUES", "unused", "unused"],
    "agrees in round 2": ["Too high.", "Fine now. NO_ISSUES", "unused"],
    "says NO ISSUE with a space": ["NO ISSUE", "NO ISSUES here", "no_issues", "x"],
}


@pytest.mark.parametrize("scenario", list(CRITICS))
def test_official_debate_sends_their_bodies(isolated_env: Path, scenario: str) -> None:
    (isolated_env / "coh_detailed.txt").write_bytes(PROMPT_CRLF.encode("utf-8"))
    answer = scripted(CRITICS[scenario])
    prompt, _ = their_prompt(PROMPT_CRLF)
    theirs = TheirScripts(answer)
    theirs.debate(prompt, rounds=2, texts=OFFICIAL, marker="NO_ISSUE")
    with serve(answer) as server:
        run(server, isolated_env / "out", "--method", "debate", "--template", "coh_detailed.txt")
    assert "\r" not in json.dumps(server.requests)
    assert canonical(server.requests) == canonical(theirs.requests)


@pytest.mark.parametrize("scenario", list(CRITICS))
def test_tiebreaker_branch_sends_their_bodies(isolated_env: Path, scenario: str) -> None:
    (isolated_env / "coh_detailed.txt").write_bytes(PROMPT_CRLF.encode("utf-8"))
    (isolated_env / "coh_tiebreak.txt").write_bytes(TIEBREAK_LF.encode("utf-8"))
    answer = scripted(CRITICS[scenario])
    prompt, inputs = their_prompt(PROMPT_CRLF)
    theirs = TheirScripts(answer)
    log, agreed = theirs.debate(prompt, rounds=3, texts=BRANCH, marker="NO_ISSUES")
    if not agreed:
        filled = TIEBREAK_LF.replace("{{Document}}", inputs["Document"]).replace("{{Summary}}", inputs["Summary"])
        theirs.tiebreak(filled, log)
    with serve(answer) as server:
        record = run(
            server,
            isolated_env / "out",
            *("--method", "tiebreaker", "--max-rounds", "3", "--template", "coh_detailed.txt"),
            *("--tiebreaker-template", "coh_tiebreak.txt"),
        )
    assert canonical(server.requests) == canonical(theirs.requests)
    if not agreed:
        assert record["decided_by"] == "TieBreaker" and record["score"] == 4
        assert server.requests[-1]["messages"][0]["content"].endswith("<Answer (integer from 1 to 5)>\n\n\n")


def test_a_crlf_tiebreaker_file_is_read_as_their_open_read(isolated_env: Path) -> None:
    (isolated_env / "coh_tiebreak.txt").write_bytes(TIEBREAK_LF.replace("\n", "\r\n").encode("utf-8"))
    answer = scripted(CRITICS["never agrees"])
    with serve(answer) as server:
        run(
            server,
            isolated_env / "out",
            *("--method", "tiebreaker", "--tiebreaker-template", "coh_tiebreak.txt"),
        )
    system = server.requests[-1]["messages"][0]["content"]
    assert "\r" not in system and system.startswith("You are a Tiebreaker.") and system.endswith(">\n\n\n")
    config = json.loads((isolated_env / "out" / "config.json").read_text(encoding="utf-8"))
    assert config["result_config"]["debate"]["tiebreaker_template"]["source"] == "coh_tiebreak.txt"
