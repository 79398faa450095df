// Whether a generated method's outputs are determined by its inputs alone, so that two engines
// must agree on them. Generated programs may read planned memory nobody wrote (its content is
// each engine's own business) and plan tensors that share bytes; such methods load and run, but
// their outputs are not compared by the differential check.
#pragma once

#include <harness/scenario/model.h>

namespace devplan::harness {

// True when every tensor an instruction reads was set (a method input, or written earlier and
// not overwritten since through shared bytes or freed), no instruction writes bytes that
// partly overlap one of its own inputs (exactly the same bytes, in place, is fine), no two
// inputs share bytes, and every output is set at the end.
bool outputs_are_determined(const MethodScenario& method);

}  // namespace devplan::harness
