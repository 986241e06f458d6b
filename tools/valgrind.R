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
