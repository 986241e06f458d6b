# The training rows' curves behind a survival forest's out-of-bag scores
# (censoring survival, null incidence) and the integrated Brier score,
# computed in C++ (src/survival_curves.cpp, src/brier.cpp): bitwise what
# the R code they replaced gave (kept here as the reference), and the
# Kaplan-Meier estimates of survival::survfit() within rounding.

ns <- asNamespace("ccforest")

reference_censoring <- function(time, status) {
  u <- sort(unique(time))
  censored <- tabulate(match(time[status == 0L], u), length(u))
  events <- tabulate(match(time[status > 0L], u), length(u))
  at_risk <- rev(cumsum(rev(tabulate(match(time, u), length(u)))))
  free <- at_risk - events
  list(time = u, surv = cumprod(ifelse(free > 0, 1 - censored / pmax(free, 1), 1)))
}

reference_null <- function(time, status, n_cause, times) {
  u <- sort(unique(time[status > 0L]))
  at_risk <- length(time) - findInterval(u, sort(time), left.open = TRUE)
  ended <- status > 0L
  events <- matrix(tabulate(match(time[ended], u) + length(u) * (status[ended] - 1L),
                            length(u) * n_cause), length(u), n_cause)
  s <- 1
  cif <- matrix(0, length(u), n_cause)
  running <- numeric(n_cause)
  for (k in seq_along(u)) {
    d <- events[k, ]
    running <- running + s * d / at_risk[[k]]
    cif[k, ] <- running
    s <- s * (1 - sum(d) / at_risk[[k]])
  }
  rbind(0, cif)[findInterval(times, u) + 1L, , drop = FALSE]
}

reference_brier <- function(cif, time, status, cause, times, G) {
  at <- function(t, left = FALSE) c(1, G$surv)[findInterval(t, G$time, left.open = left) + 1L]
  g_event <- at(time, left = TRUE)
  g_times <- at(times)
  if (any(g_times <= 0)) return(NA_real_)
  event_weight <- ifelse(g_event > 0, 1 / g_event, 0)
  score <- vapply(seq_along(times), function(k) {
    t <- times[[k]]
    ended <- time <= t & status > 0L
    w <- ifelse(ended, event_weight, ifelse(time > t, 1 / g_times[[k]], 0))
    mean(w * ((ended & status == cause) - cif[, k])^2)
  }, numeric(1))
  if (length(times) == 1L) return(score)
  sum(diff(times) * (score[-1L] + score[-length(score)]) / 2) / (max(times) - min(times))
}

random_outcome <- function(n, n_cause, distinct) {
  time <- sample(distinct, n, replace = TRUE) * 0.37
  status <- sample(0:n_cause, n, replace = TRUE, prob = c(0.4, rep(0.6 / n_cause, n_cause)))
  list(time = time, status = status)
}

test_that("the censoring survival and the null incidence are bitwise the R code's", {
  set.seed(20)
  for (case in 1:60) {
    n <- sample(c(2, 5, 30, 200), 1)
    n_cause <- sample(1:3, 1)
    y <- random_outcome(n, n_cause, sample(c(3, 20, 1000), 1))
    times <- sort(c(stats::runif(7, -1, max(y$time) + 1), y$time[1:2]))
    expect_identical(ns$censoring_survival(y$time, y$status),
                     reference_censoring(y$time, y$status))
    expect_identical(ns$null_incidence(y$time, y$status, n_cause, times),
                     reference_null(y$time, y$status, n_cause, times))
  }
  # No event at all: zero incidence; no censoring: G stays 1.
  expect_identical(ns$null_incidence(c(1, 2, 3), c(0L, 0L, 0L), 2L, c(0.5, 4)),
                   matrix(0, 2, 2))
  expect_identical(ns$censoring_survival(c(3, 1, 2), c(1L, 1L, 1L)),
                   list(time = c(1, 2, 3), surv = c(1, 1, 1)))
})

