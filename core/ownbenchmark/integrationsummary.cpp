#include "core/ownbenchmark/integrationsummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "core/analysis/statistics.h"
#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/sha256.h"
#include "core/base/textescape.h"
#include "core/project/workloadheadroom.h"

namespace reach {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A saving is 1 - with / as is: at most all of the time. A loss of GPU time past -100 % (the run
// twice as long) is no integration to draw; the wall clock may lose more (the host pays for the
// overrides: the H200 measured -202 % for ResNet-50), not without end.
constexpr double kLowestGpuShare = -1, kLowestWallShare = -10;
constexpr size_t kMaxPairs = 100000;
// Two computations of 1 - a/b from the same doubles agree to the last bit; a document rounded
// on its way through another tool does not lose more than this.
constexpr double kAgreement = 1e-9;

struct DocumentGain {
    std::vector<double> perPair;
    double median = 0, low = 0, high = 0;
};

double shareAt(const json& v, const std::string& path, const std::string& where, double lowest) {
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() > 1 ||
        v.get<double>() < lowest)
        throw InputError(path, where,
                         "a saved share, a finite number in [" +
                             std::string(lowest == kLowestGpuShare ? "-1" : "-10") +
                             ", 1] (1 - with the winners / as is)");
    return v.get<double>();
}

std::optional<DocumentGain> gainFrom(const json& doc, const std::string& path,
                                     const std::string& key, double lowest) {
    const json& g = doc["measured"].value(key, json());
    if (g.is_null())
        return std::nullopt;
    const std::string at = "measured." + key;
    if (!g.is_object())
        throw InputError(path, at, "an object or null");
    DocumentGain out;
    out.median = shareAt(g.value("median", json()), path, at + ".median", lowest);
    out.low = shareAt(g.value("low", json()), path, at + ".low", lowest);
    out.high = shareAt(g.value("high", json()), path, at + ".high", lowest);
    const json& per = g.value("per_pair", json());
    if (!per.is_array() || per.empty() || per.size() > kMaxPairs)
        throw InputError(path, at + ".per_pair", "an array of each pair's saving");
    for (size_t i = 0; i < per.size(); ++i)
        out.perPair.push_back(
            shareAt(per[i], path, at + ".per_pair[" + std::to_string(i) + "]", lowest));
    return out;
}

bool agree(double a, double b) {
    return std::abs(a - b) <= kAgreement;
}

// A per-step time of a run: absent or null, else a finite number >= 0.
std::optional<double> timeAt(const json& run, const char* key, const std::string& path,
                             const std::string& at) {
    const auto it = run.find(key);
    if (it == run.end() || it->is_null())
        return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
        throw InputError(path, at + "." + key, "a time in microseconds, finite and >= 0, or null");
    return it->get<double>();
}

// Each pair's saving from its runs' times, pairs in order: what the document's per_pair must
// be. `key` is the per-step time compared (GPU time, or the wall clock the gains were read on).
std::vector<double> perPairFromRuns(const json& runs, const std::string& key) {
    std::map<int64_t, std::pair<std::optional<double>, std::optional<double>>> byPair;
    for (const json& r : runs) {
        const json& v = r.value(key, json());
        if (!v.is_number())
            continue;
        auto& [asIs, with] = byPair[r["pair"].get<int64_t>()];
        if (r["mode"] == "asis")
            asIs = v.get<double>();
        else if (r["mode"] == "substituted")
            with = v.get<double>();
    }
    std::vector<double> out;
    for (const auto& [pair, times] : byPair)
        if (times.first && times.second && *times.first > 0)
            out.push_back(1 - *times.second / *times.first);
    return out;
}

// The gain Reach draws: recomputed from the runs where they have the times, its median and
// range from the pairs; each place the document disagrees becomes a doubt.
std::optional<MeasuredGain> recomputed(const std::optional<DocumentGain>& doc,
                                       const std::vector<double>& fromRuns, const std::string& key,
                                       std::vector<std::string>& doubts) {
    if (!doc)
        return std::nullopt;
    std::vector<double> pairs = doc->perPair;
    bool same = fromRuns.size() == pairs.size();
    for (size_t i = 0; same && i < pairs.size(); ++i)
        same = agree(fromRuns[i], pairs[i]);
    if (!same) {
        doubts.push_back("measured." + key +
                         ".per_pair does not follow from its runs' times (run_list)" +
                         (fromRuns.empty() ? ", which have none" : ": Reach's are shown"));
        if (!fromRuns.empty())
            pairs = fromRuns;
    }
    MeasuredGain g = measuredGainOf(std::move(pairs));
    if (!(agree(g.median, doc->median) && agree(g.low, doc->low) && agree(g.high, doc->high)))
        doubts.push_back("measured." + key +
                         ": its median, low and high do not follow from its pairs: Reach's are "
                         "shown");
    return g;
}

}  // namespace

