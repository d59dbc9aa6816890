// A distributed run read rank by rank (core/distributed/runread.h): one pass per rank gives the
// same run however many ranks are read at once and whatever the memory budget; the first bad
// file in the order given is the one named; a rank must be a Kineto trace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/analysis/ruleset.h"
#include "core/base/inputerror.h"
#include "core/distributed/rankscan.h"
#include "core/distributed/runread.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"

namespace reach_test_runread_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::TempFolder;
using reach::test::writeText;

const std::string kRun = std::string(REACH_TEST_DATA) + "/distributed/skewed4";

std::vector<std::string> skewed4() {
    std::vector<std::string> files;
    for (int r = 0; r < 4; ++r)
        files.push_back(kRun + "/rank-" + std::to_string(r) + ".json.gz");
    return files;
}

TEST(ReadRun, TheSameRunWhateverReadsAtOnceAndTheBudget) {
    const RuleSet rules = RuleSet::builtinDefault();
    const DistributedRun wide = readRun(skewed4(), rules, 4, 0);
    const DistributedRun narrow = readRun(skewed4(), rules, 1, kDefaultRunMemory);
    const DistributedRun tight = readRun(skewed4(), rules, 4, 1);  // one at a time, by budget
    for (const DistributedRun* other : {&narrow, &tight}) {
        ASSERT_EQ(other->run.ranks.size(), 4u);
        EXPECT_EQ(other->run.matched.size(), wide.run.matched.size());
        for (size_t r = 0; r < 4; ++r) {
            EXPECT_EQ(other->run.ranks[r].rank, wide.run.ranks[r].rank);
            EXPECT_EQ(other->run.ranks[r].gpuUs, wide.run.ranks[r].gpuUs);
            EXPECT_EQ(other->run.ranks[r].computeSpans, wide.run.ranks[r].computeSpans);
            EXPECT_EQ(other->run.ranks[r].computeUs, wide.run.ranks[r].computeUs);
            EXPECT_EQ(other->run.offsets[r].offsetUs, wide.run.offsets[r].offsetUs);
            EXPECT_EQ(other->categories[r].categoryUs, wide.categories[r].categoryUs);
        }
        EXPECT_EQ(other->addressableShareWaitingOut, wide.addressableShareWaitingOut);
    }
    EXPECT_EQ(wide.run.matched.size(), 10u);
}

TEST(ReadRun, OnePassGivesTheRankAndItsBreakdownTogether) {
    const RankReading r = readRank(skewed4()[2], RuleSet::builtinDefault());
    EXPECT_EQ(r.trace.rank, 2);
    EXPECT_EQ(r.trace.rankFrom, "distributedInfo");
    EXPECT_EQ(r.trace.worldSize, 4);
    EXPECT_EQ(r.trace.collectives.size(), 10u);
    EXPECT_FALSE(r.categories.fromSummary);
    // The breakdown and the scan are of the same reading: the same GPU time.
    EXPECT_DOUBLE_EQ(r.trace.gpuUs, r.categories.gpuTimeUs);
    double sum = 0;
    for (double us : r.categories.categoryUs)
        sum += us;
    EXPECT_NEAR(sum, r.categories.gpuTimeUs, 1e-6 * r.categories.gpuTimeUs);
    // The scan alone reads the same rank.
    const RankTrace alone = scanRank(skewed4()[2]);
    EXPECT_EQ(alone.collectives.size(), r.trace.collectives.size());
    EXPECT_EQ(alone.collectiveSpans, r.trace.collectiveSpans);
}

TEST(ReadRun, ARankKeepsItsComputeWhereItOverlapsItsCollectivesAndItsWholeLength) {
    // What the run's overlap needs and no more: a rank of millions of kernels must not keep a
    // span per kernel (64 ranks of 1.6 GB held 3.4 GB so on an H100 machine).
    KinetoOptions options;
    options.rankFacts = true;
    const Workload w = readProfile(skewed4()[1], {}, {}, options);
    ASSERT_TRUE(w.rank);
    const RankTrace t = rankTraceOf(skewed4()[1], w);
    EXPECT_DOUBLE_EQ(t.computeUs, spanLength(w.rank->computeSpans));
    EXPECT_LT(t.computeSpans.size(), w.rank->computeSpans.size());
    EXPECT_EQ(t.computeSpans, spanIntersection(w.rank->computeSpans, w.rank->collectiveSpans));
    for (const Span& s : t.computeSpans) {  // each inside one collective span
        bool inside = false;
        for (const Span& c : t.collectiveSpans)
            inside = inside || (s.first >= c.first && s.second <= c.second);
        EXPECT_TRUE(inside) << s.first << " " << s.second;
    }
    // The overlap is the same as from every compute span.
    EXPECT_DOUBLE_EQ(spanLength(spanIntersection(t.collectiveSpans, t.computeSpans)),
                     spanLength(spanIntersection(w.rank->collectiveSpans, w.rank->computeSpans)));
}

TEST(ReadRun, TheFirstBadFileInTheOrderGivenIsNamed) {
    TempFolder dir;
    const std::string bad1 = writeText(dir.path("rank-1.json"), "{\"traceEvents\": [{\"ph\": ");
    const std::string bad2 = writeText(dir.path("rank-2.json"), "not json");
    std::vector<std::string> files = {skewed4()[0], bad1, bad2, skewed4()[3]};
    for (unsigned threads : {1u, 4u}) {
        try {
            readRun(files, RuleSet::builtinDefault(), threads);
            FAIL() << "a bad rank was read";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(bad1), std::string::npos) << e.what();
        }
    }
}

TEST(ReadRun, ARankThatIsNotAKinetoTraceIsOneLine) {
    const std::string nsys =
        std::string(REACH_DATASETS) + "/profiles/public/pipit_saxpy_nsys_a100.sqlite";
    try {
        readRank(nsys, RuleSet::builtinDefault());
        FAIL() << "an Nsight export was read as a rank";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(nsys), std::string::npos) << what;
        EXPECT_NE(what.find("Kineto"), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
}

}  // namespace reach_test_runread_test
