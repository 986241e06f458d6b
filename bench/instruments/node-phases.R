#!/usr/bin/env Rscript
# Where training time goes, by phase of a node's growth and by node size, on
# LetterRecognition: the measurement behind issue 26's speed work.
#
#   Rscript bench/instruments/node-phases.R [--trees 100] [--rows 15000] [--options "list(...)"] [--cca]
#
# Design: callgrind's instruction counts (bench/instruments/instructions.R) do not see
# memory waits or the latency of divisions and square roots, and several
# changes that cut instructions left the time unchanged (issue 26's notes).
# This script times the phases themselves. It copies the package's sources
# (this checkout's working tree: DESCRIPTION, NAMESPACE, R/, src/) to a
# temporary directory, adds a clock to TreeTrainer::grow_node() at fixed
# anchors (the script stops if one is not found exactly once, so it cannot
# time a function that has changed shape without saying so), installs that
# build into a temporary library and fits one forest on one thread. Each node
# is classed by its rows (under 16, 16-127, 128-1,023, 1,024 and more) and
# its time split into: its targets and the stopping rules, gathering the
# sampled features (select), finding directions (find: the projection
# bootstrap and the CCA), setting up the split criterion, searching the
# directions' cuts (best_cut: projection, sort, sweep), partitioning the
# rows (split), and making a leaf. The clock itself (up to 8 reads per node,
# some 20 ns each) adds about a tenth to the fit, which lands mostly on the
# small nodes: the script prints the instrumented fit's CPU time beside the
# uninstrumented build's (`--lib`, `CCFOREST_LIB` or the machine's). The forest is
# fitted twice in one process (a warm-up, then the timed fit) and the table
# holds half of both fits' sums. Prints the table; nothing is written to
# bench/results.
#
# --cca adds clocks inside the class CCA (cca_classes() in src/core/Cca.cpp,
# the same anchor check) and a second table: per node size, the CCA's time in
# centring the bootstrap sample with its class sums and counts, factorising
# (Gram and Cholesky, or the pivoted QR), whitening the sums of the classes
# present, the eigenproblem (two classes: Fisher's direction;
# few: the shrunken one; else the full r x r one, Jacobi) and the
# back-substitution, with how many eigenproblems of each kind ran. The steps
# past the centring cost per node, not per row: chains of square roots and
# divisions, whose latency no reordering of the rows hides.

options(width = 200)
source(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1L])),
                 "..", "common.R"))
BENCH_OPT <- bench_start(flags = "cca", values = c("trees", "rows", "options", "out"))
if (!is.null(BENCH_OPT$out)) bench_record(BENCH_OPT$out, "Training time by phase of a node's growth")

trees <- bench_integer(BENCH_OPT, "trees", 100L)
rows <- bench_integer(BENCH_OPT, "rows", 15000L)
options_text <- bench_value(BENCH_OPT, "options", "list()")
cca_clock <- bench_flag(BENCH_OPT, "cca")
extra <- eval(parse(text = options_text))
if (!is.list(extra)) stop("--options must give a list", call. = FALSE)

root <- normalizePath(dirname(bench_dir()))  # the checkout
work <- tempfile("node-phases")
dir.create(file.path(work, "pkg"), recursive = TRUE)
for (item in c("DESCRIPTION", "NAMESPACE", "R", "src")) {
  file.copy(file.path(root, item), file.path(work, "pkg"), recursive = TRUE)
}
unlink(list.files(file.path(work, "pkg", "src"), pattern = "\\.(o|so|dll)$", recursive = TRUE,
                  full.names = TRUE))

