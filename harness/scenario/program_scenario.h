// The former name of <harness/scenario/model.h>, kept so that code written against it still
// builds. Include <harness/scenario/model.h>.
#pragma once

#include <harness/scenario/model.h>
