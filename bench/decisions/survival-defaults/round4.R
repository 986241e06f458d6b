# Round 4 (confirmation on fresh splits 6-13): the candidates of rounds 1-3
# with the largest mean gains or the lowest cost.
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list()),
  md1 = list(args = list(max_directions = 1L)),
  axis_search = list(args = list(axis_candidates = "search")),
  mtry_sqrt = list(args = list(mtry = function(D) ceiling(sqrt(D)))),
  frac632 = list(args = list(sample_fraction = 0.632))
)
