# Memory: the limit a fit must fit in, the forest's size extrapolated from the
# trees grown so far, the refusal when it would not fit, and no C++ memory
# left behind when R cannot allocate.

fake_root <- function(files) {
  root <- withr::local_tempdir(.local_envir = parent.frame())
  for (path in names(files)) {
    full <- file.path(root, path)
    dir.create(dirname(full), recursive = TRUE, showWarnings = FALSE)
    writeLines(files[[path]], full)
  }
  root
}

meminfo <- c("MemTotal:       25000000 kB", "MemFree:         1000000 kB",
             "MemAvailable:   20000000 kB")

test_that("available memory is the smaller of MemAvailable and the cgroup's room", {
  available <- ccforest:::available_memory
  # No cgroup limit: MemAvailable.
  root <- fake_root(list("proc/meminfo" = meminfo, "proc/self/cgroup" = "0::/user.slice",
                         "sys/fs/cgroup/user.slice/memory.max" = "max",
                         "sys/fs/cgroup/user.slice/memory.current" = "1000"))
  expect_equal(available(root), 20000000 * 1024)
  # cgroup v2 with a limit below the machine's memory: limit minus usage.
  root <- fake_root(list("proc/meminfo" = meminfo, "proc/self/cgroup" = "0::/job",
                         "sys/fs/cgroup/job/memory.max" = as.character(4 * 2^30),
                         "sys/fs/cgroup/job/memory.current" = as.character(2^30)))
  expect_equal(available(root), 3 * 2^30)
  # cgroup v1: memory.limit_in_bytes; "no limit" is a number near 2^63.
  root <- fake_root(list("proc/meminfo" = meminfo,
                         "proc/self/cgroup" = c("5:cpu,cpuacct:/a", "4:memory:/a"),
                         "sys/fs/cgroup/memory/a/memory.limit_in_bytes" = as.character(2^31),
                         "sys/fs/cgroup/memory/a/memory.usage_in_bytes" = as.character(2^30)))
  expect_equal(available(root), 2^30)
  root <- fake_root(list("proc/meminfo" = meminfo, "proc/self/cgroup" = "4:memory:/a",
                         "sys/fs/cgroup/memory/a/memory.limit_in_bytes" = "9223372036854771712"))
  expect_equal(available(root), 20000000 * 1024)
  # Nothing readable: unknown.
  expect_identical(available(withr::local_tempdir()), NA_real_)
})

test_that("options(ccforest.memory_limit) overrides the system and is checked", {
  withr::local_options(ccforest.memory_limit = 12345)
  expect_identical(ccforest:::memory_limit(), 12345)
  withr::local_options(ccforest.memory_limit = Inf)
  expect_identical(ccforest:::memory_limit(), Inf)
  withr::local_options(ccforest.memory_limit = -1)
  expect_error(ccforest:::memory_limit(),
               "`options\\(ccforest.memory_limit\\)` must be a single number of bytes > 0 \\(Inf: no limit\\), not -1")
  withr::local_options(ccforest.memory_limit = "a lot")
  expect_error(ccforest:::memory_limit(), "options\\(ccforest.memory_limit\\)")
})

# The extrapolated size of a forest, as the refusal reports it, in bytes.
reported_need <- function(message) {
  m <- regmatches(message, regexec("need about ([0-9.]+) (bytes|KB|MB|GB)", message))[[1]]
  as.numeric(m[[2]]) * 1024^(match(m[[3]], c("bytes", "KB", "MB", "GB")) - 1)
}

stored_bytes <- function(fit) sum(lengths(fit$forest$trees) + 56)

test_that("a forest that would not fit is refused after its first trees, with its size", {
  set.seed(1)
  d <- make_spiral(3000)
  fit <- ccforest(class ~ ., d, n_tree = 40, seed = 1, n_thread = 1)
  actual <- stored_bytes(fit)
  # What the fit sets aside for its out-of-bag estimates (it is bagged) is
  # not the trees' to use.
  extra <- sum(ccforest:::fit_extra_bytes(3000, 3000, 3, 40, 1, TRUE, FALSE, 1))
  withr::local_options(ccforest.memory_limit = extra + actual / 4)
  message <- tryCatch(ccforest(class ~ ., d, n_tree = 40, seed = 1, n_thread = 1),
                      error = conditionMessage)
  expect_match(message, "would need about .* for its 40 trees")
  expect_match(message, "Reduce `n_tree`")
  # The session is intact and nothing was assigned.
  expect_false(exists("refused", inherits = FALSE))
  withr::local_options(ccforest.memory_limit = extra + actual * 1.5)
  expect_s3_class(ccforest(class ~ ., d, n_tree = 40, seed = 1, n_thread = 1), "ccforest")
})

