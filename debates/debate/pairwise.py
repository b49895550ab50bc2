"""The DEBATE family's pairwise form: the Scorer states which response is better, the Critic attacks it.

The same AutoGen team and rules as for scores (``MultiAgentsDebate`` driven by ``DebateProtocol``, Algorithm 1,
``algorithm.py``), with P holding the question and both responses, the Scorer stating which is better and
why, and the Critic attacking that verdict. Only what differs is pairwise:

- personas: the pairwise counterparts of the built-in ones (``personas.json``; a user's file unchanged);
- relays: ``relays.json`` (``PairwiseCommander``); the verdict format instead of the scale;
- parsing: ``verdict_text`` for the Scorer and the Tie-breaker; no verdict -> the deciding agent is asked
  once more (``reask.txt``), then "no verdict".

Only the paper's debate (``fidelity`` ``paper``) has a pairwise form: the authors' released code scores
single texts.
"""

from __future__ import annotations

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import TextMessage
from autogen_core import CancellationToken

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, USER, Relay, make_assistant
from debate_eval.debates.debate.config import DebateConfig
from debate_eval.debates.debate.paper import PaperFlow, read_decider
from debate_eval.debates.debate.team import MultiAgentsDebate, run_on
from debate_eval.debates.evaluation import EvaluationTask, Outcome, planted
from debate_eval.debates.kit.reask import Reask
from debate_eval.debates.kit.transcript import mark_agreement, pairwise_transcript
from debate_eval.debates.pairwise.prompts import answer_hint, judge_material, pairwise_persona, prompt_table, reask_text

_LLM_KEYS = {Relay.TASK: "llm_task", Relay.REVIEW: "llm_review", Relay.FEEDBACK: "llm_feedback"}


class PairwiseCommander(CommanderAgent):
    """The Commander with the pairwise relays of ``relays.json`` (what it forwards is the same)."""

    def fixed_text(self, relay: Relay) -> str:
        """The fixed pairwise relay text for ``relay``."""
        texts = prompt_table("relays.json")
        if relay is Relay.TASK:
            return self.task
        if relay is Relay.REVIEW:
            return texts["review"].format(task=self.task, answer=self._said(SCORER)[-1])
        if relay is Relay.FEEDBACK:
            return texts["feedback"].format(feedback=self._said(CRITIC)[-1])
        if relay is Relay.TIEBREAK:
            return texts["tiebreak"].format(task=self.task, log=self._format_log(), answer_hint=self.answer_hint)
        return reask_text()

    async def _llm_words(self, relay: Relay, cancellation_token: CancellationToken) -> tuple[str, object]:
        assert self._llm is not None
        instruction = prompt_table("relays.json")[_LLM_KEYS.get(relay, "llm_tiebreak")]
        shown = [*self._unseen, TextMessage(source=USER, content=instruction)]
        self._unseen = []
        response = await self._llm.on_messages(shown, cancellation_token)
        return response.chat_message.to_text().strip(), response.chat_message.models_usage


async def run_debate_pairwise(task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
    """Run the pairwise debate for ``task`` and parse the final verdict."""
    if config.fidelity != "paper":
        raise ValueError(f"--fidelity {config.fidelity} has no pairwise form (the authors' code scores single texts)")
    calls: list[CallRecord] = []
    material = task.material()  # the judged texts: what a NO ISSUE must not be copied from
    judged = judge_material(task.untrusted, task.prompt)  # ... and the instructions: what a verdict must not echo
    markers = planted(task)
    protocol = PaperFlow().protocol(config, material)  # NO ISSUE in the Critic's own words, as for scores
    agents: dict[str, ChatAgent] = {
        SCORER: make_assistant(SCORER, pairwise_persona(config.scorer), pool.for_debate("scorer", calls)),
        CRITIC: make_assistant(CRITIC, pairwise_persona(config.critic), pool.for_debate("critic", calls)),
    }
    if config.tiebreaker is not None:
        client = pool.for_debate("tiebreaker", calls)
        agents[TIEBREAKER] = make_assistant(TIEBREAKER, pairwise_persona(config.tiebreaker), client)
    commander_persona = pairwise_persona(config.commander)
    llm = None
    if config.commander_llm:
        llm = make_assistant(COMMANDER, commander_persona, pool.for_debate("commander", calls))
    commander = PairwiseCommander(
        task.prompt,
        lambda: protocol.pending,
        system_message=commander_persona.text,
        answer_hint=answer_hint(),
        llm=llm,
    )
    team = MultiAgentsDebate([commander, *agents.values()], protocol)  # a team of its own
    messages = await run_on(team, task.prompt, commander_llm=config.commander_llm)

    decider = protocol.decided_by
    request = Reask.for_verdict(
        judged, markers, lambda _: reask_text(), source=COMMANDER, to=decider, limit=1 if config.reask else 0
    )
    parsed, messages, reasked = await read_decider(messages, agents, request)

    return Outcome.for_verdict(
        parsed,
        decided_by=decider,
        stop_reason=protocol.stop_reason.value,
        transcript=mark_agreement(
            pairwise_transcript(messages, calls, {SCORER, TIEBREAKER}, judged, markers), protocol.critic_agrees
        ),
        calls=calls,
        agreed=protocol.agreed,
        rounds=protocol.rounds,
        reasked=reasked,
        details={"fidelity": "paper"},
    )
