// reach-cli breakdown: the JSON shape of issue 2, text output, exit statuses, run as a process.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "clirunner.h"

namespace reach_test_clibreakdown_test {  // unity builds: this file's names stay its own

using nlohmann::json;
using reach::test::dataset;
using reach::test::runCli;

namespace {

const std::string kResnet = dataset("profiles/h200/resnet50_inference.json.gz");
const std::string kSimpleAdd = dataset("profiles/public/hta_simple_add_a100.json.gz");

json parseOk(const reach::test::CliResult& r) {
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    return json::parse(r.out);  // throws (fails the test) unless stdout is exactly one document
}

void expectWorkloadShape(const json& w) {
    for (const char* key : {"name", "source"}) {
        ASSERT_TRUE(w.contains(key) && w[key].is_string()) << key;
    }
    for (const char* key : {"gpu_time_us", "busy_time_us", "span_us", "classified_share"}) {
        ASSERT_TRUE(w.contains(key) && w[key].is_number()) << key;
    }
    EXPECT_GT(w["gpu_time_us"].get<double>(), 0);
    EXPECT_LE(w["busy_time_us"].get<double>(), w["gpu_time_us"].get<double>() * (1 + 1e-9));
    EXPECT_LE(w["busy_time_us"].get<double>(), w["span_us"].get<double>() * (1 + 1e-9));
    const double classified = w["classified_share"].get<double>();
    EXPECT_GE(classified, 0);
    EXPECT_LE(classified, 1);

    ASSERT_TRUE(w["shares"].is_object());
    double sum = 0;
    for (const char* key : {"library_optimized", "addressable", "overhead", "unclassified"}) {
        ASSERT_TRUE(w["shares"].contains(key) && w["shares"][key].is_number()) << key;
        const double s = w["shares"][key].get<double>();
        EXPECT_GE(s, 0);
        EXPECT_LE(s, 1);
        sum += s;
    }
    EXPECT_NEAR(sum, 1.0, 1e-9);
    EXPECT_NEAR(classified, 1.0 - w["shares"]["unclassified"].get<double>(), 1e-9);
    ASSERT_TRUE(w.contains("linked_share") && w["linked_share"].is_number());
    EXPECT_GE(w["linked_share"].get<double>(), 0);
    EXPECT_LE(w["linked_share"].get<double>(), 1);
    ASSERT_TRUE(w.contains("op_shares"));
    EXPECT_TRUE(w["op_shares"].is_object() || w["op_shares"].is_null());

    ASSERT_TRUE(w["kernels"].is_array());
    ASSERT_FALSE(w["kernels"].empty());
    double previous = INFINITY;
    for (const json& k : w["kernels"]) {
        for (const char* key : {"name", "category"})
            ASSERT_TRUE(k[key].is_string()) << key;
        ASSERT_TRUE(k["calls"].is_number_integer());
        ASSERT_TRUE(k["total_us"].is_number());
        ASSERT_TRUE(k.contains("family"));
        ASSERT_TRUE(k.contains("operator"));
        EXPECT_LE(k["total_us"].get<double>(), previous) << "kernels must be largest first";
        previous = k["total_us"].get<double>();
    }
}

}  // namespace

TEST(CliBreakdown, JsonHasTheDocumentedShape) {
    const json doc = parseOk(runCli({"breakdown", kResnet, kSimpleAdd, "--json"}));
    ASSERT_TRUE(doc["workloads"].is_array());
    ASSERT_EQ(doc["workloads"].size(), 2u);
    EXPECT_EQ(doc["workloads"][0]["name"], "resnet50_inference");
    EXPECT_EQ(doc["workloads"][0]["source"], kResnet);
    EXPECT_EQ(doc["workloads"][1]["source"], kSimpleAdd);
    for (const json& w : doc["workloads"]) {
        SCOPED_TRACE(w["name"].dump());
        expectWorkloadShape(w);
    }
    ASSERT_TRUE(doc["rules"]["name"].is_string());
    ASSERT_TRUE(doc["rules"]["hash"].is_string());
    EXPECT_FALSE(doc["rules"]["hash"].get<std::string>().empty());
    // The resnet trace links kernels to ATen operators: the operator split is present.
    EXPECT_TRUE(doc["workloads"][0]["op_shares"].is_object());
}

// A 2023 trace whose kernels link only through their launch calls' correlation: the JSON's
// linked_share and the text's operator split say the same share.
TEST(CliBreakdown, LinkedShareInJsonAndText) {
    const std::string dlrm = dataset("profiles/public/hta_dlrm_sampled_rank0_a100.json.gz");
    const json doc = parseOk(runCli({"breakdown", dlrm, kSimpleAdd, "--json"}));
    EXPECT_EQ(doc["workloads"][0]["linked_us"], 607225.0);
    EXPECT_EQ(doc["workloads"][0]["linked_share"], 0.998982);
    EXPECT_EQ(doc["workloads"][1]["linked_share"], 1.0);
    const auto r = runCli({"breakdown", dlrm});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("operator split (99.9 % of GPU time is linked to its launching ATen "
                         "operator)"),
              std::string::npos)
        << r.out;
}

