#include "Bytes.h"

namespace ccforest {

// Out of line: Reader::varint()'s one-byte path is inlined at every read,
// and these would only make it too large to be.

uint64_t Reader::long_varint(uint64_t max) {
  uint64_t value = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const uint8_t b = byte();
    value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      if (value > max) out_of_range();
      return value;
    }
  }
  throw DamagedModel("a tree holds a malformed number");
}

void Reader::out_of_range() { throw DamagedModel("a tree holds a count or index out of range"); }

}  // namespace ccforest
