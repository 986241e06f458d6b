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
 * The compact stored form of a tree (format 3). Fields of one kind are kept
 * together, and multi-byte numbers are split into byte planes (see Bytes.h),
 * so that general-purpose compression such as saveRDS()'s gzip finds the
 * regularity in exponents, signs and short thresholds:
 *
 *   u8 format (3); varint n_nodes;
 *   split flags, one bit per node (least significant bit first);
 *   per split: varint number of columns k;
 *   per split: its Precision, two bits (four splits a byte, least
 *     significant first);
 *   per split column: varint column step (the first column, then the gap to
 *     the previous one minus one: columns increase);
 *   the coefficients of kShort splits as 16-bit codes: high bytes, then low
 *     bytes;
 *   the terms of the other splits as float32, 4 byte planes: one per column
 *     (kSingle) or two, hi then lo (kDouble);
 *   thresholds: 8 byte planes;
 *   the leaves, by the shape's leaf codec (LeafCodec.h).
 *
 * Format 2 (ccforest 0.2.0) is format 3 without the precisions, every split
 * kShort; it is still read.
 */
std::vector<uint8_t> encode_tree(const Tree& tree, const ModelShape& shape);

/**
 * Parses one encoded tree (format 2 or 3) into the trainer's form, checking
 * every count, index and value against `shape`, and the structure: a binary
 * tree, increasing columns, finite coefficients whose largest is 1, finite
 * thresholds; throws DamagedModel otherwise. Split gains are not stored, so
 * `gain` is left empty.
 */
Tree parse_tree(const uint8_t* bytes, size_t size, const ModelShape& shape);

/**
 * Lays a parsed tree out for prediction (see ForestModel) and appends it to
 * `model`: split records breadth first, children after their parents.
 */
void layout_tree(const Tree& tree, ForestModel& model);

/** parse_tree() then layout_tree(). */
void decode_tree(const uint8_t* bytes, size_t size, ForestModel& model);

/** Decodes trees [begin, end) of `trees` into a new model of the given shape. */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end);

/** The same, the trees decoded in parallel. */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end, const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_TREE_CODEC_H_
