# The survival kernels against survival's own estimators: the log-rank
# split statistic (survdiff), the martingale residuals the CCA is fitted
# against (coxph at beta = 0), a leaf's cumulative hazard (survfit's
# Nelson-Aalen), and single-leaf forests (Kaplan-Meier, Nelson-Aalen,
# Aalen-Johansen).

skip_if_not_installed("survival")
library(survival)

# lung's complete rows, status 0/1; many tied times.
lung_data <- function() {
  d <- stats::na.omit(survival::lung[, c("time", "status", "age", "sex", "ph.ecog", "ph.karno",
                                         "wt.loss")])
  d$status <- d$status - 1L
  rownames(d) <- NULL
  d
}

# The core's view of an outcome: each row's rank among the distinct event
# times (-1 before the first) and its event (0 censored, else the cause).
ranks_of <- function(time, event) {
  event_times <- sort(unique(time[event > 0]))
  findInterval(time, event_times) - 1L
}

logrank <- function(time, event, u, cut, weights = numeric(0), n_cause = 1L, min_events = 1L) {
  ccforest:::ccf_logrank_cpp(ranks_of(time, event), as.integer(event), as.double(weights),
                             as.double(u), cut, n_cause, min_events)
}

test_that("a split's log-rank statistic is survdiff's chi-square, ties included", {
  d <- lung_data()
  expect_gt(anyDuplicated(d$time), 0)  # tied times
  for (cut in c(55, 62, 70)) {
    ours <- logrank(d$time, d$status, d$age, cut)$gain
    theirs <- survdiff(Surv(time, status) ~ I(age < cut), data = d)$chisq
    expect_equal(ours, theirs, tolerance = 1e-10)
  }
  v <- survival::veteran
  ours <- logrank(v$time, v$status, v$karno, 45)$gain
  expect_equal(ours, survdiff(Surv(time, status) ~ I(karno < 45), data = v)$chisq,
               tolerance = 1e-10)
})

test_that("whole-number weights give the statistic of repeated rows", {
  d <- lung_data()
  w <- rep(c(1, 2, 3), length.out = nrow(d))
  repeated <- d[rep(seq_len(nrow(d)), w), ]
  ours <- logrank(d$time, d$status, d$age, 62, weights = w)$gain
  expect_equal(ours, survdiff(Surv(time, status) ~ I(age < 62), data = repeated)$chisq,
               tolerance = 1e-10)
})

test_that("the sweep finds the best cut of a brute force over survdiff", {
  d <- lung_data()
  for (min_events in c(1L, 5L)) {
    values <- sort(unique(d$ph.karno))
    cuts <- (values[-1] + values[-length(values)]) / 2
    chisq <- vapply(cuts, function(cut) {
      left <- d$ph.karno < cut
      if (sum(d$status[left]) < min_events || sum(d$status[!left]) < min_events) return(NA_real_)
      survdiff(Surv(time, status) ~ left, data = d)$chisq
    }, numeric(1))
    best <- logrank(d$time, d$status, d$ph.karno, 0, min_events = min_events)
    expect_equal(best$best_gain, max(chisq, na.rm = TRUE), tolerance = 1e-10)
    expect_equal(best$best_n_left, sum(d$ph.karno < cuts[which.max(chisq)]))
  }
})

test_that("a cut leaving fewer events than min_events on a side has no gain", {
  d <- lung_data()
  cut <- sort(d$age)[3]  # two rows left
  expect_equal(logrank(d$time, d$status, d$age, cut, min_events = 5L)$gain, -Inf)
})

test_that("with competing risks the statistic sums the causes' log-rank tests", {
  set.seed(1)
  n <- 300
  x <- stats::rnorm(n)
  time <- round(stats::rexp(n, exp(0.5 * x)), 2)  # rounded: ties
  event <- sample(0:2, n, replace = TRUE, prob = c(0.3, 0.4, 0.3))
  ours <- logrank(time, event, x, 0.2, n_cause = 2L)$gain
  theirs <- survdiff(Surv(time, event == 1) ~ I(x < 0.2))$chisq +
    survdiff(Surv(time, event == 2) ~ I(x < 0.2))$chisq
  expect_equal(ours, theirs, tolerance = 1e-10)
})

