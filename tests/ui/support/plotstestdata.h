#pragma once
// Evaluation sets for the plots tests: the records test inputs of tests/data (Reach JSONL split by
// model, and KernelBench-format run results timed against KernelBench's real recorded H100
// baselines), flagged with the degenerate problems measured on the H200.
#include <map>
#include <string>
#include <vector>

#include "core/records/recordimport.h"
#include "core/records/recordimportkernelbench.h"
#include "core/records/suspicion.h"
#include "ui/models/recordsmodel.h"

namespace plotstest {

inline std::string testData(const std::string& rel) {
    return std::string(REACH_TEST_DATA) + "/" + rel;
}
inline std::string datasets(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/" + rel;
}

inline std::vector<std::string> inputFiles() {
    return {testData("records/small.jsonl"), testData("kernelbench/eval_results.json"),
            datasets("kernelbench/H100_Modal_baseline_time_torch.json"),
            datasets("kernelbench/H100_Modal_baseline_time_torch_compile_inductor_default.json")};
}

inline std::vector<reach::RecordSet> loadSets() {
    std::map<std::string, reach::RecordSet> byModel;
    for (reach::EvalRecord& r : reach::readReachJsonl(testData("records/small.jsonl"))) {
        reach::RecordSet& s = byModel[r.model];
        s.name = QString::fromStdString(r.model);
        s.records.push_back(std::move(r));
    }
    std::vector<reach::RecordSet> sets;
    for (auto& [model, set] : byModel)
        sets.push_back(std::move(set));

    reach::KernelBenchImportOptions kb;
    kb.level = 1;
    kb.model = "kb-run";
    kb.backend = "cuda";
    kb.dtype = "bf16";
    kb.baselines = {
        {datasets("kernelbench/H100_Modal_baseline_time_torch.json")},
        {datasets("kernelbench/H100_Modal_baseline_time_torch_compile_inductor_default.json")}};
    kb.categoriesCsv = datasets("kernelbench/level1_categories.csv");
    reach::RecordSet run;
    run.name = QStringLiteral("KernelBench run");
    run.records = reach::importKernelBenchRun(testData("kernelbench/eval_results.json"), kb);
    sets.push_back(std::move(run));
    return sets;
}

inline reach::SuspicionOptions suspicionOptions() {
    reach::SuspicionOptions o;
    o.degenerate = reach::readDegenerateProblems(datasets("kernelbench/kb_level1_h200_bf16.json"));
    return o;
}

}  // namespace plotstest
