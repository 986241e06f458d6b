# Round 1: ccforest's defaults, aorsf's stopping rule (a node splits only if
# its best log-rank statistic reaches 3.84) with aorsf's leaf sizes and with
# ccforest's, aorsf's mtry, one residual period.
sq <- function(train) max(5L, as.integer(ceiling(sqrt(nrow(train)))))
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list()),
  mtry_sqrt = list(args = list(mtry = function(D) ceiling(sqrt(D)))),
  i1 = list(args = list(), options = list(ccforest.survival_intervals = 1L)),
  stat_l5 = list(args = list(min_leaf = 5L, min_split = 10L),
                 options = list(ccforest.survival_min_statistic = 3.841459)),
  stat_sq = list(args = list(), options = list(ccforest.survival_min_statistic = 3.841459)),
  stat_halfsq = list(args = function(train) list(min_leaf = max(5L, sq(train) %/% 2L),
                                                 min_split = 2L * max(5L, sq(train) %/% 2L)),
                     options = list(ccforest.survival_min_statistic = 3.841459))
)
