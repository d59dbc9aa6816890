// Breakdown arithmetic on a small workload with real kernel names and hand-computed times.
#include <gtest/gtest.h>

#include "core/analysis/breakdown.h"
#include "core/analysis/breakdownjson.h"

namespace reach_test_breakdown_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

KernelStats kernel(std::string name, double us, std::vector<OperatorTime> ops = {},
                   ActivityKind kind = ActivityKind::Kernel) {
    KernelStats k;
    k.name = std::move(name);
    k.kind = kind;
    k.calls = 2;
    k.totalUs = us;
    k.minUs = us / 4;
    k.maxUs = us * 3 / 4;
    k.operators = std::move(ops);
    return k;
}

Workload sample() {
    Workload w;
    w.name = "sample";
    w.source = "sample.json";
    w.gpuTimeUs = 1000;
    w.busyTimeUs = 900;
    w.spanUs = 1500;
    // 400 gemm under aten::mm; 300 elementwise copy: 200 under aten::copy_, 50 under aten::addmm
    // (a bias copy: the operator says library, the name says addressable), 50 unlinked;
    // 100 memset under aten::mm; 150 NCCL under a c10d op; 50 unknown.
    w.kernels = {
        kernel("nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 400, {{"aten::mm", 400, 2}}),
        kernel("void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
               "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)>(int)",
               300, {{"aten::copy_", 200, 1}, {"aten::addmm", 50, 1}}),
        kernel("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long)", 150,
               {{"c10d::send", 150, 1}}),
        kernel("Memset (Device)", 100, {{"aten::mm", 100, 2}}, ActivityKind::Memset),
        kernel("void compute_cuda_kernel<long>(long*, long*, long*, long, long)", 50),
    };
    return w;
}

}  // namespace

TEST(Breakdown, SharesFamiliesAndTop) {
    Breakdown b = computeBreakdown(sample(), RuleSet::builtinDefault());
    EXPECT_DOUBLE_EQ(b.gpuTimeUs, 1000);
    EXPECT_DOUBLE_EQ(b.busyTimeUs, 900);
    EXPECT_DOUBLE_EQ(b.spanUs, 1500);
    EXPECT_DOUBLE_EQ(b.share(Category::LibraryOptimized), 0.4);
    EXPECT_DOUBLE_EQ(b.share(Category::Addressable), 0.3);
    EXPECT_DOUBLE_EQ(b.share(Category::Overhead), 0.25);
    EXPECT_DOUBLE_EQ(b.share(Category::Unclassified), 0.05);
    EXPECT_DOUBLE_EQ(b.classifiedShare, 0.95);
    EXPECT_DOUBLE_EQ(b.familyShare("gemm"), 0.4);
    EXPECT_DOUBLE_EQ(b.familyShare("copy"), 0.3);
    EXPECT_DOUBLE_EQ(b.familyShare("communication"), 0.15);
    EXPECT_DOUBLE_EQ(b.familyShare("memset"), 0.1);
    EXPECT_DOUBLE_EQ(b.familyShare("unclassified"), 0.05);
    EXPECT_EQ(b.rulesName, "reach-default");
    EXPECT_EQ(b.rulesHash, RuleSet::builtinDefault().hash());
    ASSERT_EQ(b.kernels.size(), 5u);
    EXPECT_EQ(b.kernels[0].stats.totalUs, 400);  // largest first
    EXPECT_EQ(b.kernels[4].stats.totalUs, 50);
    auto over = b.top(Category::Overhead, 1);
    ASSERT_EQ(over.size(), 1u);
    EXPECT_EQ(over[0]->family, "communication");
    EXPECT_EQ(b.top(Category::Overhead, 5).size(), 2u);
    EXPECT_EQ(b.kernels[0].opCategory, Category::LibraryOptimized);
    EXPECT_FALSE(b.kernels[4].opCategory.has_value());
}

