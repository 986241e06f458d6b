#ifndef CCFOREST_QUANTILES_H_
#define CCFOREST_QUANTILES_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "Data.h"
#include "Forest.h"
#include "Model.h"
#include "Predictor.h"
#include "Runtime.h"

namespace ccforest {

/**
 * Quantile regression forests (Meinshausen, 2006). A tree's leaf holds the
 * training rows of its sample that reached it; a new row's conditional
 * distribution puts, in each tree, weight 1 / n_tree on its leaf's rows,
 * shared in proportion to their case weights, and its quantiles are those of
 * that weighted distribution of the training outputs.
 */

/**
 * For each tree, its sample's rows (with multiplicity) grouped by leaf:
 * first the number of rows of each leaf (leaves numbered breadth first),
 * then the rows, leaf by leaf, each leaf's in increasing order of their
 * output (ties by row; forests fitted before 0.3.0 stored them by row only,
 * and prediction sorts those again). Samples are redrawn from
 * (seed, tree) and rows routed with find_leaf(), as prediction routes them.
 */
std::vector<std::vector<int32_t>> leaf_samples(const EncodedTrees& trees, const ModelShape& shape,
                                               const Data& data, const ForestSource& source,
                                               const Runtime& runtime);

/** The stored leaf samples of one tree: pointer and length. */
using LeafSample = std::pair<const int32_t*, size_t>;

/**
 * The leaf samples of a forest's first trees, checked against the trees'
 * leaves and the n_train training rows and each leaf's rows ordered by
 * output: what every quantile prediction reads, made once per fit (it reads
 * every stored row of every tree). Views: `samples`, `y` and `weight` must
 * outlive it.
 */
class QuantileSamples {
 public:
  /**
   * @param samples one per tree of `model` from the first, as leaf_samples()
   *   made them.
   * @param y the training outputs; `weight` their case weights or null.
   */
  QuantileSamples(const ForestModel& model, const std::vector<LeafSample>& samples,
                  const double* y, const double* weight, size_t n_train, const Runtime& runtime);
  ~QuantileSamples();
  QuantileSamples(const QuantileSamples&) = delete;
  QuantileSamples& operator=(const QuantileSamples&) = delete;

  size_t n_tree() const;
  /** Bytes it holds (its own, not the views'). */
  size_t bytes() const;

  struct Trees;
  const Trees& trees() const { return *trees_; }
  const double* y() const { return y_; }
  const double* weight() const { return weight_; }

 private:
  std::unique_ptr<Trees> trees_;
  const double* y_;
  const double* weight_;
};

/**
 * Writes the `probs` quantiles (increasing, in [0, 1]) of each row of x into
 * out (column-major, x.rows() x probs.size()), from the first
 * options.trees_of(model) trees, which `samples` must cover.
 */
void predict_quantiles(const ForestModel& model, const QuantileSamples& samples,
                       const MatrixMap& x, const std::vector<uint64_t>& row_hash,
                       const PredictOptions& options, const std::vector<double>& probs,
                       const Runtime& runtime, double* out);

}  // namespace ccforest

#endif  // CCFOREST_QUANTILES_H_
