# The default of min_events for survival forests: the square root of the
# training rows with an event for one cause (issue 38), 1 otherwise.

test_that("min_events defaults to ceiling(sqrt(events)) for one cause, else 1", {
  v <- survival::veteran
  fit <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1)
  # 128 deaths: ceiling(11.31) = 12.
  expect_identical(sum(v$status), 128)
  expect_identical(fit$options$min_events, 12L)
  # Rows of weight 0 are not trained on, so their events do not count:
  # 100 events left give 10.
  w <- rep(1, nrow(v))
  w[which(v$status == 1)[1:28]] <- 0
  weighted <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
                       case_weights = w)
  expect_identical(weighted$options$min_events, 10L)
  # Competing risks and the paper's variant keep 1, as 0.3.0 did.
  m <- survival::mgus2
  d <- data.frame(
    time = ifelse(m$pstat == 1, m$ptime, m$futime),
    event = factor(ifelse(m$pstat == 1, 1L, 2L * m$death), 0:2, c("censor", "pcm", "death")),
    age = m$age, hgb = m$hgb
  )
  d <- d[stats::complete.cases(d), ][1:300, ]
  competing <- ccforest(survival::Surv(time, event) ~ ., d, n_tree = 2, seed = 1, n_thread = 1)
  expect_identical(competing$options$min_events, 1L)
  paper <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
                    variant = "paper")
  expect_identical(paper$options$min_events, 1L)
  given <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 2, seed = 1, n_thread = 1,
                    min_events = 3)
  expect_identical(given$options$min_events, 3L)
})

test_that("the default forest's leaves each hold the default's events", {
  # Projection bootstrapping grows each tree on every row, so the training
  # rows' terminal nodes are the trees' leaves with all their rows; small
  # row limits leave min_events (12 for veteran's 128 deaths) to bind.
  v <- survival::veteran
  fit <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 5, seed = 3, n_thread = 1,
                  min_leaf = 1, min_split = 2, min_statistic = 0, sampling = "projection")
  nodes <- predict(fit, v, type = "terminal_nodes")
  events <- unlist(lapply(seq_len(ncol(nodes)), function(t) tapply(v$status, nodes[, t], sum)))
  expect_gte(min(events), 12)
  # With min_events = 1 the same trees grow leaves of fewer events.
  one <- ccforest(survival::Surv(time, status) ~ ., v, n_tree = 5, seed = 3, n_thread = 1,
                  min_leaf = 1, min_split = 2, min_statistic = 0, sampling = "projection",
                  min_events = 1)
  nodes1 <- predict(one, v, type = "terminal_nodes")
  events1 <- unlist(lapply(seq_len(ncol(nodes1)), function(t) tapply(v$status, nodes1[, t], sum)))
  expect_lt(min(events1), 12)
  expect_gt(length(events1), length(events))
})
