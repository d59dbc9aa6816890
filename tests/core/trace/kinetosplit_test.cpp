// The Kineto reader on several threads (the event list cut into pieces, parsed apart, merged in
// file order) against the same reader on one: the same Workload to the last bit, on every real
// trace, and the same error at the same byte on every malformed one.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <string>

#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/trace/bytesource.h"
#include "core/trace/kinetoreader.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"
#include "tests/core/trace/workloaddump.h"

namespace reach_test_kinetosplit_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

KinetoOptions serial() {
    KinetoOptions o;
    o.threads = 0;
    return o;
}

KinetoOptions split(size_t pieceBytes, int threads = 3) {
    KinetoOptions o;
    o.threads = threads;
    o.pieceBytes = pieceBytes;
    return o;
}

// What a reading gives: the Workload's dump, or the error's one line.
std::string outcome(const std::string& path, const KinetoOptions& options) {
    try {
        return dumpWorkload(readProfile(path, {}, {}, options));
    } catch (const InputError& e) {
        return std::string("InputError: ") + e.what();
    }
}

std::vector<std::string> realTraces() {
    std::vector<std::string> out;
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(REACH_DATASETS) + "/profiles")) {
        const std::string p = e.path().string();
        if (e.is_regular_file() && p.size() > 8 && p.compare(p.size() - 8, 8, ".json.gz") == 0)
            out.push_back(p);
    }
    out.push_back(std::string(REACH_TEST_DATA) + "/kineto/reordered_triton.json");
    std::sort(out.begin(), out.end());
    return out;
}

std::string plainText(const std::string& path) {
    ByteSource src(path);
    std::string all;
    for (std::string_view c = src.next(); !c.empty(); c = src.next())
        all.append(c);
    return all;
}

// Under ThreadSanitizer (scripts/test's tsan stage) a read costs about twenty times as much:
// there every 16th trace, cut and corruption still runs the threads through every path.
#if defined(__SANITIZE_THREAD__)
constexpr size_t kSample = 16;
#else
constexpr size_t kSample = 1;
#endif

}  // namespace

TEST(KinetoSplit, EveryRealTraceReadsTheSameBitsInPiecesOfEverySize) {
    const std::vector<std::string> traces = realTraces();
    ASSERT_GE(traces.size(), 40u);
    for (size_t i = 0; i < traces.size(); i += kSample) {
        const std::string& path = traces[i];
        SCOPED_TRACE(path);
        const std::string want = outcome(path, serial());
        ASSERT_EQ(want.rfind("InputError", 0), std::string::npos) << want;
        // Pieces of one element each (every element end is a cut), of a few, and the default;
        // the two largest traces (70-100 MB of text) in default pieces only, within CI's time.
        std::vector<size_t> pieces = {size_t(2) << 20};
        if (fs::file_size(path) < (2u << 20))
            pieces.insert(pieces.end(), {size_t(1), size_t(4096)});
        for (size_t piece : pieces)
            ASSERT_EQ(outcome(path, split(piece)), want) << "piece " << piece;
    }
}

TEST(KinetoSplit, OneThreadOrEightGiveTheSame) {
    const std::string path =
        std::string(REACH_DATASETS) + "/profiles/h200-shapes/qwen2.5-1.5b_training.json.gz";
    const std::string want = outcome(path, serial());
    for (int threads : {1, 2, 8})
        EXPECT_EQ(outcome(path, split(8192, threads)), want) << threads;
}