test_that("the extrapolated size is within 25% of the forest's size, whatever its shape", {
  set.seed(2)
  shapes <- list(
    spiral = list(formula = class ~ ., data = make_spiral(2000)),
    regression = list(formula = y ~ ., data = make_smooth(2000)),
    several_outputs = list(formula = cbind(y, z) ~ x1 + x2,
                           data = transform(make_smooth(1500), z = x1 * x2)),
    factors = list(formula = y ~ ., data = data.frame(
      f = factor(sample(letters, 1500, TRUE)), g = factor(sample(1:40, 1500, TRUE)),
      x = rnorm(1500), y = factor(sample(c("a", "b", "c"), 1500, TRUE))))
  )
  for (name in names(shapes)) {
    s <- shapes[[name]]
    fit <- ccforest(s$formula, s$data, n_tree = 60, seed = 3, n_thread = 1)
    actual <- stored_bytes(fit)
    # Above the floor of 128 bytes a tree and what the fit sets aside for its
    # out-of-bag estimates, below any real forest.
    extra <- ccforest:::fit_extra_bytes(
      nrow(s$data), nrow(s$data), ccforest:::prediction_width(fit$response), 60, 1,
      fit$options$sampling == "bagging", FALSE, fit$options$min_leaf
    )
    withr::with_options(list(ccforest.memory_limit = sum(extra) + 128 * 60 + 100), {
      message <- tryCatch(ccforest(s$formula, s$data, n_tree = 60, seed = 3, n_thread = 1),
                          error = conditionMessage)
    })
    estimate <- reported_need(message)
    expect_true(estimate > actual / 1.25 && estimate < actual * 1.25,
                label = sprintf("%s: estimate %.0f vs actual %.0f bytes", name, estimate, actual))
  }
})

test_that("an absurd n_tree is refused before anything is allocated for it", {
  withr::local_options(ccforest.memory_limit = 2^30)
  expect_error(ccforest(iris[1:4], iris$Species, n_tree = .Machine$integer.max, seed = 1),
               "n_tree = 2,147,483,647 would need at least 256.0 GB of memory")
})

# Resident memory of a child R session after repeated failures of `attempt`
# under an R heap limit `headroom` MB above what the session holds.
rss_after_failures <- function(setup, attempt, headroom, times = 6L) {
  callr::r(function(lib, setup, attempt, headroom, times) {
    .libPaths(lib)
    library(ccforest)
    rss <- function() {
      line <- grep("^VmRSS:", readLines("/proc/self/status"), value = TRUE)
      as.numeric(gsub("[^0-9]", "", line)) / 1024
    }
    env <- environment()
    setup(env)
    used <- gc()[2L, 2L]  # MB of vectors R holds (what mem.maxVSize() limits)
    messages <- character(0)
    after <- numeric(0)
    for (i in seq_len(times)) {
      # R will not set a limit below its heap's current size (64 MB at least).
      mem.maxVSize(max(64, used + headroom))
      messages[i] <- tryCatch({
        attempt(env, i)
        "succeeded"
      }, error = conditionMessage)
      mem.maxVSize(Inf)
      invisible(gc())
      after[i] <- rss()
    }
    list(messages = messages, after = after)
  }, args = list(lib = .libPaths(), setup = setup, attempt = attempt, headroom = headroom,
                 times = times))
}

test_that("C++ memory is released when R cannot allocate a result", {
  skip_on_cran()
  skip_if(nzchar(Sys.getenv("CCFOREST_SANITIZE")),
          "AddressSanitizer keeps freed memory in quarantine, so resident memory cannot fall (valgrind's leak check covers this)")
  skip_if_not(file.exists("/proc/self/status"), "resident memory is read from /proc (Linux)")
  skip_if_not_installed("callr")
  # Each call holds 200 MB in C++, then asks R for 200 MB beyond its limit.
  out <- rss_after_failures(
    setup = function(env) NULL,
    attempt = function(env, i) ccforest:::ccf_alloc_probe_cpp(200 * 2^20, 200 * 2^20 / 8),
    headroom = 50
  )
  expect_true(all(grepl("cannot allocate|vector memory", out$messages)),
              label = paste(unique(out$messages), collapse = " | "))
  # A leak would add 200 MB a call.
  expect_lt(out$after[[6]] - out$after[[2]], 50)
})

