// reach-cli on the inputs that broke it (issue 14): no crash, no hang, bounded memory, every
// refusal one line naming the file and the place, and terminal-safe output.
#include <gtest/gtest.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <string>

#include "clirunner.h"

namespace reach_test_clihardening_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::CliOptions;
using reach::test::CliResult;
using reach::test::runCli;
using reach::test::TempDir;
using reach::test::writeFile;

namespace {

// One GPU kernel named `nameBody` (a JSON string body), then `extra` top-level members.
std::string trace(const std::string& nameBody, const std::string& ts = "100.5",
                  const std::string& dur = "2.25", const std::string& extra = "") {
    return R"({"traceEvents":[{"ph":"X","cat":"kernel","name":")" + nameBody +
           R"(","pid":0,"tid":7,"ts":)" + ts + R"(,"dur":)" + dur +
           R"(,"args":{"stream":7,"device":0}}])" + (extra.empty() ? "" : "," + extra) + "}";
}

void writeGzip(const std::string& path, const std::string& prefix, char fill, uint64_t count,
               const std::string& suffix) {
    gzFile f = gzopen(path.c_str(), "wb6");
    ASSERT_NE(f, nullptr);
    gzwrite(f, prefix.data(), unsigned(prefix.size()));
    const std::string block(1 << 20, fill);
    for (uint64_t left = count; left > 0;) {
        const uint64_t n = std::min<uint64_t>(left, block.size());
        gzwrite(f, block.data(), unsigned(n));
        left -= n;
    }
    gzwrite(f, suffix.data(), unsigned(suffix.size()));
    gzclose(f);
}

// Status 2, not a crash, exactly one stderr line that starts with the file and contains `what`.
void expectOneLine(const CliResult& r, const std::string& file, const std::string& what) {
    EXPECT_FALSE(r.crashed) << "killed by signal " << r.status - 128;
    EXPECT_FALSE(r.timedOut);
    EXPECT_EQ(r.status, 2) << r.err;
    ASSERT_EQ(r.errLines().size(), 1u) << r.err;
    EXPECT_EQ(r.err.rfind(file + ": ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

const std::string kVerifyHead =
    R"({"schema":"reach.verification","schema_version":1,"verdict":"pass","problem_id":"p",)"
    R"("compile":{"status":"ok"},"timing":{"median_us":)";

}  // namespace

// Defect 1: SIGSEGV (stack overflow while the parsed document was copied).
TEST(CliHardening, AMillionLevelsOfNestingIsOneLineNotACrash) {
    TempDir dir;
    const std::string path = dir.path("deep.json");
    writeFile(path, kVerifyHead + "5},\"extra\":" + std::string(1000000, '[') +
                        std::string(1000000, ']') + "}");
    expectOneLine(runCli({"speedups", path, "--json"}), path, "nest");
}

// Defect 2: rule matching on a 10 MB name ran for minutes (POSIX regexec is quadratic).
TEST(CliHardening, ATenMegabyteKernelNameIsClassifiedInSeconds) {
    TempDir dir;
    const std::string path = dir.path("long.json");
    writeFile(path, trace("void big_" + std::string(10u << 20, 'x') + "(int)"));
    CliOptions o;
    o.timeoutSeconds = 60;
    const CliResult r = runCli({"breakdown", path, "--json"}, o);
    EXPECT_FALSE(r.timedOut) << "still matching after 60 s";
    EXPECT_EQ(r.status, 0) << r.err;
}

// Defect 3: "internal error" (exit 3) and no file named.
TEST(CliHardening, ANumberOutOfRangeInRecordsIsOneLine) {
    TempDir dir;
    const std::string path = dir.path("r.jsonl");
    writeFile(path,
              "{\"problem_id\":\"1\",\"compiled\":true,\"correct\":true,"
              "\"speedup\":1e309}\n");
    expectOneLine(runCli({"speedups", path}), path, "line 1");
}

TEST(CliHardening, AnInvalidUtf8NameIsEscapedInJsonAndKept) {
    TempDir dir;
    const std::string path = dir.path("utf8.json");
    writeFile(path, trace("bad\xff\xfe-name"));
    const CliResult r = runCli({"breakdown", path, "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const json doc = json::parse(r.out);
    EXPECT_EQ(doc["workloads"][0]["kernels"][0]["name"], "bad\\xff\\xfe-name");
    const CliResult text = runCli({"breakdown", path});
    EXPECT_EQ(text.status, 0) << text.err;
}

// Defect 4: a 2 MB gzip inflating to one huge skipped string took 28 s and 6.3 GB.
TEST(CliHardening, AHugeSkippedStringCostsNoMemory) {
    TempDir dir;
    const std::string path = dir.path("meta.json.gz");
    const std::string t = trace("k", "1", "2", "\"metadata\":\"@\"");
    const size_t at = t.find('@');
    writeGzip(path, t.substr(0, at), 'x', 1ull << 30, t.substr(at + 1));
    CliOptions o;
    o.timeoutSeconds = 120;
    const CliResult r = runCli({"breakdown", path, "--json"}, o);
    EXPECT_EQ(r.status, 0) << r.err;
    if (!reach::test::kUnderAddressSanitizer) {
        EXPECT_LT(r.maxRssKb, 100 * 1024) << "peak RSS " << r.maxRssKb << " KiB";
    }
}

// The same string inside an event, with the events parsed on three threads: a piece grows to
// at most 16 MiB before the reading thread reads that event itself, streamed (docs/readers.md).
// The 10,000 events before it go out as one piece first: reading them one at a time on the
// reading thread, each after a fresh 16 MiB scan, took minutes.
TEST(CliHardening, AHugeSkippedStringInAnEventCostsNoMemoryOnSeveralThreads) {
    TempDir dir;
    const std::string path = dir.path("event.json.gz");
    std::string before = R"({"traceEvents":[)";
    for (int i = 0; i < 10000; ++i) {
        before += R"({"ph":"X","cat":"kernel","name":"k","ts":)" + std::to_string(100 + i) +
                  R"(,"dur":0.5,"args":{"stream":7}},)";
    }
    writeGzip(path, before + R"({"ph":"i","name":"meta","args":{"blob":")", 'x', 1ull << 30,
              R"("}},{"ph":"X","cat":"kernel","name":"k","ts":9000,"dur":0.5}]})");
    CliOptions o;
    o.timeoutSeconds = 120;
    o.env = {{"REACH_PARSE_THREADS", "3"}};
    const CliResult r = runCli({"breakdown", path, "--json"}, o);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(json::parse(r.out)["workloads"][0]["kernels"][0]["calls"], 10001)
        << r.out.substr(0, 300);
    if (!reach::test::kUnderAddressSanitizer) {
        EXPECT_LT(r.maxRssKb, 100 * 1024) << "peak RSS " << r.maxRssKb << " KiB";
    }
}

