#pragma once

// What every fuzz target of Reach shares (docs/limits.md, scripts/fuzz): the input goes to a
// file (the readers take paths, as they do for users), and the only acceptable failures are the
// error types Reach turns into one line and exit status 2. Anything else (another exception, a
// crash, a leak, an input that takes longer than libFuzzer's -timeout) is a finding.

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/analysis/breakdownjson.h"
#include "core/analysis/ruleset.h"
#include "core/base/inputerror.h"
#include "core/base/textescape.h"
#include "core/records/evaluationset.h"

namespace reach::fuzz {

// A folder of this process's own, made once.
inline const std::string& workDir() {
    static const std::string dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/reach-fuzz-XXXXXX";
        if (!::mkdtemp(templ.data()))
            std::abort();
        return templ;
    }();
    return dir;
}

// A file of the repository (a real baseline beside the fuzzed input): REACH_FUZZ_ROOT, when set,
// replaces the source folder the target was built in (scripts/device/fuzz_session.sh runs the
// targets on another machine, where the tree lies elsewhere).
inline std::string repoFile(const std::string& relative) {
    const char* root = std::getenv("REACH_FUZZ_ROOT");
    return std::string(root && *root ? root : REACH_SOURCE_DIR) + "/" + relative;
}

inline std::string writeInput(const std::string& name, std::string_view bytes) {
    const std::string path = workDir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (!out)
        std::abort();
    return path;
}

inline std::string_view asText(const uint8_t* data, size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// Runs f; an InputError is a correct answer to bad input, anything else escapes to libFuzzer.
template <class F>
void acceptingInputErrors(F&& f) {
    try {
        f();
    } catch (const InputError& e) {
        // The contract: one line, starting with the file.
        const std::string what = e.what();
        if (what.find('\n') != std::string::npos || what.rfind(e.file(), 0) != 0)
            std::abort();
    }
}

// What the front ends do with a workload: classify it and print it as JSON.
inline void useWorkload(const Workload& w) {
    const Breakdown b = computeBreakdown(w, RuleSet::builtinDefault());
    nlohmann::json doc = breakdownToJson(b, 50);
    (void)dumpJson(doc);
    for (const KernelStats& k : w.kernels)
        (void)escapeControls(k.name);
}

// What the front ends do with records: summarize them (few resamples: the statistics code, not
// the bootstrap's length, is what is fuzzed) and print them.
inline void useRecords(std::vector<EvalRecord> records) {
    StatsOptions o;
    o.resamples = 20;
    const EvaluationSet set = summarizeRecords("fuzz", "fuzz", std::move(records), std::nullopt, o);
    (void)set;
}

}  // namespace reach::fuzz
