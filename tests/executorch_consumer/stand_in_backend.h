// A stand-in for DevplanDeviceBackend, the backend the exporter's device programs delegate to:
// it initialises every delegate (so Module::load_method gets as far as ExecuTorch's own device
// memory planning) and executes none. ExecuTorch developers register their real backend here.
#pragma once

// Registers the stand-in with ExecuTorch's backend table (once; later calls do nothing).
void register_stand_in_backend();
