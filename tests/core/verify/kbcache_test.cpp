// The results cache of KernelBench-format jobs (core/verify/kbcache.h): only reach-verify writes
// it, and each entry is filed under the files of the job that asked for it, so no job can plant
// an entry another problem's verify would read.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/verify/kbcache.h"
// Its scratch folder (BatchScratch) is the batch tests' one; nothing else of the batch is used.
#include "tests/core/batch/batchtestsupport.h"

namespace reach_test_kbcache_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
using reach::test::BatchScratch;
namespace fs = std::filesystem;

namespace {

std::string file(const BatchScratch& s, const std::string& name, const std::string& text) {
    const std::string p = s.dir() + "/" + name;
    std::ofstream(p) << text;
    return p;
}

json entry(const std::string& kind, char k, const json& value) {
    return {{"kind", kind},
            {"key", std::string(64, k)},
            {"measured_at", "2026-12-03T12:00:00Z"},
            {"value", value}};
}

}  // namespace

TEST(KbResultCache, EntriesComeBackUnderTheirOwnJobsFilesOnly) {
    BatchScratch s("kbcache");
    const std::string root = s.dir() + "/cache";
    const std::string p1 = file(s, "p1.py", "problem one"), p2 = file(s, "p2.py", "problem two");
    const std::string c1 = file(s, "c1.py", "candidate one"),
                      c2 = file(s, "c2.py", "candidate two");
    const KbResultCache job(root, p1, c1);
    ASSERT_TRUE(job.enabled());
    using Source = KbResultCache::Source;
    EXPECT_EQ(job.store(json::array({entry("baselines", 'a', json::array({{{"us", 12.5}}})),
                                     entry("census", 'b', json::object())}),
                        Source::Judge),
              2);
    EXPECT_EQ(job.store(json::array({entry("kernelbench", 'c', {{"correctness", true}})}),
                        Source::KernelBenchReport),
              1);
    const json mine = job.entries()["entries"];
    EXPECT_EQ(mine["baselines"][std::string(64, 'a')]["value"][0]["us"], 12.5);
    EXPECT_EQ(mine["census"].size(), 1u);
    EXPECT_EQ(mine["kernelbench"].size(), 1u);
    // Another candidate on the same problem shares the baselines, nothing else.
    const json other = KbResultCache(root, p1, c2).entries()["entries"];
    EXPECT_EQ(other["baselines"].size(), 1u);
    EXPECT_TRUE(other["census"].empty());
    EXPECT_TRUE(other["kernelbench"].empty());
    // Another problem sees none of them, whatever key a worker asked to store under.
    const json stranger = KbResultCache(root, p2, c1).entries()["entries"];
    EXPECT_TRUE(stranger["baselines"].empty());
    EXPECT_TRUE(stranger["kernelbench"].empty());
}

TEST(KbResultCache, WhatAWorkerCannotStore) {
    BatchScratch s("kbcachebad");
    const std::string root = s.dir() + "/cache";
    const KbResultCache job(root, file(s, "p.py", "p"), file(s, "c.py", "c"));
    json bad = json::array({entry("results", 'a', 1),    // not a kind of the cache
                            entry("baselines", 'G', 1),  // not 64 hex digits
                            {{"kind", "baselines"}, {"key", std::string(64, 'a')}},  // no value
                            entry("census", 'b', json::object())});
    bad[1]["key"] = "../../../etc/passwd";
    bad[3]["measured_at"] = 5;  // not a time
    EXPECT_EQ(job.store(bad, KbResultCache::Source::Judge), 0);
    EXPECT_EQ(job.store(json::object(), KbResultCache::Source::Judge), 0);
    EXPECT_FALSE(fs::exists(root + "/results/results"));
    EXPECT_FALSE(fs::exists(s.dir() + "/etc"));
    // An entry too large is dropped.
    EXPECT_EQ(
        job.store(
            json::array({entry("census", 'd', std::string(KbResultCache::kMaxEntryBytes, 'x'))}),
            KbResultCache::Source::Judge),
        0);
}

// Issue 36: KernelBench's reproduction loads the candidate in its own process, so its document
// is a report. A baseline or census it lists is the candidate's word: never filed, so the next
// honest verify of the problem cannot read a planted 1e9 us baseline; and the judge, which
// never loads the candidate, does not file a KernelBench report.
TEST(KbResultCache, AReportFromTheCandidatesProcessStoresNoBaseline) {
    BatchScratch s("kbcachereport");
    const std::string root = s.dir() + "/cache";
    const KbResultCache job(root, file(s, "p.py", "p"), file(s, "c.py", "c"));
    const json planted =
        json::array({entry("baselines", 'a', json::array({{{"kind", "eager"}, {"us", 1e9}}})),
                     entry("census", 'b', json::object())});
    EXPECT_EQ(job.store(planted, KbResultCache::Source::KernelBenchReport), 0);
    EXPECT_TRUE(job.entries()["entries"]["baselines"].empty());
    EXPECT_TRUE(job.entries()["entries"]["census"].empty());
    EXPECT_EQ(job.store(json::array({entry("kernelbench", 'c', 1)}), KbResultCache::Source::Judge),
              0);
    EXPECT_TRUE(job.entries()["entries"]["kernelbench"].empty());
}

TEST(KbResultCache, AFileTamperedWithIsLeftOut) {
    BatchScratch s("kbcachetamper");
    const std::string root = s.dir() + "/cache";
    const KbResultCache job(root, file(s, "p.py", "p"), file(s, "c.py", "c"));
    ASSERT_EQ(job.store(json::array({entry("baselines", 'a', 1)}), KbResultCache::Source::Judge),
              1);
    const json before = job.entries()["entries"]["baselines"];
    ASSERT_EQ(before.size(), 1u);
    // Renamed to another key, truncated, or not JSON: never read back.
    for (const auto& f : fs::recursive_directory_iterator(root + "/results/baselines")) {
        if (!f.is_regular_file())
            continue;
        std::ofstream(f.path()) << R"({"key": ")";
    }
    EXPECT_TRUE(job.entries()["entries"]["baselines"].empty());
}

TEST(KbResultCache, WithoutAFolderOrAReadableFileThereIsNoCache) {
    BatchScratch s("kbcacheoff");
    EXPECT_FALSE(KbResultCache("", file(s, "p.py", "p"), file(s, "c.py", "c")).enabled());
    const KbResultCache missing(s.dir() + "/cache", s.dir() + "/nope.py", file(s, "c.py", "c"));
    EXPECT_FALSE(missing.enabled());
    EXPECT_EQ(
        missing.store(json::array({entry("baselines", 'a', 1)}), KbResultCache::Source::Judge), 0);
}

}  // namespace reach_test_kbcache_test
