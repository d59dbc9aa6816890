// An integration document as the projection view and `figure projection --integration` read it
// (core/ownbenchmark/integrationsummary.h, issue 37): its savings recomputed from its runs, drawn
// as measured only when Reach signed it here and nothing doubts it, and a value no run can give
// refused in one line naming the file and the key.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/breakdown.h"
#include "core/analysis/ruleset.h"
#include "core/base/evidence.h"
#include "core/base/inputerror.h"
#include "core/ownbenchmark/integrationsummary.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"

namespace reach_test_integrationsummary_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
using reach::test::TempFolder;
using reach::test::writeText;

namespace {

const std::string kH200Dlrm =
    std::string(REACH_TEST_DATA) + "/integrate/h200_integrate_dlrm_inference.json";

class TestKey {
public:
    TestKey() {
        if (const char* old = std::getenv("REACH_KEY_DIR"))
            m_old = old;
        setenv("REACH_KEY_DIR", m_folder.path("key").c_str(), 1);
    }
    ~TestKey() {
        if (m_old)
            setenv("REACH_KEY_DIR", m_old->c_str(), 1);
        else
            unsetenv("REACH_KEY_DIR");
    }

private:
    TempFolder m_folder;
    std::optional<std::string> m_old;
};

json readJson(const std::string& path) {
    std::ifstream in(path);
    return json::parse(in);
}

std::string errorOf(const std::string& path) {
    try {
        readIntegrationSummary(path);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

// The document the stranger wrote by hand: the profile's public hash, 95 % saved, no
// winner, a run naming a trace that is not there, per-pair values of -0.5.
json handWritten() {
    const json real = readJson(kH200Dlrm);
    return {{"schema", "reach.integration"},
            {"profile_sha256", real["profile_sha256"]},
            {"benchmark", "bench"},
            {"device", "cuda"},
            {"winners", json::array()},
            {"measured",
             {{"gpu_time_saved_share",
               {{"median", 0.95}, {"low", 0.9}, {"high", 0.99}, {"per_pair", {-0.5, -0.5}}}},
              {"wall_clock_saved_share", nullptr}}},
            {"exact_projection", nullptr},
            {"run_list",
             {{{"mode", "asis"}, {"pair", 1}, {"trace", "/nonexistent/asis_1.json"}},
              {{"mode", "substituted"}, {"pair", 1}, {"trace", "/nonexistent/sub_1.json"}}}}};
}

}  // namespace

// The H200's own document: measured on the device machine, it is a claim here, though its
// numbers follow from its runs; signed here, the same document is measured.
TEST(IntegrationSummary, TheH200DocumentIsAClaimHereAndMeasuredOnceSignedHere) {
    TestKey key;
    TempFolder dir;
    IntegrationSummary s = readIntegrationSummary(kH200Dlrm);
    EXPECT_FALSE(s.measuredHere());
    // Not signed by Reach, and its traces stayed on the device machine; its numbers follow
    // from its runs.
    ASSERT_EQ(s.doubts.size(), 2u) << s.doubts.back();
    EXPECT_NE(s.doubts[0].find("not signed"), std::string::npos);
    EXPECT_NE(s.doubts[1].find("names a trace that is not there"), std::string::npos);
    ASSERT_TRUE(s.gpuGain);
    EXPECT_NEAR(s.gpuGain->median, 0.2453395176897808, 1e-12);
    EXPECT_EQ(s.pairs, 3);

    json doc = readJson(kH200Dlrm);
    ASSERT_EQ(signEvidence(doc), "");
    writeText(dir.path("signed.json"), doc.dump());
    s = readIntegrationSummary(dir.path("signed.json"));
    EXPECT_TRUE(s.measuredHere()) << (s.doubts.empty() ? "" : s.doubts[0]);
    // Within DLRM inference's speed-of-light bound (headroom plus the time with no estimate).
    const Breakdown b = computeBreakdown(
        readProfile(std::string(REACH_DATASETS) + "/profiles/h200-shapes/dlrm_inference.json.gz"),
        RuleSet::builtinDefault());
    const std::optional<double> bound = maxSavedShareOf(b);
    ASSERT_TRUE(bound);
    EXPECT_GT(*bound, 0.2453);
    EXPECT_LE(*bound, 1.0);
    checkAgainstSpeedOfLight(s, bound);
    EXPECT_TRUE(s.measuredHere());

    // One value edited after it was signed: a claim, and Reach's numbers shown.
    doc["measured"]["gpu_time_saved_share"]["median"] = 0.5;
    writeText(dir.path("edited.json"), doc.dump());
    s = readIntegrationSummary(dir.path("edited.json"));
    EXPECT_FALSE(s.measuredHere());
    EXPECT_NEAR(s.gpuGain->median, 0.2453395176897808, 1e-12);
}

// Issue 37, item 2: the hand-written document is drawn as a claim, with Reach's own numbers:
// its pairs (-0.5) do not give its median (0.95), it installed nothing, its traces are gone.
TEST(IntegrationSummary, AHandWrittenDocumentIsAClaimWithReachsNumbers) {
    TestKey key;
    TempFolder dir;
    writeText(dir.path("hand.json"), handWritten().dump());
    const IntegrationSummary s = readIntegrationSummary(dir.path("hand.json"));
    EXPECT_FALSE(s.measuredHere());
    ASSERT_TRUE(s.gpuGain);
    EXPECT_DOUBLE_EQ(s.gpuGain->median, -0.5);  // never the file's 95 %
    auto said = [&](const std::string& part) {
        for (const std::string& d : s.doubts)
            if (d.find(part) != std::string::npos)
                return true;
        return false;
    };
    EXPECT_TRUE(said("not signed"));
    EXPECT_TRUE(said("per_pair does not follow from its runs' times"));
    EXPECT_TRUE(said("median, low and high do not follow"));
    EXPECT_TRUE(said("installed no winner"));
    EXPECT_TRUE(said("trace that is not there"));

    // Signed here but past the speed of light: still never "measured".
    json fast = handWritten();
    fast["winners"] = json::array({json::object()});
    fast["run_list"] = {{{"mode", "asis"}, {"pair", 1}, {"gpu_us_per_step", 100.0}},
                        {{"mode", "substituted"}, {"pair", 1}, {"gpu_us_per_step", 5.0}}};
    fast["measured"]["gpu_time_saved_share"] = {
        {"median", 0.95}, {"low", 0.95}, {"high", 0.95}, {"per_pair", {0.95}}};
    ASSERT_EQ(signEvidence(fast), "");
    writeText(dir.path("fast.json"), fast.dump());
    IntegrationSummary f = readIntegrationSummary(dir.path("fast.json"));
    EXPECT_TRUE(f.measuredHere()) << (f.doubts.empty() ? "" : f.doubts[0]);
    checkAgainstSpeedOfLight(f, 0.40);
    EXPECT_FALSE(f.measuredHere());
    ASSERT_EQ(f.doubts.size(), 1u);
    EXPECT_NE(f.doubts[0].find("past the workload's speed-of-light bound"), std::string::npos);
}

// A value no pair of runs can give is refused in one line naming the file and the key, never
// dropped in silence: -100 (the run 101 times longer), past all of the time, not a number.
TEST(IntegrationSummary, ImpossibleSavingsAreRefusedInOneLineNamingTheKey) {
    TestKey key;
    TempFolder dir;
    struct Case {
        json value;
        const char* key;
        std::string where;
    };
    for (const Case& c :
         {Case{-100, "median", "measured.gpu_time_saved_share.median"},
          Case{1.5, "high", "measured.gpu_time_saved_share.high"},
          Case{"0.3", "low", "measured.gpu_time_saved_share.low"},
          Case{json::array({-100}), "per_pair", "measured.gpu_time_saved_share.per_pair[0]"}}) {
        json doc = handWritten();
        doc["measured"]["gpu_time_saved_share"][c.key] = c.value;
        writeText(dir.path("bad.json"), doc.dump());
        const std::string e = errorOf(dir.path("bad.json"));
        EXPECT_NE(e.find(dir.path("bad.json") + ": " + c.where + ": "), std::string::npos) << e;
        EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    }
    // The wall clock may lose more (the host pays for the overrides), not without end.
    json doc = handWritten();
    doc["measured"]["wall_clock_saved_share"] = {
        {"median", -2.0}, {"low", -2.0}, {"high", -2.0}, {"per_pair", {-2.0}}};
    writeText(dir.path("wall.json"), doc.dump());
    EXPECT_NO_THROW(readIntegrationSummary(dir.path("wall.json")));
    doc["measured"]["wall_clock_saved_share"]["per_pair"] = {-100.0};
    writeText(dir.path("wall.json"), doc.dump());
    EXPECT_NE(errorOf(dir.path("wall.json")).find("wall_clock_saved_share.per_pair[0]"),
              std::string::npos);
    // A run's time that is not one.
    doc = handWritten();
    doc["run_list"][0]["gpu_us_per_step"] = -3;
    writeText(dir.path("run.json"), doc.dump());
    EXPECT_NE(errorOf(dir.path("run.json")).find("run_list[0].gpu_us_per_step"), std::string::npos);
}

}  // namespace reach_test_integrationsummary_test
