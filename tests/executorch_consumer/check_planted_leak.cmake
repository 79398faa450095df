# Runs the planted-leak probe (-DPROBE=<binary>) and requires that devplan's fixture failed its
# one test with the leak, the reports and the ledger, exactly.
execute_process(COMMAND ${PROBE} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "planted_leak_probe passed, but its test leaks a device buffer")
endif()
set(expected
"device memory check failed: 1 live allocation (expected 0), 0 misuse records (expected 0)
leak report:
  #1 cuda:0 48 B align 8 owner -
misuse report:
  (none)
ledger:
  #1 cuda:0 48 B align 8 owner -  LIVE")
string(FIND "${out}" "${expected}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "planted_leak_probe failed, but not with the fixture's report:\n${expected}")
endif()
if(NOT out MATCHES "\\[  FAILED  \\] PlantedLeak.AModuleThatIsNeverDestroyed")
  message(FATAL_ERROR "planted_leak_probe did not fail PlantedLeak.AModuleThatIsNeverDestroyed")
endif()
message(STATUS "planted_leak_is_reported: the fixture reported the planted leak")
