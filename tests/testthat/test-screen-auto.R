# feature_weights = "auto", the default: the forest samples features by their
# screening R^2 to the 4th power, with random axis candidates, when few
# features stand out from what noise reaches, or when p >= 10 n; otherwise
# uniformly, as before 0.4.0.

# The screen's R^2 computed here, independently of the core: the one-way
# analysis of variance's R^2 of each feature on the classes.
class_r2 <- function(x, y) {
  indicators <- scale(stats::model.matrix(~ y - 1), scale = FALSE)
  q <- qr(indicators, tol = 1e-9)
  basis <- qr.Q(q)[, seq_len(q$rank), drop = FALSE]
  centred <- scale(x, scale = FALSE)
  pmin(colSums(crossprod(basis, centred)^2) / colSums(centred^2), 1)
}

# The rule, written from its documentation: Bonferroni at 0.05 under the
# Beta(k / 2, (n - 1 - k) / 2) null of a noise feature's R^2.
reference_rule <- function(r2, n, k, mtry) {
  p <- length(r2)
  # Nothing to decide: every feature is sampled, or no rows are left for the null.
  if (mtry >= p || n <= k + 1) return(list(acts = FALSE, standing_out = 0, threshold = 1))
  threshold <- stats::qbeta(0.05 / p, k / 2, (n - 1 - k) / 2, lower.tail = FALSE)
  s <- sum(r2 > threshold)
  list(acts = mtry < p && s > 0 && (mtry * s < p / 2 || p >= 10 * n), standing_out = s,
       threshold = threshold)
}

# A sparse signal: 3 of 300 features.
sparse_data <- function() wide_data(n = 200, p = 300, seed = 3811)

test_that("the null's Beta tail and quantile are R's pbeta() and qbeta()", {
  for (ab in list(c(0.5, 399.5), c(1.5, 40), c(2, 2), c(5, 0.7), c(0.5, 10000))) {
    x <- c(1e-6, 0.001, 0.02, 0.1, 0.3, 0.5, 0.9, 0.999)
    tails <- c(0.5, 0.05, 1e-3, 1e-6, 1e-9)
    got <- ccforest:::ccf_beta_tail_cpp(x, tails, ab[[1]], ab[[2]])
    expect_equal(got$upper, stats::pbeta(x, ab[[1]], ab[[2]], lower.tail = FALSE), tolerance = 1e-10)
    expect_equal(got$quantile, stats::qbeta(tails, ab[[1]], ab[[2]], lower.tail = FALSE),
                 tolerance = 1e-9)
  }
  ends <- ccforest:::ccf_beta_tail_cpp(c(0, 1, -1, 2), numeric(0), 1, 3)$upper
  expect_identical(ends, c(1, 0, 1, 0))
})

test_that("the core's rule is the documented one", {
  set.seed(3812)
  decide <- ccforest:::ccf_decide_screen_cpp
  for (trial in 1:40) {
    p <- sample(c(20, 200, 2000), 1)
    n <- sample(c(15, 60, 400), 1)
    k <- sample(1:3, 1)
    mtry <- sample(c(3, 12, p), 1)
    signal <- sample(c(0, 2, 50, p %/% 2), 1)
    r2 <- stats::rbeta(p, k / 2, (n - 1 - k) / 2)
    r2[seq_len(signal)] <- stats::runif(signal, 0.3, 0.9)
    got <- decide(r2, n, k, mtry)
    want <- reference_rule(r2, n, k, mtry)
    expect_identical(got$acts, want$acts)
    expect_identical(as.integer(got$standing_out), as.integer(want$standing_out))
    expect_equal(got$threshold, want$threshold, tolerance = 1e-9)
  }
  # The branches one by one: sparse, wide, dense, every feature sampled,
  # nothing stands out, no degrees of freedom left for the null.
  r2 <- c(0.9, rep(0.001, 99))
  expect_true(decide(r2, 100, 1, 8)$acts)
  dense <- c(rep(0.5, 20), rep(0.001, 80))
  expect_false(decide(dense, 100, 1, 8)$acts)
  expect_true(decide(c(rep(0.97, 20), rep(0.001, 80)), 10, 1, 8)$acts)
  expect_false(decide(c(rep(0.97, 20), rep(0.001, 80)), 11, 1, 8)$acts)
  expect_false(decide(r2, 100, 1, 100)$acts)
  expect_false(decide(rep(0.001, 100), 100, 1, 8)$acts)
  expect_identical(decide(rep(0.001, 100), 100, 1, 8)$standing_out, 0)
  expect_false(decide(r2, 2, 1, 8)$acts)
})

