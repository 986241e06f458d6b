# Training time (issue 38, fifth session): aorsf (without its out-of-bag
# predictions, as bench/comparisons/survival.R) against ccforest's defaults
# (ceiling(sqrt(E)) events per child), on the second, third and fourth
# held-out sets.
list(
  aorsf = list(learner = "aorsf"),
  default = list(args = list())
)
