# Round 7 (issue 38, second session): aorsf's mtry only where most features
# have few values. A feature is "coarse" when it has at most 5 distinct
# values in the training split (binary and low-level factors, small
# scores); when more than half of the D features are coarse, mtry =
# ceiling(sqrt(D)) (aorsf's count), else ccforest's default
# ceiling(log2(D) + 1). Rounds 1 and 4 found aorsf's mtry ahead on the sets
# of mostly coarse features (retinopathy, nwtco) and behind on the others
# (veteran, flchain). No change to the package: mtry is passed, by
# coarse_sqrt() (defined in survival-defaults.R, which sources this file).
list(
  default = list(args = list()),
  coarse_sqrt = list(args = coarse_sqrt)
)
