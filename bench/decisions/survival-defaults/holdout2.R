# The second held-out sets (transplant, jasa, stagec, stanford2, mgus; fixed
# before round 6): ccforest's defaults against aorsf's and ranger's, and
# round 7's coarse_sqrt (defined in survival-defaults.R; it changes mtry on
# none of these five: see bench/results/survival-defaults.md). Also run on
# myeloid, for information.
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list()),
  coarse_sqrt = list(args = coarse_sqrt)
)
