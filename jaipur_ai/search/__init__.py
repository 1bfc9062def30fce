"""Search: the Engine, its analysis, the belief over the opponent's hand, the
evaluation (hand-set or learned) and the compiled searchers."""
