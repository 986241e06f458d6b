#' Fit a canonical correlation forest
#'
#' Grows an ensemble of canonical correlation trees (Rainforth and Wood,
#' 2017). At each node, `mtry` features are sampled, a canonical correlation
#' analysis between them and the outputs is fitted on a bootstrap sample of
#' the node's rows (projection bootstrapping), and the node is split on the
#' best hyperplane among the canonical directions, searched exhaustively over
#' all of the node's rows.
#'
#' @section Data handling:
#' Unordered factors are expanded to 1-of-K indicator columns that are sampled
#' together as one feature (up to `onehot_max_levels` levels; beyond, a
#' factor's levels are valued by the outputs: one numeric column, or one per
#' principal axis of the levels' class shares with three or more classes);
#' ordered factors and integers are ordinal; logicals become 0/1;
#' character columns are treated as factors (with a message). Dates
#' (`Date`), date-times (`POSIXct`, `POSIXlt`) and time differences
#' (`difftime`) are used as numbers: days, seconds since 1970, and the
#' training column's units. Every column is z-scored with statistics stored
#' in the fitted object and reused at prediction, except those of a sparse
#' matrix (below).
#'
#' A sparse matrix from the Matrix package given as `x` (a `dgCMatrix`; any
#' other sparse storage, such as `dgTMatrix`, `lgCMatrix` or a symmetric
#' matrix, is converted to one) is read where it lies: the trees gather
#' their nodes' values from its compressed columns, and no dense copy is
#' made. Its columns are divided by their standard deviation but not centred
#' (centring would make every zero non-zero); the canonical correlations do
#' not depend on a column's centre, so the trees are as good, though not
#' bit-identical to those grown on the same matrix made dense, which is
#' z-scored. The fit holds the scaled values, and the cells by row (read
#' at small nodes and by the out-of-bag estimates): about twice the sparse
#' matrix; the memory guard
#' (see `options(ccforest.memory_limit)`) counts both before allocating.
#' A missing value (`NA` stored in the matrix) is imputed as in dense data,
#' in the scaled units: around zero rather than around the column's mean.
#' Such a forest predicts new data given as a sparse matrix, a dense matrix
#' or a data.frame with the same columns, all transformed alike; new data
#' given sparse are made dense to be predicted, a batch of rows (about 64 MB)
#' at a time for predicted classes, probabilities and responses, whole for
#' the other types. A formula
#' reads data.frames only, and survival forests read a sparse `x` dense (as
#' before 0.4.0). A factor level not seen at
#' fit time gives an all-zero indicator group at prediction (a missing value
#' for ordered and many-level factors), with a warning.
#'
#' @section Missing values:
#' With `na_action = "impute_random"` (the paper's choice), each tree replaces
#' each missing z-score by its own standard normal draw, at fit and at
#' prediction time. The draw is keyed on the tree, the column and the row's
#' content, never its position, so a row always gets the same prediction.
#' `"impute_mean"` replaces missing values by the training mean, `"fail"`
#' stops with an error, and `"omit"` drops incomplete rows at fit time (and
#' imputes at random at prediction). Missing outputs are never imputed: they
#' are an error unless `na_action = "omit"`.
#'
#' @section Several outputs:
#' `y` may be a data.frame of several factors (multi-output classification)
#' or of several numeric columns (multivariate regression); in a formula,
#' write `cbind(y1, y2) ~ .`, which keeps factors intact. Each output
#' contributes its own 1-of-K block (or standardised column) to the CCA, and
#' the split criterion averages the impurities over outputs.
#'
#' @section The paper's algorithm:
#' `variant = "paper"` grows the canonical correlation forest of Rainforth and
#' Wood (2017) as the authors' code (github.com/twgr/ccfs) grows it: every
#' canonical direction searched, every factor one-hot, and every node's CCA and
#' cuts on all of its rows (`max_directions = Inf, direction_ratio = 0,
#' onehot_max_levels = Inf, bootstrap_max_rows = Inf,
#' exact_split_max_rows = Inf`), with the authors'
#' rules where the paper leaves a detail open. Split points lie halfway between adjacent projected
#' values. Ties in gain between directions go to the first (the strongest);
#' ties within a direction are broken at random. Values within 1e-10 of each
#' other count as equal (a feature's values at a node, the projections on a
#' unit-length direction). A regression node whose outputs all vary less than
#' 1e-6 of the tree's own variance is a leaf. A node whose (bootstrap) sample
#' holds just two distinct rows is split halfway between them along their
#' difference, unless the outputs of the two groups of equal rows sum alike.
#' Split directions are kept to double precision. Three details still differ
#' from the authors' code: a node is a leaf when no split gains anything (the
#' paper's rule; the authors' code also splits at a gain of exactly zero); a
#' projection bootstrap sample of several class outputs counts as degenerate
#' when none of them varies (the authors': when fewer than two classes appear
#' over all outputs); and the two-row rule applies to canonical and principal
#' directions, not to random rotations.
#'
#' The defaults (`variant = "ccforest"`) depart from those rules where that
#' measured no worse and costs less: `max_directions = 2` and
#' `direction_ratio = 0.9`, `onehot_max_levels = 32`, and at the few nodes of more than 1,024 rows
#' `bootstrap_max_rows = 1024` and `exact_split_max_rows = 1024` (see those
#' arguments, and section 6 of `vignette("paper", package = "ccforest")` for
#' the measurements); split points are short
#' binary numbers in the middle half of the gap (they compress better and
#' separate the training rows identically); ties between directions are
#' broken at random; only equal values count as equal, and only equal outputs
#' stop a regression node; a sample with two distinct rows is split along
#' their difference at the node's best point; and split directions are stored
#' at the least precision that moves no projection at the node by more than
#' 2^-10 of the projections' spread: 16-bit coefficients for most splits,
#' floats or pairs of floats where nearly collinear features need them, so
#' that accuracy does not depend on the coordinates the features come in.
#' `output_bins` and `axis_candidates` (off by default) go further beyond the
#' paper. `print()` lists the options beyond the paper that act on a fit.
#'
#' In either variant the canonical correlation analysis drops a sampled
#' feature that is collinear with the others to within its rank tolerance
#' (the paper's 1e-4, relative to the largest of the node's centred columns):
#' where a feature differs from a combination of the others by less than
#' 1e-4 of their spread at a node, the direction along that difference is not
#' found there.
#'
#' The measurements behind the defaults and the options beyond the paper
#' are gathered in section 6 of `vignette("paper", package = "ccforest")`.
#' The benchmarks cited are scripts in the `bench` folder of the source
#' repository (<https://github.com/ccforest/ccforest>), which the installed
#' package does not contain; their results are the files linked, such as
#' [`bench/results/survival-design.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-design.md), with the command, machine
#' and package versions of each run (ranger is Debian 12's 0.14.1 in runs up
#' to 2026-11-26, CRAN's release, 0.18.0, since).
#'
#' @section Sampling and weights:
#' Each tree is grown on a set of rows: with projection bootstrapping (the
#' default when `mtry` is less than the number of features), every row once;
#' with bagging, a bootstrap sample. `sample_fraction` and `replace` choose
#' these rows as in ranger, under either scheme: a fraction of the rows, with
#' or without replacement, or a number of rows per class, so that every tree
#' sees a balanced sample of imbalanced classes. Rows a tree was not grown on
#' give the forest's out-of-bag predictions.
#'
#' A case weight w (times the class weight of the row's class) counts as w
#' copies of the row, relative to the other rows: the forest is the one grown
#' on the data with each row repeated in proportion to its weight. Trees
#' grown on samples draw their rows with probabilities proportional to the
#' weights (without replacement, each draw among the rows not yet drawn),
#' and are then grown on the sample unweighted; trees grown on every row
#' weight each row in the projection bootstrap, in the impurity of the
#' splits and in the leaves' class shares or means. Sample sizes and
#' `min_split` and `min_leaf` count rows, not weight. Weights of any scale
#' work, but positive weights (case times class weight) may differ by a
#' factor of at most 1e15: sums of weights keep about 16 digits, so a
#' lighter row would vanish from every sum it shares with a heavier one.
#'
#' What weights do to predicted probabilities follows. At the default
#' `min_leaf = 1`, trees grown on every row split until each leaf holds one
#' class, so its class shares are 0 and 1 whatever the weights: weights then
#' move the boundaries between the classes but not the probabilities, and an
#' up-weighted class can even lose a little probability, as it does when its
#' rows are repeated (the splits fit closely around its heavy rows). Weights
#' raise the probabilities of the classes they favour where trees are grown
#' on samples (bagging, `sample_fraction < 1` or `replace = TRUE`: the heavy
#' rows are in more trees) or leaves hold several rows (a larger `min_leaf`,
#' or `max_depth`). On 2,000 rows with 3.6% of class "yes" (three features,
#' so projection bootstrapping by default), `class_weights = c(yes = 10)`
#' changes the mean predicted probability of "yes" from 0.036 to 0.033 by
#' default, to 0.060 with `sampling = "bagging"`, and to 0.084 with
#' `min_leaf = 5`.
#'
#' @section Reproducibility:
#' Each tree draws from its own random stream derived from `seed` and the tree
#' index, so a forest is identical for any number of threads. With
#' `seed = NULL` one seed is drawn from R's generator, so `set.seed()` governs
#' the fit.
#'
#' @section Scaling out:
#' Because tree k depends only on the data, the options, `seed` and k, the
#' trees can be grown anywhere and put together. With `backend = "future"`
#' the trees are split into `n_batch` batches of consecutive trees, grown as
#' futures on the current [future::plan()] (multisession, a cluster of
#' machines, a batch scheduler through future.batchtools, ...), each with
#' `n_thread` threads, and merged in tree order: the forest is identical to
#' the one `backend = "threads"` grows with the same seed, whatever the plan
#' and the number of workers. The encoded training data go to each worker
#' once on plans whose workers persist (multisession, cluster) and with each
#' batch elsewhere. With the progressr package, progress is reported through
#' [progressr::with_progress()] or [progressr::handlers()]; an interrupt
#' cancels the batches still running.
#'
#' With `first_tree = k`, the fit grows trees k, ..., k + n_tree - 1 of the
#' forest with that `seed`, so independent jobs (a Slurm array, machines
#' without a shared session) can each grow a range, which
#' [combine_forests()] joins into the forest grown at once. Give every job
#' the same explicit `seed`. See `vignette("scaling-out", package =
#' "ccforest")`.
#'
#' @param x A data.frame or a numeric matrix of features, a sparse matrix of
#'   the Matrix package (a `dgCMatrix`, read without making it dense; see
#'   the section on data handling), or a two-sided formula (the formula
#'   interface).
#' @param y The outputs: a factor (classification), a numeric vector
#'   (regression), or a data.frame of several outputs, all factors or all
#'   numeric; or a survival outcome, `survival::Surv(time, status)` (see the
#'   section on survival forests).
#' @param formula A formula such as `y ~ .`; `.` and `-` are supported, and
#'   `cbind(y1, y2) ~ .` gives several outputs.
#' @param data A data.frame holding the variables of `formula`.
#' @param n_tree Number of trees.
#' @param mtry Number of features sampled at each node, or a function of the
#'   number of features D returning it. Default `ceiling(log2(D) + 1)`, and 2
#'   when D = 3 (a factor counts as one feature).
#' @param min_split Nodes with fewer rows are not split. Default 2 for
#'   classification, 6 for regression, twice `min_leaf` for survival.
#' @param min_leaf Minimum number of rows in a leaf. Default 1 for
#'   classification, 3 for regression, the square root of the rows (at least
#'   5) for survival.
#' @param min_events Survival forests only: the least rows with an event in
#'   each child of a split, as aorsf's `leaf_min_events`. Default, for one
#'   cause, the square root of the training rows with an event, rounded up
#'   (8 for 64 events), so that where events are few the trees grow fewer,
#'   better-filled leaves; with `min_statistic` it raised the held-out IPA
#'   on small data sets and was level or better on larger ones
#'   ([`bench/results/survival-defaults.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-defaults.md),
#'   fourth session). 1 (leaves bounded in rows by `min_leaf` only, as
#'   ccforest 0.3.0 did) for competing risks and for `variant = "paper"`.
#' @param min_statistic Survival forests only: a node whose best split has a
#'   log-rank statistic below this is a leaf (aorsf's `split_min_stat`).
#'   Default `qchisq(0.95, 1)` (about 3.84, the test's 5% level) for one
#'   cause, which keeps trees from splitting noise on small data with a weak
#'   signal and seldom binds on larger sets
#'   ([`bench/results/survival-defaults.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-defaults.md),
#'   round 8); 0 (split wherever `min_leaf` and `min_events` allow, as
#'   ccforest 0.3.0 did) for competing risks and for `variant = "paper"`.
#' @param max_depth Maximum depth of a tree; `NULL` (default) for unlimited.
#' @param split_rule `"entropy"` (default) or `"gini"` for classification,
#'   `"variance"` for regression, `"logrank"` for survival.
#' @param sampling `"auto"` (default) uses projection bootstrapping when
#'   `mtry` is less than the number of features and bagging of whole trees
#'   otherwise, as in the paper (survival forests are bagged: see the section
#'   on survival forests); `"projection"` or `"bagging"` force one.
#'   Projection bootstrapping fits each node's CCA on a bootstrap sample of
#'   the node's rows and grows each tree on every row (unless
#'   `sample_fraction` or `replace` say otherwise); bagging grows each tree on
#'   a bootstrap sample and fits each node's CCA on all of the node's rows.
#'   When the trees are grown on samples, out-of-bag predictions and their
#'   error are stored in the forest (`predictions`, `oob_error`) and shown by
#'   `print()`, unless `oob_error = FALSE`. With projection bootstrapping every tree is grown on every
#'   row, so a gross error in a regression output reaches a leaf of every
#'   tree (bagging leaves it out of about a third of them): look for
#'   data-entry errors in the outputs before fitting.
#' @param sample_fraction The share of the rows each tree is grown on, as
#'   ranger's `sample.fraction`: a number in (0, 1] (of the rows of positive
#'   weight, rounded), or, for classification with one output, one number
#'   per class (named by the classes, or in the order of the levels), each
#'   the share of all rows drawn from that class, summing to at most 1:
#'   `c(no = 0.1, yes = 0.1)` grows every tree on a balanced sample of a fifth
#'   of the rows. Default 1, except 0.632 for bagging without replacement.
#'   With projection bootstrapping, a fraction below 1 grows each tree on a
#'   subsample (its nodes still use projection bootstrapping), which gives
#'   out-of-bag predictions. See the section on sampling and weights.
#' @param replace Whether each tree's rows are drawn with replacement.
#'   Default `TRUE` for bagging and `FALSE` for projection bootstrapping,
#'   where `sample_fraction = 1` without replacement is every row once (the
#'   paper's forest).
#' @param projection How each node turns its sampled features into candidate
#'   split directions: `"cca"` (default; canonical correlation forest),
#'   `"rotation"` (a uniformly random rotation: random rotation forest),
#'   `"pca"` (principal components of the node's sampled features) or
#'   `"axis"` (the features themselves: a random forest). The paper's variants
#'   CCF-Bag and RRF-Bag combine these with `sampling = "bagging"`. Projection
#'   bootstrapping has no effect on axis-aligned splits, so for a random
#'   forest proper use `projection = "axis", sampling = "bagging"`.
#' @param importance Variable importance to compute while fitting: `"none"`
#'   (default), `"projection"` (split gains shared among each split's
#'   features in proportion to their coefficients; cheap, see
#'   [importance()]), `"permutation"` (out-of-bag permutation importance) or
#'   `"negation"` (out-of-bag negation importance: the sign of a variable's
#'   coefficients flipped in every split). The last two need
#'   `sampling = "bagging"`, since with projection bootstrapping every tree
#'   sees every row. The result is stored as `variable.importance`.
#' @param oob_error Whether to compute the out-of-bag estimates of a forest
#'   whose trees are grown on samples (bagging, the default for survival, or
#'   a `sample_fraction` below 1), as ranger's `oob.error`: `TRUE` (default)
#'   or `FALSE`, which skips them and saves their time: for a default
#'   survival fit (the out-of-bag curves, C-index and integrated Brier
#'   score), 12% of the training time summed over 15 held-out data sets
#'   (6-22% per set, 16% on 1,000 rows of prostateSurvival:
#'   [`bench/results/survival-speed.md`](https://github.com/ccforest/ccforest/blob/main/bench/results/survival-speed.md),
#'   sixth session); for bagged classification and regression (the
#'   out-of-bag pass over the trees), 10% and 6% of 100-tree fits on 2,000
#'   rows. The trees, and every prediction on new data, are the same either
#'   way. With `FALSE` the fit stores none of `predictions`, `oob_error`,
#'   its curve by number of trees, `oob_prob`, `residuals` or, for survival,
#'   `oob_survival`, `oob_c_index` and `oob_ibs`; `print()` and `summary()`
#'   say they were not computed, and what needs them is an error naming
#'   `oob_error`: [fitted()][fitted.ccforest()] and
#'   [residuals()][residuals.ccforest()], `plot(fit, which = "error")`,
#'   `importance = "permutation"` or `"negation"` at fit time (measure them
#'   on held-out data with [importance()] instead), the jackknife+ intervals
#'   of [predict.ccforest()] (calibrated intervals, `interval = "cqr"`, and
#'   standard errors, `type = "se"`, still work) and the mlr3 learners'
#'   `$oob_error()`. It has no effect on forests grown without samples
#'   (projection bootstrapping), which have no out-of-bag rows.
#' @param na_action How to treat missing values in the features:
#'   `"impute_random"` (default), `"impute_mean"`, `"fail"` or `"omit"`. See
#'   the section on missing values.
#' @param max_directions Search only the strongest `max_directions` canonical
#'   correlation (or principal component) directions at each node; `Inf`
#'   searches all of them, as the paper does. A node with K classes has up to
#'   K - 1 canonical directions, and the first ones carry most of the
#'   separation. The default, 2, departs from the paper for four classes or
#'   more; regression with one output and two or three classes have at most
#'   two directions anyway. It has no effect with `projection = "rotation"`
#'   or `"axis"`. What the default rests on: section 6 of
#'   `vignette("paper", package = "ccforest")`.
#' @param direction_ratio Classification: of those `max_directions`, search
#'   a canonical direction after the first only when its canonical
#'   correlation is at least `direction_ratio` times the first's: a number in
#'   \[0, 1\], 0 searching all of them, as the paper does. Each direction
#'   searched costs as much as the first, and one much weaker seldom holds
#'   the best cut. The default is 0.9. It acts only where a node has two
#'   canonical directions or more (three classes or more, or several
#'   outputs). Regression (where `output_bins` is there for the weaker
#'   directions) and survival forests are not affected, nor are principal
#'   components, rotations and axes. What the default rests on: section 6 of
#'   `vignette("paper", package = "ccforest")`.
#' @param bootstrap_max_rows With projection bootstrapping, a node of more
#'   rows fits its canonical correlations (or principal components) on a
#'   bootstrap sample of this many of its rows instead of as many as it has;
#'   `Inf` draws as many (the paper). Its split is still sought among all of
#'   its rows. The default is 1024. It has no effect with bagging (the CCA
#'   then takes all of a node's rows) or with `projection = "rotation"` or
#'   `"axis"`. What the default saves and costs: section 6 of
#'   `vignette("paper", package = "ccforest")`.
#' @param exact_split_max_rows Nodes of more rows search each direction's
#'   cuts binned: the range of the node's projections is cut into 256 equal
#'   bins, the best boundary between bins is found from each bin's class
#'   counts (or sums of the outputs), and the cuts among the rows of the two
#'   bins on either side of it are searched exhaustively. `Inf` searches
#'   every cut of every node exhaustively (the paper). The default is 1024.
#'   That replaces a sort of the node's projections by one pass over its
#'   rows, and finds the exhaustive search's cut unless a better one lies
#'   inside a bin away from the best boundary. Survival forests' log-rank
#'   rule has no binned search: their nodes are always searched
#'   exhaustively. What the default saves and costs: section 6 of
#'   `vignette("paper", package = "ccforest")`.
#' @param output_bins Regression with one output: run each node's CCA
#'   against the output's `output_bins` quantile bins at the node (as if they
#'   were classes) instead of the output itself. The CCA of one numeric output
#'   has a single direction, the least-squares one; the bins give up to
#'   `output_bins - 1`, which can follow relations that are not monotone
#'   (splits are still chosen by the variance of the output): sliced inverse
#'   regression (Li, 1991) at every node. `NULL` (default): the paper's CCA.
#'   It can help where the output depends on a direction of the features in
#'   a way that is not monotone, and hurt where one linear trend dominates:
#'   an option to try, not a default (section 6 of
#'   `vignette("paper", package = "ccforest")` has the measurements).
#' @param axis_candidates Whether the sampled features' own axes join the
#'   canonical directions as candidate splits at each node (a hybrid with a
#'   random forest's splits), and how they are cut: `"none"` (default, the
#'   paper's CCF); `"random"`, each axis cut once, at a point drawn uniformly
#'   between the node's smallest and largest value of the feature, as
#'   extremely randomised trees cut (Geurts, Ernst and Wehenkel, 2006), and
#'   kept if that cut beats the canonical directions' best; `"search"`, each
#'   axis at its best cut. `TRUE` and `FALSE` mean `"search"` and `"none"`.
#'   Axes can help where single features carry the signal through relations
#'   that are not monotone, which no linear direction follows, and hurt
#'   where the data are few and noisy, since more candidates give more
#'   chances to split on noise; a random cut is a weaker candidate than a
#'   searched one, so it wins less where axes help and loses less where they
#'   hurt. Where each won and lost: section 6 of
#'   `vignette("paper", package = "ccforest")`.
#' @param onehot_max_levels Unordered factors with at most this many levels
#'   are expanded to one indicator column per level, sampled together as one
#'   feature (the paper's encoding; `Inf` keeps it for every factor). A factor
#'   with more levels is valued by the outputs instead, once, before the trees
#'   are grown: each level's mean output, shrunk toward the overall mean, as
#'   in Wright and Koenig (2019), is one numeric column for one numeric output
#'   or two classes; with K > 2 classes (or several outputs) the levels'
#'   shrunk class shares give one column per principal axis (the strongest,
#'   at most K - 1 and at most eight), sampled together as one feature, so
#'   that the levels' class structure is not squeezed into a single order.
#'   Each training row is valued out of fold, so that its value carries
#'   nothing of its own output and out-of-bag estimates stay honest: a
#'   level's rows are dealt into three folds (shuffled by `seed`), and each
#'   row gets the value of its level computed from the other two (the
#'   measurements: section 6 of `vignette("paper", package = "ccforest")`).
#'   The default is 32.
#'   The cost is then that of at most eight numeric columns whatever the
#'   number of levels, and a noisy factor with
#'   many levels cannot over-fit the canonical correlations through one
#'   column per level. See the section on data handling.
#' @param variant `"ccforest"` (default) or `"paper"`: the algorithm of
#'   Rainforth and Wood (2017) as the authors' code runs it, so that the
#'   paper's results can be reproduced (see the section on the paper's
#'   algorithm). It searches every canonical direction, expands every factor
#'   to indicators and fits and searches every node on all of its rows
#'   (`max_directions = Inf, direction_ratio = 0, onehot_max_levels = Inf,
#'   bootstrap_max_rows = Inf, exact_split_max_rows = Inf`); giving it with another value of
#'   those, or with `output_bins` or
#'   `axis_candidates` other than `"none"`, is an error. The other arguments keep their
#'   meaning: `projection = "rotation"` with `variant = "paper"` is the
#'   paper's random rotation forest. Every canonical correlation analysis
#'   that samples a factor then works on all its indicator columns, at a cost
#'   that grows with the square of its levels (600 levels: 2.5 s of CPU a
#'   tree on 5,000 rows; 2,000 levels: about 30 s): a factor of more than
#'   1,000 levels is an error before anything is grown, unless
#'   `onehot_max_levels = Inf` is given too, to say the cost is meant.
#' @param case_weights Optional case weights: one finite value >= 0 per row
#'   of the data (tidymodels' importance and frequency weights are accepted).
#'   A row of weight w counts as w copies of itself, relative to the other
#'   rows (only ratios matter): see the section on sampling and weights. A
#'   row of weight 0 takes no part at all: the forest is the one grown
#'   without it (and when trees are grown on samples it still gets an
#'   out-of-bag prediction).
#' @param feature_weights How each node samples its `mtry` features:
#'   `"auto"` (default) by the screen below when the data call for it, else
#'   uniformly; `NULL` uniformly, as the paper does; a numeric vector of one
#'   non-negative weight per feature of `x` (named by the features, in any order, or in
#'   their order), each node then drawing its features without replacement
#'   with probability in proportion to the weights, as ranger's
#'   `split.select.weights` do (a feature of weight 0 is never sampled; a node
#'   with fewer features of positive weight than `mtry` samples all of them);
#'   or `"screen"`, weights from the training data: each feature's R^2 with
#'   the outputs (the share of its variance the class indicators, or the
#'   numeric outputs, explain linearly: its squared canonical correlation
#'   with the outputs alone), squared. Screening is what wide data with a
#'   sparse signal need (thousands of features, a few of which matter, as in
#'   gene expression): uniform sampling rarely puts an informative feature
#'   among a node's few, and a larger `mtry` lets the CCA fit noise (what it
#'   measured: section 6 of `vignette("paper", package = "ccforest")`).
#'   The screen is computed once per fit on every training row of positive
#'   weight, before any tree, so with `sampling = "bagging"` the out-of-bag
#'   error is optimistic (the rows left out of a tree helped choose its
#'   features). Not available for survival. The weights used are kept in
#'   `fit$options$feature_weights`, scaled to a largest of 1. Beyond the
#'   paper, so not with `variant = "paper"`.
#'
#'   `"auto"` computes the screen's R^2 and counts the features that stand
#'   out from noise: whose R^2 exceeds what any of the D features would reach
#'   with probability 0.05 if it were independent of the outputs (the null
#'   R^2 of a Gaussian feature, Beta(k / 2, (n - 1 - k) / 2) for n rows and
#'   outputs of rank k, Bonferroni over D). It screens when some
#'   do and either so few do that a node's `mtry` uniform draws would meet
#'   one of them at most every second node on average (`mtry` x their
#'   number < D / 2: a sparse signal) or the data are at least ten times
#'   wider than long (D >= 10 n, as gene expression data are); otherwise,
#'   and for survival, with `variant = "paper"` or when every node samples
#'   every feature, the forest is exactly the one `NULL` grows. Where it acts, the weights are each
#'   feature's R^2 to the 4th power (sharper than the screen's square) and,
#'   unless `axis_candidates` is given, `axis_candidates = "random"`, which
#'   together measured best on microarrays. It acted on every sparse simulated
#'   design and every microarray of
#'   [wide.md](https://github.com/ccforest/ccforest/blob/main/bench/results/wide.md)
#'   and on none of
#'   the paper's data sets, the near-infrared spectra or the dense simulated
#'   design. What it saw is kept in `fit$options$screen_rule`, and print()
#'   says when it acted.
#' @param class_weights Optional weights of the classes, a numeric vector
#'   named by (some of) the levels of the output; unnamed classes weigh 1.
#'   They multiply the case weights of the rows of each class (classification
#'   with one output).
#' @param quantiles Keep, for every leaf, the training outputs that reached it,
#'   so that [predict.ccforest()] can give quantiles (`type = "quantiles"`):
#'   quantile regression forests (Meinshausen, 2006), for regression with one
#'   output. The forest grows by about one integer per training row per tree.
#' @param n_thread Number of threads; `NULL` takes
#'   `getOption("ccforest.n_thread")`, then the environment variable
#'   `CCFOREST_N_THREAD`, then 2. 0 means all cores.
#' @param seed Master seed, a whole number in \[0, 2^31 - 1\]; `NULL` draws one
#'   from R's random number generator.
#' @param verbose Show progress on long fits: on a terminal, one line
#'   rewritten in place; where output is not a terminal (a log file, knitr,
#'   an RStudio background job), a line every 10 seconds with the estimated
#'   time left. `options(ccforest.progress = "lines")` or `"bar"` chooses
#'   either.
#' @param first_tree The number of the first tree to grow: the fit holds
#'   trees `first_tree`, ..., `first_tree + n_tree - 1` of the forest with
#'   this `seed` (see the section on scaling out). Default 1.
#' @param backend Where the trees are grown: `"threads"` (default; this R
#'   session, `n_thread` threads) or `"future"` (batches of trees as futures
#'   on the current [future::plan()]; needs the future package).
#' @param n_batch With `backend = "future"`, the number of batches (futures)
#'   the trees are split into; default one per worker of the plan (at most
#'   one per tree; plans without a fixed number of workers need it). More
#'   batches than workers balance the load when workers differ in speed.
#' @param ... Options of the formula method are passed on to the default
#'   method. Arguments after `...` must be named in full: a misspelled or
#'   abbreviated name is an error that suggests the right one.
#' @return An object of class `"ccforest"`: a plain list holding the trees as
#'   flat vectors, the blueprint of the data (names, levels, scaling), the
#'   resolved options and seed, the task, the call, the training time and the
#'   package version. It can be saved with [saveRDS()]. It is sealed with a
#'   `checksum` of every element it holds when fitted but `call` and
#'   `train_time` (the elements covered are listed in `sealed`; elements
#'   added later, as caret adds its own, are not covered):
#'   [predict()][predict.ccforest()], [importance()], [combine_forests()],
#'   [tree_info()], [partial_dependence()] and the methods refuse an object
#'   changed after fitting, or damaged in storage or transfer, with an error
#'   saying it is damaged. (ASCII serialization, `saveRDS(ascii = TRUE)`,
#'   does not keep numbers exactly, so it damages objects too.) Objects
#'   fitted before 0.3.0 have no checksum; they get checks of their structure
#'   and of every tree instead. An object of 0.3.0 or later without its
#'   checksum is refused.
#' @references Rainforth, T. and Wood, F. (2017). Canonical correlation
#'   forests. arXiv:1507.05444.
#'
#'   Li, K.-C. (1991). Sliced inverse regression for dimension reduction.
#'   Journal of the American Statistical Association, 86, 316-327.
#'
#'   Wright, M. N. and Koenig, I. R. (2019). Splitting on categorical
#'   predictors in random forests. PeerJ, 7, e6339.
#'
#'   Meinshausen, N. (2006). Quantile regression forests. Journal of Machine
#'   Learning Research, 7, 983-999.
#' @seealso [predict.ccforest()]
#' @examples
#' fit <- ccforest(Species ~ ., data = iris, n_tree = 50, seed = 1)
#' fit
#' predict(fit, iris[c(1, 51, 101), ])
#'
#' # x/y interface, regression
#' reg <- ccforest(mtcars[, -1], mtcars$mpg, n_tree = 50, seed = 1)
#' predict(reg, mtcars[1:3, ])
#'
#' # Survival: a right-censored outcome
#' library(survival)
#' surv <- ccforest(Surv(time, status) ~ trt + karno + age + celltype,
#'                  data = veteran, n_tree = 50, seed = 1)
#' surv
#' predict(surv, veteran[1:3, ], type = "survival", times = c(30, 90, 180))
#'
#' # Wide data, a sparse signal: by default ("auto") the features are
#' # sampled by their screening R^2, since only a few of 500 stand out from noise
#' set.seed(1)
#' x <- matrix(rnorm(200 * 500), 200, dimnames = list(NULL, paste0("g", 1:500)))
#' y <- factor(x[, 1] + x[, 2] - x[, 3] + rnorm(200) > 0)
#' wide <- ccforest(x, y, n_tree = 50, seed = 1)
#' wide
#' wide$options$screen_rule
#' # Uniform sampling whatever the data
#' ccforest(x, y, n_tree = 50, seed = 1, feature_weights = NULL)
#' # Or weights of one's own: g4 to g500 are never sampled here.
#' ccforest(x, y, n_tree = 50, seed = 1, feature_weights = rep(c(1, 0), c(3, 497)))
#' @export
ccforest <- function(x, ...) {
  # ccforest(formula = y ~ ., data = d), as update() calls it: evaluated as
  # the user's call (not through `...`), so the fit records the call as
  # written.
  if (missing(x)) {
    call <- match.call()
    call[[1L]] <- ccforest.formula
    return(eval(call, parent.frame()))
  }
  # ccforest(x = y ~ ., data = d): the formula method's first argument is
  # `formula`, so a formula passed by the name `x` is renamed, and the call
  # the fit records reads as the user's.
  if (inherits(x, "formula")) {
    call <- match.call()
    names(call)[names(call) == "x"] <- "formula"
    call[[1L]] <- ccforest.formula
    return(eval(call, parent.frame()))
  }
  UseMethod("ccforest")
}

