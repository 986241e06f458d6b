# Training time only (issue 38, speed): ccforest's defaults against aorsf on
# the held-out sets' splits, run once with the build before the speed work
# (--lib) and once with the build after; the forests are identical.
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list())
)
