"""The 16 SummEval systems compared, as ``docs/systems.md`` shows them: which pairs differ, the ranks each system
can hold, and the PPI difference that a judge biased towards one system does not fool.

The human scores are SummEval's own expert coherence ratings (16 systems x 100 documents, shipped with the
package). The judge is **constructed**, not a model: the expert rating plus seeded noise (sd 0.5), so what the
comparison finds can be checked against the ratings it was built from. Two run directories are written and
meta-evaluated as ``debate-eval meta-eval`` does:

- ``OUT/tracking``: the judge on all 1,600 summaries, every summary rated;
- ``OUT/biased``: two systems of equal human quality, M0 and M23 (their mean expert coherence differs by
  0.0067), the judge adding 0.5 to M23's scores, 25 of the 100 documents rated: the judge's scores alone call M20
  better; the PPI++ difference on the human scale does not.

    python scripts/demos/systems_demo.py runs/systems_demo
    debate-eval meta-eval runs/systems_demo/tracking
    debate-eval plan-labels runs/systems_demo/biased --width 0.3
    debate-eval report runs/systems_demo/biased --out runs/systems_demo/biased.html

The report of ``biased`` draws the ranking twice: on the judge's scale (M23 first) and corrected with the 50
human labels by PPI (M0 and M23 sharing ranks 1-2).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path
from typing import Any

from debate_eval import meta_evaluate
from debate_eval.tasks.data.datasets import load_items

NOISE, SEED, BIAS, RATED = 0.5, 453, 0.5, 25


def write_run(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return folder


def record(item: Any, score: float, human: float | None) -> dict[str, Any]:
    return {
        "item_id": item.item_id,
        "dataset": "summeval",
        "aspect": "coherence",
        "protocol": "constructed",
        "group_id": item.group_id,
        "system_id": item.system_id,
        "score": round(score, 4),
        "human_score": human,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="the folder for the two run directories")
    args = parser.parse_args()
    items = load_items("summeval")
    rng = random.Random(SEED)
    tracking = [
        record(i, i.human_scores["coherence"] + rng.gauss(0, NOISE), i.human_scores["coherence"]) for i in items
    ]
    documents = sorted({i.group_id for i in items})
    rated = set(documents[:RATED])
    biased = [
        record(
            i,
            i.human_scores["coherence"] + rng.gauss(0, NOISE) + (BIAS if i.system_id == "M23" else 0.0),
            i.human_scores["coherence"] if i.group_id in rated else None,
        )
        for i in items
        if i.system_id in ("M0", "M23")
    ]
    runs = {"tracking": write_run(args.out / "tracking", tracking), "biased": write_run(args.out / "biased", biased)}

    block = meta_evaluate(runs["tracking"]).to_dict()["summeval"]["coherence"]["systems"]
    pairs = block["pairs"]
    held = sum(p["p_holm"] < 0.05 for p in pairs)
    print(
        f"tracking judge: {block['family']}: {held} differ after Holm, {sum(p['p_bh'] < 0.05 for p in pairs)} after BH"
    )
    humans = {}
    for item in items:
        humans.setdefault(item.system_id, []).append(item.human_scores["coherence"])
    human_mean = {name: sum(v) / len(v) for name, v in humans.items()}
    print("system  judge mean  expert mean  rank  ranks it can hold")
    for name, rank in sorted(block["ranks"].items(), key=lambda kv: kv[1]["rank"]):
        low, high = rank["rank_set"]
        print(f"{name:6} {rank['mean']:10.3f} {human_mean[name]:12.3f} {rank['rank']:5}  {low}-{high}")
    for first, second in (("M11", "M22"), ("M10", "M17"), ("M11", "M14"), ("M14", "M13"), ("M1", "M2"), ("M0", "M22")):
        pair = next(p for p in pairs if {p["first"], p["second"]} == {first, second})
        gap = human_mean[pair["first"]] - human_mean[pair["second"]]
        print(
            f"{pair['first']} - {pair['second']}: judge {pair['difference']:+.3f} [{pair['ci95'][0]:.3f}, "
            f"{pair['ci95'][1]:.3f}], p {pair['p_value']:.3g}, p_holm {pair['p_holm']:.3g}; experts {gap:+.3f}"
        )
    biased_block = meta_evaluate(runs["biased"]).to_dict()["summeval"]["coherence"]["systems"]
    [pair] = biased_block["pairs"]
    ppi = pair["ppi"]
    print(
        f"biased judge, {pair['first']} - {pair['second']}: judge {pair['difference']:+.3f} "
        f"[{pair['ci95'][0]:.3f}, {pair['ci95'][1]:.3f}], p_holm {pair['p_holm']:.3g}; PPI++ "
        f"{ppi['difference']:+.3f} [{ppi['ci95'][0]:.3f}, {ppi['ci95'][1]:.3f}] from {ppi['n_rated']} rated "
        f"documents; human only {ppi['human_only']['difference']:+.3f} [{ppi['human_only']['ci95'][0]:.3f}, "
        f"{ppi['human_only']['ci95'][1]:.3f}]; experts on all 100: "
        f"{human_mean[pair['first']] - human_mean[pair['second']]:+.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
