#ifndef CCFOREST_LEAF_CODEC_H_
#define CCFOREST_LEAF_CODEC_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "Bytes.h"
#include "Model.h"
#include "Tree.h"

namespace ccforest {

/**
 * How one kind of leaf is stored: the leaves of a tree, all together, after
 * its splits (see TreeCodec.h). A new kind of leaf (a new task) is one more
 * codec here and one more case in leaf_codec().
 *
 * encode() appends the leaves [0, n_leaves) of `tree` (entries leaf_begin,
 * leaf_index, leaf_value; see Tree.h). decode() reads n_leaf leaves back into
 * the same entries of `tree`, checking every count, index and value against
 * `shape` (DamagedModel otherwise). record_words() reads the same leaves
 * only as far as needed to count the words their records take once laid out
 * (leaf_record_words() summed), for a forest's blocks to be sized before any
 * tree is parsed; it agrees with decode() on every tree decode() accepts.
 */
struct LeafCodec {
  void (*encode)(const Tree& tree, const ModelShape& shape, std::vector<uint8_t>& out);
  void (*decode)(Reader& in, const ModelShape& shape, size_t n_leaf, Tree& tree);
  uint64_t (*record_words)(Reader& in, const ModelShape& shape, size_t n_leaf);
};

/** The codec of the shape's leaves: class shares, output means, or survival counts. */
const LeafCodec& leaf_codec(const ModelShape& shape);

}  // namespace ccforest

#endif  // CCFOREST_LEAF_CODEC_H_
