# Held-out sets: ccforest's defaults (unchanged: no candidate won on the
# development sets) against aorsf's and ranger's.
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list())
)
