#include <gtest/gtest.h>

#include <string>

#include "core/inputerror.h"
#include "core/profilereader.h"

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

// The fixtures in tests/data/bad/ are cut from or edited in real traces (see tests/data/bad/README.md).
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
