// The profile readers' limits (docs/limits.md) and the inputs that broke them (issue 14): deep
// nesting, skipped values that are not JSON, out-of-range times, very long and invalid names,
// messages, and Nsight exports opened without touching them.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "core/base/inputerror.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"

namespace reach_test_readerlimits_test {  // unity builds: this file's names stay its own

using namespace reach;
using reach::test::kinetoTrace;
using reach::test::nestedLists;
using reach::test::TempFolder;
using reach::test::writeGzip;
using reach::test::writeText;

namespace {

// The reader must refuse the file with one line naming it, the byte offset and `what`.
std::string expectRefused(const std::string& path, const std::string& what) {
    SCOPED_TRACE(path);
    try {
        const Workload w = readProfile(path);
        ADD_FAILURE() << "accepted; GPU time " << w.gpuTimeUs << " us, span " << w.spanUs;
    } catch (const InputError& e) {
        const std::string msg = e.what();
        EXPECT_EQ(msg.rfind(path + ": byte ", 0), 0u) << msg;
        EXPECT_NE(msg.find(what), std::string::npos) << msg;
        EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
        return msg;
    }
    return {};
}

uint64_t byteOffset(const std::string& msg) {
    const size_t at = msg.find(": byte ");
    return at == std::string::npos ? 0 : std::stoull(msg.substr(at + 7));
}

}  // namespace

// Defect 1/5: a skipped value nested a million levels deep, and skipped values that only had
// balanced-looking brackets, were accepted.
TEST(ReaderLimits, DeepNestingInASkippedValueIsRefused) {
    TempFolder dir;
    const std::string text = kinetoTrace("k", "1", "2", "\"metadata\":" + nestedLists(1000000));
    const std::string deep = writeText(dir.path("deep.json"), text);
    const std::string msg = expectRefused(deep, "nest");
    // The top-level object is level 1, so the 512th '[' opens level 513, one past the limit.
    EXPECT_EQ(byteOffset(msg), text.find('[', text.find("metadata")) + 511) << msg;
    const std::string ok = writeText(
        dir.path("ok.json"), kinetoTrace("k", "1", "2", "\"metadata\":" + nestedLists(511)));
    EXPECT_EQ(readProfile(ok).kernels.size(), 1u);
}

TEST(ReaderLimits, SkippedValuesMustBeJson) {
    TempFolder dir;
    struct Case {
        const char* member;
        const char* what;
    };
    for (const Case& c :
         {Case{R"("metadata":[[[[}}}})", "found '}'"},
          Case{R"("metadata":{"a" 1})", "expected ':'"},
          Case{R"("metadata":[1 2])", "expected ',' or ']'"},
          Case{R"("metadata":{"a":tru})", "expected 'true'"},
          Case{R"("metadata":[1,])", "expected a JSON value"},
          Case{R"("metadata":{,})", "expected a member name"},
          Case{R"("metadata":"\q")", "invalid escape"},
          Case{R"("metadata":"\u12x4")", "hex digits"},
          Case{R"("metadata":[01])", "malformed number"}, Case{R"("metadata":[1]])", "expected"}}) {
        const std::string path =
            writeText(dir.path("bad.json"), kinetoTrace("k", "1", "2", c.member));
        expectRefused(path, c.what);
    }
}

// Defect 5: negative, out-of-range and infinite times gave negative GPU time, 0 or null.
TEST(ReaderLimits, TimesOutOfRangeAreRefusedWithTheirOffset) {
    TempFolder dir;
    struct Case {
        const char* ts;
        const char* dur;
        const char* what;
    };
    for (const Case& c :
         {Case{"1", "-3", "dur"}, Case{"1", "1e309", "out of range"}, Case{"1e308", "2", "ts"},
          Case{"-1e400", "2", "out of range"}, Case{"1", "1e300", "dur"}}) {
        const std::string path = writeText(dir.path("t.json"), kinetoTrace("k", c.ts, c.dur));
        const std::string msg = expectRefused(path, c.what);
        EXPECT_GT(byteOffset(msg), 50u) << msg;  // the value's offset, not the file's start
    }
}

// Defect 4: a string the reader keeps (a name) has a size limit, reported at its offset; a
// skipped string of any size is streamed (tests/app checks the memory this costs).
TEST(ReaderLimits, AKeptStringAboveTheLimitIsRefusedAtItsOffset) {
    TempFolder dir;
    const std::string prefix = R"({"traceEvents":[{"ph":"X","cat":"kernel","name":")";
    const std::string path =
        writeGzip(dir.path("long.json.gz"), prefix, 'a', 17u << 20, R"(","ts":1,"dur":2}]})");
    const std::string msg = expectRefused(path, "longer than");
    EXPECT_EQ(byteOffset(msg), prefix.size() - 1) << msg;  // its opening quote
}

