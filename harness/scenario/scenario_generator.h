// The former name of <harness/scenario/seeded_generator.h>, kept so that code written against it
// still builds. Include <harness/scenario/seeded_generator.h>.
#pragma once

#include <harness/scenario/seeded_generator.h>
