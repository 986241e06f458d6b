# Round 8 on the ten development sets (fresh splits 20-25): the defaults and
# the candidates that led on every small set in round 8 (round8.R):
# stat_all, ev_sqrt, and the two together (ev_stat). stat_* switches are
# environment variables read by the build of the measurement commit only.
# On later builds the same rule is the argument min_statistic (its default
# for one cause is stat_all's 3.84; min_statistic = 0 is the former default).
events <- function(train) sum(train$status)
ev_sqrt <- function(train) list(min_events = as.integer(ceiling(sqrt(events(train)))))
stat <- c(CCFOREST_SURV_MIN_STAT = "3.841459")
list(
  default = list(args = list()),
  stat_all = list(args = list(), env = stat),
  ev_sqrt = list(args = ev_sqrt),
  ev_stat = list(args = ev_sqrt, env = stat)
)
