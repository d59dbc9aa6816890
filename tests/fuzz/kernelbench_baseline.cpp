// A KernelBench baseline timing file (baseline_time_torch.json), read for real run results.
#include "core/records/recordreader.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    static const std::string results = fuzz::repoFile("tests/data/kernelbench/eval_results.json");
    const std::string path = fuzz::writeInput("baseline_time_torch.json", fuzz::asText(data, size));
    RecordReadOptions o;
    o.kernelBench.baselines.push_back({path, BaselineKind::Auto});
    fuzz::acceptingInputErrors([&] {
        (void)readKernelBenchBaseline(path, 1);
        fuzz::useRecords(readRecords(results, o));
    });
    return 0;
}
