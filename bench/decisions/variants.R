#!/usr/bin/env Rscript
# Beyond the paper: ccforest's defaults and options that depart from the
# paper's algorithm, against ccforest's defaults, the paper's CCF and
# ranger, on the data sets, folds and seeds of bench/comparisons/accuracy.R.
#
#   make install
#   Rscript bench/decisions/variants.R                    # all data sets of accuracy.R
#   Rscript bench/decisions/variants.R --trees 200        # trees per forest (default 500)
#   Rscript bench/decisions/variants.R --datasets iris,servo --repeats 1
#
# Learners:
#   CCF        ccforest defaults (max_directions = 2, onehot_max_levels = 32):
#              the base every other learner is tested against
#   paper      variant = "paper": the paper's algorithm exactly (every
#              canonical direction, every factor one-hot)
#   CCF+random axes  defaults and axis_candidates = "random": the sampled
#              features' axes too, each cut at one point drawn uniformly in
#              its range (extremely randomised trees)
#   CCF+axes   defaults and axis_candidates = "search": the sampled features'
#              axes searched at every cut point
#   CCF+bins   defaults and output_bins = 4 (regression): CCA against 4
#              quantile bins of the output at each node (for classification it
#              is CCF itself and is not refitted)
#   ranger     ranger defaults
# For each learner and data set: mean error, and a paired Wilcoxon signed-rank
# test against CCF over the folds (two-sided); a win or a loss needs p < 0.05
# and the mean error on that side. Summary: wins / losses / ties, and the
# geometric mean over data sets of the error ratio to ranger (the paper's
# summary measure), per task; and that ratio for the best ccforest learner of
# each data set picked after seeing the test errors, an optimistic bound on
# what choosing among these options can reach.
#
# Output: bench/results/variants.md and .csv (.tmp suffix for partial runs).

script_path <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])
source(file.path(dirname(script_path), "..", "common.R"))
BENCH_OPT <- bench_start(values = c("trees", "datasets", "repeats"), threads = TRUE)
# accuracy.R's definitions (data sets, folds, imputation for ranger, errors),
# without running it (it runs only as a script).
sys.source(file.path(bench_dir(), "comparisons", "accuracy.R"), envir = globalenv())

VARIANTS <- c("CCF", "paper", "CCF+random axes", "CCF+axes", "CCF+bins", "ranger")
OPTIONS <- list("CCF" = list(), "paper" = list(variant = "paper"),
                "CCF+random axes" = list(axis_candidates = "random"),
                "CCF+axes" = list(axis_candidates = "search"), "CCF+bins" = list(output_bins = 4L))

fit_variant <- function(learner, xtr, ytr, xte, n_tree, seed) {
  if (learner == "ranger") return(fit_predict("ranger", xtr, ytr, xte, n_tree, seed))
  t <- system.time(fit <- do.call(ccforest::ccforest, c(
    list(x = xtr, y = ytr, n_tree = n_tree, n_thread = N_THREAD, seed = seed, verbose = FALSE),
    OPTIONS[[learner]])), gcFirst = FALSE)[["elapsed"]]
  list(pred = predict(fit, xte, n_thread = N_THREAD), train_s = t)
}

geo_ratio <- function(a, b) exp(mean(log(pmax(a, 1e-9) / pmax(b, 1e-9))))

