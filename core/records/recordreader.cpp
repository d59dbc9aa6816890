#include "core/records/recordreader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/records/recordimport.h"
#include "core/records/recordimportverify.h"

namespace reach {

std::string detectRecordFormat(const std::string& path, const RecordReadOptions& options) {
    if (options.mapping)
        return "mapped";
    if (path.size() > 6 && path.ends_with(".jsonl"))
        return "reach-jsonl";
    if (looksLikeKernelBenchRun(path))
        return "kernelbench";
    if (looksLikeVerifierOutput(path))
        return "reach-verify";
    // A .json that is one record object per line still reads as JSONL: check the first line.
    std::ifstream in(path, std::ios::binary);
    std::string first;
    while (in && first.find_first_not_of(" \t\r") == std::string::npos)
        std::getline(in, first);
    const auto j = tryParseJson(first);
    if (j && j->is_object() && j->contains("compiled") && j->contains("correct"))
        return "reach-jsonl";
    return {};
}

std::vector<EvalRecord> readRecords(const std::string& path, const RecordReadOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::vector<std::string> files;
        for (const auto& entry : fs::directory_iterator(path, ec)) {
            const std::string ext = entry.path().extension().string();
            if (entry.is_regular_file() && (ext == ".json" || ext == ".jsonl" || ext == ".csv")) {
                files.push_back(entry.path().string());
            }
        }
        std::sort(files.begin(), files.end());
        if (files.empty())
            throw InputError(path, "", "directory holds no .json, .jsonl or .csv file");
        std::vector<EvalRecord> all;
        for (const std::string& f : files) {
            for (EvalRecord& r : readRecords(f, options))
                all.push_back(std::move(r));
        }
        return all;
    }
    {
        std::ifstream probe(path, std::ios::binary);
        if (!probe)
            throw InputError(path, "", "cannot open; expected an evaluation records file");
    }
    // Every format but JSONL is read whole: past the limit the format could not even be told.
    if (!path.ends_with(".jsonl") && fs::file_size(path, ec) > JsonLimits::kMaxDocumentBytes) {
        throw InputError(path, "byte " + std::to_string(JsonLimits::kMaxDocumentBytes),
                         "larger than " + std::to_string(JsonLimits::kMaxDocumentBytes >> 20) +
                             " MiB, the limit for a records file read whole (JSONL has none)");
    }
    const std::string format = detectRecordFormat(path, options);
    if (format == "mapped")
        return importMapped(path, *options.mapping);
    if (format == "reach-jsonl")
        return readReachJsonl(path);
    if (format == "reach-verify")
        return importVerifierOutput(path, options.verifier);
    if (format == "kernelbench") {
        if (options.kernelBench.baselines.empty()) {
            throw InputError(path, "",
                             "KernelBench run results need the baseline timing file of their "
                             "GPU (baseline_time_torch.json) to compute speedups: reach-cli "
                             "--baseline FILE, or in the GUI both files imported together");
        }
        return importKernelBenchRun(path, options.kernelBench);
    }
    // A document past a limit cannot be parsed to tell its format: say what is wrong with it.
    if (auto e = checkJsonLimits(readJsonFile(path, "expected an evaluation records file")))
        throw InputError(path, "byte " + std::to_string(e->offset), e->what);
    throw InputError(path, "byte 0",
                     "expected Reach JSONL records, KernelBench eval_results.json, a reach-verify "
                     "result, or a CSV/JSON list with a column mapping (--map problem=COLUMN ...)");
}

}  // namespace reach