test_that("on a sparse signal the default forest samples by R^2 to the 4th power, with random axes", {
  d <- sparse_data()
  auto <- ccforest(d$x, d$y, n_tree = 8, seed = 21, verbose = FALSE)
  r2 <- class_r2(d$x, d$y)
  expect_equal(unname(auto$options$feature_weights), unname(r2^4 / max(r2^4)), tolerance = 1e-10)
  expect_identical(auto$options$axis_candidates, "random")
  given <- ccforest(d$x, d$y, n_tree = 8, seed = 21, feature_weights = auto$options$feature_weights,
                    axis_candidates = "random", verbose = FALSE)
  expect_identical(auto$forest$trees, given$forest$trees)
  expect_identical(predict(auto, d$x), predict(given, d$x))
  # An axis_candidates the user gives is kept.
  none <- ccforest(d$x, d$y, n_tree = 8, seed = 21, axis_candidates = "none", verbose = FALSE)
  expect_identical(none$options$axis_candidates, "none")
  expect_identical(none$options$feature_weights, auto$options$feature_weights)
  want <- reference_rule(r2, nrow(d$x), 1, auto$options$mtry)
  expect_true(want$acts)
  expect_true(auto$options$screen_rule$acts)
  expect_identical(auto$options$screen_rule$standing_out, as.integer(want$standing_out))
  expect_equal(auto$options$screen_rule$threshold, want$threshold, tolerance = 1e-9)
})

test_that("where the rule does not act the forest is the one uniform sampling grows", {
  # iris: every feature stands out, a dense signal.
  auto <- ccforest(Species ~ ., iris, n_tree = 6, seed = 22, verbose = FALSE)
  uniform <- ccforest(Species ~ ., iris, n_tree = 6, seed = 22, feature_weights = NULL,
                      verbose = FALSE)
  expect_identical(auto$forest$trees, uniform$forest$trees)
  expect_false(auto$options$screen_rule$acts)
  expect_null(auto$options$feature_weights)
  expect_identical(auto$options$axis_candidates, "none")
  expect_false(any(grepl("Feature weights", capture.output(print(auto)))))
  # A wide design whose signal is spread over most features.
  set.seed(3813)
  z <- stats::rnorm(300)
  x <- sapply(1:60, function(j) z + stats::rnorm(300))
  colnames(x) <- paste0("v", 1:60)
  y <- factor(z + stats::rnorm(300, sd = 0.5) > 0)
  auto <- ccforest(x, y, n_tree = 6, seed = 23, verbose = FALSE)
  uniform <- ccforest(x, y, n_tree = 6, seed = 23, feature_weights = NULL, verbose = FALSE)
  expect_false(auto$options$screen_rule$acts)
  expect_gt(auto$options$screen_rule$standing_out, 30)
  expect_identical(auto$forest$trees, uniform$forest$trees)
  # Regression with several outputs, where nothing stands out.
  set.seed(3814)
  x <- matrix(stats::rnorm(100 * 30), 100, 30)
  y <- data.frame(a = stats::rnorm(100), b = stats::rnorm(100))
  auto <- ccforest(x, y, n_tree = 4, seed = 24, verbose = FALSE)
  uniform <- ccforest(x, y, n_tree = 4, seed = 24, feature_weights = NULL, verbose = FALSE)
  expect_identical(auto$forest$trees, uniform$forest$trees)
  expect_false(auto$options$screen_rule$acts)
})

