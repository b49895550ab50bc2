"""Run one DEBATE (or MultiAgent / Tie-breaker / Both) evaluation of one item.

``fidelity`` picks whose debate is run, a ``Flow`` (``flow.py``): ``paper`` (Algorithm 1, Appendices D, E, G;
``paper.py``) or ``authors-code`` (their released code's message sequence, parsing and Tie-breaker input;
``authors_code.py`` on the pieces in ``authors.py``).
"""

from __future__ import annotations

from autogen_agentchat.base import ChatAgent
from autogen_agentchat.messages import BaseChatMessage

from debate_eval.agents.commander import CommanderAgent
from debate_eval.agents.models.pool import ClientPool
from debate_eval.agents.models.wrappers import CallRecord
from debate_eval.agents.roles import COMMANDER, CRITIC, SCORER, TIEBREAKER, make_assistant
from debate_eval.debates.debate.authors_code import AuthorsCodeFlow
from debate_eval.debates.debate.config import DebateConfig
from debate_eval.debates.debate.flow import Finished, Flow
from debate_eval.debates.debate.paper import PaperFlow
from debate_eval.debates.debate.team import run_team
from debate_eval.debates.evaluation import EvaluationTask, Outcome
from debate_eval.debates.kit.transcript import build_transcript
from debate_eval.debates.scoring.scores import ParsedScore


def flow_of(config: DebateConfig) -> Flow:
    """The flow of ``config``'s fidelity."""
    if config.authors_code:
        assert config.branch is not None  # set by DebateConfig for authors-code
        return AuthorsCodeFlow(config.branch)
    return PaperFlow()


async def run_debate(task: EvaluationTask, config: DebateConfig, pool: ClientPool) -> Outcome:
    """Run the debate for ``task`` and parse the final score, following the flow of ``config``'s fidelity
    (``flow_of``: the paper's or the authors' code's)."""
    calls: list[CallRecord] = []
    material = task.material()
    flow = flow_of(config)
    protocol = flow.protocol(config, material)
    agents: dict[str, ChatAgent] = {
        SCORER: make_assistant(SCORER, config.scorer, pool.for_debate("scorer", calls)),
        CRITIC: make_assistant(CRITIC, config.critic, pool.for_debate("critic", calls)),
    }
    tiebreak_text = None
    if config.tiebreaker is not None:
        agents[TIEBREAKER], tiebreak_text = flow.tiebreaker(task, config, pool.for_debate("tiebreaker", calls))
    llm = None
    if config.commander_llm:
        llm = make_assistant(COMMANDER, config.commander, pool.for_debate("commander", calls))
    commander = CommanderAgent(
        task.prompt,
        lambda: protocol.pending,
        system_message=config.commander.text,
        answer_hint=task.answer_hint(),
        llm=llm,
        forward_first=flow.forward_first,
        reply_client=pool.for_debate("commander", calls) if flow.commander_replies else None,
        tiebreak_text=tiebreak_text,
    )
    participants: list[ChatAgent] = [commander, *agents.values()]
    messages = await run_team(participants, protocol, task.prompt, commander_llm=config.commander_llm)
    final = await flow.final(Finished(task, config, material, messages, protocol, agents))

    def parse(message: BaseChatMessage) -> ParsedScore | None:
        return flow.parse(message.to_text(), task, material) if message.source in (SCORER, TIEBREAKER) else None

    transcript = build_transcript(final.messages, calls, parse)
    return Outcome(
        score=final.parsed.value if final.parsed.ok else None,
        parse=final.parsed,
        decided_by=final.decider,
        stop_reason=protocol.stop_reason.value,
        transcript=transcript,
        calls=calls,
        agreed=protocol.agreed,
        rounds=protocol.rounds,
        reasked=final.reasked,
        details={"fidelity": config.fidelity, **final.details},
    )
