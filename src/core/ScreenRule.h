#ifndef CCFOREST_SCREEN_RULE_H_
#define CCFOREST_SCREEN_RULE_H_

#include <cstddef>
#include <vector>

namespace ccforest {

/**
 * P(B > x) for B ~ Beta(a, b), a, b > 0: the upper tail of a feature's
 * screening R^2 when it is independent of the outputs (Gaussian features, a
 * centred output block of rank k over n rows: a = k / 2, b = (n - 1 - k) / 2).
 */
double beta_upper_tail(double x, double a, double b);

/**
 * The R^2 that pure noise exceeds with probability `tail`: the upper
 * `tail` quantile of Beta(a, b).
 */
double beta_upper_quantile(double tail, double a, double b);

/** What feature_weights = "auto" decided, and from what. */
struct ScreenDecision {
  bool acts = false;            // whether the forest samples by the screen
  size_t standing_out = 0;      // features whose R^2 no noise feature reaches
  double threshold = 1.0;       // the R^2 they exceed
};

/**
 * feature_weights = "auto": whether to sample features by their screening
 * R^2 (core/Screening.h) rather than uniformly. A feature stands out when its
 * R^2 exceeds what any of p features independent of the outputs would reach
 * but with probability 0.05 (Bonferroni over the p features, the null
 * Beta(rank / 2, (n - 1 - rank) / 2)). The screen acts when some feature
 * stands out and either so few do that a node's mtry uniform draws would hold
 * one of them at most every second node on average (mtry * standing_out <
 * p / 2: a sparse signal, which uniform sampling rarely puts in front of the
 * CCA; at p / 1 it acted on 2 of 10 training folds of the gasoline spectra,
 * a dense signal) or the data
 * are wide in the gene-expression sense (p >= 10 n). It never acts when every
 * feature is drawn at every node (mtry >= p), or when the rows leave no
 * degrees of freedom for the null (n <= rank + 1).
 *
 * @param r2 each feature's screening R^2
 * @param n_row the rows the R^2 were computed over
 * @param rank the rank of the centred output block
 * @param mtry the features each node samples
 */
ScreenDecision decide_screen(const std::vector<double>& r2, size_t n_row, size_t rank, size_t mtry);

}  // namespace ccforest

#endif  // CCFOREST_SCREEN_RULE_H_