// The bad fixtures, 800 truncations and 300 one-byte corruptions of a real trace (as
// plain text, so that each corrupt byte reaches the scanner): the split reading fails with the
// same line, at the same byte, or succeeds with the same bits.
TEST(KinetoSplit, MalformedInputFailsWithTheSameErrorAtTheSameByte) {
    for (const auto& e : fs::directory_iterator(std::string(REACH_TEST_DATA) + "/bad")) {
        const std::string p = e.path().string();
        if (p.find(".json") == std::string::npos)
            continue;
        SCOPED_TRACE(p);
        EXPECT_EQ(outcome(p, split(64)), outcome(p, serial()));
    }
    const std::string text =
        plainText(std::string(REACH_DATASETS) + "/profiles/h200/dlrm_inference.json.gz");
    ASSERT_GT(text.size(), 10000u);
    test::TempFolder dir;
    const std::string path = dir.path("trace.json");
    for (size_t cut = 0; cut < text.size(); cut += text.size() / 800 * kSample) {
        test::writeText(path, text.substr(0, cut));
        const std::string want = outcome(path, serial());
        ASSERT_EQ(outcome(path, split(1024)), want) << "truncated at " << cut;
    }
    std::mt19937 rng(11);
    const char bytes[] = "{}[],:\"\\ x0-e";
    for (int i = 0; i < int(300 / kSample); ++i) {
        std::string bad = text;
        bad[rng() % bad.size()] = bytes[rng() % (sizeof bytes - 1)];
        test::writeText(path, bad);
        const std::string want = outcome(path, serial());
        ASSERT_EQ(outcome(path, split(1024)), want) << "corruption " << i;
    }
}

// An element larger than a piece may grow (a metadata event with 20 MB of text) is read on the
// reading thread, streamed, and splitting goes on after it.
TEST(KinetoSplit, AHugeElementIsReadUnsplitAndSplittingGoesOn) {
    std::string text = "{\"traceEvents\": [";
    auto kernel = [](int i) {
        return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k" + std::to_string(i % 7) +
               "\", \"ts\": " + std::to_string(1000 + 10 * i) +
               ".5, \"dur\": 2.25, \"args\": " + "{\"External id\": " + std::to_string(i) +
               ", \"stream\": 7}}";
    };
    for (int i = 0; i < 3000; ++i)
        text += kernel(i) + ", ";
    text += "{\"ph\": \"i\", \"name\": \"meta\", \"args\": {\"blob\": \"" +
            std::string(20 << 20, 'x') + "\"}}";
    for (int i = 3000; i < 6000; ++i)
        text += ", " + kernel(i);
    text += "]}";
    test::TempFolder dir;
    const std::string path = test::writeText(dir.path("huge.json"), text);
    const std::string want = outcome(path, serial());
    EXPECT_NE(want.find("|6000\n"), std::string::npos) << want.substr(0, 200);
    // Pieces of 4 KiB: cut before it; of 2 MiB: the 3000 events before it go out as one piece
    // when the huge one is met.
    EXPECT_EQ(outcome(path, split(4096)), want);
    EXPECT_EQ(outcome(path, split(2 << 20)), want);
}

// The progress callback runs on the reading thread while the parsing threads run: counting the
// process's threads there shows that the split path is the one taken (else every comparison
// above would hold trivially).
TEST(KinetoSplit, ProgressAndCancellation) {
    const std::string path =
        std::string(REACH_DATASETS) + "/profiles/h200/qwen2.5-14b_inference.json.gz";
    const auto threads = [] {
        return std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator{});
    };
    const auto before = threads();
    std::vector<double> seen;
    long most = 0;
    readProfile(
        path,
        [&](double f) {
            seen.push_back(f);
            most = std::max<long>(most, threads());
        },
        {}, split(1 << 16));
    // This thread's reading, ByteSource's and the 3 parsing threads.
    EXPECT_GE(most, before + 4);
    ASSERT_GE(seen.size(), 3u);
    for (size_t i = 1; i < seen.size(); ++i)
        EXPECT_GE(seen[i], seen[i - 1]);
    EXPECT_EQ(seen.back(), 1.0);

    std::stop_source stop;
    int calls = 0;
    EXPECT_THROW(readProfile(
                     path,
                     [&](double) {
                         if (++calls == 2)
                             stop.request_stop();
                     },
                     stop.get_token(), split(1 << 16)),
                 Cancelled);
}

}  // namespace reach_test_kinetosplit_test