#' @rdname ccforest
#' @export
ccforest.formula <- function(formula, data, ...) {
  if (missing(formula)) {
    stop("`formula` is missing: give a formula such as `y ~ .`, or `x` and `y`.", call. = FALSE)
  }
  if (missing(data)) {
    stop("`data` is missing: the formula interface needs a data.frame.", call. = FALSE)
  }
  parts <- formula_data(formula, data, env = parent.frame())
  y <- parts$y
  if (!is.data.frame(y)) {
    # One output: keep its name from the formula rather than "y".
    y <- stats::setNames(data.frame(y, stringsAsFactors = FALSE), parts$terms_info$response_names)
  }
  # The data came from `data`, so messages about it should say so.
  # The fit records the formula and this call, and is sealed once with them.
  ccforest.default(parts$x, y, ..., .x_arg = "data", .y_arg = "data",
                   .formula = list(terms = parts$terms_info, call = generic_call(match.call())))
}

#' @rdname ccforest
#' @export
ccforest.default <- function(x, y, ..., n_tree = 500L, mtry = NULL, min_split = NULL,
                             min_leaf = NULL, min_events = NULL, min_statistic = NULL,
                             max_depth = NULL, split_rule = NULL,
                             sampling = "auto", sample_fraction = NULL, replace = NULL,
                             projection = "cca", importance = "none", oob_error = TRUE,
                             na_action = "impute_random", case_weights = NULL,
                             class_weights = NULL, quantiles = FALSE, onehot_max_levels = 32,
                             max_directions = 2L, direction_ratio = 0.9,
                             bootstrap_max_rows = 1024L,
                             exact_split_max_rows = 1024L, output_bins = NULL,
                             axis_candidates = "none", feature_weights = "auto",
                             variant = "ccforest", n_thread = NULL, seed = NULL, verbose = interactive(),
                             first_tree = 1L, backend = "threads", n_batch = NULL) {
  call <- generic_call(match.call())
  dots <- list(...)
  x_arg <- dots$.x_arg %||% "x"
  y_arg <- dots$.y_arg %||% "y"
  formula <- dots$.formula
  if (!is.null(names(dots))) {
    dots <- dots[!names(dots) %in% c(".x_arg", ".y_arg", ".formula")]
  }
  check_dots(dots, valid = names(formals(ccforest.default)), fn = "ccforest")
  check_y(y, missing(y))

  # The fit's pipeline (R/fit-pipeline.R): the options from the call, the
  # training set from the data, the trees, then the fitted object.
  spec <- resolve_specification(given_options(environment()))
  prepared <- prepare_training(x, y, spec, x_arg, y_arg)
  rm(x, y)
  grown <- grow_fit(prepared)
  finish_fit(grown, prepared, call, formula)
}