test_that("the rule acts on data much wider than long, and on a regression's sparse signal", {
  set.seed(3815)
  n <- 40
  x <- matrix(stats::rnorm(n * 500), n, 500, dimnames = list(NULL, paste0("g", 1:500)))
  shift <- rep(c(-1, 1), each = n / 2)
  x[, 1:100] <- x[, 1:100] + 1.5 * shift
  y <- factor(shift)
  fit <- ccforest(x, y, n_tree = 4, seed = 25, verbose = FALSE)
  want <- reference_rule(class_r2(x, y), n, 1, fit$options$mtry)
  # 100 of 500 stand out, more than p / mtry: acting is the wide branch's doing.
  expect_gt(want$standing_out * fit$options$mtry, 500)
  expect_true(want$acts)
  expect_true(fit$options$screen_rule$acts)
  set.seed(3816)
  x <- matrix(stats::rnorm(300 * 200), 300, 200)
  y <- x[, 5] * 2 + stats::rnorm(300)
  fit <- ccforest(x, y, n_tree = 4, seed = 26, verbose = FALSE)
  expect_true(fit$options$screen_rule$acts)
  expect_identical(unname(which.max(fit$options$feature_weights)), 5L)
})

test_that("the default forest is the same on any number of threads and with futures", {
  d <- sparse_data()
  one <- ccforest(d$x, d$y, n_tree = 10, seed = 27, n_thread = 1, verbose = FALSE)
  two <- ccforest(d$x, d$y, n_tree = 10, seed = 27, n_thread = 2, verbose = FALSE)
  expect_true(one$options$screen_rule$acts)
  expect_identical(one$forest$trees, two$forest$trees)
  part <- ccforest(d$x, d$y, n_tree = 5, seed = 27, first_tree = 6, verbose = FALSE)
  first <- ccforest(d$x, d$y, n_tree = 5, seed = 27, verbose = FALSE)
  expect_identical(combine_forests(first, part)$forest$trees, one$forest$trees)
  skip_if_not_installed("future", "1.49.0")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  futures <- ccforest(d$x, d$y, n_tree = 10, seed = 27, backend = "future", n_batch = 2,
                      verbose = FALSE)
  expect_identical(futures$forest$trees, one$forest$trees)
})

test_that("print() and summary() say when the screen acted", {
  d <- sparse_data()
  fit <- ccforest(d$x, d$y, n_tree = 2, seed = 28, verbose = FALSE)
  rule <- fit$options$screen_rule
  line <- sprintf(paste0("Feature weights: +\"auto\": screened, R\\^2 to the 4th power \\(%d of 300 ",
                         "features stand out from noise"),
                  rule$standing_out)
  expect_output(print(fit), line)
  expect_output(print(fit), "highest: g", fixed = TRUE)
  expect_output(print(fit), "axis_candidates = \"random\"", fixed = TRUE)
  expect_output(print(summary(fit)), line)
})

test_that("survival forests and the paper's variant sample uniformly under \"auto\"", {
  skip_if_not_installed("survival")
  auto <- ccforest(survival::Surv(time, status) ~ age + karno + diagtime, data = survival::veteran,
                   n_tree = 3, seed = 29, feature_weights = "auto", verbose = FALSE)
  uniform <- ccforest(survival::Surv(time, status) ~ age + karno + diagtime, data = survival::veteran,
                      n_tree = 3, seed = 29, feature_weights = NULL, verbose = FALSE)
  expect_identical(auto$forest$trees, uniform$forest$trees)
  expect_null(auto$options$screen_rule)
  d <- sparse_data()
  paper <- ccforest(d$x, d$y, n_tree = 3, seed = 30, variant = "paper", verbose = FALSE)
  given <- ccforest(d$x, d$y, n_tree = 3, seed = 30, variant = "paper", feature_weights = "auto",
                    verbose = FALSE)
  expect_identical(paper$forest$trees, given$forest$trees)
  expect_null(paper$options$screen_rule)
  expect_null(paper$options$feature_weights)
})

test_that("a sparse dgCMatrix gets the same decision and forest as its dense copy", {
  skip_if_not_installed("Matrix")
  set.seed(3817)
  x <- Matrix::rsparsematrix(300, 400, 0.3)
  colnames(x) <- paste0("f", 1:400)
  y <- factor(as.numeric(x[, 1] + x[, 2]) + stats::rnorm(300, sd = 0.1) > 0)
  sparse <- ccforest(x, y, n_tree = 6, seed = 31, verbose = FALSE)
  dense <- ccforest(as.matrix(x), y, n_tree = 6, seed = 31, verbose = FALSE)
  expect_true(sparse$options$screen_rule$acts)
  expect_identical(sparse$options$screen_rule, dense$options$screen_rule)
  expect_identical(predict(sparse, x), predict(dense, as.matrix(x)))
})
