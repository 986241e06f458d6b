# Training time (issue 38, third session): aorsf against ccforest with
# min_statistic = 0, the forests of the build before the speed work (run
# with bench/decisions/survival-defaults/speed.R on that build), and with
# the new default min_statistic (round 8), on the second held-out sets.
list(
  aorsf = list(learner = "aorsf"),
  default0 = list(args = list(min_statistic = 0)),
  default = list(args = list())
)