test_that("the integrated Brier score is bitwise the R code's, NA where G reaches 0", {
  set.seed(21)
  for (case in 1:60) {
    n <- sample(c(3, 30, 200), 1)
    n_cause <- sample(1:2, 1)
    y <- random_outcome(n, n_cause, sample(c(5, 1000), 1))
    G <- ns$censoring_survival(y$time, y$status)
    q <- stats::quantile(y$time, c(0.1, 0.75), names = FALSE)
    times <- if (case %% 7 == 0) q[[1]] else seq(q[[1]], q[[2]], length.out = 50)
    cif <- matrix(stats::runif(n * length(times)), n)
    # A null model's one curve, given once, is every row's.
    curve <- matrix(stats::runif(length(times)), 1L)
    every_row <- curve[rep(1L, n), , drop = FALSE]
    for (cause in seq_len(n_cause)) {
      expect_identical(ns$integrated_brier(cif, y$time, y$status, cause, times, G),
                       reference_brier(cif, y$time, y$status, cause, times, G))
      expect_identical(ns$integrated_brier(curve, y$time, y$status, cause, times, G),
                       reference_brier(every_row, y$time, y$status, cause, times, G))
    }
  }
  # The last row censored last: G is 0 from its time on.
  time <- c(1, 2, 3, 4)
  status <- c(1L, 0L, 1L, 0L)
  G <- ns$censoring_survival(time, status)
  expect_identical(ns$integrated_brier(matrix(0.5, 4, 2), time, status, 1L, c(2, 4), G), NA_real_)
  expect_false(is.na(ns$integrated_brier(matrix(0.5, 4, 2), time, status, 1L, c(1, 3), G)))
})

test_that("the Brier score's times are quantile()'s percentiles, bitwise", {
  set.seed(22)
  for (case in 1:300) {
    n <- sample(c(1:4, 10, 37, 500), 1)
    time <- switch(case %% 4 + 1, stats::rexp(n), round(stats::rexp(n) * 10),
                   sample.int(20L, n, replace = TRUE), rep(3.5, n))
    q <- stats::quantile(time, c(0.10, 0.75), names = FALSE, type = 7)
    expected <- if (q[[2]] > q[[1]]) seq(q[[1]], q[[2]], length.out = 50L) else q[[1]]
    expect_identical(ns$brier_times(time), expected)
  }
})

test_that("Harrell's C's pair counts are those of every pair compared in R", {
  set.seed(23)
  for (case in 1:40) {
    n <- sample(c(2, 15, 120), 1)
    time <- sample.int(max(2L, n %/% 3L), n, replace = TRUE)
    event <- stats::runif(n) < 0.6
    risk <- round(stats::runif(n) * 5) / 5
    outlived <- outer(time, time, function(ti, tj) tj > ti) |
      (outer(time, time, `==`) & matrix(!event, n, n, byrow = TRUE))
    pair <- outlived & event
    above <- outer(risk, risk, `>`)
    below <- outer(risk, risk, `<`)
    expect_identical(ns$ccf_concordance_counts_cpp(risk, time, event),
                     c(sum(pair & above), sum(pair & below), sum(pair & !above & !below)) + 0)
  }
})

test_that("the curves agree with survival::survfit()'s Kaplan-Meier estimates", {
  lung <- survival::lung
  status <- as.integer(lung$status == 2)
  times <- c(0, 100, 365, 500, 1000)
  km <- survival::survfit(survival::Surv(time, status) ~ 1, data = data.frame(time = lung$time,
                                                                               status = status))
  expect_equal(1 - ns$null_incidence(lung$time, status, 1L, times)[, 1],
               summary(km, times = times, extend = TRUE)$surv, tolerance = 1e-12)
  # Censoring as the event, the rows' events moved just before their times
  # (events come first at a shared time: they are no longer at risk of
  # censoring there), by 0.01 day: survfit() merges times closer than about
  # 1e-8 of them.
  G <- ns$censoring_survival(lung$time, status)
  expect_gt(sum(G$time %in% lung$time[status == 1] & G$time %in% lung$time[status == 0]), 0)
  shifted <- data.frame(time = lung$time - ifelse(status == 1, 0.01, 0), censored = 1 - status)
  reverse <- survival::survfit(survival::Surv(time, censored) ~ 1, data = shifted)
  expect_equal(G$surv, summary(reverse, times = G$time, extend = TRUE)$surv, tolerance = 1e-12)
})
