# The fifth held-out sets (holdout5, fixed on 2026-11-29 before any of them
# was fitted): ccforest's defaults of the sixth session's start (b683e27:
# min_events ceiling(sqrt(E)), as since c81f8ce) against aorsf and ranger
# with their own, on sets no earlier round saw.
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list())
)