# The clock: per node-size class, seconds per phase, nodes reached and split.
clock_code <- '
#include <chrono>
#include <cstdio>
namespace {
enum Phase { kTargets, kSelect, kFind, kSetNode, kBestCut, kSplit, kLeaf, kPhases };
struct PhaseTable {
  double seconds[4][kPhases] = {};
  long nodes[4] = {}, splits[4] = {};
  ~PhaseTable() {
    for (int c = 0; c < 4; ++c) {
      std::fprintf(stderr, "PHASES,%d,%ld,%ld", c, nodes[c], splits[c]);
      for (int p = 0; p < kPhases; ++p) std::fprintf(stderr, ",%.9f", seconds[c][p]);
      std::fprintf(stderr, "\\n");
    }
  }
};
PhaseTable phase_table;
struct PhaseClock {
  int size_class;
  std::chrono::steady_clock::time_point last;
  explicit PhaseClock(size_t n)
      : size_class(n < 16 ? 0 : n < 128 ? 1 : n < 1024 ? 2 : 3), last(std::chrono::steady_clock::now()) {
    ++phase_table.nodes[size_class];
  }
  void lap(Phase p) {
    const auto now = std::chrono::steady_clock::now();
    phase_table.seconds[size_class][p] += std::chrono::duration<double>(now - last).count();
    last = now;
  }
  ~PhaseClock() { lap(kLeaf); }
};
}  // namespace
'
edits <- list(
  c('#include "TreeTrainer.h"\n', paste0('#include "TreeTrainer.h"\n', clock_code)),
  c("void TreeTrainer::grow_node(const NodeTask& task, std::vector<NodeTask>& next) {\n  const size_t n = task.end - task.begin;\n",
    "void TreeTrainer::grow_node(const NodeTask& task, std::vector<NodeTask>& next) {\n  const size_t n = task.end - task.begin;\n  PhaseClock clock(n);\n"),
  c("  FeatureSet features = select_features(task);\n",
    "  clock.lap(kTargets);\n  FeatureSet features = select_features(task);\n  clock.lap(kSelect);\n"),
  c("  const size_t n_direction = finder_.find(block, rng_);\n",
    "  const size_t n_direction = finder_.find(block, rng_);\n  clock.lap(kFind);\n"),
  c("  search_.set_node(targets);\n", "  search_.set_node(targets);\n  clock.lap(kSetNode);\n"),
  c(": best_cut(n, n_direction);\n", ": best_cut(n, n_direction);\n  clock.lap(kBestCut);\n"),
  c("  split(task, next, std::move(features), cut);\n}",
    "  split(task, next, std::move(features), cut);\n  clock.lap(kSplit);\n  ++phase_table.splits[clock.size_class];\n}")
)
# Applies the (anchor, replacement) pairs to one source file of the copy;
# stops unless each anchor occurs exactly once.
patch_source <- function(file, edits) {
  path <- file.path(work, "pkg", "src", "core", file)
  code <- paste(readLines(path), collapse = "\n")
  for (e in edits) {
    found <- gregexpr(e[1L], code, fixed = TRUE)[[1L]]
    if (sum(found > 0L) != 1L) {
      stop(sprintf("anchor found %d times in src/core/%s (update bench/instruments/node-phases.R): %s",
                   sum(found > 0L), file, e[1L]), call. = FALSE)
    }
    code <- sub(e[1L], e[2L], code, fixed = TRUE)
  }
  writeLines(code, path)
}
patch_source("TreeTrainer.cpp", edits)