TEST(CliBreakdown, TopLimitsTheKernelList) {
    const json doc = parseOk(runCli({"breakdown", kResnet, "--json", "--top", "3"}));
    EXPECT_EQ(doc["workloads"][0]["kernels"].size(), 3u);
}

TEST(CliBreakdown, SameRulesHashAsTheRulesCommand) {
    const json b = parseOk(runCli({"breakdown", kSimpleAdd, "--json"}));
    const json r = parseOk(runCli({"rules", "--json"}));
    EXPECT_EQ(b["rules"]["hash"], r["hash"]);
    EXPECT_EQ(b["rules"]["name"], r["name"]);
}

TEST(CliBreakdown, TextShowsSharesBusyTimeAndTopKernels) {
    const auto r = runCli({"breakdown", kResnet});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    for (const char* text : {"resnet50_inference", "library-optimized", "addressable", "overhead",
                             "unclassified", "classified", "busy", "idle", "top ", "rules:"}) {
        EXPECT_NE(r.out.find(text), std::string::npos) << "missing '" << text << "' in\n" << r.out;
    }
    // Shortened names: no template argument lists in the table.
    EXPECT_EQ(r.out.find("<c10::BFloat16>"), std::string::npos) << r.out;
}

TEST(CliBreakdown, UsageErrorsExitTwoWithOneLine) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"breakdown", kResnet, "--top", "zero"},
          {"breakdown", kResnet, "--frobnicate"},
          {"no-such-command"},
          {}}) {
        const auto r = runCli(args);
        EXPECT_EQ(r.status, 2) << r.err;
        EXPECT_FALSE(r.crashed);
        EXPECT_EQ(r.errLines().size(), 1u) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

TEST(CliBreakdown, HelpExitsZero) {
    const auto r = runCli({"--help"});
    EXPECT_EQ(r.status, 0);
    for (const char* c : {"breakdown", "project", "rules", "import"}) {
        EXPECT_NE(r.out.find(c), std::string::npos) << c;
    }
    const auto h = runCli({"breakdown", "--help"});
    EXPECT_EQ(h.status, 0);
    EXPECT_NE(h.out.find("--rules"), std::string::npos);
    const auto v = runCli({"--version"});  // issue 40
    EXPECT_EQ(v.status, 0) << v.err;
    EXPECT_EQ(v.out.rfind("reach-cli ", 0), 0u) << v.out;
}

TEST(CliBreakdown, NoInputBreaksDownTheBundledSample) {
    // Like the GUI with no argument: the study as published and the H200 profiles, classified.
    const auto r = runCli({"breakdown", "--json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    int published = 0, measured = 0;
    for (const auto& w : doc["workloads"]) {
        if (w.value("published", false))
            ++published;
        else
            measured += w.contains("gpu_time_us");
    }
    EXPECT_EQ(published, 7);
    EXPECT_GE(measured, 6);
}

}  // namespace reach_test_clibreakdown_test
