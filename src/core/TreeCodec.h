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
/** The same into `out`, replacing its contents: reused from tree to tree, it keeps its memory. */
void encode_tree(const Tree& tree, const ModelShape& shape, std::vector<uint8_t>& out);

/**
 * Parses one encoded tree (format 2 or 3) into the trainer's form (for
 * tree_info(); prediction decodes with decode_forest()), checking
 * every count, index and value against `shape`, and the structure: a binary
 * tree, increasing columns, finite coefficients whose largest is 1, finite
 * thresholds; throws DamagedModel otherwise. Split gains are not stored, so
 * `gain` is left empty.
 */
Tree parse_tree(const uint8_t* bytes, size_t size, const ModelShape& shape);

/** Words a tree's records take once laid out (see ForestModel), and its leaves. */
struct TreeWords {
  uint64_t splits = 0;
  uint64_t leaves = 0;
  size_t n_leaf = 0;
};

/**
 * Sizes an encoded tree's records from its counts, reading past the values
 * (coefficients, thresholds, leaf values) that parse_tree() reads and checks:
 * a tree is sized before it is parsed, so that a whole forest is laid out in
 * blocks allocated once. Throws DamagedModel where the counts cannot be read.
 */
TreeWords record_words(const uint8_t* bytes, size_t size, const ModelShape& shape);

/**
 * Decodes trees [begin, end) of `trees` into a new model of the given shape,
 * each tree parsed straight into its records with every check of
 * parse_tree() (the two share their reader), and refused (DamagedModel) where
 * a split's children would come before it.
 */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end);

/** The same, the trees sized and decoded in parallel. */
ForestModel decode_forest(const EncodedTrees& trees, const ModelShape& shape, size_t begin,
                          size_t end, const Runtime& runtime);

}  // namespace ccforest

#endif  // CCFOREST_TREE_CODEC_H_
