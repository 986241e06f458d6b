# Held-out sets, after the decision (defaults unchanged): the Newton-step
# direction of round 5, for information only (read with holdout.R's rows,
# same splits and seeds).
list(
  newton = list(args = list(), options = list(ccforest.survival_newton = 1L))
)