TEST(Breakdown, OperatorSplitAndAgreementExcludeNccl) {
    Breakdown b = computeBreakdown(sample(), RuleSet::builtinDefault());
    ASSERT_TRUE(b.hasOpSplit);
    // Linked, NCCL excluded: 400 + 250 + 100 = 750; agreeing: 400 + 200 + 100 (memset is
    // overhead both ways) = 700.
    EXPECT_DOUBLE_EQ(b.opLinkedUs, 750);
    EXPECT_DOUBLE_EQ(b.opAgreeUs, 700);
    EXPECT_DOUBLE_EQ(b.opAgreement(), 700.0 / 750);
    // Op split: library 400 + 50 (the bias copy under addmm); addressable 200 + 50 unlinked;
    // overhead 150 + 100; unclassified 50 (unlinked, keeps its name category).
    EXPECT_DOUBLE_EQ(b.opShare(Category::LibraryOptimized), 0.45);
    EXPECT_DOUBLE_EQ(b.opShare(Category::Addressable), 0.25);
    EXPECT_DOUBLE_EQ(b.opShare(Category::Overhead), 0.25);
    EXPECT_DOUBLE_EQ(b.opShare(Category::Unclassified), 0.05);
    auto d = b.disagreements();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].op, "aten::addmm");
    EXPECT_EQ(d[0].nameCategory, Category::Addressable);
    EXPECT_EQ(d[0].opCategory, Category::LibraryOptimized);
    EXPECT_DOUBLE_EQ(d[0].us, 50);
}

TEST(Breakdown, JsonHasTheIssueShape) {
    Breakdown b = computeBreakdown(sample(), RuleSet::builtinDefault());
    nlohmann::json j = breakdownToJson(b, 2);
    for (const char* key : {"name", "source", "gpu_time_us", "busy_time_us", "span_us",
                            "classified_share", "shares", "op_shares", "kernels"}) {
        EXPECT_TRUE(j.contains(key)) << key;
    }
    EXPECT_EQ(j["name"], "sample");
    EXPECT_EQ(j["gpu_time_us"], 1000.0);
    EXPECT_EQ(j["shares"]["library_optimized"], 0.4);
    EXPECT_EQ(j["shares"]["unclassified"], 0.05);
    EXPECT_EQ(j["op_shares"]["library_optimized"], 0.45);
    EXPECT_EQ(j["op_agreement"]["disagreements"].size(), 1u);
    ASSERT_EQ(j["kernels"].size(), 2u);
    EXPECT_EQ(j["kernel_count"], 5);
    const auto& k = j["kernels"][0];
    EXPECT_EQ(k["calls"], 2);
    EXPECT_EQ(k["total_us"], 400.0);
    EXPECT_EQ(k["category"], "library_optimized");
    EXPECT_EQ(k["family"], "gemm");
    EXPECT_EQ(k["operator"], "aten::mm");
    EXPECT_EQ(rulesToJson(b)["name"], "reach-default");
    EXPECT_EQ(j["busy_share_of_span"], 0.6);
    // Every linked microsecond, NCCL's and the bias copy's included (op_agreement's linked_us
    // is only what a name rule decided, NCCL excluded).
    EXPECT_EQ(j["linked_us"], 900.0);
    EXPECT_EQ(j["linked_share"], 0.9);
    ASSERT_EQ(j["top_by_category"]["overhead"].size(), 2u);
    EXPECT_EQ(j["top_by_category"]["overhead"][0]["family"], "communication");
    EXPECT_EQ(j["top_by_category"]["overhead"][0]["share"], 0.15);
    EXPECT_EQ(j["top_by_category"]["unclassified"][0]["total_us"], 50.0);

    Workload noLinks = sample();
    for (KernelStats& s : noLinks.kernels)
        s.operators.clear();
    nlohmann::json n = breakdownToJson(computeBreakdown(noLinks, RuleSet::builtinDefault()));
    EXPECT_TRUE(n["op_shares"].is_null());
    EXPECT_EQ(n["linked_us"], 0.0);
    EXPECT_EQ(n["linked_share"], 0.0);
    EXPECT_TRUE(n["kernels"][0]["operator"].is_null());
}

TEST(Breakdown, EmptyWorkloadHasNoShares) {
    Workload w;
    w.name = "empty";
    Breakdown b = computeBreakdown(w, RuleSet::builtinDefault());
    EXPECT_EQ(b.gpuTimeUs, 0);
    EXPECT_EQ(b.share(Category::Addressable), 0);
    EXPECT_EQ(b.classifiedShare, 0);
    EXPECT_FALSE(b.hasOpSplit);
    EXPECT_DOUBLE_EQ(b.opAgreement(), 1.0);
}

