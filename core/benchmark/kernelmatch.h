#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace reach {

// Whether a problem of the workload's own benchmark launches the kernels of the trace it stands
// for (reach-cli extract --check, docs/benchmark.md). A problem stands for a set of trace
// kernels; run on a GPU, it launches a set of its own. The same operator with the same
// arguments, layouts and dtypes runs the same kernel, so the names agree exactly; a name that
// differs (a float32 copy for a bfloat16 one, a vectorized kernel for a strided one) means the
// problem is not the call the trace recorded, and the kernel's time does not count as matched.

// A GPU activity of one problem's profiled call: kernel, memcpy or memset, named as Kineto
// names it (the names the trace has).
struct LaunchedKernel {
    std::string name;
    int64_t calls = 0;
    double us = 0;
};

// What resources/python/reach_problem_kernels.py reported for one problem file.
struct ProblemLaunches {
    std::string file;
    bool ok = false;
    std::string error;  // when not ok: why (an exception, a timeout, a crash)
    double seconds = 0;
    std::vector<LaunchedKernel> kernels;
};

// The script's whole answer.
struct LaunchReport {
    std::string torch, device, deviceName;
    std::vector<ProblemLaunches> problems;
};

// Reads the script's stdout document; a document of another shape is an InputError naming
// `source`, the key and what was expected. Kernel names are kept as data, never interpreted.
LaunchReport readLaunchReport(const nlohmann::json& doc, const std::string& source);

// A trace kernel a problem stands for: its name and its time in the trace.
struct TraceKernel {
    std::string name;
    double us = 0;
};

struct KernelMatch {
    bool ran = false;      // the problem ran and was profiled
    std::string error;     // when it did not: why
    double traceUs = 0;    // the problem's trace kernels' time
    double matchedUs = 0;  // of it, in kernels the problem's run launched by the same name
    std::vector<std::string> missing;  // trace kernels the run did not launch
    std::vector<std::string> extra;    // kernels the run launched that the trace's call did not
    // The run's own times: all its GPU activities, and those of `extra`. A problem that launches
    // more than its trace kernels (a copy batch norm makes of its running stats) has a baseline
    // slower than the trace's call by extraUs.
    double launchedUs = 0, extraUs = 0;

    double matchedShare() const { return traceUs > 0 ? matchedUs / traceUs : 0; }
};

// Matches by exact name. A problem that did not run matches nothing.
KernelMatch matchKernels(const std::vector<TraceKernel>& trace, const ProblemLaunches& run);

// The value of benchmark.json's "launches_same_kernels" for one problem.
nlohmann::json kernelMatchJson(const KernelMatch& m);

}  // namespace reach
