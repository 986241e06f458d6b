# Prediction in chunks of rows, or from a reader returning pieces of rows. A
# row's prediction depends only on the row (never on its companions), so
# every way of cutting the rows gives the predictions of one call on all.

chunk_data <- function() {
  d <- iris
  d$colour <- factor(rep(c("red", "green", "blue"), 50))
  d$Sepal.Width[c(3, 60, 140)] <- NA
  d$colour[c(8, 90)] <- NA
  d
}

# A reader over `d` returning pieces of the given sizes, then NULL.
piece_reader <- function(d, sizes) {
  stopifnot(sum(sizes) == nrow(d))
  ends <- cumsum(sizes)
  i <- 0L
  function() {
    if (i >= length(sizes)) return(NULL)
    i <<- i + 1L
    d[seq.int(ends[[i]] - sizes[[i]] + 1L, length.out = sizes[[i]]), , drop = FALSE]
  }
}

test_that("predictions in chunks are the predictions of one call", {
  d <- chunk_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 15, seed = 8)
  for (size in c(1, 7, 149, 150, 1000)) {
    expect_identical(predict(fit, d, type = "prob", chunk_size = size),
                     predict(fit, d, type = "prob"), label = paste("chunk_size", size))
  }
  expect_identical(predict(fit, d, chunk_size = 11, n_tree = 4), predict(fit, d, n_tree = 4))
  expect_identical(predict(fit, d, chunk_size = 11, na_action = "impute_mean"),
                   predict(fit, d, na_action = "impute_mean"))
  reg <- ccforest(d[, c(2:4, 6)], d$Sepal.Length, n_tree = 10, seed = 2)
  expect_identical(predict(reg, d, chunk_size = 13), predict(reg, d))
  # Several outputs, and a forest fitted on a matrix.
  multi <- ccforest(cbind(Species, colour) ~ Sepal.Length + Petal.Length, data = d[-c(8, 90), ],
                    n_tree = 6, seed = 1)
  expect_identical(predict(multi, d, chunk_size = 9), predict(multi, d))
  expect_identical(predict(multi, d, type = "prob", chunk_size = 9),
                   predict(multi, d, type = "prob"))
  m <- as.matrix(d[, 1:4])
  on_matrix <- ccforest(m, d$Species, n_tree = 5, seed = 3)
  expect_identical(predict(on_matrix, m, chunk_size = 40), predict(on_matrix, m))
  # No rows.
  expect_identical(predict(fit, d[0, ], chunk_size = 5), predict(fit, d[0, ]))
})

test_that("a reader's pieces are predicted one after another, as one call would", {
  d <- chunk_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 15, seed = 8)
  whole <- predict(fit, d, type = "prob")
  expect_identical(predict(fit, piece_reader(d, c(40, 0, 1, 109)), type = "prob"), whole)
  expect_identical(predict(fit, piece_reader(d, c(100, 50)), type = "prob", chunk_size = 30),
                   whole)
  expect_identical(predict(fit, piece_reader(d, c(75, 75))), predict(fit, d))
  # A reader with nothing to read: no predictions.
  expect_identical(predict(fit, function() NULL), predict(fit, d[0, ]))
  expect_identical(predict(fit, function() NULL, type = "prob"),
                   predict(fit, d[0, ], type = "prob"))
  reg <- ccforest(Sepal.Length ~ ., data = d, n_tree = 10, seed = 2)
  expect_identical(predict(reg, piece_reader(d, c(20, 130)), chunk_size = 50), predict(reg, d))
  skip_if_not_installed("future", "1.49.0")
  old <- future::plan(future::sequential)
  withr::defer(future::plan(old))
  expect_identical(
    predict(fit, piece_reader(d, c(60, 90)), type = "prob", backend = "future", chunk_size = 25),
    whole
  )
})

test_that("a reader must return rows or NULL", {
  d <- chunk_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 3, seed = 8)
  calls <- 0L
  bad <- function() {
    calls <<- calls + 1L
    if (calls == 1L) d[1:5, ] else "the end"
  }
  expect_error(
    predict(fit, bad),
    paste0("`new_data` is a function, so each call must return the next rows as a data.frame or ",
           "a matrix (NULL after the last), but it returned <character>."),
    fixed = TRUE
  )
  # What is wrong with a piece is said as for new_data itself.
  expect_error(predict(fit, function() d[, 1:2]),
               "`new_data` is missing column(s) `Petal.Length`", fixed = TRUE)
  expect_error(predict(fit, 1:10, chunk_size = 2),
               "`new_data` must be a data.frame or a matrix, not <integer>.", fixed = TRUE)
})

test_that("chunk_size is checked", {
  d <- chunk_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 3, seed = 8)
  expect_error(predict(fit, d, chunk_size = 0),
               "`chunk_size` must be a single whole number >= 1 or NULL, not 0.", fixed = TRUE)
  expect_error(predict(fit, d, chunk_size = 2.5),
               "`chunk_size` must be a single whole number >= 1 or NULL, not 2.5.", fixed = TRUE)
  expect_error(predict(fit, d, chunk_size = "10"),
               "`chunk_size` must be a single whole number >= 1 or NULL", fixed = TRUE)
  expect_error(predict(fit, d, chunk_sise = 10),
               "Unknown argument `chunk_sise` in predict(); did you mean `chunk_size`?",
               fixed = TRUE)
})

test_that("a warning repeated in every chunk is given once", {
  d <- chunk_data()
  fit <- ccforest(Species ~ ., data = d, n_tree = 5, seed = 8)
  new <- d
  new$colour <- factor(rep(c("red", "purple", "blue"), 50))
  warnings_of <- function(expr) {
    seen <- character(0)
    value <- withCallingHandlers(expr, warning = function(w) {
      seen <<- c(seen, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    list(value = value, warnings = seen)
  }
  whole <- warnings_of(predict(fit, new))
  chunked <- warnings_of(predict(fit, new, chunk_size = 10))
  expect_length(whole$warnings, 1L)
  expect_match(whole$warnings, "level(s) `purple` not seen", fixed = TRUE)
  expect_identical(chunked, whole)
})
