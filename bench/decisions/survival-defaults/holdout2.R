# The second held-out sets (transplant, jasa, stagec, stanford2, mgus; fixed
# before round 6): ccforest's defaults against aorsf's and ranger's, and
# round 7's coarse_sqrt (the same rule as in round7.R; it changes mtry on
# none of these five: see bench/results/survival-defaults.md). Also run on
# myeloid, for information.
coarse_sqrt <- function(train) {
  x <- train[setdiff(names(train), c("time", "status"))]
  d <- ncol(x)
  coarse <- vapply(x, function(v) length(unique(v[!is.na(v)])) <= 5L, logical(1))
  if (sum(coarse) > d / 2) list(mtry = as.integer(ceiling(sqrt(d)))) else list()
}
list(
  aorsf = list(learner = "aorsf"),
  ranger = list(learner = "ranger"),
  default = list(args = list()),
  coarse_sqrt = list(args = coarse_sqrt)
)
