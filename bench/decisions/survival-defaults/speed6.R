# Training time (issue 38, sixth session): ccforest's defaults and the same
# forest without its out-of-bag work (oob_error = FALSE, ranger's oob.error),
# against aorsf without its own (the issue's measure: a like-for-like
# comparison) and aorsf with orsf()'s defaults, on the second, third and
# fourth held-out sets.
list(
  aorsf = list(learner = "aorsf"),
  aorsf_defaults = list(learner = "aorsf", defaults = TRUE),
  default = list(args = list()),
  no_oob = list(args = list(oob_error = FALSE))
)
