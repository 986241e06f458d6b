# The log-rank stopping rule of survival forests (min_statistic): its
# defaults, what it does to the trees, and its messages.

stopping_mgus <- function() {
  m <- survival::mgus2
  d <- data.frame(
    time = ifelse(m$pstat == 1, m$ptime, m$futime),
    event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    age = m$age, hgb = m$hgb, creat = m$creat
  )
  d[stats::complete.cases(d), ][1:300, ]
}

test_that("min_statistic defaults to the 5% critical value for one cause, else 0", {
  v <- survival::veteran
  fit <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1)
  expect_identical(fit$options$min_statistic, stats::qchisq(0.95, 1))
  # Not measured for competing risks, and not the paper's: both split as 0.3.0 did.
  competing <- ccforest(survival::Surv(time, event) ~ ., stopping_mgus(), n_tree = 2, seed = 1,
                        n_thread = 1)
  expect_identical(competing$options$min_statistic, 0)
  paper <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
                    variant = "paper")
  expect_identical(paper$options$min_statistic, 0)
  given <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
                    min_statistic = 2L)
  expect_identical(given$options$min_statistic, 2)
})

test_that("a statistic no split reaches leaves each tree one Kaplan-Meier curve", {
  v <- survival::veteran
  fit <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 5, seed = 2, n_thread = 1,
                  min_statistic = 1e6)
  for (t in 1:5) {
    info <- tree_info(fit, t)
    expect_identical(nrow(info), 1L)
    expect_true(info$terminal[[1]])
  }
  # Every row then gets the same curve, whatever its features.
  s <- predict(fit, v, type = "survival", times = c(30, 90, 180))
  expect_true(all(abs(sweep(s, 2, s[1, ])) == 0))
  # Without the rule the same forest splits on veteran's strong signal.
  grown <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 5, seed = 2, n_thread = 1,
                    min_statistic = 0)
  expect_gt(nrow(tree_info(grown, 1)), 1L)
  s0 <- predict(grown, v, type = "survival", times = c(30, 90, 180))
  expect_gt(max(apply(s0, 2, stats::sd)), 0.05)
})

test_that("a larger min_statistic grows fewer leaves on noise", {
  set.seed(38)
  n <- 200
  d <- data.frame(time = stats::rexp(n), status = stats::rbinom(n, 1, 0.7),
                  a = stats::rnorm(n), b = stats::rnorm(n), c = stats::rnorm(n))
  leaves <- function(min_statistic) {
    fit <- ccforest(survival::Surv(time, status) ~ ., d, n_tree = 20, seed = 3, n_thread = 1,
                    min_statistic = min_statistic)
    sum(vapply(1:20, function(t) sum(tree_info(fit, t)$terminal), numeric(1)))
  }
  counts <- vapply(c(0, stats::qchisq(0.95, 1), stats::qchisq(0.999, 1)), leaves, numeric(1))
  # The features are noise: the test at 5% stops splits that min_leaf alone
  # would allow, and a stricter one more.
  expect_lt(counts[[2]], counts[[1]])
  expect_lt(counts[[3]], counts[[2]])
})

test_that("min_statistic is checked, and refused outside survival", {
  v <- survival::veteran
  fit <- function(value) {
    ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
             min_statistic = value)
  }
  expect_error(fit(-1), "`min_statistic` must be a single finite number >= 0, not -1.",
               fixed = TRUE)
  expect_error(fit("a"), "`min_statistic` must be a single finite number >= 0, not a character",
               fixed = TRUE)
  expect_error(fit(NA), "`min_statistic` must be a single finite number >= 0, not NA.", fixed = TRUE)
  expect_error(fit(c(1, 2)), "not a double vector of length 2", fixed = TRUE)
  expect_error(fit(Inf), "`min_statistic` must be a single finite number >= 0, not Inf.",
               fixed = TRUE)
  expect_error(ccforest(Species ~ ., iris, n_tree = 2, min_statistic = 1),
               "`min_statistic` is for survival forests, but `y` gives a classification forest; drop it.",
               fixed = TRUE)
  expect_error(ccforest(Sepal.Length ~ ., iris, n_tree = 2, min_statistic = 1),
               "`min_statistic` is for survival forests, but `y` gives a regression forest; drop it.",
               fixed = TRUE)
})
