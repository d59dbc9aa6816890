// Opening inputs into a project (core/project/openplan.h): what each kind of input becomes, the
// bundled sample, and the one-line errors. The GUI's session and every CLI subcommand use it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/project/openplan.h"
#include "core/records/recordimport.h"
#include "core/store/projectstore.h"
#include "core/store/recordstore.h"
#include "core/trace/profilereader.h"

namespace reach_test_openplan_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

const std::string kDatasets = REACH_DATASETS;
const std::string kSmall = std::string(REACH_TEST_DATA) + "/records/small.jsonl";

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() /
               ("reach_openplan_" + std::to_string(::getpid()) + "_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

// The profiles shipped in a folder, counted from the folder itself so that shipping another
// trace does not need a test edit: every .json, .json.gz and .sqlite file is one profile.
size_t profilesIn(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        auto endsWith = [&](const std::string& s) {
            return name.size() >= s.size() &&
                   name.compare(name.size() - s.size(), s.size(), s) == 0;
        };
        if (endsWith(".json") || endsWith(".json.gz") || endsWith(".sqlite"))
            ++n;
    }
    return n;
}

}  // namespace

TEST(OpenPlan, AFolderOfProfilesIsReadSmallFirst) {
    const OpenPlan plan = planOpen({kDatasets + "/profiles/public"});
    EXPECT_EQ(plan.projectName, "public");
    ASSERT_GE(profilesIn(kDatasets + "/profiles/public"), 9u);
    ASSERT_EQ(plan.profiles.size(), profilesIn(kDatasets + "/profiles/public"));
    for (size_t i = 1; i < plan.profiles.size(); ++i)
        EXPECT_LE(fs::file_size(plan.profiles[i - 1]), fs::file_size(plan.profiles[i]));
    EXPECT_TRUE(plan.evaluations.empty());
    EXPECT_TRUE(plan.published.empty());
}

TEST(OpenPlan, APublishedTableGivesWorkloadsAsPublishedAndItsSummaries) {
    const OpenPlan plan = planOpen({kDatasets + "/paper/table3.json"});
    ASSERT_EQ(plan.published.size(), 7u);
    EXPECT_TRUE(plan.published[0].published);
    EXPECT_EQ(plan.published[0].origin, "published, A100");
    EXPECT_NEAR(plan.published.back().publishedAddressable, 0.582, 1e-12);
    ASSERT_EQ(plan.evaluations.size(), 3u);
    EXPECT_TRUE(plan.evaluations[2].published);
    EXPECT_EQ(plan.evaluations[2].winners, 5);
    ASSERT_EQ(plan.studies.size(), 1u);
    EXPECT_NEAR(plan.studies[0].winRate, 0.417, 1e-12);
    EXPECT_TRUE(plan.profiles.empty());
}

TEST(OpenPlan, RecordsFilesAndAFolderOfVerifierOutputsAreEvaluationSets) {
    const OpenPlan jsonl = planOpen({kSmall});
    ASSERT_EQ(jsonl.evaluations.size(), 1u);
    EXPECT_EQ(jsonl.evaluations[0].name, "small");
    EXPECT_EQ(jsonl.evaluations[0].records.size(), 11u);
    // 40 reach-verify documents in one folder: ONE set, not 40.
    const OpenPlan folder = planOpen({kDatasets + "/evaluations/h200/raw"});
    ASSERT_EQ(folder.evaluations.size(), 1u);
    EXPECT_EQ(folder.evaluations[0].records.size(), 40u);
    EXPECT_TRUE(folder.profiles.empty());
}

TEST(OpenPlan, AProjectGivesItsRecordSetsRulesAndWorkloadsToRead) {
    TempDir dir;
    const std::string path = (dir.path / "p.reach").string();
    RuleSet custom = RuleSet::builtinDefault();
    custom.setName("custom");
    custom.insertRule(0, Rule{"my_kernel", Category::Addressable, "fused", {}});
    {
        ProjectStore store = ProjectStore::open(path);
        store.importWorkload(readProfile(kDatasets + "/profiles/h200/dlrm_inference.json.gz"));
        importRecordSet(store, "small", kSmall, "reach-jsonl", readReachJsonl(kSmall));
        store.saveRuleSet(custom);
    }
    const OpenPlan plan = planOpen({path});
    EXPECT_EQ(plan.storePath, fs::absolute(path).lexically_normal().string());
    ASSERT_EQ(plan.evaluations.size(), 1u);
    EXPECT_TRUE(plan.evaluations[0].storeId.has_value());
    ASSERT_TRUE(plan.storedRules);
    EXPECT_EQ(plan.storedRules->hash(), custom.hash());
    ASSERT_EQ(plan.stores.size(), 1u);

    // Read at once: the stored workload, classified with the project's own rules.
    const Project p = openInputs({path}, std::nullopt);
    ASSERT_EQ(p.workloads.size(), 1u);
    EXPECT_EQ(p.workloads[0].breakdown->rulesHash, custom.hash());
    // Rules given win over the stored ones.
    const Project q = openInputs({path}, RuleSet::builtinDefault());
    EXPECT_EQ(q.workloads[0].breakdown->rulesHash, RuleSet::builtinDefault().hash());
}