IntegrationSummary readIntegrationSummary(const std::string& path) {
    const std::string expected = "a reach-cli integrate document (--json)";
    const json doc = parseJson(readJsonFile(path, expected), path, expected);
    if (!doc.is_object() || doc.value("schema", json()) != "reach.integration")
        throw InputError(path, "schema", "\"reach.integration\" (" + expected + ")");
    IntegrationSummary s;
    s.document = path;
    const json& sha = doc.value("profile_sha256", json());
    if (!sha.is_string() || !Sha256::isHexDigest(sha.get<std::string>()))
        throw InputError(path, "profile_sha256", "64 lower-case hex digits");
    s.profileSha256 = sha.get<std::string>();
    for (const char* k : {"benchmark", "device"}) {
        const json& v = doc.value(k, json());
        if (!v.is_string())
            throw InputError(path, k, "a string");
        (std::string(k) == "device" ? s.device : s.benchmark) = v.get<std::string>();
    }
    if (!doc.value("measured", json()).is_object())
        throw InputError(path, "measured", "an object");
    const auto gpu = gainFrom(doc, path, "gpu_time_saved_share", kLowestGpuShare);
    const auto wall = gainFrom(doc, path, "wall_clock_saved_share", kLowestWallShare);
    if (const json& steps = doc.value("wall_clock_steps", json()); !steps.is_null()) {
        if (steps != "unprofiled" && steps != "profiled")
            throw InputError(path, "wall_clock_steps", "\"unprofiled\" or \"profiled\"");
        s.wallClockSteps = steps.get<std::string>();
    }
    const json& x = doc.value("exact_projection", json());
    if (!x.is_null()) {
        const json& v = x.is_object() ? x.value("saved_share_of_gpu_time", json()) : json();
        if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1))
            throw InputError(path, "exact_projection.saved_share_of_gpu_time", "a share in [0, 1]");
        s.projectedSavedShare = v.get<double>();
    }
    const json& winners = doc.value("winners", json());
    if (!winners.is_array())
        throw InputError(path, "winners", "an array");
    s.winners = int(std::min<size_t>(winners.size(), 1 << 20));
    const json& runs = doc.value("run_list", json());
    if (!runs.is_array() || runs.size() > kMaxPairs)
        throw InputError(path, "run_list", "an array of the runs");
    for (size_t i = 0; i < runs.size(); ++i) {
        const json& r = runs[i];
        const std::string at = "run_list[" + std::to_string(i) + "]";
        if (!r.is_object() || !r.value("mode", json()).is_string() ||
            !r.value("pair", json()).is_number_integer())
            throw InputError(path, at, "a run: mode, pair, per-step times");
        json kept = {{"mode", r["mode"]}, {"pair", r["pair"]}};
        if (const json& t = r.value("trace", json()); t.is_string())
            kept["trace"] = t;
        for (const char* k : {"gpu_us_per_step", "busy_us_per_step", "wall_us_per_step",
                              "wall_unprofiled_us_per_step"})
            if (const auto v = timeAt(r, k, path, at))
                kept[k] = *v;
        s.runList.push_back(std::move(kept));
    }

    s.evidence = checkEvidence(doc);
    if (!s.evidence.signedHere)
        s.doubts.push_back(s.evidence.why);
    s.gpuGain = recomputed(gpu, perPairFromRuns(s.runList, "gpu_us_per_step"),
                           "gpu_time_saved_share", s.doubts);
    s.wallGain = recomputed(
        wall,
        perPairFromRuns(s.runList, s.wallClockSteps == "unprofiled" ? "wall_unprofiled_us_per_step"
                                                                    : "wall_us_per_step"),
        "wall_clock_saved_share", s.doubts);
    if (s.winners == 0)
        s.doubts.push_back("it installed no winner (winners: [])");
    // A signed document keeps its worth when its traces move; a claim is told by what is gone.
    if (!s.evidence.signedHere)
        for (const json& r : s.runList)
            if (const json& t = r.value("trace", json()); t.is_string()) {
                std::error_code ec;
                if (!fs::exists(t.get<std::string>(), ec)) {
                    s.doubts.push_back("its run " + r["mode"].get<std::string>() + " " +
                                       r["pair"].dump() + " names a trace that is not there (" +
                                       escapeControls(t.get<std::string>()) + ")");
                    break;
                }
            }
    s.pairs = s.gpuGain    ? int(s.gpuGain->perPair.size())
              : s.wallGain ? int(s.wallGain->perPair.size())
                           : 0;
    return s;
}

std::optional<double> maxSavedShareOf(const Breakdown& breakdown) {
    const WorkloadHeadroom wh = workloadHeadroom(breakdown);
    if (!wh.estimated())
        return std::nullopt;
    const Headroom& h = *wh.headroom;
    return std::clamp(h.headroomShare() + (1 - h.coverage()), 0.0, 1.0);
}

void checkAgainstSpeedOfLight(IntegrationSummary& s, std::optional<double> maxSavedShare) {
    if (!s.gpuGain || !maxSavedShare || s.gpuGain->median <= *maxSavedShare + kAgreement)
        return;
    char text[160];
    std::snprintf(text, sizeof text,
                  "it saves %.2f %% of GPU time, past the workload's speed-of-light bound (at "
                  "most %.2f %%: docs/headroom.md)",
                  100 * s.gpuGain->median, 100 * *maxSavedShare);
    s.doubts.push_back(text);
}

}  // namespace reach
