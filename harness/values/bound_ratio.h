// How far a planned size is above a lower bound, as a ratio and as the text commands print.
#pragma once

#include <cstdint>
#include <string>

namespace devplan::harness {

// size / lower_bound: how far a planned buffer is above the bound (1 for two empty ones, 0 for
// a buffer with no bound).
double size_over_lower_bound(uint64_t size, uint64_t lower_bound);

// "optimal", or "N.NN% above the proven bound" (size over bound minus one).
std::string optimality_text(uint64_t size, uint64_t proven_bound);

}  // namespace devplan::harness