#' Build the fitted object: plain data only, so it saves and reloads as is
#' @noRd
new_ccforest <- function(forest, task, blueprint, response, options, seed, n_obs,
                         train_time, call) {
  structure(
    list(
      forest = forest,
      task = task,
      blueprint = blueprint,
      response = response,
      options = options,
      seed = seed,
      n_obs = n_obs,
      train_time = train_time,
      call = call,
      formula = NULL,
      version = ccforest_version()
    ),
    class = "ccforest"
  )
}

#' What prediction needs to know about the outputs, without the data
#' @noRd
response_blueprint <- function(response) {
  keep <- c("task", "names", "n_output", "levels", "n_class", "center", "scale", "survival")
  response[intersect(keep, names(response))]
}

#' The call a fit records: as the user wrote it, through the generic, but
#' without values spliced into it. do.call() and caret put the data
#' themselves in the call, which would then hold a copy of them (and print
#' them in full): such a value becomes a symbol naming what it was, e.g.
#' `<data.frame: 150 x 4>`, so that a fit's size does not depend on how
#' ccforest() was called. Short plain vectors (`n_tree = 50`,
#' `class_weights = c(yes = 10)`) are kept.
#' @noRd
generic_call <- function(call) {
  call[[1L]] <- as.name("ccforest")
  for (i in seq_along(call)[-1L]) {
    value <- call[[i]]
    if (inherits(value, "formula")) {
      # A formula object keeps its environment, which could hold anything:
      # the bare expression reads the same.
      attributes(value) <- NULL
      call[[i]] <- value
      next
    }
    if (is.null(value) || is.language(value)) next
    if (is.atomic(value) && !is.object(value) && is.null(dim(value)) && length(value) <= 10L) next
    call[[i]] <- as.name(sprintf("<%s>", value_summary(value)))
  }
  call
}

#' What a value spliced into a call was, in a few words
#' @noRd
value_summary <- function(value) {
  if (is.data.frame(value) || is.matrix(value)) {
    kind <- if (is.data.frame(value)) class(value)[[1L]] else paste(typeof(value), "matrix")
    return(sprintf("%s: %d x %d", kind, NROW(value), NCOL(value)))
  }
  if (is.function(value)) {
    return("function")
  }
  kind <- if (is.object(value)) class(value)[[1L]] else if (is.atomic(value)) {
    paste(typeof(value), "vector")
  } else {
    typeof(value)
  }
  sprintf("%s of length %d", kind, length(value))
}

#' Arguments of a recorded call that generic_call() replaced by a summary
#' @noRd
omitted_arguments <- function(call) {
  args <- as.list(call)[-1L]
  omitted <- vapply(args, function(a) is.symbol(a) && grepl("^<.*>$", as.character(a)),
                    logical(1))
  names(args)[omitted]
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' @noRd
subset_rows <- function(y, keep) {
  if (is.data.frame(y) || is.matrix(y)) y[keep, , drop = FALSE] else y[keep]
}
