# A small but complete workload for valgrind: every task type, missing
# values, factors, bagging with out-of-bag importance, and prediction.
library(ccforest)
set.seed(1)
n <- 120
d <- data.frame(
  x1 = rnorm(n), x2 = rnorm(n), f = factor(sample(c("a", "b", "c"), n, TRUE)),
  o = factor(sample(c("lo", "mid", "hi"), n, TRUE), ordered = TRUE)
)
d$x1[sample(n, 10)] <- NA
d$f[sample(n, 5)] <- NA
d$y <- factor(ifelse(d$x2 + (d$f == "a") > 0, "yes", "no"))
d$y[is.na(d$y)] <- "no"
d$z <- d$x2 * 2 + rnorm(n)
fit <- ccforest(y ~ . - z, d, n_tree = 10, n_thread = 2, seed = 1)
p <- predict(fit, d, type = "prob")
bag <- ccforest(cbind(y, o) ~ x1 + x2 + f, d, n_tree = 5, sampling = "bagging",
                n_thread = 2, seed = 2)
p2 <- predict(bag, d)
reg <- ccforest(z ~ x1 + x2 + f + o, d, n_tree = 10, sampling = "bagging",
                importance = "permutation", n_thread = 1, seed = 3)
p3 <- predict(reg, d[1:5, ])
for (projection in c("rotation", "pca", "axis")) {
  invisible(predict(ccforest(y ~ x1 + x2 + f, d, n_tree = 3, projection = projection, seed = 4), d))
}
cat("valgrind workload done\n")
# 0.2.0: case and class weights, quantile forests, factors of many levels,
# dates, and the options beyond the paper.
w <- runif(n)
w[1:5] <- 0
wfit <- ccforest(y ~ x1 + x2 + f, d, n_tree = 4, case_weights = w, class_weights = c(yes = 2),
                 seed = 5)
invisible(predict(wfit, d, type = "prob"))
d$many <- factor(sample(sprintf("l%02d", 1:40), n, TRUE))
d$day <- as.Date("2020-01-01") + seq_len(n)
q <- ccforest(z ~ x1 + x2 + many + day, d, n_tree = 4, quantiles = TRUE, output_bins = 3,
              axis_candidates = TRUE, seed = 6)
invisible(predict(q, d, type = "quantiles", quantiles = c(0.1, 0.9)))
invisible(tree_info(q, 2))
cat("valgrind workload (0.2.0 features) done\n")
