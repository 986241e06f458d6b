# Round 8's candidates on the second and third held-out sets (holdout2,
# holdout3), fixed after the development runs (round8.R on the small sets,
# round8-dev.R on the ten): aorsf, ranger, the defaults, stat_all, ev_sqrt
# and ev_stat. stat_* switches are environment variables read by the build
# of the measurement commit only.
# On later builds the same rule is the argument min_statistic (its default
# for one cause is stat_all's 3.84; min_statistic = 0 is the former default).
events <- function(train) sum(train$status)
ev_sqrt <- function(train) list(min_events = as.integer(ceiling(sqrt(events(train)))))
stat <- c(CCFOREST_SURV_MIN_STAT = "3.841459")
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list()),
  stat_all = list(args = list(), env = stat),
  ev_sqrt = list(args = ev_sqrt),
  ev_stat = list(args = ev_sqrt, env = stat)
)
