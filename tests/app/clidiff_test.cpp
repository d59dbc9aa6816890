// reach-cli diff: ResNet-50 eager against compiled as a golden file
// (tests/golden/diff/resnet50_eager_vs_compiled.json; a mismatch writes .actual, and
// REACH_UPDATE_GOLDEN=1 rewrites it), the per-side totals against `reach-cli breakdown --json`,
// matching, the projection check and bad usage, run as a process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "clirunner.h"
#include "core/analysis/kernelname.h"

namespace reach_test_clidiff_test {  // unity builds: this file's names stay its own

namespace fs = std::filesystem;
using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {

const std::string kEagerRel = "profiles/h200/resnet50_inference.json.gz";
const std::string kCompiledRel = "profiles/h200/resnet50_inference_compiled.json.gz";
const std::string kEager = dataset(kEagerRel);
const std::string kCompiled = dataset(kCompiledRel);

json parseOk(const reach::test::CliResult& r) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return json::parse(r.out);  // throws (fails the test) unless stdout is exactly one document
}

const json& resnetDiff() {
    static const json doc = parseOk(runCli({"diff", kEager, kCompiled, "--json"}));
    return doc;
}

// Every kernel row of a diff document, from the three lists.
std::vector<json> allKernelRows(const json& doc) {
    std::vector<json> rows;
    for (const char* list : {"kernels", "only_in_a", "only_in_b"}) {
        for (const json& r : doc[list])
            rows.push_back(r);
    }
    return rows;
}

}  // namespace

