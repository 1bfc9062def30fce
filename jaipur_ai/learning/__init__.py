"""Learning the evaluation: self-play data, training with numpy, the pipeline."""