// Issue 37, item 11: a project's stored rule set was compiled on every open (a 9.9 MB project:
// 12.5 s, 814 MB). One past the rule-set limits is one warning naming the project; the project
// opens with its records and the current rules, and the stored set stays in it.
TEST(OpenPlan, AStoredRuleSetPastTheLimitsIsAWarningAndTheProjectOpens) {
    TempDir dir;
    const std::string path = (dir.path / "p.reach").string();
    nlohmann::json rules = nlohmann::json::array();
    for (size_t i = 0; i <= RuleSet::kMaxRules; ++i)
        rules.push_back({{"pattern", "k" + std::to_string(i)}, {"category", "addressable"}});
    {
        ProjectStore store = ProjectStore::open(path);
        importRecordSet(store, "small", kSmall, "reach-jsonl", readReachJsonl(kSmall));
        store.saveRuleSet("huge", "0123abcd", nlohmann::json{{"rules", rules}}.dump());
    }
    const OpenPlan plan = planOpen({path});
    EXPECT_FALSE(plan.storedRules);
    ASSERT_EQ(plan.evaluations.size(), 1u);
    EXPECT_EQ(plan.evaluations[0].records.size(), 11u);
    const auto refusal = std::find_if(plan.warnings.begin(), plan.warnings.end(), [](auto& w) {
        return w.find("p.reach (rule set 0123abcd): rules: expected at most 1024") !=
               std::string::npos;
    });
    ASSERT_NE(refusal, plan.warnings.end());
    EXPECT_EQ(refusal->find('\n'), std::string::npos);
    EXPECT_EQ(ProjectStore::open(path).ruleSets().size(), 1u);
}

TEST(OpenPlan, TheSampleIsTheStudyTheMeasuredSetsAndTheH200Profiles) {
    const OpenPlan plan = planSample();
    EXPECT_EQ(plan.projectName, "Sample project (bundled)");
    EXPECT_EQ(plan.published.size(), 7u);
    ASSERT_GE(plan.evaluations.size(), 4u);
    EXPECT_EQ(plan.evaluations[0].name, "H200 reach-verify (measured)");
    EXPECT_FALSE(plan.evaluations[0].published);
    EXPECT_TRUE(plan.evaluations.back().published);  // the study's summaries come last
    EXPECT_GE(plan.profiles.size(), 6u);
    for (const std::string& p : plan.profiles)
        EXPECT_TRUE(p.find("/profiles/h200/") != std::string::npos ||
                    p.find("/profiles/h200-shapes/") != std::string::npos)
            << p;
}

TEST(OpenPlan, UnreadableInputsAreOneLineErrorsNamingThePath) {
    TempDir dir;
    const std::string missing = (dir.path / "nope.json.gz").string();
    try {
        planOpen({missing});
        FAIL() << "a missing input must be refused";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), missing);
    }
    // A folder with nothing Reach reads.
    std::ofstream(dir.path / "notes.txt") << "hello";
    EXPECT_THROW(planOpen({dir.path.string()}), InputError);
    // A broken profile is reported when read (the GUI goes on; openInputs stops).
    const std::string bad = (dir.path / "broken.json").string();
    std::ofstream(bad) << "{\"traceEvents\": [ {\"ph\": ";
    const OpenPlan plan = planOpen({bad});
    std::vector<std::string> errors;
    readPlanWorkloads(
        plan, RuleSet::builtinDefault(), [](LoadedWorkload) {},
        [&](const InputError& e) { errors.push_back(e.what()); });
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("broken.json"), std::string::npos);
    EXPECT_THROW(openInputs({bad}, std::nullopt), InputError);
}

TEST(OpenPlan, ReadingDeliversEveryWorkloadAndReportsProgress) {
    const OpenPlan plan = planOpen({kDatasets + "/profiles/public"});
    std::vector<std::string> names;
    std::vector<double> progress;
    readPlanWorkloads(
        plan, RuleSet::builtinDefault(),
        [&](LoadedWorkload w) {
            EXPECT_TRUE(w.breakdown);
            names.push_back(w.workload->name);
        },
        [](const InputError& e) { ADD_FAILURE() << e.what(); },
        [&](double f) { progress.push_back(f); });
    EXPECT_EQ(names.size(), profilesIn(kDatasets + "/profiles/public"));
    ASSERT_FALSE(progress.empty());
    EXPECT_NEAR(progress.back(), 1.0, 1e-9);
    for (size_t i = 1; i < progress.size(); ++i)
        EXPECT_GE(progress[i] + 1e-12, progress[i - 1]);
}

}  // namespace reach_test_openplan_test