# The class CCA's clock (--cca): the same scheme, its own table.
cca_clock_code <- '
#include <chrono>
#include <cstdio>
namespace {
enum CcaStep { kCentre, kFactor, kWhiten, kEigen, kBack, kCcaSteps };
struct CcaTable {
  double seconds[4][kCcaSteps] = {};
  long calls[4] = {}, kinds[4][3] = {};
  ~CcaTable() {
    for (int c = 0; c < 4; ++c) {
      std::fprintf(stderr, "CCA,%d,%ld,%ld,%ld,%ld", c, calls[c], kinds[c][0], kinds[c][1], kinds[c][2]);
      for (int s = 0; s < kCcaSteps; ++s) std::fprintf(stderr, ",%.9f", seconds[c][s]);
      std::fprintf(stderr, "\\n");
    }
  }
};
CcaTable cca_table;
struct CcaClock {
  int size_class;
  CcaStep step = kCentre;
  std::chrono::steady_clock::time_point last;
  explicit CcaClock(long n)
      : size_class(n < 16 ? 0 : n < 128 ? 1 : n < 1024 ? 2 : 3), last(std::chrono::steady_clock::now()) {
    ++cca_table.calls[size_class];
  }
  void lap(CcaStep s) {
    const auto now = std::chrono::steady_clock::now();
    cca_table.seconds[size_class][s] += std::chrono::duration<double>(now - last).count();
    last = now;
    step = static_cast<CcaStep>(s + 1);
  }
  // An early return (rank 0, one class) counts to the step it left.
  ~CcaClock() {
    if (step < kCcaSteps) lap(step);
  }
};
}  // namespace
'
cca_edits <- list(
  c('#include "SmallDense.h"\n', paste0('#include "SmallDense.h"\n', cca_clock_code)),
  c("  MatrixXd& sums = work.sums;\n  sums.resize(p, n_class);\n",
    "  CcaClock clock(n);\n  MatrixXd& sums = work.sums;\n  sums.resize(p, n_class);\n"),
  c("  if (!gram_factor(xc, tolerance, work)) reduced_qr(xc, tolerance, work.factor, work);\n",
    paste0("  clock.lap(kCentre);\n",
           "  if (!gram_factor(xc, tolerance, work)) reduced_qr(xc, tolerance, work.factor, work);\n",
           "  clock.lap(kFactor);\n")),
  c("  q_transpose_times(qx, kept_sums, class_sums);\n",
    "  q_transpose_times(qx, kept_sums, class_sums);\n  clock.lap(kWhiten);\n"),
  c("  return normalised(back_substitute(qx, vectors.leftCols(n_dir), p, work.column),",
    paste0("  clock.lap(kEigen);\n",
           "  ++cca_table.kinds[clock.size_class][n_present == 2 ? 0 : shrunk ? 1 : 2];\n",
           "  return normalised(back_substitute(qx, vectors.leftCols(n_dir), p, work.column),"))
)
if (cca_clock) patch_source("Cca.cpp", cca_edits)

lib <- file.path(work, "lib")
dir.create(lib)
cat("building the instrumented copy ...\n")
status <- system2(file.path(R.home("bin"), "R"),
                  c("CMD", "INSTALL", "--no-docs", "--no-multiarch", "-l", shQuote(lib),
                    shQuote(file.path(work, "pkg"))),
                  stdout = file.path(work, "install.log"), stderr = file.path(work, "install.log"),
                  env = "MAKEFLAGS=-j2")
if (status != 0L) stop("the instrumented build failed: see ", file.path(work, "install.log"), call. = FALSE)

d <- mlb("LetterRecognition")
set.seed(1507)
d <- d[sample(nrow(d), rows), ]
data_file <- file.path(work, "letter.rds")
saveRDS(list(x = d[-1], y = d$lettr, trees = trees, extra = extra), data_file)
fit_code <- '
a <- commandArgs(TRUE)
lib <- if (nzchar(a[2])) a[2] else NULL
suppressPackageStartupMessages(library(ccforest, lib.loc = lib))
s <- readRDS(a[1])
fit <- function() do.call(ccforest, c(list(s$x, s$y, n_tree = s$trees, n_thread = 1L, seed = 1L), s$extra))
invisible(fit())  # warm-up
cat(sprintf("SECONDS,%.4f\\n", system.time(fit())[["user.self"]]))
'
fit_file <- file.path(work, "fit.R")
writeLines(fit_code, fit_file)
run <- function(library_path) {
  out <- system2("Rscript", c("--vanilla", shQuote(fit_file), shQuote(data_file), shQuote(library_path)),
                 stdout = TRUE, stderr = TRUE)
  if (!is.null(attr(out, "status"))) stop("a fit failed:\n", paste(out, collapse = "\n"), call. = FALSE)
  out
}
plain_lib <- bench_value(BENCH_OPT, "lib", "")
cat("fitting (instrumented, then uninstrumented) ...\n")
timed <- run(lib)
plain <- run(plain_lib)
seconds <- function(out) as.numeric(sub("^SECONDS,", "", grep("^SECONDS,", out, value = TRUE)))
phase_lines <- grep("^PHASES,", timed, value = TRUE)
# Two fits ran (warm-up and timed): the table printed at exit holds both.
table <- do.call(rbind, lapply(strsplit(phase_lines, ",", fixed = TRUE), function(f) as.numeric(f[-1L])))
phases <- c("targets", "select", "find", "set_node", "best_cut", "split", "leaf")
colnames(table) <- c("class", "nodes", "splits", phases)
table[, -1L] <- table[, -1L] / 2
classes <- c("< 16 rows", "16-127", "128-1,023", ">= 1,024")
ms <- table[, phases] * 1000
total_ms <- rowSums(ms)
report <- data.frame(node_rows = classes, nodes = round(table[, "nodes"]), splits = round(table[, "splits"]),
                     round(ms, 1), total_ms = round(total_ms, 1),
                     share = sprintf("%.0f%%", 100 * total_ms / sum(total_ms)),
                     us_per_split = round(1000 * total_ms / pmax(1, table[, "splits"]), 2),
                     check.names = FALSE)
