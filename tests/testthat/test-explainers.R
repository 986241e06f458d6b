# The explanation packages, run on ccforest as a user would run them: no
# prediction function of one's own. Their results are compared with
# ccforest's own predictions and partial dependence, and with properties
# that hold whatever the model (SHAP values add up to the prediction).

iris_fit <- function() ccforest(Species ~ ., data = iris, n_tree = 20, seed = 1)

binary_data <- function() {
  d <- iris[iris$Species != "setosa", ]
  d$Species <- droplevels(d$Species)
  d
}

test_that("ccforest_numeric_predictions() gives probabilities or values, all outputs", {
  fit <- iris_fit()
  p <- ccforest_numeric_predictions(fit, iris[1:5, ])
  expect_identical(p, predict(fit, iris[1:5, ], type = "prob"))
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 10, seed = 1)
  expect_identical(ccforest_numeric_predictions(reg, mtcars[1:3, ]),
                   unname(predict(reg, mtcars[1:3, ])))
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 10, seed = 1)
  m <- ccforest_numeric_predictions(multi, mtcars[1:3, ])
  expect_identical(colnames(m), c("mpg", "qsec"))
  expect_equal(m[, "qsec"], predict(multi, mtcars[1:3, ])$qsec)
  d <- data.frame(x1 = iris$Sepal.Length, x2 = iris$Petal.Width, a = iris$Species,
                  b = factor(iris$Sepal.Width > 3))
  two <- ccforest(cbind(a, b) ~ x1 + x2, data = d, n_tree = 10, seed = 1)
  m <- ccforest_numeric_predictions(two, d[1:3, ])
  expect_identical(colnames(m), c(paste0("a.", levels(d$a)), "b.FALSE", "b.TRUE"))
})

test_that("DALEX explains a classifier with its probabilities", {
  skip_if_not_installed("DALEX")
  fit <- iris_fit()
  ex <- DALEX::explain(fit, data = iris[-5], y = iris$Species, verbose = FALSE)
  expect_identical(ex$model_info$type, "multiclass")
  expect_identical(ex$model_info$package, "ccforest")
  expect_equal(ex$y_hat, predict(fit, iris, type = "prob"))
  parts <- DALEX::model_parts(ex, B = 1, N = NULL, variables = c("Petal.Width", "Sepal.Width"))
  expect_s3_class(parts, "model_parts")
  expect_true(all(is.finite(parts$dropout_loss)))

  # A binary classifier: the probability of the second level, as for ranger.
  d <- binary_data()
  bin <- ccforest(Species ~ ., data = d, n_tree = 20, seed = 1)
  ex <- DALEX::explain(bin, data = d[-5], y = as.numeric(d$Species == "virginica"),
                       verbose = FALSE)
  expect_identical(ex$model_info$type, "classification")
  expect_equal(ex$y_hat, unname(predict(bin, d, type = "prob")[, "virginica"]))
  perf <- DALEX::model_performance(ex)
  expect_true(perf$measures$auc > 0.9)
  # DALEX's own attribute chooses another column.
  attr(bin, "predict_function_target_column") <- "versicolor"
  expect_equal(predict(DALEX::explain(bin, data = d[-5], verbose = FALSE), d[1:4, ]),
               unname(predict(bin, d[1:4, ], type = "prob")[, "versicolor"]))
})

test_that("DALEX's partial dependence is ccforest's", {
  skip_if_not_installed("DALEX")
  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 20, seed = 1)
  ex <- DALEX::explain(reg, data = mtcars[-1], y = mtcars$mpg, verbose = FALSE)
  expect_identical(ex$model_info$type, "regression")
  expect_equal(ex$y_hat, unname(predict(reg, mtcars)))
  grid <- c(2, 3, 4.5)
  prof <- DALEX::model_profile(ex, variables = "wt", N = NULL,
                               variable_splits = list(wt = grid))
  ours <- partial_dependence(reg, mtcars, "wt", grid = grid)
  expect_equal(prof$agr_profiles$`_yhat_`, ours$prediction)
})

test_that("DALEX stops clearly on a forest with several outputs", {
  skip_if_not_installed("DALEX")
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 5, seed = 1)
  # explain() reports a failing prediction as a warning of its own (shown with
  # verbose = TRUE); the explainer's predictions say why.
  ex <- DALEX::explain(multi, data = mtcars[-c(1, 7)], verbose = FALSE)
  expect_error(predict(ex, mtcars[1:2, ]),
               "DALEX explains one output, but this forest has 2 \\(`mpg`, `qsec`\\).*predict_function")
})

