#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/records/evalrecord.h"

namespace reach {

// Which of the record's baseline slots a KernelBench timing file fills.
enum class BaselineKind { Auto, Eager, Compile, Recorded };

struct KernelBenchBaselineFile {
    std::string path;
    // Auto: a file whose name says "compile" or "inductor" is torch.compile, one that says
    // "torch" otherwise is eager, anything else a recorded timing.
    BaselineKind kind = BaselineKind::Auto;
};

// What eval_results.json does not say and the user knows: the run's level, model, backend, dtype.
struct KernelBenchImportOptions {
    int level = 1;
    std::string model;
    std::string backend;
    std::string dtype;
    std::vector<KernelBenchBaselineFile> baselines;  // at least one
    std::string categoriesCsv;                       // level1_categories.csv; empty: no categories
};

// One problem of one level in a baseline timing file (times as the file gives them, ms).
struct KernelBenchBaselineEntry {
    int problemId = 0;
    std::string problemName;  // file name without ".py"
    double meanMs = 0;
    std::string hardware;
};

// Reads `results/timing/<GPU>/baseline_time_<config>.json`, one level of it, keyed by problem id
// (the number prefix of the problem file name). Throws InputError naming the file and the key.
std::map<int, KernelBenchBaselineEntry> readKernelBenchBaseline(const std::string& path, int level);

// Reads level1_categories.csv (problem_id,problem,category): problem name -> category.
std::map<std::string, std::string> readKernelBenchCategories(const std::string& path);

BaselineKind baselineKindForFile(const std::string& path);

// KernelBench run results (`runs/<run>/eval_results.json`: problem id -> list of samples, or one
// sample object in older runs) -> one record per sample. runtime is the mean in ms, -1 when the
// kernel failed; speedup = fastest given baseline mean / runtime. All or nothing: a bad entry
// throws InputError naming the file, the problem id and sample, and the key.
std::vector<EvalRecord> importKernelBenchRun(const std::string& evalResultsPath,
                                             const KernelBenchImportOptions& options);

// True when the JSON text looks like KernelBench run results (used to pick the importer).
bool looksLikeKernelBenchRun(const std::string& path);

// True when the file looks like a KernelBench baseline timing file ({"level1": {"1_X.py":
// {"mean": ...}}}): the GUI pairs it with the run results imported with it, never reads it as
// a trace (issue 40).
bool looksLikeKernelBenchBaseline(const std::string& path);

}  // namespace reach
