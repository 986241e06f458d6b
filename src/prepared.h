// A fitted object's prepared state: what every prediction would otherwise
// redo although it depends only on the fit (verifying its seal, decoding its
// trees), kept once per fit for as long as the fit lives (rule 22 of
// ARCHITECTURE.md). Bindings only: it holds R objects.
#ifndef CCFOREST_PREPARED_H_
#define CCFOREST_PREPARED_H_

#include <Rcpp.h>

#include <cstddef>

#include "core/Model.h"
#include "core/Quantiles.h"
#include "core/Runtime.h"

namespace ccforest {

/**
 * Whether `object`'s elements named in `names` (and the presence of each)
 * are, object for object, the ones last verified through `handle`: then no
 * R code can have changed them since (see mark_verified()).
 */
bool is_verified(SEXP handle, SEXP object, SEXP names);

/**
 * Records that `object` passed the full checks (nothing, if `names` is not a
 * character vector): its elements named in `names` are made immutable (an edit then copies, so a changed element is
 * another object) and kept alive with the handle (so no other object can
 * take an address compared later). `memory_limit` bounds the decoded model
 * kept for it. Any model decoded from other trees is dropped.
 */
void mark_verified(SEXP handle, SEXP object, SEXP names, double memory_limit);

/**
 * Lets the fit being made from `trees`, which it has just grown, prepare
 * their decoded model (prepared_model()) with its new, empty `handle`
 * before it is sealed, so that its out-of-bag estimates walk the model its
 * predictions will walk instead of decoding the trees once more. Until
 * mark_verified() no one else holds the handle; mark_verified() keeps the
 * model, as for any verified fit, when the sealed fit holds these trees.
 */
void hold_grown_trees(SEXP handle, SEXP trees, double memory_limit);

/**
 * The decoded model of all of `trees`, decoded now if needed and kept with
 * the handle: only for trees that are the verified object's own, of the
 * same shape, and whose decoded size fits the handle's memory limit;
 * otherwise nullptr (the caller decodes what it needs itself).
 */
const ForestModel* prepared_model(SEXP handle, SEXP trees, const ModelShape& shape,
                                  const Runtime& runtime);

/**
 * The quantile samples of a quantile forest's trees (see QuantileSamples),
 * checked and kept with the handle beside its prepared model: only when
 * `quantile` is the verified object's own element `quantile`
 * (list(samples, y, weights)) and the model is prepared; otherwise nullptr.
 */
const QuantileSamples* prepared_quantiles(SEXP handle, SEXP trees, SEXP quantile,
                                          const ModelShape& shape, const Runtime& runtime);

/** Bytes of decoded trees kept with `handle` (0 for none). */
double prepared_bytes(SEXP handle);

/** Bytes of decoded trees kept with every live fit. */
double prepared_bytes_total();

/** Releases everything prepared (the package's code is being unloaded). */
void release_all_prepared();

}  // namespace ccforest

#endif  // CCFOREST_PREPARED_H_