TEST(CliHardening, AParseThreadCountThatIsNotANumberIsOneLine) {
    TempDir dir;
    const std::string path = dir.path("t.json");
    writeFile(path, trace("k"));
    CliOptions o;
    o.env = {{"REACH_PARSE_THREADS", "many"}};
    const CliResult r = runCli({"breakdown", path}, o);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err.rfind("REACH_PARSE_THREADS", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// Defect 5: accepted with exit 0 and wrong numbers.
TEST(CliHardening, TimesOutOfRangeAndUnbalancedValuesAreRefused) {
    TempDir dir;
    const std::string path = dir.path("t.json");
    for (const auto& [ts, dur, extra] :
         std::vector<std::tuple<std::string, std::string, std::string>>{
             {"1", "-5", ""},
             {"1", "1e309", ""},
             {"1e308", "2", ""},
             {"1", "2", R"("metadata":[[[[}}}})"}}) {
        writeFile(path, trace("k", ts, dur, extra));
        expectOneLine(runCli({"breakdown", path, "--json"}), path, "byte ");
    }
}

// Defect 7: "found byte 0x239" (decimal after 0x).
TEST(CliHardening, AByteInAMessageIsHex) {
    TempDir dir;
    const std::string path = dir.path("bom.json.gz");
    writeGzip(path, "\xEF\xBB\xBF{\"traceEvents\":[]}", 0, 0, "");
    expectOneLine(runCli({"breakdown", path}), path, "byte 0xef");
}

// Defect 7: a number error inside reach-verify JSON was reported at "byte 0".
TEST(CliHardening, ANumberErrorInVerifierJsonNamesItsOffset) {
    TempDir dir;
    const std::string path = dir.path("v.json");
    const std::string text = kVerifyHead + "1e309}}";
    writeFile(path, text);
    expectOneLine(runCli({"speedups", path}), path, "byte " + std::to_string(text.find("1e309")));
}

// Defect 7: ESC/OSC sequences and newlines in names reached the terminal raw.
TEST(CliHardening, ControlCharactersInNamesAreEscapedInText) {
    TempDir dir;
    const std::string path = dir.path("esc.json");
    writeFile(path, trace(R"(evil\u001b]0;pwned\u0007\u001b[2J\nline2\u009b31m)"));
    const CliResult r = runCli({"breakdown", path, "--top", "5"});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << r.out;  // C1 CSI in UTF-8
    EXPECT_EQ(r.out.find("\nline2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\\x1b"), std::string::npos) << r.out;

    // In an error message too (a file name is user data as well).
    const std::string odd = dir.path("odd\x1b[31mname.json");
    writeFile(odd, "{");
    const CliResult e = runCli({"breakdown", odd});
    EXPECT_EQ(e.status, 2);
    EXPECT_EQ(e.err.find('\x1b'), std::string::npos) << e.err;
}

}  // namespace reach_test_clihardening_test
