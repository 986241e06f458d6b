# Round 8 (issue 38, third session): stopping earlier on small weak-signal
# data. stat_*: a node whose best log-rank statistic is below 3.84 (aorsf's
# split_min_stat, p = 0.05) is a leaf, in every node (stat_all, round 1's
# stat_sq again) or only in nodes with fewer than 50 / 25 event rows;
# ev_sqrt: each child holds at least ceiling(sqrt(E)) event rows, E the
# training split's events; leaf_2sq: leaves twice the default's rows.
# The stat_* switches are environment variables read by the build of the
# measurement commit only (src/core/TreeTrainer.cpp there).
# On later builds the same rule is the argument min_statistic (its default
# for one cause is stat_all's 3.84; min_statistic = 0 is the former default).
events <- function(train) sum(train$status)
sq <- function(train) max(5L, as.integer(ceiling(sqrt(nrow(train)))))
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list()),
  stat_all = list(args = list(), env = c(CCFOREST_SURV_MIN_STAT = "3.841459")),
  stat_e50 = list(args = list(), env = c(CCFOREST_SURV_MIN_STAT = "3.841459",
                                         CCFOREST_SURV_STAT_MAX_EVENTS = "50")),
  stat_e25 = list(args = list(), env = c(CCFOREST_SURV_MIN_STAT = "3.841459",
                                         CCFOREST_SURV_STAT_MAX_EVENTS = "25")),
  ev_sqrt = list(args = function(train) list(min_events = as.integer(ceiling(sqrt(events(train)))))),
  leaf_2sq = list(args = function(train) list(min_leaf = 2L * sq(train), min_split = 4L * sq(train)))
)