all_ms <- colSums(ms)
report <- rbind(report, data.frame(node_rows = "all", nodes = sum(report$nodes), splits = sum(report$splits),
                                   t(round(all_ms, 1)), total_ms = round(sum(all_ms), 1), share = "100%",
                                   us_per_split = round(1000 * sum(all_ms) / sum(report$splits), 2),
                                   check.names = FALSE))
cat(sprintf("\nletter: %d rows, %d trees, 1 thread, options %s; load average at start: %s\n", rows, trees,
            options_text, paste(strsplit(readLines("/proc/loadavg"), " ")[[1L]][1:3], collapse = " ")))
cat("milliseconds per phase (nodes reached and split per class; a leaf's time is in targets and leaf):\n")
print(report, row.names = FALSE)
cat(sprintf("\nshare of the phases: %s\n", paste(sprintf("%s %.0f%%", phases, 100 * all_ms / sum(all_ms)),
                                                 collapse = ", ")))
cat(sprintf("fit CPU time: instrumented %.3f s, uninstrumented %.3f s (%s)\n", seconds(timed), seconds(plain),
            if (nzchar(plain_lib)) plain_lib else "the machine's library"))

if (cca_clock) {
  cca_lines <- grep("^CCA,", timed, value = TRUE)
  cca <- do.call(rbind, lapply(strsplit(cca_lines, ",", fixed = TRUE), function(f) as.numeric(f[-1L])))
  steps <- c("centre_sums", "factor", "whiten", "eigen", "back")
  colnames(cca) <- c("class", "calls", "two", "shrunk", "full", steps)
  cca[, -1L] <- cca[, -1L] / 2
  cca_ms <- cca[, steps] * 1000
  cca_report <- data.frame(node_rows = classes, calls = round(cca[, "calls"]),
                           eigen_two = round(cca[, "two"]), eigen_shrunk = round(cca[, "shrunk"]),
                           eigen_full = round(cca[, "full"]), round(cca_ms, 1),
                           total_ms = round(rowSums(cca_ms), 1),
                           of_find = sprintf("%.0f%%", 100 * rowSums(cca_ms) / ms[, "find"]),
                           check.names = FALSE)
  cca_all <- colSums(cca_ms)
  cca_report <- rbind(cca_report, data.frame(
    node_rows = "all", calls = sum(cca_report$calls), eigen_two = sum(cca_report$eigen_two),
    eigen_shrunk = sum(cca_report$eigen_shrunk), eigen_full = sum(cca_report$eigen_full),
    t(round(cca_all, 1)), total_ms = round(sum(cca_all), 1),
    of_find = sprintf("%.0f%%", 100 * sum(cca_all) / sum(ms[, "find"])), check.names = FALSE))
  cat("\nthe class CCA inside find, milliseconds per step (its clocks add to the instrumented fit):\n")
  print(cca_report, row.names = FALSE)
  cat(sprintf("share of the fit: centring and class sums %.0f%%, the per-node steps after them %.0f%%\n",
              100 * cca_all[["centre_sums"]] / sum(all_ms),
              100 * sum(cca_all[c("factor", "whiten", "eigen", "back")]) / sum(all_ms)))
}
unlink(work, recursive = TRUE)
if (!is.null(BENCH_OPT$out)) bench_finish(quick = FALSE)
