# Round 3: aorsf's sample (0.632 n rows with replacement), subsampling
# (0.632 n without replacement), the features' own axes as candidates
# (searched, or one random cut), one canonical direction instead of two,
# aorsf's mtry.
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list()),
  frac632 = list(args = list(sample_fraction = 0.632)),
  sub632 = list(args = list(replace = FALSE)),
  axis_search = list(args = list(axis_candidates = "search")),
  axis_random = list(args = list(axis_candidates = "random")),
  md1 = list(args = list(max_directions = 1L)),
  mtry_sqrt = list(args = list(mtry = function(D) ceiling(sqrt(D))))
)
