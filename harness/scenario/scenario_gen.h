// The former name of <harness/scenario/rapidcheck_generators.h>, kept so that code written against
// it still builds. Include <harness/scenario/rapidcheck_generators.h>.
#pragma once

#include <harness/scenario/rapidcheck_generators.h>
