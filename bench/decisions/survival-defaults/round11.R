# Round 11 (issue 38, fourth session): confirmation of round 9b's leaders
# on fresh splits (small: 40-59, the ten: 40-51). ev_sqrt: each child holds
# ceiling(sqrt(E)) event rows (E the training split's events), leaves of
# the default's rows (max(5, ceiling(sqrt(n)))); ev_sqrt_l5: the same
# events with aorsf's leaves (min_leaf 5, min_split 10). Both with the
# default min_statistic (3.84).
# `default` is the defaults of the build it ran on (91f4a54's: min_events 1);
# from c81f8ce on the default is ev_sqrt's, so `default` grows ev_sqrt's
# forests there: give min_events = 1 for the former default.
events <- function(train) sum(train$status)
ev <- function(...) {
  function(train) c(list(min_events = as.integer(ceiling(sqrt(events(train))))), list(...))
}
list(
  default = list(args = list()),
  ev_sqrt = list(args = ev()),
  ev_sqrt_l5 = list(args = ev(min_leaf = 5L, min_split = 10L))
)
