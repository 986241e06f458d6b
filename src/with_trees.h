// The trees a prediction walks: the fit's prepared model, or the stored
// trees decoded a batch at a time. Bindings only (it reads R's list of raw
// vectors).
#ifndef CCFOREST_WITH_TREES_H_
#define CCFOREST_WITH_TREES_H_

#include <Rcpp.h>

#include <cstddef>
#include <cstdint>

#include "core/Model.h"
#include "core/Predictor.h"
#include "core/Runtime.h"
#include "core/TreeCodec.h"
#include "prepared.h"
#include "r_convert.h"

namespace ccforest {

/**
 * Calls work(model, options, begin) so that it sees the request's first
 * n_tree trees once each, in order, where `options` are the request's with
 * the batch's first tree and tree count and `begin` is the batch's first
 * tree among them: all at once from the fit's prepared model (see
 * prepared.h) when it has one, else decoded here about 64 MB of stored
 * trees at a time (decoded trees take a few times that), or, where the work
 * needs every tree at once (`whole`), in one piece.
 */
template <typename Work>
void with_trees(const PredictRequest& request, const Runtime& runtime, bool whole, Work work) {
  if (const ForestModel* model =
          prepared_model(request.cache, request.trees, request.shape, runtime)) {
    work(*model, request.options, size_t{0});
    return;
  }
  const EncodedTrees encoded = encoded_trees(request.trees);
  const size_t budget = whole ? SIZE_MAX : size_t{64} << 20;
  for (size_t begin = 0; begin < request.n_tree;) {
    size_t end = begin, bytes = 0;
    while (end < request.n_tree && (end == begin || bytes + encoded[end].second <= budget)) {
      bytes += encoded[end].second;
      ++end;
    }
    const ForestModel batch = decode_forest(encoded, request.shape, begin, end, runtime);
    PredictOptions options = request.options;
    options.first_tree += begin;
    options.tree_count = end - begin;
    work(batch, options, begin);
    begin = end;
  }
}

}  // namespace ccforest

#endif  // CCFOREST_WITH_TREES_H_
