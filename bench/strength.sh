#!/usr/bin/env bash
# The headline matches of docs/strength.md ("Headline matches").  Each line is one row of
# the full table (python3 bench/strength_table.py); its summary (JSON) goes to
# bench/results/.  The "exit" rows are this build's default, the "mixed" rows the one
# before, the "cand" rows the one before that, the "feat2" rows the one before that (the
# weights features2.npz's, with the reported win probability recalibrated, which changes
# no move).  Earlier defaults are spelled out with the options they had.  All rows take
# about twenty-five hours on 2 cores (the "elapsed" of the summaries): the "mixed"
# and "cand" rows about five each, the "feat2" and "view" rows about three each, the
# "learned" rows two and a quarter, the rest about an hour.
#   bash bench/strength.sh            # all
#   bash bench/strength.sh greedy     # only the rows whose name contains "greedy"
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench/results
mkdir -p "$out"
only="${1:-}"
run() {  # name A B deals [seed]
  local name=$1 a=$2 b=$3 deals=$4 seed=${5:-2026}
  [[ -n "$only" && "$name" != *"$only"* ]] && return 0
  echo "== $name: $a vs $b, $deals deals x 2 seats" >&2
  # the summary, without the games' records (bench/results/README.md): add --out FILE.jsonl
  # to the match to keep its games
  python3 -m jaipur_ai match "$a" "$b" --games "$deals" --seed "$seed" --workers 2 -q --json \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); d.pop("records", None); print(json.dumps(d, indent=2))' \
    > "$out/$name.json"
}
H=evaluation=heuristic,settings=handset,belief=off    # the hand-set default, move for move
M=opponent_stats=hand,all_moves_after=1000,belief=on   # this build's default, spelled out
C=opponent_stats=hand,all_moves_after=1000,belief=off    # the previous default
O=opponent_stats=pooled,all_moves_after=0,belief=off     # ... and the defaults before it
F2=weights=bench/weights/features2.npz,$O  # features version 2: the default before the previous
V=weights=bench/weights/view.npz,$O        # the opponent's view, third generation (features version 1)
P=opponent_view=off,weights=bench/weights/previous.npz,$O   # the learned default before it
issue_rows() {  # prefix options previous previous-options: the rows issue 10 asks of a default
  local p=$1 x=$2 q=$3 y=$4
  run "$p-01-vs-$q-01"        "ismcts:time=0.1,$x"  "ismcts:time=0.1,$y"   200
  run "$p-1-vs-$q-1"          "ismcts:time=1,$x"    "ismcts:time=1,$y"     100
  run "$p-01-vs-heuristic01"  "ismcts:time=0.1,$x"  "ismcts:time=0.1,$H"   200
  run "$p-1-vs-heuristic1"    "ismcts:time=1,$x"    "ismcts:time=1,$H"     50
  run "$p-1-vs-${p}025"       "ismcts:time=1,$x"    "ismcts:time=0.25,$x"  100
  run "$p-1-vs-${p}025-b"     "ismcts:time=1,$x"    "ismcts:time=0.25,$x"  100  2027
  run "$p-1-vs-greedy"        "ismcts:time=1,$x"    greedy                 100
  run "$p-1-vs-greedy-b"      "ismcts:time=1,$x"    greedy                 100  2027
}
# this build's default: expert iteration's weights, a learned move policy and a value
# refitted to the search's own estimates (docs/strength.md, "Expert iteration"), against
# the default before it, reached by one spec (its weights frozen, no policy).
# bash bench/strength.sh exit- runs these.
E=weights=bench/weights/before-policy.npz
run exit-01-vs-before-01      ismcts:time=0.1,weights=bench/weights/exit1-candidate.npz  ismcts:time=0.1,$E  400
run exit-1-vs-before-1        ismcts:time=1,weights=bench/weights/exit1-candidate.npz    ismcts:time=1,$E    200
run exit-4-vs-exit-1          ismcts:time=4,weights=bench/weights/exit1-candidate.npz    ismcts:time=1,weights=bench/weights/exit1-candidate.npz  100
run exit-1-vs-greedy          ismcts:time=1,weights=bench/weights/exit1-candidate.npz    greedy              200
# exact endgames (off by default): the default with them against the default
run endgame-01-vs-exit-01     ismcts:time=0.1,endgame=true                               ismcts:time=0.1     200
# the previous default: the one before it with the belief over the opponent's hand
# "mixed" (docs/strength.md, "Which kind of player?"); against the previous default it
# plays the same with the belief off.  bash bench/strength.sh mixed- runs only these,
# about five and a half hours on 2 cores
issue_rows mixed "$M" cand "$C"
# the previous default: features version 2 with the opponent's statistics kept by its
# hand and every move considered past 1000 visits (docs/strength.md, "Looking past the
# candidates, and the opponent's hand"); against the default before it it plays the
# shipped weights with both off (features2.npz's evaluation: the same moves).
# bash bench/strength.sh cand- runs these (and the two mixed rows against them), about
# five hours on 2 cores
issue_rows cand "$C" feat2 "$O"
# the rows of features version 2, the default before the previous
run feat2-01-vs-view01        ismcts:time=0.1,$F2  ismcts:time=0.1,$V  200
run feat2-1-vs-025            ismcts:time=1,$F2    ismcts:time=0.25,$F2  100
run feat2-01-vs-heuristic01   ismcts:time=0.1,$F2  ismcts:time=0.1,$H  200
run feat2-1-vs-heuristic1     ismcts:time=1,$F2    ismcts:time=1,$H    50
run feat2-1-vs-greedy         ismcts:time=1,$F2    greedy              100
run feat2-1-vs-view1          ismcts:time=1,$F2    ismcts:time=1,$V    50
# the rows of the default before it (the opponent's view, third generation)
run view01-vs-learned01       ismcts:time=0.1,$V  ismcts:time=0.1,$P   200
run view1-vs-learned1         ismcts:time=1,$V    ismcts:time=1,$P     50
run view01-vs-heuristic01     ismcts:time=0.1,$V  ismcts:time=0.1,$H   200
run view1-vs-view025          ismcts:time=1,$V    ismcts:time=0.25,$V  100
run view1-vs-greedy           ismcts:time=1,$V    greedy               100
run view1-vs-heuristic1       ismcts:time=1,$V    ismcts:time=1,$H     50
# the previous default's rows (before opponent_view and the third searched generation)
run learned01-vs-heuristic01  ismcts:time=0.1,$P  ismcts:time=0.1,$H   200
run learned01-vs-greedy       ismcts:time=0.1,$P  greedy               100
run learned1-vs-heuristic1    ismcts:time=1,$P    ismcts:time=1,$H     50
run learned1-vs-learned025    ismcts:time=1,$P    ismcts:time=0.25,$P  50
run learned1-vs-learned025-b  ismcts:time=1,$P    ismcts:time=0.25,$P  50   2027
run learned1-vs-greedy        ismcts:time=1,$P    greedy               100  2027
run learnedx-vs-heuristicx     expectimax:iterations=50000,weights=bench/weights/previous.npz  expectimax:iterations=50000,evaluation=heuristic  50
run ismcts1s-vs-ismcts01s  ismcts:time=1   ismcts:time=0.1     60
run ismcts1s-vs-greedy     ismcts:time=1   greedy              20
run ismcts1s-vs-random     ismcts:time=1   random              10
run ismcts-vs-expectimax   ismcts:time=0.25 expectimax:time=0.25 50
run ismcts-vs-expectimax-d6 ismcts:time=0.25 expectimax:time=0.25,depth=6 50