test_that("fits that fail for lack of R memory release what C++ held", {
  skip_on_cran()
  skip_if(nzchar(Sys.getenv("CCFOREST_SANITIZE")),
          "AddressSanitizer keeps freed memory in quarantine, so resident memory cannot fall (valgrind's leak check covers this)")
  skip_if_not(file.exists("/proc/self/status"), "resident memory is read from /proc (Linux)")
  skip_if_not_installed("callr")
  # A bagged fit computes its out-of-bag sums in C++ (62 MB here: 300,000
  # rows x 26 classes), then R cannot take them. Nothing C++ held may stay
  # behind: a leak would add those 62 MB at every attempt.
  out <- rss_after_failures(
    setup = function(env) {
      set.seed(1)
      n <- 300000
      env$x <- matrix(rnorm(n * 2), n)
      env$y <- factor(sample(letters, n, replace = TRUE))
      options(ccforest.memory_limit = Inf)
    },
    attempt = function(env, i) {
      ccforest(env$x, env$y, n_tree = 2, sampling = "bagging", n_thread = 2, seed = i)
    },
    headroom = 30, times = 5L
  )
  expect_true(all(grepl("Not enough memory to compute the out-of-bag predictions", out$messages)),
              label = paste(unique(out$messages), collapse = " | "))
  # Three attempts between the two readings: a leak would add 186 MB; the
  # allocator's own fragmentation stays well below 100 MB.
  expect_lt(out$after[[5]] - out$after[[2]], 100)
})

# Peak bytes of R vectors allocated while `expr` runs (gc()'s "max used"):
# what R itself allocated, whatever the machine.
r_heap_peak <- function(expr) {
  before <- gc(reset = TRUE)[2L, 1L]
  force(expr)
  (gc()[2L, 5L] - before) * 8
}

test_that("importance is summed per feature as trees arrive, not kept per tree", {
  # 3,000 features and 2,000 trees: a feature x tree matrix of importance
  # (48 MB, and a copy in R) outweighed the trees of this fit many times.
  set.seed(1)
  x <- matrix(rnorm(20 * 3000), 20)
  y <- rnorm(20)
  peak <- r_heap_peak(fit <- ccforest(x, y, n_tree = 2000, seed = 1, n_thread = 2,
                                      importance = "projection", verbose = FALSE))
  expect_lt(peak, 20 * 2^20)
  # The same exact sums: one fit equals its two halves combined.
  first <- ccforest(x, y, n_tree = 1000, seed = 1, importance = "projection", verbose = FALSE)
  second <- ccforest(x, y, n_tree = 1000, seed = 1, first_tree = 1001,
                     importance = "projection", verbose = FALSE)
  expect_identical(combine_forests(first, second)$forest, fit$forest)
})

test_that("what a fit needs besides its trees is set aside before growing them", {
  # Quantile data hold every tree's sample rows (4 bytes each): 40 trees of
  # 100,000 rows need 16 MB, which a 10 MB limit cannot hold, however small
  # the trees (max_depth = 1).
  set.seed(2)
  n <- 100000
  x <- data.frame(a = rnorm(n))
  y <- x$a + rnorm(n)
  withr::local_options(ccforest.memory_limit = 10 * 2^20)
  expect_error(ccforest(x, y, n_tree = 40, max_depth = 1, quantiles = TRUE, seed = 1,
                        sampling = "projection"),
               paste0("This fit would need about 1[5-9]\\.[0-9] MB of memory besides its trees ",
                      "\\(.* for its quantile data\\), but only 10\\.0 MB is available\\. Grow ",
                      "fewer trees, or fit without quantiles = TRUE\\."))
  # Out-of-bag sums: rows x classes, in the core and then in R.
  cls <- factor(sample(letters, n, TRUE))
  expect_error(ccforest(x, cls, n_tree = 2, max_depth = 1, sampling = "bagging", seed = 1),
               "besides its trees \\(.* for its out-of-bag estimates\\).*sampling = \"projection\"")
  # What is left is the trees' limit.
  withr::local_options(ccforest.memory_limit = 25 * 2^20)
  expect_error(ccforest(x, y, n_tree = 40, quantiles = TRUE, seed = 1, n_thread = 2,
                        sampling = "projection"),
               "This forest would need about .* for its 40 trees")
  expect_s3_class(ccforest(x, y, n_tree = 40, max_depth = 1, quantiles = TRUE, seed = 1,
                           sampling = "projection"), "ccforest")
})