test_that("pdp::partial() gives class probabilities and values", {
  skip_if_not_installed("pdp")
  fit <- iris_fit()
  grid <- data.frame(Petal.Width = c(0.2, 1, 1.8))
  pd <- pdp::partial(fit, "Petal.Width", train = iris, prob = TRUE, which.class = 2,
                     pred.grid = grid)
  ours <- partial_dependence(fit, iris, "Petal.Width", grid = grid$Petal.Width)
  expect_equal(pd$yhat, ours$prob.versicolor)
  pd <- pdp::partial(fit, "Petal.Width", train = iris, which.class = "virginica",
                     pred.grid = grid, prob = TRUE)
  expect_equal(pd$yhat, ours$prob.virginica)
  # pdp's centred logit of the chosen class
  logit <- pdp::partial(fit, "Petal.Width", train = iris, which.class = 1, pred.grid = grid)
  p <- predict(fit, transform(iris, Petal.Width = 1), type = "prob")
  lp <- log(pmax(p, .Machine$double.eps))
  expect_equal(logit$yhat[[2]], mean(lp[, 1] - rowMeans(lp)))

  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 20, seed = 1)
  pd <- pdp::partial(reg, "wt", train = mtcars, pred.grid = data.frame(wt = c(2, 4)))
  expect_equal(pd$yhat, partial_dependence(reg, mtcars, "wt", grid = c(2, 4))$prediction)
  ice <- pdp::partial(reg, "wt", train = mtcars, pred.grid = data.frame(wt = c(2, 4)), ice = TRUE)
  expect_equal(nrow(ice), 2 * nrow(mtcars))
})

test_that("pdp stops clearly on a forest with several outputs", {
  skip_if_not_installed("pdp")
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 5, seed = 1)
  expect_error(pdp::partial(multi, "wt", train = mtcars, pred.grid = data.frame(wt = 3)),
               "pdp explains one output.*partial_dependence\\(\\)")
})

test_that("iml's Predictor and FeatureEffect work on classifiers and regressions", {
  skip_if_not_installed("iml")
  fit <- iris_fit()
  pred <- iml::Predictor$new(fit, data = iris[-5], y = iris$Species)
  expect_identical(pred$task, "classification")
  out <- pred$predict(iris[c(1, 51, 101), -5])
  expect_equal(as.matrix(out), predict(fit, iris[c(1, 51, 101), ], type = "prob"),
               ignore_attr = TRUE)
  expect_identical(names(out), levels(iris$Species))
  effect <- iml::FeatureEffect$new(pred, "Petal.Width", method = "pdp",
                                   grid.points = c(0.2, 1, 1.8))
  ours <- partial_dependence(fit, iris, "Petal.Width", grid = c(0.2, 1, 1.8))
  virginica <- effect$results[effect$results$.class == "virginica", ]
  expect_equal(virginica$.value[order(virginica$Petal.Width)], ours$prob.virginica)
  # type = "class": one 0/1 column per class
  hard <- iml::Predictor$new(fit, data = iris[-5], y = iris$Species, type = "class")
  expect_equal(rowSums(hard$predict(iris[1:3, -5])), rep(1, 3))

  reg <- ccforest(mpg ~ ., data = mtcars, n_tree = 20, seed = 1)
  pred <- iml::Predictor$new(reg, data = mtcars[-1], y = mtcars$mpg)
  expect_identical(pred$task, "regression")
  expect_equal(pred$predict(mtcars[1:3, -1])[[1]], unname(predict(reg, mtcars[1:3, ])))
  imp <- iml::FeatureImp$new(pred, loss = "mse", n.repetitions = 2)
  expect_setequal(imp$results$feature, names(mtcars)[-1])
})

test_that("iml and hstats explain every output of a forest with several", {
  skip_if_not_installed("iml")
  skip_if_not_installed("hstats")
  multi <- ccforest(cbind(mpg, qsec) ~ ., data = mtcars, n_tree = 10, seed = 1)
  x <- mtcars[-c(1, 7)]
  ours <- partial_dependence(multi, mtcars, "wt", grid = c(2, 4))
  pred <- iml::Predictor$new(multi, data = x)
  expect_identical(pred$task, "regression")
  expect_named(pred$predict(x[1:2, ]), c("mpg", "qsec"))
  effect <- iml::FeatureEffect$new(pred, "wt", method = "pdp", grid.points = c(2, 4))
  qsec <- effect$results[effect$results$.class == "qsec", ]
  expect_equal(qsec$.value[order(qsec$wt)], ours$prediction.qsec)
  pd <- hstats::partial_dep(multi, v = "wt", X = mtcars, grid = c(2, 4))
  expect_equal(pd$data$mpg, ours$prediction.mpg)
})

