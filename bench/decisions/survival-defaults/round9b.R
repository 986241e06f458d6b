# Round 9b (issue 38, fourth session): variants of ev_sqrt (round 9).
# ev_cbrt: each child holds ceiling(E^(1/3)) event rows (E the training
# split's events); ev_sqrt_stat0: ev_sqrt without the stopping statistic
# (min_statistic = 0); ev_sqrt_l5: ev_sqrt with aorsf's leaves (min_leaf 5,
# min_split 10) instead of the square root of the rows.
# `default` is the defaults of the build it ran on (91f4a54's: min_events 1);
# from c81f8ce on the default is ev_sqrt's, so `default` grows ev_sqrt's
# forests there: give min_events = 1 for the former default.
events <- function(train) sum(train$status)
ev <- function(f, ...) {
  function(train) c(list(min_events = as.integer(max(1, f(events(train))))), list(...))
}
list(
  default = list(args = list()),
  ev_sqrt = list(args = ev(function(e) ceiling(sqrt(e)))),
  ev_cbrt = list(args = ev(function(e) ceiling(e^(1 / 3)))),
  ev_sqrt_stat0 = list(args = ev(function(e) ceiling(sqrt(e)), min_statistic = 0)),
  ev_sqrt_l5 = list(args = ev(function(e) ceiling(sqrt(e)), min_leaf = 5L, min_split = 10L))
)
