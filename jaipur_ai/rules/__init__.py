"""The rules of Jaipur: cards, moves and their notation, full states and a player's
view, the observation tensor and dense action index, and the compiled core."""