TEST(ReaderLimits, AHugeSkippedStringIsRead) {
    TempFolder dir;
    const std::string text = kinetoTrace("k", "1", "2", "\"metadata\":\"@\"");
    const size_t at = text.find('@');
    const std::string path = writeGzip(dir.path("meta.json.gz"), text.substr(0, at), 'x', 64u << 20,
                                       text.substr(at + 1));
    EXPECT_EQ(readProfile(path).kernels.size(), 1u);
}

// Defect 3: names are kept as their bytes, invalid UTF-8 included (output escapes them).
TEST(ReaderLimits, InvalidUtf8NamesAreKept) {
    TempFolder dir;
    const std::string path = writeText(dir.path("utf8.json"), kinetoTrace("bad\xff\xfe name"));
    const Workload w = readProfile(path);
    ASSERT_EQ(w.kernels.size(), 1u);
    EXPECT_EQ(w.kernels[0].name, "bad\xff\xfe name");
}

// Defect 7: "found byte 0x239" printed the decimal value after "0x".
TEST(ReaderLimits, AByteIsPrintedInHex) {
    TempFolder dir;
    const std::string path = writeGzip(dir.path("bom.json.gz"), "\xEF\xBB\xBF{\"traceEvents\":[]}");
    const std::string msg = expectRefused(path, "byte 0xef");
    EXPECT_EQ(msg.find("0x239"), std::string::npos) << msg;
}

// Defect 2: a 10 MB name made rule matching run for minutes; reading it is linear too.
TEST(ReaderLimits, ATenMegabyteNameIsReadQuickly) {
    TempFolder dir;
    const std::string name = "void big_kernel<" + std::string(10u << 20, 'a') + ">(int)";
    const std::string path = writeText(dir.path("long.json"), kinetoTrace(name));
    const auto start = std::chrono::steady_clock::now();
    const Workload w = readProfile(path);
    ASSERT_EQ(w.kernels.size(), 1u);
    EXPECT_EQ(w.kernels[0].name.size(), name.size());
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
              10.0);
}

namespace {

// A copy of the schema-3 style export with one SQL statement applied to it.
std::string editedExport(const TempFolder& dir, const std::string& name, const std::string& sql) {
    const std::string path = dir.path(name);
    std::filesystem::copy_file(std::string(REACH_TEST_DATA) + "/nsys/saxpy_schema3.sqlite", path,
                               std::filesystem::copy_options::overwrite_existing);
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
    return path;
}

bool besideIt(const std::string& path, const char* suffix) {
    return std::filesystem::exists(path + suffix);
}

}  // namespace

TEST(ReaderLimits, NsightRowsThatEndBeforeTheyStartAreRefused) {
    TempFolder dir;
    const std::string path =
        editedExport(dir, "neg.sqlite",
                     "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 5 WHERE rowid = "
                     "(SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)");
    try {
        readProfile(path);
        ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("CUPTI_ACTIVITY_KIND_KERNEL"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("row"), std::string::npos) << e.what();
    }
}

TEST(ReaderLimits, ATenMegabyteNsightNameIsRead) {
    TempFolder dir;
    const std::string path = editedExport(
        dir, "long.sqlite",
        "UPDATE StringIds SET value = 'saxpy' || printf('%.*c', 10485760, 'x') WHERE id IN "
        "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL)");
    const Workload w = readProfile(path);
    bool found = false;
    for (const KernelStats& k : w.kernels)
        found = found || k.name.size() == 5 + 10485760u;
    EXPECT_TRUE(found);
}

// Defect 6: reading a WAL-mode or read-only export left -wal/-shm files beside it.
TEST(ReaderLimits, AnNsightExportIsReadWithoutTouchingItsFolder) {
    TempFolder dir;
    const std::string path = editedExport(dir, "wal.sqlite", "PRAGMA journal_mode = WAL");
    ASSERT_FALSE(besideIt(path, "-wal"));
    const auto before = std::filesystem::last_write_time(path);
    EXPECT_EQ(readProfile(path).format, "nsys-sqlite");
    EXPECT_FALSE(besideIt(path, "-wal"));
    EXPECT_FALSE(besideIt(path, "-shm"));
    EXPECT_EQ(std::filesystem::last_write_time(path), before);

    ::chmod(path.c_str(), 0444);
    ::chmod(dir.root().c_str(), 0555);
    EXPECT_EQ(readProfile(path).format, "nsys-sqlite");
    EXPECT_FALSE(besideIt(path, "-wal"));
    EXPECT_FALSE(besideIt(path, "-shm"));
    ::chmod(dir.root().c_str(), 0755);
}

}  // namespace reach_test_readerlimits_test
