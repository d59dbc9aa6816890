// KernelBench run results (eval_results.json), with a real baseline timing file beside them.
#include "core/records/recordreader.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    static const std::string baseline =
        fuzz::repoFile("datasets/kernelbench/H100_Modal_baseline_time_torch.json");
    const std::string path = fuzz::writeInput("eval_results.json", fuzz::asText(data, size));
    RecordReadOptions o;
    o.kernelBench.baselines.push_back({baseline, BaselineKind::Auto});
    o.kernelBench.categoriesCsv = fuzz::repoFile("datasets/kernelbench/level1_categories.csv");
    fuzz::acceptingInputErrors([&] { fuzz::useRecords(readRecords(path, o)); });
    return 0;
}