TEST(Breakdown, TheLaunchingOperatorDecidesWhatNoNameRuleMatches) {
    // PyTorch's repeat_interleave kernel (compute_cuda_kernel) matches no name rule: under
    // aten::repeat_interleave the operator table says addressable. Under a container (a
    // compiled region, a whole MoE layer) there is no opinion and it stays unclassified; with
    // both, the opinionated operator decides even when the container took more time.
    const std::string name = "void compute_cuda_kernel<long>(long*, long*, long*, long, long)";
    const RuleSet rules = RuleSet::builtinDefault();
    ASSERT_LT(rules.classify(name, ActivityKind::Kernel).rule, 0) << "a rule matches it now";
    Workload w;
    w.gpuTimeUs = 600;
    w.kernels = {kernel(name, 200, {{"aten::repeat_interleave", 200, 2}}),
                 kernel(name + " ", 150, {{"Torch-Compiled Region: 0/0", 150, 2}}),
                 kernel(name + "  ", 250,
                        {{"vllm::moe_forward", 200, 1}, {"aten::repeat_interleave", 50, 1}})};
    const Breakdown b = computeBreakdown(w, rules);
    ASSERT_EQ(b.kernels.size(), 3u);
    const ClassifiedKernel& layer = b.kernels[0];  // 250 us
    const ClassifiedKernel& byOp = b.kernels[1];   // 200 us
    const ClassifiedKernel& boxed = b.kernels[2];  // 150 us
    EXPECT_EQ(byOp.decision, Decision::Operator);
    EXPECT_EQ(byOp.category, Category::Addressable);
    EXPECT_EQ(byOp.decidedBy(), "operator aten::repeat_interleave");
    EXPECT_EQ(layer.decision, Decision::Operator);
    EXPECT_EQ(layer.decidedBy(), "operator aten::repeat_interleave");
    EXPECT_EQ(boxed.decision, Decision::Unclassified);
    EXPECT_EQ(boxed.decidedBy(), "unclassified");
    EXPECT_DOUBLE_EQ(b.decisionShare(Decision::Operator), 450.0 / 600);
    EXPECT_DOUBLE_EQ(b.decisionShare(Decision::Unclassified), 150.0 / 600);
    EXPECT_DOUBLE_EQ(b.classifiedShare, 450.0 / 600);
    // Operator-decided kernels cannot disagree with themselves: agreement covers rule-decided
    // time only, so nothing is linked here.
    EXPECT_DOUBLE_EQ(b.opLinkedUs, 0);
    EXPECT_TRUE(b.disagreements().empty());
    const nlohmann::json j = breakdownToJson(b);
    EXPECT_EQ(j["kernels"][1]["decided_by"], "operator aten::repeat_interleave");
    EXPECT_DOUBLE_EQ(j["decided_by"]["operator"].get<double>(), 0.75);
    EXPECT_DOUBLE_EQ(j["decided_by"]["rule"].get<double>(), 0.0);
}

// "Decided by" counts rules from 1, as the rule table and the rule errors do: the first rule of
// a set is "rule 1".
TEST(Breakdown, DecidedByCountsRulesFromOne) {
    RuleSet rules;
    Rule first;
    first.pattern = "^my_gemm";
    first.category = Category::LibraryOptimized;
    rules.insertRule(0, first);
    Workload w;
    w.gpuTimeUs = 100;
    w.kernels = {kernel("my_gemm_kernel", 100, {})};
    const Breakdown b = computeBreakdown(w, rules);
    ASSERT_EQ(b.kernels.size(), 1u);
    EXPECT_EQ(b.kernels[0].rule, 0);
    EXPECT_EQ(b.kernels[0].decidedBy(), "rule 1");
}

TEST(Breakdown, GraphLaunchedTimeIsReported) {
    Workload w = sample();
    w.kernels[0].graphCalls = 2;
    w.kernels[0].graphUs = 400;
    const Breakdown b = computeBreakdown(w, RuleSet::builtinDefault());
    EXPECT_DOUBLE_EQ(b.graphUs, 400);
    const nlohmann::json j = breakdownToJson(b);
    EXPECT_DOUBLE_EQ(j["graph_share"].get<double>(), 0.4);
    EXPECT_EQ(j["kernels"][0]["graph_calls"], 2);
}

}  // namespace reach_test_breakdown_test
