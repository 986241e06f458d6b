# Round 2: aorsf's cut-point search (the log-rank statistic at 5 cuts drawn
# at random per direction, its n_split = 5), alone, with aorsf's stopping
# rule (statistic >= 3.84) and with aorsf's mtry.
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list()),
  cut5 = list(args = list(), options = list(ccforest.survival_cut_samples = 5L)),
  cut5_stat = list(args = list(), options = list(ccforest.survival_cut_samples = 5L,
                                                 ccforest.survival_min_statistic = 3.841459)),
  cut5_sqrt = list(args = list(mtry = function(D) ceiling(sqrt(D))),
                   options = list(ccforest.survival_cut_samples = 5L))
)
