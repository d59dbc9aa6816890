#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <unistd.h>

#include "core/base/inputerror.h"
#include "core/trace/profilereader.h"

namespace reach_test_badinput_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

std::string bad(const std::string& name) {
    return std::string(REACH_TEST_DATA) + "/bad/" + name;
}

// Reads the file, expects InputError whose one-line message names the file, the place (a byte
// offset or a key) and contains `what`.
void expectInputError(const std::string& path, const std::string& place, const std::string& what) {
    SCOPED_TRACE(path);
    try {
        readProfile(path);
        ADD_FAILURE() << "no error";
    } catch (const InputError& e) {
        std::string msg = e.what();
        EXPECT_EQ(e.file(), path);
        EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
        EXPECT_NE(e.place().find(place), std::string::npos) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos);
    }
}

}  // namespace

// The fixtures in tests/data/bad/ are cut from or edited in real traces (see
// tests/data/bad/README.md).
TEST(BadInput, TruncatedGzip) {
    // dlrm_inference.json.gz cut to its first 6840 bytes: the error is at the end of the file.
    expectInputError(bad("truncated.json.gz"), "byte 6840", "gzip stream ends early");
}

TEST(BadInput, CorruptGzipData) {
    expectInputError(bad("corrupt.json.gz"), "byte ", "gzip");
}

TEST(BadInput, TruncatedJson) {
    expectInputError(bad("truncated.json"), "byte 11096", "truncated");
}

TEST(BadInput, TruncatedJsonInsideAValidGzipStream) {
    expectInputError(bad("truncated_inside.json.gz"), "byte ", "truncated");
}

TEST(BadInput, NotJson) {
    expectInputError(bad("not_json.txt"), "byte 0", "expected a PyTorch profiler trace");
}

TEST(BadInput, InvalidTokenInsideTheEvents) {
    expectInputError(bad("bad_token.json"), "byte 3472", "expected a JSON value, found 'k'");
}

TEST(BadInput, JsonWithoutTraceEvents) {
    expectInputError(bad("no_trace_events.json"), "key \"traceEvents\"", "has none");
}

TEST(BadInput, TraceEventsNotAList) {
    expectInputError(bad("trace_events_object.json"), "key \"traceEvents\"",
                     "expected a list of events, found an object");
}

TEST(BadInput, DurationIsAString) {
    expectInputError(bad("dur_string.json"), "key \"dur\"", "expected a number, found a string");
}

TEST(BadInput, TimestampIsNull) {
    expectInputError(bad("ts_null.json"), "key \"ts\"", "expected a number, found null");
}

TEST(BadInput, EventIsNotAnObject) {
    expectInputError(bad("event_not_object.json"), "key \"traceEvents\"",
                     "expected an event object, found a number");
}

TEST(BadInput, KernelNameIsANumber) {
    expectInputError(bad("name_number.json"), "key \"name\"", "expected a string, found a number");
}

TEST(BadInput, TrailingGarbage) {
    expectInputError(bad("trailing_garbage.json"), "byte 14382", "expected the end of the input");
}

TEST(BadInput, EmptyFile) {
    expectInputError(bad("empty.json"), "byte 0", "empty");
}

TEST(BadInput, Directory) {
    std::string dir = std::string(REACH_TEST_DATA) + "/bad";
    expectInputError(dir, "", "is a directory");
}

TEST(BadInput, MissingFile) {
    expectInputError(bad("does_not_exist.json.gz"), "", "No such file");
}

TEST(BadInput, CorruptSqlite) {
    // The nsys export cut to its first 64 KiB: SQLite reports a malformed image.
    expectInputError(bad("truncated.sqlite"), "table", "malformed");
}

TEST(BadInput, SqliteThatIsNotAnNsysExport) {
    expectInputError(bad("not_nsys.sqlite"), "table StringIds",
                     "expected an Nsight Systems export");
}

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `bytes` to a temp file and reads it: success and InputError are the only outcomes
// allowed (no other exception, no crash; the suite also runs under ASan + UBSan).
// Returns true when it read.
bool readsOrInputError(const std::string& bytes, const std::string& tmp) {
    std::ofstream(tmp, std::ios::binary | std::ios::trunc) << bytes;
    try {
        readProfile(tmp);
        return true;
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find(tmp), std::string::npos);
        return false;
    }
}

std::string tempPath(const std::string& name) {
    return (std::filesystem::temp_directory_path() /
            ("reach_bad_" + std::to_string(::getpid()) + "_" + name))
        .string();
}

}  // namespace

// Under ThreadSanitizer (scripts/test's tsan stage) a read costs about twenty times as much and
// these two tests took 284 of its 417 CPU-seconds: there a sample of the cuts and flips still
// stops the reading thread at many points, within CI's time.
#if defined(__SANITIZE_THREAD__)
constexpr size_t kSample = 16;
#else
constexpr size_t kSample = 1;
#endif

TEST(BadInput, EveryTruncationOfARealTraceIsAnInputError) {
    std::string text = slurp(std::string(REACH_TEST_DATA) + "/kineto/reordered_triton.json");
    ASSERT_GT(text.size(), 20000u);
    std::string tmp = tempPath("cut.json");
    // Every 29th cut, plus each of the last 40 bytes (the closing brackets).
    for (size_t n = 1; n < text.size(); n += (n + 40 < text.size() ? 29 * kSample : 1)) {
        SCOPED_TRACE(n);
        EXPECT_FALSE(readsOrInputError(text.substr(0, n), tmp));
    }
    EXPECT_TRUE(readsOrInputError(text, tmp));
    std::filesystem::remove(tmp);
}

TEST(BadInput, CorruptedBytesNeverCrash) {
    std::string text = slurp(std::string(REACH_TEST_DATA) + "/kineto/reordered_triton.json");
    std::string gz = slurp(std::string(REACH_DATASETS) + "/profiles/h200/dlrm_inference.json.gz");
    std::string tmp = tempPath("flip.json");
    uint32_t seed = 12345;
    auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
    int read = 0;
    const int rounds = int(300 / kSample / 3 * 3);  // a multiple of 3: plain and gzip alike
    for (int i = 0; i < rounds; ++i) {
        std::string t = (i % 3 == 2) ? gz : text;
        for (int k = 0; k < 1 + i % 4; ++k)
            t[next() % t.size()] = char(next() >> 24);
        read += readsOrInputError(t, tmp);
    }
    std::filesystem::remove(tmp);
    // Some flips land in strings and still read; most break the syntax or the gzip stream.
    EXPECT_GT(read, 0);
    EXPECT_LT(read, rounds);
}

}  // namespace reach_test_badinput_test