test_that("kernelshap's permutation and kernel SHAP add up to the predictions", {
  skip_if_not_installed("kernelshap")
  fit <- iris_fit()
  x <- iris[c(1, 51, 101), -5]
  bg <- iris[seq(1, 150, by = 5), -5]
  for (shap in list(kernelshap::permshap(fit, x, bg_X = bg, verbose = FALSE),
                    kernelshap::kernelshap(fit, x, bg_X = bg, verbose = FALSE))) {
    expect_named(shap$S, levels(iris$Species))
    p <- predict(fit, x, type = "prob")
    base <- colMeans(predict(fit, bg, type = "prob"))
    for (k in levels(iris$Species)) {
      expect_equal(rowSums(shap$S[[k]]) + base[[k]], unname(p[, k]), tolerance = 1e-8)
    }
  }
  # Several regression outputs: one SHAP matrix per output.
  multi <- ccforest(cbind(mpg, qsec) ~ wt + hp + disp, data = mtcars, n_tree = 10, seed = 1)
  shap <- kernelshap::permshap(multi, mtcars[1:2, c("wt", "hp", "disp")],
                               bg_X = mtcars[, c("wt", "hp", "disp")], verbose = FALSE)
  expect_named(shap$S, c("mpg", "qsec"))
  p <- predict(multi, mtcars[1:2, ])
  expect_equal(rowSums(shap$S$qsec) + mean(predict(multi, mtcars)$qsec), p$qsec,
               tolerance = 1e-8)
  # A user's pred_fun still wins.
  shap <- kernelshap::permshap(fit, x, bg_X = bg, verbose = FALSE,
                               pred_fun = function(m, d) predict(m, d, type = "prob")[, 1])
  expect_true(is.matrix(shap$S))
})

test_that("hstats' statistics, partial dependence and importance run on ccforest", {
  skip_if_not_installed("hstats")
  train <- seq(1, 150, by = 2)
  fit <- ccforest(Species ~ ., data = iris[train, ], n_tree = 20, seed = 1)
  test <- iris[-train, ]
  pd <- hstats::partial_dep(fit, v = "Petal.Width", X = test[-5], grid = c(0.2, 1, 1.8))
  ours <- partial_dependence(fit, test, "Petal.Width", grid = c(0.2, 1, 1.8))
  expect_equal(pd$data$virginica, ours$prob.virginica)
  expect_equal(pd$data$setosa, ours$prob.setosa)
  h <- hstats::hstats(fit, X = test[-5], verbose = FALSE)
  overall <- hstats::h2_overall(h, normalize = TRUE, squared = TRUE, zero = FALSE)$M
  expect_true(all(overall >= 0 & overall <= 1))
  imp <- hstats::perm_importance(fit, X = test[-5], y = test$Species, verbose = FALSE,
                                 m_rep = 2)
  expect_true(all(c("Petal.Width", "Petal.Length") %in% rownames(imp$M)))
  # The loss of the probabilities against the one-hot classes, by hand.
  loss <- hstats::average_loss(fit, X = test[-5], y = test$Species, agg_cols = TRUE)
  p <- predict(fit, test, type = "prob")
  truth <- outer(test$Species, levels(iris$Species), `==`) * 1
  expect_equal(unname(drop(loss$M)), mean(rowSums((truth - p)^2)))
  ice <- hstats::ice(fit, v = "Petal.Width", X = test[1:5, -5], grid = c(0.5, 2))
  expect_equal(as.matrix(ice$data[ice$data$Petal.Width == 2, levels(iris$Species)]),
               predict(fit, transform(test[1:5, ], Petal.Width = 2), type = "prob"),
               ignore_attr = TRUE)
})

# Survival forests are explained by their risk (issue 36: every package
# stopped with 'type = "prob" is not for survival forests', and DALEX called
# the forest a classifier).

survival_fits <- function() {
  v <- survival::veteran
  m <- survival::mgus2
  cr <- data.frame(
    time = ifelse(m$pstat == 1, m$ptime, m$futime),
    event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    age = m$age, hgb = m$hgb, creat = m$creat
  )
  cr <- cr[stats::complete.cases(cr), ][1:300, ]
  list(
    v = v, cr = cr,
    one = ccforest(survival::Surv(time, status) ~ age + karno + diagtime, data = v, n_tree = 10,
                   seed = 1),
    competing = ccforest(survival::Surv(time, event) ~ age + hgb + creat, data = cr, n_tree = 10,
                         seed = 1)
  )
}