variants_main <- function() {
  opt <- accuracy_options(BENCH_OPT)
  sets <- opt$datasets %||% DEFAULT_SETS
  n_tree <- opt$trees
  partial <- !is.null(opt$datasets) || !is.null(opt$repeats)
  out_dir <- results_dir()
  suffix <- if (partial) ".tmp" else ""
  md_file <- file.path(out_dir, paste0("variants.md", suffix))
  csv_file <- file.path(out_dir, paste0("variants.csv", suffix))
  started <- Sys.time()
  machine <- machine_info()
  cat(sprintf("variants.R: %d trees, data sets: %s\n", n_tree, paste(sets, collapse = ", ")))
  rows <- list()
  for (di in seq_along(sets)) {
    name <- sets[di]
    spec <- DATASETS[[name]]
    d <- load_dataset(name)
    x <- d$x
    y <- d$y
    task <- if (is.factor(y)) "classification" else "regression"
    var_y <- if (task == "regression") mean((y - mean(y))^2) else NA_real_
    repeats <- min(spec$repeats, opt$repeats %||% spec$repeats)
    folds_k <- spec$folds
    eval_folds <- min(spec$eval_folds %||% folds_k, folds_k)
    t0 <- proc.time()[["elapsed"]]
    # The same folds and seeds as a full run of accuracy.R.
    index <- match(name, DEFAULT_SETS, nomatch = di)
    for (r in seq_len(repeats)) {
      fold <- make_folds(y, folds_k, seed = 1000L * index + r)
      for (f in seq_len(eval_folds)) {
        test <- fold == f
        seed <- 100000L * index + 1000L * r + f
        for (learner in VARIANTS) {
          if (learner == "CCF+bins" && task == "classification") next
          res <- fit_variant(learner, x[!test, , drop = FALSE], y[!test], x[test, , drop = FALSE],
                             n_tree, seed)
          rows[[length(rows) + 1L]] <- data.frame(
            dataset = name, task = task, rep = r, fold = f, learner = learner, n_tree = n_tree,
            seed = seed, error = fold_error(res$pred, y[test], var_y), train_s = res$train_s,
            stringsAsFactors = FALSE)
        }
      }
    }
    dd <- do.call(rbind, rows)
    dd <- dd[dd$dataset == name, ]
    cat(sprintf("[%s] %s  [%.0f s]\n", name,
                paste(vapply(unique(dd$learner), function(l) {
                  sprintf("%s=%.2f", l, mean(dd$error[dd$learner == l]))
                }, ""), collapse = " "), proc.time()[["elapsed"]] - t0))
  }
  all <- do.call(rbind, rows)
  bench_write(all, csv_file)

  table <- list()
  for (name in sets) {
    dd <- all[all$dataset == name, ]
    base <- dd$error[dd$learner == "CCF"]
    for (learner in setdiff(unique(dd$learner), "CCF")) {
      e <- dd$error[dd$learner == learner]
      p <- if (length(e) > 1L && any(round(e, 8) != round(base, 8))) {
        suppressWarnings(stats::wilcox.test(round(e, 8), round(base, 8), paired = TRUE)$p.value)
      } else 1
      verdict <- if (p < 0.05 && mean(e) < mean(base)) "win" else if (p < 0.05) "loss" else "tie"
      table[[length(table) + 1L]] <- data.frame(
        dataset = name, task = dd$task[1L], learner = learner, ccf = mean(base), error = mean(e),
        sd = stats::sd(e), p = p, verdict = verdict, folds = length(e),
        train_ratio = mean(dd$train_s[dd$learner == learner]) / mean(dd$train_s[dd$learner == "CCF"]),
        stringsAsFactors = FALSE)
    }
  }
  table <- do.call(rbind, table)
  means <- stats::aggregate(error ~ dataset + task + learner, all, mean)
  ranger_mean <- means[means$learner == "ranger", c("dataset", "error")]
  names(ranger_mean)[2L] <- "ranger"
  means <- merge(means, ranger_mean, by = "dataset")

  fmt <- function(v) sprintf("%.2f", v)
  lines <- c(
    report_header("ccforest beyond the paper: defaults and options against the paper's CCF",
                  csv_file = csv_file),
    sprintf("| trees | %d |", n_tree), "",
    paste("Errors: % misclassified (classification) or test MSE as % of the response's variance",
          "(regression), mean over the folds of accuracy.R's protocol (same folds and seeds)."),
    paste("CCF: ccforest's defaults; paper: `variant = \"paper\"`; CCF+random axes, CCF+axes and",
          "CCF+bins add `axis_candidates = \"random\"`, `axis_candidates = \"search\"` and",
          "`output_bins = 4` to the defaults."),
    "p: paired two-sided Wilcoxon signed-rank test against CCF over the folds; a win or loss needs p < 0.05.",
    "", "## Per data set", "",
    "| data set | option | CCF | option's error | p | verdict | train time / CCF's |",
    "|---|---|---:|---:|---:|---|---:|")
  for (i in seq_len(nrow(table))) {
    t <- table[i, ]
    lines <- c(lines, sprintf("| %s | %s | %s | %s | %.3g | %s | %.2f |", t$dataset, t$learner,
                              fmt(t$ccf), fmt(t$error), t$p, t$verdict, t$train_ratio))
  }
  lines <- c(lines, "", "## Summary", "",
             "| option | task | wins | losses | ties | geometric mean error ratio to ranger |",
             "|---|---|---:|---:|---:|---:|")
  for (learner in c("CCF", setdiff(VARIANTS, c("CCF", "ranger")))) {
    for (task in c("classification", "regression")) {
      m <- means[means$learner == learner & means$task == task, ]
      if (nrow(m) == 0L && learner == "CCF+bins" && task == "classification") {
        m <- means[means$learner == "CCF" & means$task == task, ]
      }
      if (nrow(m) == 0L) next
      v <- table[table$learner == learner & table$task == task, ]
      lines <- c(lines, sprintf("| %s | %s | %s | %s | %s | %.3f |", learner, task,
                                if (learner == "CCF") "–" else sum(v$verdict == "win"),
                                if (learner == "CCF") "–" else sum(v$verdict == "loss"),
                                if (learner == "CCF") "–" else sum(v$verdict == "tie"),
                                geo_ratio(m$error, m$ranger)))
    }
  }
  # The best ccforest learner of each data set, picked after seeing its test
  # errors: no option or rule choosing among these can do better on these
  # folds, so it bounds what the options offer (and is itself optimistic).
  own <- means[means$learner != "ranger", ]
  for (task in c("classification", "regression")) {
    m <- own[own$task == task, ]
    if (nrow(m) == 0L) next
    best <- vapply(split(m, m$dataset), function(b) b$error[which.min(b$error)] / b$ranger[1L], 0)
    lines <- c(lines, sprintf("| best of these per data set (chosen after the fact) | %s | – | – | – | %.3f |",
                              task, exp(mean(log(pmax(best, 1e-9))))))
  }
  lines <- c(lines, "", sprintf("Run time: %.1f min; load average at the end: %s.",
                                as.numeric(difftime(Sys.time(), started, units = "mins")),
                                machine_info()$load))
  bench_write(lines, md_file)
  cat(sprintf("wrote %s and %s\n", md_file, csv_file))
}

variants_main()
