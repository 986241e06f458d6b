# ccforest demo: canonical correlation forests next to a random forest
# (ranger, if installed), same number of trees, on held-out data.
# Run after `make install`:  Rscript tools/demo.R   (about 10-20 s, 2 cores)

suppressPackageStartupMessages(library(ccforest))
has_ranger <- requireNamespace("ranger", quietly = TRUE)
N_TREE <- 100
set.seed(42)

secs <- function(expr) system.time(expr)[["elapsed"]]

# Random 2/3 train - 1/3 test split.
split_data <- function(d) {
  idx <- sample(nrow(d), round(2 * nrow(d) / 3))
  list(train = d[idx, , drop = FALSE], test = d[-idx, , drop = FALSE])
}

# Three interleaved noisy spiral arms in 2-D: the class boundaries are
# curved and oblique, which axis-aligned trees approximate by staircases.
make_spiral <- function(n, k = 3) {
  cls <- sample(k, n, replace = TRUE)
  t <- sqrt(runif(n))
  angle <- 3 * pi * t + 2 * pi * (cls - 1) / k + rnorm(n, sd = 0.2)
  data.frame(x1 = t * cos(angle), x2 = t * sin(angle),
             class = factor(paste0("arm", cls)))
}

# One row per method: held-out misclassification % and training seconds.
compare_classification <- function(name, d, y) {
  s <- split_data(d)
  f <- reformulate(".", response = y)  # y ~ .
  t_cc <- secs(fit <- ccforest(f, data = s$train, n_tree = N_TREE, seed = 1))
  pred <- predict(fit, new_data = s$test)
  out <- data.frame(data = name, method = "ccforest",
                    error = 100 * mean(pred != s$test[[y]]), seconds = t_cc)
  if (has_ranger) {
    t_rf <- secs(rf <- ranger::ranger(f, data = s$train, num.trees = N_TREE,
                                      num.threads = 2, seed = 1))
    pred_rf <- predict(rf, data = s$test)$predictions
    out <- rbind(out, data.frame(data = name, method = "ranger",
                                 error = 100 * mean(pred_rf != s$test[[y]]),
                                 seconds = t_rf))
  }
  list(table = out, fit = fit, test = s$test)
}

show <- function(tab, value, label) {
  cat(sprintf("  %-16s %-9s %10s %9s\n", "data", "method", label, "train s"))
  for (i in seq_len(nrow(tab)))
    cat(sprintf("  %-16s %-9s %10.*f %9.2f\n", tab$data[i], tab$method[i],
                if (label == "error %") 1L else 4L, tab[[value]][i],
                tab$seconds[i]))
}

cat(sprintf("ccforest %s demo, %d trees per forest%s\n\n",
            utils::packageVersion("ccforest"), N_TREE,
            if (has_ranger) "" else " (ranger not installed: ccforest only)"))

## (a) classification -------------------------------------------------------
spiral <- compare_classification("spiral (n=1500)", make_spiral(1500), "class")
iris_res <- compare_classification("iris (n=150)", iris, "Species")

cat("Fitted model on the spiral data:\n")
print(spiral$fit)

cat("\nClassification, held-out misclassification:\n")
show(rbind(spiral$table, iris_res$table), "error", "error %")

cat("\nClass probabilities, first 3 iris test rows:\n")
print(round(predict(iris_res$fit, new_data = head(iris_res$test, 3),
                    type = "prob"), 3))

## (b) regression -----------------------------------------------------------
# A smooth function of an oblique direction plus noise.
n <- 1500
reg <- data.frame(x1 = runif(n, -1, 1), x2 = runif(n, -1, 1))
reg$y <- sin(3 * (reg$x1 + reg$x2)) + 0.5 * (reg$x1 - reg$x2)^2 +
  rnorm(n, sd = 0.1)
s <- split_data(reg)
mse <- function(pred) mean((s$test$y - pred)^2)

t_cc <- secs(fit <- ccforest(y ~ ., data = s$train, n_tree = N_TREE, seed = 1))
tab <- data.frame(data = "smooth 2-D", method = c("mean", "ccforest"),
                  mse = c(mse(mean(s$train$y)), mse(predict(fit, new_data = s$test))),
                  seconds = c(0, t_cc))
if (has_ranger) {
  t_rf <- secs(rf <- ranger::ranger(y ~ ., data = s$train, num.trees = N_TREE,
                                    num.threads = 2, seed = 1))
  tab <- rbind(tab, data.frame(data = "smooth 2-D", method = "ranger",
                               mse = mse(predict(rf, data = s$test)$predictions),
                               seconds = t_rf))
}
cat(sprintf("\nRegression, held-out mean squared error (noise variance %.2f):\n",
            0.1^2))
show(tab, "mse", "test MSE")
