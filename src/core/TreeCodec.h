#ifndef CCFOREST_TREE_CODEC_H_
#define CCFOREST_TREE_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "Model.h"
#include "Runtime.h"
#include "Tree.h"

namespace ccforest {

/**
 * The compact stored form of a tree (format 2). Fields of one kind are kept
 * together, and the bytes of multi-byte numbers are split into planes
 * (all most significant bytes first, then the next, ...), so that
 * general-purpose compression such as saveRDS()'s gzip finds the regularity
 * in exponents, signs and short thresholds:
 *
 *   u8 format (2); varint n_nodes;
 *   split flags, one bit per node (least significant bit first);
 *   per split: varint number of entries k;
 *   per split entry: varint column step (the first column, then the gap to
 *     the previous one minus one: columns increase);
 *   coefficient codes: high bytes, then low bytes;
 *   thresholds: 8 byte planes;
 *   classification: per leaf and output, varint 0 (several classes) or
 *     class + 1; then per mixed (leaf, output): varint number of classes c and
 *     c class steps; then their proportions as float32, 4 byte planes
 *     (decoding divides them by their sum, which must be 1 within float
 *     rounding, so that a leaf's probabilities sum to 1);
 *   regression: per leaf and output, the mean as 8 byte planes.
 *
 * Numbers are written byte by byte, so the format is the same on every
 * platform.
 */
std::vector<uint8_t> encode_tree(const Tree& tree, const ModelShape& shape);

/**
 * Decodes one encoded tree and appends it to `model`, checking every count,
 * index and value against `model.shape`; throws DamagedModel otherwise.
 */
void decode_tree(const uint8_t* bytes, size_t size, ForestModel& model);

/** Decodes trees [begin, end) of `trees` into a new model of the given shape. */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end);

/** The same, the trees decoded in parallel. */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end, const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_TREE_CODEC_H_
