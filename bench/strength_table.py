"""Print the headline matches kept in bench/results (the summaries bench/strength.sh
writes) as one Markdown table, every row in full: the summary of docs/strength.md,
"Headline matches", has one row a default.

    python3 bench/strength_table.py
"""
import glob
import json
import os

ORDER = ["exit-01-vs-before-01", "exit-1-vs-before-1", "exit-4-vs-exit-1", "exit-1-vs-greedy",
         "endgame-01-vs-exit-01",
         "mixed-01-vs-cand-01", "mixed-01-vs-cand-01-b", "mixed-1-vs-cand-1",
         "mixed-01-vs-heuristic01", "mixed-1-vs-heuristic1", "mixed-1-vs-mixed025",
         "mixed-1-vs-mixed025-b", "mixed-1-vs-greedy", "mixed-1-vs-greedy-b",
         "cand-01-vs-feat2-01", "cand-1-vs-feat2-1", "cand-01-vs-heuristic01",
         "cand-1-vs-heuristic1", "cand-1-vs-cand025", "cand-1-vs-cand025-b",
         "cand-1-vs-greedy", "cand-1-vs-greedy-b",
         "feat2-01-vs-view01", "feat2-1-vs-025", "feat2-01-vs-heuristic01",
         "feat2-1-vs-heuristic1", "feat2-1-vs-greedy", "feat2-1-vs-view1",
         "view01-vs-learned01", "view1-vs-learned1", "view01-vs-heuristic01",
         "view1-vs-heuristic1", "view1-vs-view025", "view1-vs-greedy",
         "learned01-vs-heuristic01", "learned1-vs-heuristic1", "learned1-vs-learned025",
         "learned1-vs-learned025-b", "learned01-vs-greedy", "learned1-vs-greedy",
         "learnedx-vs-heuristicx", "ismcts1s-vs-ismcts01s", "ismcts1s-vs-greedy",
         "ismcts1s-vs-random", "ismcts-vs-expectimax", "ismcts-vs-expectimax-d6",
         "flat-ismcts1s-vs-ismcts01s", "old-ismcts1s-vs-ismcts01s"]

# the ISMCTS default a result was measured with, by file name prefix (docs/strength.md)
SEARCH = {"exit-": "expert iteration: the learned move policy (this build)",
          "endgame-": "exact endgames (off by default)",
          "mixed-": "belief over the opponent's hand, mixed (previous)",
          "cand-": "the opponent's hand and every move (before)",
          "feat2": "features version 2 (before)",
          "view": "opponent's view, third generation (before)",
          "learnedx": "learned leaf evaluation (expectimax)",
          "learned": "learned evaluation and priors (before)", "old-": "full UCB tree",
          "flat-": "flat, cutoff 10"}
PREVIOUS = "PUCT tree, hand-set evaluation"


def row(d: dict, name: str) -> str:
    lo, hi = d["win_rate_ci95"]
    elo = "∞" if d.get("elo") is None else f"{d['elo']:+.0f}"
    spm = d["seconds_per_move"]
    search = next((v for k, v in SEARCH.items() if name.startswith(k)), PREVIOUS)
    return (f"| {search} | `{d['a']['spec']}` | `{d['b']['spec']}` | {d['games']} | "
            f"{d['wins']}–{d['draws']}–{d['losses']} | **{100 * d['win_rate']:.1f} %** | "
            f"{100 * lo:.1f}–{100 * hi:.1f} % | {elo} | {d['mean_margin']:+.1f} | "
            f"{spm[0]:.3f} / {spm[1]:.3f} |")


def main() -> None:
    here = os.path.join(os.path.dirname(__file__), "results")
    files = {os.path.basename(f)[:-5]: f for f in glob.glob(os.path.join(here, "*.json"))}
    print("| ISMCTS default | A | B | games | A won–drew–lost | A scores | 95 % interval | Elo | "
          "mean margin | s/move A / B |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name in ORDER:          # (the other summaries here are not headline rows)
        if name in files and os.path.getsize(files[name]):
            with open(files[name]) as fh:
                d = json.load(fh)
            if "win_rate_ci95" in d:        # (other results, e.g. calibration, live here too)
                print(row(d, name))


if __name__ == "__main__":
    main()
