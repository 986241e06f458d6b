# Training time (issue 38, fifth session): ccforest's defaults (out-of-bag
# curves, C-index and Brier score stored in the fit) against aorsf without
# its out-of-bag predictions and importance (as bench/comparisons/survival.R:
# the stricter comparison, and the issue's measure) and against aorsf with its
# own defaults (which score its out-of-bag predictions and compute anova
# importance), on the second, third and fourth held-out sets.
list(
  aorsf = list(learner = "aorsf"),
  aorsf_defaults = list(learner = "aorsf", defaults = TRUE),
  default = list(args = list())
)
