"""Type stubs of the compiled search (src_cy/jaipur_ai/search/_search.pyx and the searchers it
re-exports from _ismcts, _expectimax, _root, _decisive and _policy)."""
from typing import Any, Optional, Union

from jaipur_ai.rules._bridge import CoreState, CoreView
from jaipur_ai.search._evaluation import Evaluation
from jaipur_ai.search._infostats import InfoStats

Root = Union[CoreState, CoreView]
DecisiveStats = list[Any]          # [samples, wins, draws, losses, margin sum]

NO_NODE_PY: int
OUTCOME_PY: int

def derive_seed(seed: int, index: int) -> int: ...
def decisive_kind(st: Optional[DecisiveStats]) -> Optional[str]: ...
def rank_children(children: list[dict[str, Any]]) -> list[dict[str, Any]]: ...
def check_policy(st: CoreState, seed: int, rounds: int = ..., epsilon: float = ...,
                 noise: float = ...) -> Any: ...
def opponent_world_of(st: CoreState, observer: int, seed: int) -> CoreState: ...
def candidate_actions(st: CoreState) -> list[int]: ...
def time_policy(st: CoreState, n: int, evaluation: Evaluation,
                policy: bool = ...) -> tuple[float, int]: ...
def prior_logits(st: CoreState, evaluation: Optional[Evaluation] = ...,
                 prior_temp: float = ..., policy: bool = ...) -> list[tuple[int, float]]: ...
def heuristic_weights() -> dict[str, Any]: ...
def set_heuristic_weights(**kw: Any) -> None: ...
def greedy_scores(pos: Root, seed: int = ..., decisive_samples: int = ...,
                  seconds: Optional[float] = ...
                  ) -> tuple[list[tuple[int, float, Optional[DecisiveStats]]],
                             dict[int, DecisiveStats]]: ...
def random_action(pos: Root, seed: int = ...) -> tuple[int, int]: ...

class RootSearch:
    seed: int
    def stop(self) -> None: ...
    def clear_stop(self) -> None: ...
    @property
    def stopped(self) -> bool: ...
    def judge_decisive(self, seconds: Optional[float] = ...,
                       deadline: Optional[float] = ...) -> None: ...
    def set_hand_prior(self, hands: Any, weights: Any) -> None: ...

class IsmctsSearcher(RootSearch):
    iterations: int
    determinizations: int
    elapsed: float
    playout_plies: int
    max_depth: int
    root: Root
    evaluation: Optional[Evaluation]
    pool: Any
    opp_stats: Optional[InfoStats]
    def __init__(self, pos: Root, *, seed: int = ..., exploration: float = ...,
                 playout: str = ..., reward: str = ...,
                 margin_scale: float = ..., epsilon: float = ..., noise: float = ...,
                 max_playout: int = ..., max_nodes: int = ..., initial_nodes: int = ...,
                 decisive_samples: int = ..., expand: str = ..., cutoff: int = ...,
                 widen: float = ..., tree_depth: int = ..., chance_nodes: bool = ...,
                 chance_width: float = ...,
                 puct: float = ..., prior_temp: float = ..., all_moves_after: int = ...,
                 evaluation: Optional[Evaluation] = ..., learned_priors: bool = ...,
                 opp_view: bool = ..., own_view: bool = ..., opp_stats: str = ...,
                 opp_values: str = ...,
                 judge: bool = ...,
                 policy: bool = ...) -> None: ...
    @property
    def decisive_win(self) -> Optional[int]: ...
    def run(self, iterations: Optional[int] = ..., seconds: Optional[float] = ...,
            deadline: Optional[float] = ...) -> int: ...
    def summary(self, pv_len: int = ...) -> dict[str, Any]: ...
    def best_action(self) -> Optional[int]: ...

def refill_outcomes(state: Any, action: int, samples: int = ..., top: int = ...,
                    seed: int = ...) -> list[tuple[tuple[int, ...], float]]: ...

class ExpectimaxSearcher(RootSearch):
    samples: int
    n_moves: int
    nodes: int
    elapsed: float
    depth_done: int
    beam: int
    chance_samples: int
    chance_top: int
    inner_policy: bool
    evaluation: Optional[Evaluation]
    def __init__(self, pos: Root, *, seed: int = ..., samples: int = ..., beam: int = ...,
                 chance_samples: int = ..., chance_top: int = ..., decisive_samples: int = ...,
                 evaluation: Optional[Evaluation] = ..., judge: bool = ...,
                 inner_policy: bool = ..., prior_temp: float = ...,
                 policy: bool = ...) -> None: ...
    def run_depth(self, depth: int, node_limit: Optional[int] = ...,
                  seconds: Optional[float] = ..., deadline: Optional[float] = ...,
                  moves: Optional[list[int]] = ...) -> bool: ...
    def root_actions(self) -> list[int]: ...
    def summary(self, depth: Optional[int] = ...) -> dict[str, Any]: ...
