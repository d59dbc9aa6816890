// Acceptance on every real trace in datasets/profiles (Kineto and Nsight SQLite): the default
// rules classify >= 99.5% of GPU time, the name rules agree with the launching operators on
// >= 99% of linked time (NCCL excluded), and the breakdown matches its golden file under
// tests/golden/breakdown/ (a mismatch writes <file>.actual; REACH_UPDATE_GOLDEN=1 rewrites).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/analysis/breakdown.h"
#include "core/analysis/breakdownjson.h"
#include "core/trace/profilereader.h"

namespace reach_test_defaultrulesprofiles_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> tracePaths() {
    std::vector<std::string> out;
    for (const char* dir : {"profiles/h200", "profiles/h200-current", "profiles/h200-shapes",
                            "profiles/h200-xcheck", "profiles/public"}) {
        for (const auto& e : fs::directory_iterator(fs::path(REACH_DATASETS) / dir)) {
            const std::string name = e.path().filename().string();
            if (name == "manifest.json")
                continue;  // the H200 capture notes, not a trace
            if (name.ends_with(".json.gz") || name.ends_with(".json") ||
                name.ends_with(".sqlite")) {
                out.push_back(std::string(dir) + "/" + name);
            }
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The golden file's name: the trace's stem, under a folder for the datasets added with current
// kernels (h200-shapes re-profiles two h200 workloads under the same names).
std::string goldenName(const std::string& rel) {
    const std::string dir = fs::path(rel).parent_path().filename().string();
    const std::string stem = workloadNameFromPath(rel);
    return dir == "h200" || dir == "public" ? stem : dir + "/" + stem;
}

class DefaultRulesOnProfile : public ::testing::TestWithParam<std::string> {};

}  // namespace

TEST(DefaultRulesOnProfiles, FindsEveryBundledTrace) {
    // 6 H200 traces, 12 of current kernels, the 6 re-profiled with shapes, 11 cold-L2 operator
    // traces, and 9 public ones (8 Kineto, 1 Nsight SQLite).
    EXPECT_EQ(tracePaths().size(), 44u);
}

TEST_P(DefaultRulesOnProfile, ClassifiesAgreesAndMatchesGolden) {
    const std::string rel = GetParam();
    Workload w = readProfile(std::string(REACH_DATASETS) + "/" + rel);
    w.source = "datasets/" + rel;  // portable in the golden file
    ASSERT_GT(w.gpuTimeUs, 0) << rel;
    const RuleSet rules = RuleSet::builtinDefault();
    Breakdown b = computeBreakdown(w, rules);

    std::ostringstream unclassified;
    for (const ClassifiedKernel* k : b.top(Category::Unclassified, 5)) {
        unclassified << "\n  " << k->stats.totalUs << " us  " << k->stats.name.substr(0, 160);
    }
    EXPECT_GE(b.classifiedShare, 0.995) << rel << unclassified.str();
    if (rel.starts_with("profiles/h200/")) {
        // The H200 traces link every kernel to its operator: the agreement check below is not
        // vacuous there.
        EXPECT_TRUE(b.hasOpSplit) << rel;
        EXPECT_GE(b.opLinkedUs, 0.99 * b.gpuTimeUs) << rel;
    }
    if (b.hasOpSplit && b.opLinkedUs > 0) {
        std::ostringstream dis;
        for (const OpDisagreement& d : b.disagreements()) {
            dis << "\n  " << d.us << " us  " << d.op << "  name=" << categoryKey(d.nameCategory)
                << " op=" << categoryKey(d.opCategory) << "  " << d.kernel.substr(0, 120);
        }
        EXPECT_GE(b.opAgreement(), 0.99) << rel << dis.str();
    }
    // Shares are fractions of the summed GPU time and add up to one.
    double sum = 0;
    for (Category c : kCategories)
        sum += b.share(c);
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_NEAR(b.gpuTimeUs, w.gpuTimeUs, 1e-6 * w.gpuTimeUs);

    nlohmann::json doc = {{"workloads", nlohmann::json::array({breakdownToJson(b)})},
                          {"rules", rulesToJson(b)}};
    const std::string actual = doc.dump(1) + "\n";
    const fs::path golden = fs::path(REACH_GOLDEN) / "breakdown" / (goldenName(rel) + ".json");
    const fs::path actualPath = golden.string() + ".actual";
    const char* update = std::getenv("REACH_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
        fs::create_directories(golden.parent_path());
        std::ofstream(golden, std::ios::binary) << actual;
        fs::remove(actualPath);
        return;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with REACH_UPDATE_GOLDEN=1";
    if (readText(golden) != actual) {
        std::ofstream(actualPath, std::ios::binary) << actual;
        ADD_FAILURE() << "breakdown differs from " << golden << "; wrote " << actualPath
                      << "\n  diff -u " << golden << " " << actualPath;
    } else {
        fs::remove(actualPath);
    }
}

INSTANTIATE_TEST_SUITE_P(Traces, DefaultRulesOnProfile, ::testing::ValuesIn(tracePaths()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             std::string n = goldenName(info.param);
                             for (char& c : n) {
                                 if (!std::isalnum(static_cast<unsigned char>(c)))
                                     c = '_';
                             }
                             return n;
                         });

}  // namespace reach_test_defaultrulesprofiles_test
