// A fitted object's prepared state (see prepared.h).
//
// The handle is an external pointer in the fit (`cache`). It serializes as
// an empty pointer, so a fit read back, unserialized or sent to a worker
// starts unprepared and is verified and decoded again on its first use.
// Everything prepared hangs off one weak reference keyed on the handle: its
// value keeps the verified elements alive exactly as long as the handle is
// reachable (a weak reference's value never keeps its key alive, so a fit
// whose formula environment refers back to the fit is still collected), and
// its finalizer frees the decoded trees when the fit is collected.
#include "prepared.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <unordered_set>
#include <vector>

#include "core/TreeCodec.h"

namespace ccforest {

namespace {

/**
 * Decoded trees take at most about this many times their stored bytes
 * (bench/results/serving.md: 1.7 for a quantile forest, 3.2-3.5 for letter,
 * a binary and a survival forest); used to
 * decide before decoding whether a model fits its memory limit.
 */
constexpr double kDecodedPerStored = 4.0;

/** The prepared state of one handle. */
struct Prepared {
  SEXP handle = nullptr;   // not protected: the entry lives no longer than it
  SEXP weakref = nullptr;  // keyed on the handle; its value is `holder`
  SEXP holder = nullptr;   // list(verified elements), the weak reference's value
  /**
   * The verified elements, one per name; nullptr for an absent one (an
   * element may be present and NULL, and deleting it changes the fit).
   */
  std::vector<SEXP> elements;
  std::vector<std::string> names;
  SEXP trees = nullptr;  // the verified forest's trees (object$forest$trees)
  double memory_limit = 0.0;
  std::unique_ptr<ForestModel> model;
  std::unique_ptr<QuantileSamples> quantiles;
};

/** Live entries, so that unloading the package can release them all. */
std::unordered_set<Prepared*>& live() {
  static std::unordered_set<Prepared*> entries;
  return entries;
}

Prepared* entry_of(SEXP handle) {
  if (TYPEOF(handle) != EXTPTRSXP) return nullptr;
  return static_cast<Prepared*>(R_ExternalPtrAddr(handle));
}

void finalize(SEXP handle) {
  Prepared* entry = entry_of(handle);
  if (entry == nullptr) return;
  R_ClearExternalPtr(handle);
  live().erase(entry);
  delete entry;
}

/** The element `name` of a named list, or nullptr if it has none. */
SEXP element(SEXP object, SEXP object_names, const char* name) {
  const R_xlen_t n = XLENGTH(object);
  for (R_xlen_t i = 0; i < n; ++i) {
    if (std::strcmp(CHAR(STRING_ELT(object_names, i)), name) == 0) return VECTOR_ELT(object, i);
  }
  return nullptr;
}

/**
 * Marks x and everything it holds (list elements, attributes) immutable:
 * R then copies before any change, so the object at this address keeps
 * its contents. Environments and functions are not entered.
 */
void freeze(SEXP x) {
  switch (TYPEOF(x)) {
    case NILSXP:
    case ENVSXP:
    case CLOSXP:
    case EXTPTRSXP:
    case SYMSXP:
      return;
    case VECSXP:
    case EXPRSXP:
      for (R_xlen_t i = 0; i < XLENGTH(x); ++i) freeze(VECTOR_ELT(x, i));
      break;
    default:
      break;
  }
  MARK_NOT_MUTABLE(x);
  for (SEXP a = ATTRIB(x); a != R_NilValue; a = CDR(a)) freeze(CAR(a));
}

double decoded_bytes(const ForestModel& model) {
  // What the blocks really take: their capacity, huge ones in whole pages.
  return static_cast<double>(RecordAllocator<uint64_t>::block_bytes(model.split_words.capacity()) +
                             RecordAllocator<uint64_t>::block_bytes(model.leaf_words.capacity()));
}

bool same_shape(const ModelShape& a, const ModelShape& b) {
  return a.n_column == b.n_column && a.n_class == b.n_class &&
         a.n_output_real == b.n_output_real && a.n_time == b.n_time && a.n_cause == b.n_cause;
}

/** The entry of `handle`, made (and registered for its finalizer) if it has none. */
Prepared* entry_for(SEXP handle) {
  Prepared* entry = entry_of(handle);
  if (entry != nullptr) return entry;
  auto fresh = std::make_unique<Prepared>();
  // R allocates first, so a failure leaves nothing registered.
  Rcpp::unwindProtect([&] {
    SEXP holder = PROTECT(Rf_allocVector(VECSXP, 1));
    fresh->weakref = R_MakeWeakRefC(handle, holder, finalize, FALSE);
    fresh->holder = holder;
    UNPROTECT(1);
    return R_NilValue;
  });
  fresh->handle = handle;
  entry = fresh.release();
  live().insert(entry);
  R_SetExternalPtrAddr(handle, entry);
  return entry;
}

}  // namespace

void hold_grown_trees(SEXP handle, SEXP trees, double memory_limit) {
  if (TYPEOF(handle) != EXTPTRSXP || TYPEOF(trees) != VECSXP) return;
  if (R_ExternalPtrAddr(handle) != nullptr) {
    Rcpp::stop("internal error: grown trees are held by a new handle only");
  }
  Prepared* entry = entry_for(handle);
  // Kept alive by the handle until mark_verified() replaces them with the
  // sealed elements, which hold the same trees.
  SET_VECTOR_ELT(entry->holder, 0, trees);
  entry->trees = trees;
  entry->memory_limit = memory_limit;
}

bool is_verified(SEXP handle, SEXP object, SEXP names) {
  const Prepared* entry = entry_of(handle);
  if (entry == nullptr || TYPEOF(object) != VECSXP || TYPEOF(names) != STRSXP) return false;
  SEXP object_names = Rf_getAttrib(object, R_NamesSymbol);
  if (TYPEOF(object_names) != STRSXP || XLENGTH(object_names) != XLENGTH(object)) return false;
  const R_xlen_t n = XLENGTH(names);
  if (static_cast<size_t>(n) != entry->elements.size()) return false;
  for (R_xlen_t i = 0; i < n; ++i) {
    const char* name = CHAR(STRING_ELT(names, i));
    if (entry->names[static_cast<size_t>(i)] != name ||
        element(object, object_names, name) != entry->elements[static_cast<size_t>(i)]) {
      return false;
    }
  }
  return true;
}

void mark_verified(SEXP handle, SEXP object, SEXP names, double memory_limit) {
  // No handle, or no record of what the seal covers (older fits): nothing
  // is kept, and the object is checked in full on every call.
  if (TYPEOF(handle) != EXTPTRSXP || TYPEOF(names) != STRSXP) return;
  if (TYPEOF(object) != VECSXP) Rcpp::stop("internal error: a fit is verified as a named list");
  SEXP object_names = Rf_getAttrib(object, R_NamesSymbol);
  if (TYPEOF(object_names) != STRSXP || XLENGTH(object_names) != XLENGTH(object)) {
    Rcpp::stop("internal error: a fit is verified as a named list");
  }
  const R_xlen_t n = XLENGTH(names);
  Prepared* entry = entry_for(handle);
  SEXP kept = Rcpp::Shield<SEXP>(Rcpp::unwindProtect([&] { return Rf_allocVector(VECSXP, n); }));
  std::vector<SEXP> elements(static_cast<size_t>(n));
  std::vector<std::string> element_names(static_cast<size_t>(n));
  for (R_xlen_t i = 0; i < n; ++i) {
    element_names[static_cast<size_t>(i)] = CHAR(STRING_ELT(names, i));
    SEXP value = element(object, object_names, element_names[static_cast<size_t>(i)].c_str());
    if (value != nullptr) {
      freeze(value);
      SET_VECTOR_ELT(kept, i, value);
    }
    elements[static_cast<size_t>(i)] = value;
  }
  SET_VECTOR_ELT(entry->holder, 0, kept);
  entry->elements.swap(elements);
  entry->names.swap(element_names);
  entry->memory_limit = memory_limit;
  SEXP forest = element(object, object_names, "forest");
  SEXP trees = nullptr;
  if (forest != nullptr && TYPEOF(forest) == VECSXP) {
    SEXP forest_names = Rf_getAttrib(forest, R_NamesSymbol);
    if (TYPEOF(forest_names) == STRSXP) trees = element(forest, forest_names, "trees");
  }
  if (trees != entry->trees) entry->model.reset();
  entry->quantiles.reset();  // views into elements that may have been replaced
  // Only trees inside a verified element may be served from the entry.
  bool covered = false;
  for (SEXP e : entry->elements) covered = covered || (e != nullptr && e == forest);
  entry->trees = covered && trees != nullptr && TYPEOF(trees) == VECSXP ? trees : nullptr;
  if (entry->trees == nullptr) entry->model.reset();
}

const QuantileSamples* prepared_quantiles(SEXP handle, SEXP trees, SEXP quantile,
                                          const ModelShape& shape, const Runtime& runtime) {
  Prepared* entry = entry_of(handle);
  if (entry == nullptr) return nullptr;
  // Only the verified element, whose parts are immutable and kept alive.
  bool verified = false;
  for (size_t i = 0; i < entry->names.size(); ++i) {
    verified = verified || (entry->names[i] == "quantile" && entry->elements[i] == quantile);
  }
  if (!verified || TYPEOF(quantile) != VECSXP) return nullptr;
  if (entry->quantiles) return entry->quantiles.get();
  const ForestModel* model = prepared_model(handle, trees, shape, runtime);
  if (model == nullptr) return nullptr;
  SEXP names = Rf_getAttrib(quantile, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP) return nullptr;
  SEXP samples = element(quantile, names, "samples");
  SEXP y = element(quantile, names, "y");
  SEXP weights = element(quantile, names, "weights");
  // Anything unexpected is left to the caller's own checks and messages.
  if (samples == nullptr || TYPEOF(samples) != VECSXP || XLENGTH(samples) != XLENGTH(trees) ||
      y == nullptr || TYPEOF(y) != REALSXP ||
      (weights != nullptr && weights != R_NilValue &&
       (TYPEOF(weights) != REALSXP || XLENGTH(weights) != XLENGTH(y)))) {
    return nullptr;
  }
  std::vector<LeafSample> views;
  for (R_xlen_t t = 0; t < XLENGTH(samples); ++t) {
    SEXP sample = VECTOR_ELT(samples, t);
    if (TYPEOF(sample) != INTSXP) return nullptr;
    views.emplace_back(INTEGER(sample), static_cast<size_t>(XLENGTH(sample)));
  }
  const bool weighted = weights != nullptr && weights != R_NilValue && XLENGTH(weights) > 0;
  entry->quantiles = std::make_unique<QuantileSamples>(
      *model, views, REAL(y), weighted ? REAL(weights) : nullptr,
      static_cast<size_t>(XLENGTH(y)), runtime);
  return entry->quantiles.get();
}

const ForestModel* prepared_model(SEXP handle, SEXP trees, const ModelShape& shape,
                                  const Runtime& runtime) {
  Prepared* entry = entry_of(handle);
  if (entry == nullptr || entry->trees == nullptr || trees != entry->trees) return nullptr;
  if (entry->model) {
    return same_shape(entry->model->shape, shape) ? entry->model.get() : nullptr;
  }
  double stored = 0.0;
  const R_xlen_t n = XLENGTH(trees);
  for (R_xlen_t t = 0; t < n; ++t) {
    SEXP tree = VECTOR_ELT(trees, t);
    if (TYPEOF(tree) != RAWSXP) return nullptr;  // the decoder's checks report it
    stored += static_cast<double>(XLENGTH(tree));
  }
  if (n == 0 || !(stored * kDecodedPerStored <= entry->memory_limit)) return nullptr;
  EncodedTrees encoded;
  encoded.reserve(static_cast<size_t>(n));
  for (R_xlen_t t = 0; t < n; ++t) {
    SEXP tree = VECTOR_ELT(trees, t);
    encoded.emplace_back(RAW(tree), static_cast<size_t>(XLENGTH(tree)));
  }
  entry->model = std::make_unique<ForestModel>(
      decode_forest(encoded, shape, 0, encoded.size(), runtime));
  return entry->model.get();
}

/** What an entry holds: its decoded trees and, once asked for, its quantile samples. */
double entry_bytes(const Prepared& entry) {
  return (entry.model ? decoded_bytes(*entry.model) : 0.0) +
         (entry.quantiles ? static_cast<double>(entry.quantiles->bytes()) : 0.0);
}

double prepared_bytes(SEXP handle) {
  const Prepared* entry = entry_of(handle);
  return entry != nullptr ? entry_bytes(*entry) : 0.0;
}

double prepared_bytes_total() {
  double total = 0.0;
  for (const Prepared* entry : live()) total += entry_bytes(*entry);
  return total;
}

void release_all_prepared() {
  // Running each weak reference's finalizer now frees its entry and clears
  // it, so that no finalizer of this code is left for R to call later.
  std::vector<Prepared*> entries(live().begin(), live().end());
  for (Prepared* entry : entries) R_RunWeakRefFinalizer(entry->weakref);
}

}  // namespace ccforest
