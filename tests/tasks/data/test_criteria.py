"""``--criteria``: a G-Eval-style template from one sentence and the scale (no template file needed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from debate_eval.agents.errors import UserError
from debate_eval.debates.scoring.scores import ScoreRange
from debate_eval.tasks.cli.main import main
from debate_eval.tasks.data.criteria import criteria_template


def test_the_template_shows_the_criterion_the_scale_and_every_input() -> None:
    template = criteria_template("summeval", "coherence", "  Does the summary read as one whole?  ", None)
    assert template.source == "criteria: Does the summary read as one whole?"
    assert template.scale == ScoreRange(1.0, 5.0)  # the aspect's human scale when none is given
    assert "Coherence (1-5) - Does the summary read as one whole?" in template.text
    assert template.placeholders == ("Document", "Summary")
    assert template.text.index("{{Document}}") < template.text.index("{{Summary}}")
    assert template.text.rstrip().endswith("- Coherence:")
    prompt = template.render({"Document": "The article.", "Summary": "{{Document}}"})
    assert "The article." in prompt and prompt.count("The article.") == 1  # filled in one pass
    wider = criteria_template("summeval", "coherence", "Coherent?", ScoreRange(0.0, 10.0))
    assert "Coherence (0-10)" in wider.text and wider.sha256() != template.sha256()


def test_an_empty_sentence_and_a_pairwise_set_are_refused() -> None:
    with pytest.raises(UserError, match="give one sentence"):
        criteria_template("summeval", "coherence", "   ", None)
    with pytest.raises(UserError, match="single-score template"):
        criteria_template("faireval", "preference", "Which is better?", None)


def test_a_run_on_own_data_with_criteria(isolated_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = isolated_env / "rows.csv"
    rows.write_text("article,summ,rating\nThe council met.,It met.,4\nRain fell.,Sun.,1\n", encoding="utf-8")
    argv = ["run", "--dataset", str(rows), "--fields", "source=article,output=summ,human=rating"]
    argv += ["--aspect", "faithfulness", "--criteria", "Is the summary faithful?", "--provider", "scripted"]
    assert main([*argv, "--out", "r", "--no-progress"]) == 2  # no scale for the user's own data
    assert "--criteria needs the score range: add --scale LO-HI" in capsys.readouterr().err
    assert main([*argv, "--scale", "1-5", "--out", "r", "--no-progress", "--method", "geval"]) == 0
    config = json.loads((isolated_env / "r" / "config.json").read_text(encoding="utf-8"))
    template = config["result_config"]["template"]
    assert template["source"] == "criteria: Is the summary faithful?" and "{{source}}" in template["text"]
    assert re.search(r"Faithfulness \(1-5\) - Is the summary faithful\?", template["text"])
    capsys.readouterr()
    assert main(["show", "r"]) == 0
    assert capsys.readouterr().out.startswith("template: criteria: Is the summary faithful? (scale 1-5)\n")
    with pytest.raises(SystemExit):  # argparse: --criteria takes a value
        main(["run", "--criteria"])
    assert main([*argv, "--scale", "1-5", "--template", "t.txt"]) == 2
    assert "give --criteria or --template, not both" in capsys.readouterr().err
