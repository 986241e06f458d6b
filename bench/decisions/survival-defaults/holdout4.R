# Round 11's candidates on the fourth held-out sets (holdout4, fixed before
# any candidate of the fourth session ran on them) and again on the second
# and third (holdout2, holdout3; seen): aorsf, ranger, the defaults (of the
# session's start, 91f4a54: min_statistic 3.84, min_events 1, leaves of
# max(5, ceiling(sqrt(n))) rows), ev_sqrt and ev_sqrt_l5 (round11.R),
# fixed after the development runs (rounds 9-11).
# `default` is the defaults of the build it ran on (91f4a54's: min_events 1);
# from c81f8ce on the default is ev_sqrt's, so `default` grows ev_sqrt's
# forests there: give min_events = 1 for the former default.
events <- function(train) sum(train$status)
ev <- function(...) {
  function(train) c(list(min_events = as.integer(ceiling(sqrt(events(train))))), list(...))
}
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list()),
  ev_sqrt = list(args = ev()),
  ev_sqrt_l5 = list(args = ev(min_leaf = 5L, min_split = 10L))
)
