#include "core/ownbenchmark/benchmarkshares.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "core/base/jsonparse.h"
#include "core/benchmark/extract.h"

namespace reach {

std::vector<ProblemTime> problemTimesIn(const Breakdown& breakdown,
                                        const BenchmarkFolder& benchmark,
                                        const std::optional<Category>& category) {
    // benchmark.json keeps a signature as the JSON value extract parsed from the trace's text:
    // values compare where texts might not.
    std::map<std::pair<std::string, std::string>, std::pair<double, int64_t>> usOf;
    for (const SignatureGroup& g : groupBySignature(breakdown, category).hottest) {
        const nlohmann::json sig = tryParseJson(g.signature).value_or(nlohmann::json(g.signature));
        auto& [us, calls] = usOf[{g.op, sig.dump()}];
        us += g.us;
        calls += g.opCalls;
    }
    std::set<std::pair<std::string, std::string>> taken;
    std::vector<ProblemTime> out;
    for (const BenchmarkProblem& p : benchmark.problems) {
        ProblemTime t;
        const std::pair<std::string, std::string> key{p.op, p.signature.dump()};
        const auto it = usOf.find(key);
        if (it != usOf.end() && taken.insert(key).second) {
            t.found = true;
            t.us = it->second.first;
            t.calls = it->second.second;
            t.share = breakdown.gpuTimeUs > 0 ? std::min(1.0, t.us / breakdown.gpuTimeUs) : 0;
        }
        out.push_back(t);
    }
    return out;
}

std::optional<Category> benchmarkCategory(const BenchmarkFolder& benchmark) {
    return categoryFromString(benchmark.category);
}

}  // namespace reach