TEST(CliDiff, ResnetEagerAgainstCompiledMatchesGolden) {
    json doc = resnetDiff();
    // Portable: the sources as the repository names them, not this checkout's absolute paths.
    ASSERT_EQ(doc["a"]["source"], kEager);
    ASSERT_EQ(doc["b"]["source"], kCompiled);
    doc["a"]["source"] = "datasets/" + kEagerRel;
    doc["b"]["source"] = "datasets/" + kCompiledRel;
    const std::string actual = doc.dump(1) + "\n";
    const fs::path golden = fs::path(REACH_GOLDEN) / "diff" / "resnet50_eager_vs_compiled.json";
    const fs::path actualPath = golden.string() + ".actual";
    const char* update = std::getenv("REACH_UPDATE_GOLDEN");
    if (update && std::string(update) == "1") {
        fs::create_directories(golden.parent_path());
        std::ofstream(golden, std::ios::binary) << actual;
        fs::remove(actualPath);
        return;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with REACH_UPDATE_GOLDEN=1";
    if (reach::test::readFile(golden.string()) != actual) {
        std::ofstream(actualPath, std::ios::binary) << actual;
        ADD_FAILURE() << "diff differs from " << golden << "; wrote " << actualPath
                      << "\n  diff -u " << golden << " " << actualPath;
    } else {
        fs::remove(actualPath);
    }
}

TEST(CliDiff, EachSideEqualsTheBreakdownOfItsFile) {
    const json& doc = resnetDiff();
    const json a = parseOk(runCli({"breakdown", kEager, "--json"}))["workloads"][0];
    const json b = parseOk(runCli({"breakdown", kCompiled, "--json"}))["workloads"][0];
    for (const auto& [side, breakdown] : {std::pair{"a", a}, std::pair{"b", b}}) {
        SCOPED_TRACE(side);
        for (const char* key :
             {"name", "source", "source_hash", "device", "gpu_time_us", "busy_time_us", "span_us",
              "busy_share_of_span", "classified_share", "shares", "category_us"}) {
            EXPECT_EQ(doc[side][key], breakdown[key]) << key;
        }
        EXPECT_EQ(doc["gpu_time_us"][side], breakdown["gpu_time_us"]);
        EXPECT_EQ(doc["busy_time_us"][side], breakdown["busy_time_us"]);
        EXPECT_EQ(doc["span_us"][side], breakdown["span_us"]);
        EXPECT_EQ(doc["busy_share_of_span"][side], breakdown["busy_share_of_span"]);
        for (const json& row : doc["categories"]) {
            const std::string c = row["category"];
            EXPECT_EQ(row[std::string(side) + "_us"], breakdown["category_us"][c]) << c;
            EXPECT_EQ(row[std::string(side) + "_share"], breakdown["shares"][c]) << c;
        }
    }
    EXPECT_EQ(doc["rules"], parseOk(runCli({"breakdown", kEager, "--json"}))["rules"]);
}

TEST(CliDiff, KernelCategoryAndFamilyChangesSumToTheTotal) {
    const json& doc = resnetDiff();
    const double total = doc["gpu_time_us"]["delta"].get<double>();
    const double a = doc["gpu_time_us"]["a"].get<double>();
    const double b = doc["gpu_time_us"]["b"].get<double>();
    EXPECT_NEAR(total, b - a, 1e-3);
    ASSERT_LT(total, 0) << "the compiled run takes less GPU time";

    const std::vector<json> rows = allKernelRows(doc);
    double sum = 0, sumA = 0, sumB = 0;
    for (const json& r : rows) {
        sum += r["delta_us"].get<double>();
        sumA += r["a_us"].get<double>();
        sumB += r["b_us"].get<double>();
        EXPECT_NEAR(r["delta_us"].get<double>(), r["b_us"].get<double>() - r["a_us"].get<double>(),
                    1.5e-3);
    }
    // Every row is rounded to 1 ns: the sums agree to within half a nanosecond per row.
    const double slack = 0.0005 * double(rows.size() + 1) + 1e-9;
    EXPECT_NEAR(sum, total, slack);
    EXPECT_NEAR(sumA, a, slack);
    EXPECT_NEAR(sumB, b, slack);
    EXPECT_NEAR(doc["kernel_delta_sum_us"].get<double>(), total, 2e-3);
    EXPECT_EQ(doc["kernels"].size(), doc["kernel_count"]["matched"].get<size_t>());
    EXPECT_EQ(doc["only_in_a"].size(), doc["kernel_count"]["only_in_a"].get<size_t>());
    EXPECT_EQ(doc["only_in_b"].size(), doc["kernel_count"]["only_in_b"].get<size_t>());

    for (const char* list : {"categories", "families"}) {
        double s = 0, shares = 0;
        for (const json& r : doc[list]) {
            s += r["delta_us"].get<double>();
            shares += r["delta_share"].get<double>();
        }
        EXPECT_NEAR(s, total, 0.0005 * double(doc[list].size() + 1)) << list;
        EXPECT_NEAR(shares, 0.0, 1e-6 * double(doc[list].size() + 1)) << list;
    }
}

TEST(CliDiff, KernelsAreMatchedByDisplayNameAndOperator) {
    const json& doc = resnetDiff();
    // Eager ResNet runs cuDNN convolutions and ATen batch norm; compiled runs Triton fusions:
    // some keys are shared, many are on one side only.
    EXPECT_GT(doc["kernels"].size(), 0u);
    EXPECT_GT(doc["only_in_a"].size(), 0u);
    EXPECT_GT(doc["only_in_b"].size(), 0u);
    for (const json& r : doc["kernels"]) {
        ASSERT_FALSE(r["names_a"].empty());
        ASSERT_FALSE(r["names_b"].empty());
        for (const char* side : {"names_a", "names_b"}) {
            for (const json& n : r[side])
                EXPECT_EQ(reach::kernelDisplayName(n.get<std::string>()), r["display_name"]);
        }
    }
    for (const json& r : doc["only_in_a"]) {
        EXPECT_TRUE(r["names_b"].empty());
        EXPECT_EQ(r["b_us"].get<double>(), 0);
    }
    for (const json& r : doc["only_in_b"]) {
        EXPECT_TRUE(r["names_a"].empty());
        EXPECT_EQ(r["a_us"].get<double>(), 0);
    }
    // No key appears twice.
    std::set<std::pair<std::string, std::string>> keys;
    for (const json& r : allKernelRows(doc)) {
        const std::string op = r["operator"].is_null() ? "" : r["operator"].get<std::string>();
        EXPECT_TRUE(keys.insert({r["display_name"].get<std::string>(), op}).second)
            << r["display_name"] << " " << op;
    }
}

TEST(CliDiff, AProfileAgainstItselfChangesNothing) {
    const json doc = parseOk(runCli({"diff", kEager, kEager, "--json"}));
    EXPECT_EQ(doc["gpu_time_us"]["delta"], 0.0);
    EXPECT_EQ(doc["busy_share_of_span"]["delta"], 0.0);
    EXPECT_TRUE(doc["only_in_a"].empty());
    EXPECT_TRUE(doc["only_in_b"].empty());
    for (const json& r : doc["kernels"])
        EXPECT_EQ(r["delta_us"], 0.0) << r["display_name"];
    EXPECT_TRUE(doc["projection_check"].is_null());
}

TEST(CliDiff, ProjectionCheckPutsTheProjectedSavingNextToTheMeasuredOne) {
    const json doc = parseOk(
        runCli({"diff", kEager, kCompiled, "--json", "--candidate", "batch_norm=2",
                "--candidate=elementwise=1.5", "--candidate", "no_such_kernel_anywhere=3"}));
    const json& check = doc["projection_check"];
    ASSERT_TRUE(check.is_object());
    ASSERT_EQ(check["candidates"].size(), 3u);
    const double gpuA = doc["gpu_time_us"]["a"].get<double>();
    double projected = 0, measured = 0;
    for (const json& c : check["candidates"]) {
        SCOPED_TRACE(c["pattern"].dump());
        const double s = c["speedup"].get<double>();
        const double a = c["a_us"].get<double>(), b = c["b_us"].get<double>();
        EXPECT_NEAR(c["projected_saving_us"].get<double>(), a * (1 - 1 / s), 1e-3);
        EXPECT_NEAR(c["measured_saving_us"].get<double>(), a - b, 1e-3);
        EXPECT_NEAR(c["projected_saving_share"].get<double>(),
                    c["projected_saving_us"].get<double>() / gpuA, 1e-6);
        projected += c["projected_saving_us"].get<double>();
        measured += c["measured_saving_us"].get<double>();
    }
    EXPECT_GT(check["candidates"][0]["kernels"].size(), 0u) << "ResNet runs batch norm kernels";
    EXPECT_GT(check["candidates"][0]["a_us"].get<double>(), 0);
    EXPECT_TRUE(check["candidates"][2]["kernels"].empty());
    EXPECT_EQ(check["candidates"][2]["a_us"].get<double>(), 0);
    // A kernel counts for the first candidate that matches it, never twice.
    std::set<std::string> seen;
    double matchedA = 0;
    for (const json& c : check["candidates"]) {
        for (const json& k : c["kernels"])
            EXPECT_TRUE(seen.insert(k.get<std::string>()).second) << k;
        matchedA += c["a_us"].get<double>();
    }
    EXPECT_LE(matchedA, gpuA);
    const json& total = check["total"];
    EXPECT_NEAR(total["projected_saving_us"].get<double>(), projected, 3e-3);
    EXPECT_NEAR(total["measured_saving_us"].get<double>(), measured, 3e-3);
    EXPECT_NEAR(total["gpu_time_saving_us"].get<double>(),
                -doc["gpu_time_us"]["delta"].get<double>(), 1e-3);
    EXPECT_NEAR(total["projected_speedup"].get<double>(),
                1 / (1 - total["projected_saving_us"].get<double>() / gpuA), 1e-5);
    EXPECT_NEAR(total["measured_speedup"].get<double>(),
                gpuA / doc["gpu_time_us"]["b"].get<double>(), 1e-5);
    EXPECT_FALSE(check["assumptions"].get<std::string>().empty());
    // Both bases: the projected saving on A's wall clock (idle gaps unchanged) and the span B
    // measured; eager ResNet's GPU is busy about a third of its span, so the warning is there.
    const double spanA = doc["span_us"]["a"].get<double>(),
                 spanB = doc["span_us"]["b"].get<double>();
    const double busyA = doc["busy_time_us"]["a"].get<double>();
    EXPECT_NEAR(total["projected_saving_wall_share"].get<double>(),
                std::min(total["projected_saving_us"].get<double>(), busyA) / spanA, 1e-5);
    EXPECT_LT(total["projected_saving_wall_share"].get<double>(),
              total["projected_saving_share"].get<double>());
    EXPECT_NEAR(total["measured_span_saving_share"].get<double>(), (spanA - spanB) / spanA, 1e-5);
    EXPECT_NEAR(total["busy_share_a"].get<double>(), busyA / spanA, 1e-5);
    EXPECT_TRUE(total["wall_clock_warning"].is_string());

    // The text shows both savings and the assumptions; a pattern that matches nothing says so.
    const auto text = runCli({"diff", kEager, kCompiled, "--candidate", "batch_norm=2",
                              "--candidate", "no_such_kernel_anywhere=3"});
    EXPECT_EQ(text.status, 0) << text.err;
    for (const char* s : {"projection check", "projected saving", "measured saving",
                          "assumes:", "'no_such_kernel_anywhere' matches no kernel of A"}) {
        EXPECT_NE(text.out.find(s), std::string::npos) << s << "\n" << text.out;
    }
}

TEST(CliDiff, TextShowsTotalsCategoriesAndKernelLists) {
    const auto r = runCli({"diff", kEager, kCompiled, "--top", "3"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    for (const char* s :
         {"A  resnet50_inference ", "B  resnet50_inference_compiled ", "GPU time", "busy / span",
          " pp", "library-optimized", "addressable", "kernels in both", "only in A", "only in B",
          "kernel changes sum to", "rules: "}) {
        EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
    }
    // Display names, not kilobytes of templates.
    EXPECT_EQ(r.out.find("at::native::"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("(anonymous namespace)"), std::string::npos) << r.out;
}

TEST(CliDiff, TopLimitsTheJsonKernelLists) {
    const json doc = parseOk(runCli({"diff", kEager, kCompiled, "--json", "--top", "2"}));
    EXPECT_LE(doc["kernels"].size(), 2u);
    EXPECT_LE(doc["only_in_a"].size(), 2u);
    EXPECT_LE(doc["only_in_b"].size(), 2u);
    EXPECT_GT(doc["kernel_count"]["only_in_b"].get<size_t>(), 2u) << "counts stay complete";
}

TEST(CliDiff, BadUsageIsOneLineAndStatusTwo) {
    const std::vector<std::vector<std::string>> cases = {
        {"diff", kEager},
        {"diff", kEager, kCompiled, kEager},
        {"diff", kEager, kCompiled, "--candidate", "batch_norm"},
        {"diff", kEager, kCompiled, "--candidate", "batch_norm=0"},
        {"diff", kEager, kCompiled, "--candidate", "batch_norm=fast"},
        {"diff", kEager, kCompiled, "--candidate", "(unclosed=2"},
        {"diff", kEager, kCompiled, "--top", "0"},
        {"diff", kEager, kCompiled, "--nope"},
    };
    for (const auto& args : cases) {
        SCOPED_TRACE(args.back());
        const auto r = runCli(args);
        EXPECT_FALSE(r.crashed);
        EXPECT_EQ(r.status, 2) << r.err;
        ASSERT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_TRUE(r.errLines()[0].starts_with("reach-cli diff: ")) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out.substr(0, 200);
    }
}

TEST(CliDiff, UnreadableInputNamesTheFile) {
    reach::test::TempDir dir;
    const std::string missing = dir.path("no-such-trace.json.gz");
    const std::string truncated = std::string(REACH_TEST_DATA) + "/bad-cli/truncated_gzip.json.gz";
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"diff", missing, kCompiled},
                                               {"diff", kEager, missing, "--json"},
                                               {"diff", kEager, truncated},
                                               {"diff", truncated, kCompiled, "--json"}}) {
        const std::string& bad = args[1] == kEager ? args[2] : args[1];
        SCOPED_TRACE(bad);
        const auto r = runCli(args);
        EXPECT_FALSE(r.crashed);
        EXPECT_EQ(r.status, 2) << r.err;
        ASSERT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_TRUE(r.errLines()[0].starts_with(bad)) << r.err;
        EXPECT_TRUE(r.out.empty());
    }
    const auto rules = runCli({"diff", kEager, kCompiled, "--rules", missing});
    EXPECT_EQ(rules.status, 2);
    ASSERT_EQ(rules.errLines().size(), 1u) << rules.err;
    EXPECT_TRUE(rules.errLines()[0].starts_with(missing)) << rules.err;
}

}  // namespace reach_test_clidiff_test