test_that("the CCA's response is coxph's martingale residuals at beta = 0", {
  d <- lung_data()
  ours <- ccforest:::ccf_martingale_residuals_cpp(ranks_of(d$time, d$status), d$status,
                                                  numeric(0), 1L, 1L)
  cox <- coxph(Surv(time, status) ~ age, data = d, init = 0, iter.max = 0, ties = "breslow")
  expect_equal(ours[, 1], unname(residuals(cox, type = "martingale")), tolerance = 1e-12)
  # Over periods of the node's event times, the columns add up to them.
  three <- ccforest:::ccf_martingale_residuals_cpp(ranks_of(d$time, d$status), d$status,
                                                   numeric(0), 1L, 3L)
  expect_equal(dim(three), c(nrow(d), 3L))
  expect_equal(rowSums(three), ours[, 1], tolerance = 1e-12)
  # Competing risks: one column per cause, each cause's own residuals.
  event <- rep(c(0L, 1L, 2L), length.out = nrow(d)) * d$status
  two <- ccforest:::ccf_martingale_residuals_cpp(ranks_of(d$time, event), event, numeric(0),
                                                 2L, 1L)
  for (k in 1:2) {
    cox <- coxph(Surv(d$time, event == k) ~ d$age, init = 0, iter.max = 0, ties = "breslow")
    expect_equal(two[, k], unname(residuals(cox, type = "martingale")), tolerance = 1e-12)
  }
})

test_that("a leaf's cumulative hazard is survfit's Nelson-Aalen on the leaf's rows", {
  d <- lung_data()
  fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 1, max_depth = 2,
                  sampling = "projection", seed = 3)
  nodes <- predict(fit, d, type = "terminal_nodes")[, 1]
  expect_gt(length(unique(nodes)), 1L)
  event_times <- sort(unique(d$time[d$status == 1]))
  chf <- predict(fit, d, type = "chf", times = event_times)
  for (leaf in unique(nodes)) {
    rows <- which(nodes == leaf)
    na <- survfit(Surv(time, status) ~ 1, data = d[rows, ], ctype = 1)
    reference <- stats::stepfun(na$time, c(0, na$cumhaz))(event_times)
    for (i in rows) expect_equal(unname(chf[i, ]), reference, tolerance = 1e-12)
  }
})

test_that("a forest of single leaves on every row is Kaplan-Meier and Nelson-Aalen", {
  d <- lung_data()
  expect_warning(
    fit <- ccforest(Surv(time, status) ~ ., data = d, n_tree = 3, min_split = nrow(d) + 1,
                    sampling = "projection", seed = 1),
    "min_split")
  times <- c(0, 5, 100, 310.5, 500, 1022, 5000)
  km <- survfit(Surv(time, status) ~ 1, data = d)
  surv <- predict(fit, d[1:4, ], type = "survival", times = times)
  expect_equal(unname(surv[1, ]), summary(km, times = times, extend = TRUE)$surv,
               tolerance = 1e-12)
  expect_equal(surv[2, ], surv[1, ])
  na <- survfit(Surv(time, status) ~ 1, data = d, ctype = 1)
  chf <- predict(fit, d[1:2, ], type = "chf", times = times)
  expect_equal(unname(chf[1, ]), stats::stepfun(na$time, c(0, na$cumhaz))(times),
               tolerance = 1e-12)
})

test_that("a forest of single leaves on every row is Aalen-Johansen's estimate", {
  m <- survival::mgus2
  d <- data.frame(
    time = ifelse(m$pstat == 1, m$ptime, m$futime),
    event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    age = m$age, hgb = m$hgb
  )
  d <- d[stats::complete.cases(d), ]
  expect_warning(
    fit <- ccforest(Surv(time, event) ~ ., data = d, n_tree = 2, min_split = nrow(d) + 1,
                    sampling = "projection", seed = 1),
    "min_split")
  times <- c(1, 12, 60, 120, 240, 500)
  cif <- predict(fit, d[1:2, ], type = "cif", times = times)
  expect_equal(dim(cif), c(2L, length(times), 2L))
  expect_equal(dimnames(cif)[[3]], c("pcm", "death"))
  aj <- summary(survfit(Surv(time, event) ~ 1, data = d), times = times, extend = TRUE)
  for (cause in c("pcm", "death")) {
    expect_equal(unname(cif[1, , cause]), unname(aj$pstate[, match(cause, aj$states)]),
                 tolerance = 1e-12)
  }
  surv <- predict(fit, d[1, ], type = "survival", times = times)
  expect_equal(unname(surv[1, ]), unname(aj$pstate[, match("(s0)", aj$states)]),
               tolerance = 1e-12)
})
