#pragma once

#include <nlohmann/json.hpp>

namespace reach {

// KernelBench's own verdict, reproduced by the `kernelbench` worker (docs/kernelbench.md). That
// worker loads the candidate in its own process, as KernelBench does, so its document is the
// candidate's to write: a report about KernelBench that decides nothing (not the verdict, not the
// time, not "no GPU", not an exit status, not a baseline; issue 36). What is kept of it is only
// what a reader shows: the keys below, each of the type it must have (anything else dropped,
// strings and lists cut), so a report that is not one cannot make a reader throw, and with
// `reported_by` saying whose word it is.
nlohmann::json kernelBenchReport(const nlohmann::json& doc);

}  // namespace reach
