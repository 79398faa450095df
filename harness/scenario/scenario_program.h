// The former name of <harness/scenario/writer.h>, kept so that code written against it still
// builds. Include <harness/scenario/writer.h>.
#pragma once

#include <harness/scenario/writer.h>