test_that("ccforest_numeric_predictions() of a survival forest is its risk, per cause", {
  s <- survival_fits()
  expect_identical(ccforest_numeric_predictions(s$one, s$v[1:4, ]),
                   unname(predict(s$one, s$v[1:4, ], type = "risk")))
  risk <- ccforest_numeric_predictions(s$competing, s$cr[1:4, ])
  expect_identical(colnames(risk), c("risk.pcm", "risk.death"))
  expect_identical(unname(risk), unname(predict(s$competing, s$cr[1:4, ])))
})

test_that("pdp explains a survival forest's risk, and asks competing risks for the cause", {
  skip_if_not_installed("pdp")
  s <- survival_fits()
  grid <- data.frame(karno = c(30, 60, 90))
  pd <- pdp::partial(s$one, "karno", train = s$v, pred.grid = grid)
  by_hand <- vapply(grid$karno, function(k) {
    d <- s$v
    d$karno <- k
    mean(predict(s$one, d))
  }, numeric(1))
  expect_equal(pd$yhat, by_hand)
  expect_error(pdp::partial(s$competing, "age", train = s$cr, pred.grid = data.frame(age = 60)),
               paste0("pdp explains one number per row, but this competing-risks forest has a ",
                      "risk per cause \\(`pcm`, `death`\\). Choose the cause with ",
                      "attr\\(fit, \"predict_function_target_column\"\\) <- \"pcm\""))
  chosen <- s$competing
  attr(chosen, "predict_function_target_column") <- "death"
  pd <- pdp::partial(chosen, "age", train = s$cr, pred.grid = data.frame(age = 60))
  d <- s$cr
  d$age <- 60
  expect_equal(pd$yhat, mean(predict(s$competing, d)[, "death"]))
  attr(chosen, "predict_function_target_column") <- "stroke"
  expect_error(pdp::partial(chosen, "age", train = s$cr, pred.grid = data.frame(age = 60)),
               "`predict_function_target_column` must name a cause of the forest")
})

test_that("DALEX explains a survival forest's risk as a regression", {
  skip_if_not_installed("DALEX")
  s <- survival_fits()
  expect_identical(DALEX::model_info(s$one)$type, "regression")
  ex <- DALEX::explain(s$one, data = s$v[c("age", "karno", "diagtime")], y = s$v$time,
                       verbose = FALSE)
  expect_equal(predict(ex, s$v[1:5, ]), unname(predict(s$one, s$v[1:5, ])))
  # Permutation importance with a loss of the user's (here: how well the
  # risk ranks the times, censoring aside).
  parts <- DALEX::model_parts(ex, B = 1, N = NULL, variables = c("karno", "age"),
                              loss_function = function(y, p) stats::cor(y, p, method = "spearman"))
  expect_s3_class(parts, "model_parts")
  expect_setequal(intersect(parts$variable, c("karno", "age")), c("karno", "age"))
  chosen <- s$competing
  attr(chosen, "predict_function_target_column") <- "pcm"
  ex <- DALEX::explain(chosen, data = s$cr[c("age", "hgb", "creat")], verbose = FALSE)
  expect_equal(predict(ex, s$cr[1:5, ]), unname(predict(s$competing, s$cr[1:5, ])[, "pcm"]))
})

test_that("kernelshap and hstats explain a survival forest's risk, every cause at once", {
  skip_if_not_installed("kernelshap")
  skip_if_not_installed("hstats")
  s <- survival_fits()
  x <- s$v[c("age", "karno", "diagtime")]
  shap <- kernelshap::permshap(s$one, x[1:3, ], bg_X = x[seq(1, 137, by = 4), ], verbose = FALSE)
  expect_equal(rowSums(shap$S) + mean(predict(s$one, x[seq(1, 137, by = 4), ])),
               unname(predict(s$one, x[1:3, ])), tolerance = 1e-8)
  cx <- s$cr[c("age", "hgb", "creat")]
  shap <- kernelshap::permshap(s$competing, cx[1:2, ], bg_X = cx[1:40, ], verbose = FALSE)
  expect_named(shap$S, c("risk.pcm", "risk.death"))
  pd <- hstats::partial_dep(s$one, v = "karno", X = x, grid = c(30, 90))
  ours <- partial_dependence(s$one, s$v, "karno", grid = c(30, 90))
  expect_equal(pd$data$y, ours$risk)
})

test_that("iml explains a survival forest's risk as a regression", {
  skip_if_not_installed("iml")
  s <- survival_fits()
  x <- s$v[c("age", "karno", "diagtime")]
  pred <- iml::Predictor$new(s$one, data = x)
  expect_identical(pred$task, "regression")
  expect_equal(pred$predict(x[1:3, ])[[1]], unname(predict(s$one, x[1:3, ])))
})
