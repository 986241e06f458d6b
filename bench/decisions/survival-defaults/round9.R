# Round 9 (issue 38, fourth session): keeping ev_sqrt's gains on small sets
# without its loss on stagec, and leaf curves shrunk toward the tree root's.
# Every ccforest configuration has the default min_statistic (3.84).
# ev_sqrt: each child holds ceiling(sqrt(E)) event rows (E the training
# split's events; round 8's ev_stat, since min_statistic is now the
# default); ev_half: ceiling(sqrt(E) / 2); ev3: 3.
# shrink*: each leaf's hazard is the posterior mean under a prior of `a`
# pseudo rows that follow the tree root's Nelson-Aalen curve, (d + a S h) /
# (Y + a S) at each of the root's event times (S the root's survival just
# before, h its hazard there), where the leaf has rows at risk; *_tail also
# after them (the root's hazard where the leaf has none left). Environment
# variables CCFOREST_SURV_SHRINK (a) and CCFOREST_SURV_SHRINK_TAIL read by
# the build of the measurement commit only (src/core/TaskSurvival.cpp).
# `default` is the defaults of the build it ran on (91f4a54's: min_events 1);
# from c81f8ce on the default is ev_sqrt's, so `default` grows ev_sqrt's
# forests there: give min_events = 1 for the former default.
events <- function(train) sum(train$status)
ev <- function(f) function(train) list(min_events = as.integer(max(1, f(events(train)))))
shrink <- function(a, tail = FALSE) c(CCFOREST_SURV_SHRINK = as.character(a),
                                      CCFOREST_SURV_SHRINK_TAIL = if (tail) "1" else "0")
list(
  default = list(args = list()),
  ev_sqrt = list(args = ev(function(e) ceiling(sqrt(e)))),
  ev_half = list(args = ev(function(e) ceiling(sqrt(e) / 2))),
  ev3 = list(args = ev(function(e) 3)),
  shrink3 = list(args = list(), env = shrink(3)),
  shrink10 = list(args = list(), env = shrink(10)),
  shrink10_tail = list(args = list(), env = shrink(10, TRUE))
)
