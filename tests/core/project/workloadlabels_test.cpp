// Short labels for axes, legends and CSVs (core/project/workloadlabels.h), on the names and
// devices of the real traces in datasets/profiles.
#include "core/project/workloadlabels.h"

#include <set>

#include <gtest/gtest.h>

#include "core/project/project.h"

namespace reach_test_workloadlabels_test {

using namespace reach;

namespace {

// The twelve real traces of the 1280x720 test (public ones and H200 profiles).
const std::vector<std::string> kTwelve = {
    "hta_dlrm_sampled_rank0_a100",
    "hta_simple_add_a100",
    "hta_triton_example_a100",
    "pipit_saxpy_nsys_a100",
    "tracelens_bert_small_h100",
    "tracelens_sglang_qwen3_8b_decode_mi300x",
    "tracelens_vllm_decode_graph_mi300x",
    "tracelens_vllm_moe_b200",
    "tracelens_vllm_prefilldecode_graph_mi300x",
    "sdpa_backends_flash",
    "moe_grouped_gemm_fwdbwd",
    "fp8_scaled_mm_rowwise",
};

}  // namespace

TEST(WorkloadLabels, TheGpuModelAsPapersNameIt) {
    EXPECT_EQ(gpuModel("NVIDIA A100-SXM4-40GB"), "A100");
    EXPECT_EQ(gpuModel("NVIDIA A100-PG509-200"), "A100");
    EXPECT_EQ(gpuModel("NVIDIA H100 80GB HBM3"), "H100");
    EXPECT_EQ(gpuModel("NVIDIA H200"), "H200");
    EXPECT_EQ(gpuModel("NVIDIA B200"), "B200");
    EXPECT_EQ(gpuModel("AMD Instinct MI300X"), "MI300X");
    EXPECT_EQ(gpuModel("NVIDIA GeForce RTX 4090"), "RTX 4090");
    EXPECT_EQ(gpuModel("NVIDIA RTX A6000"), "A6000");
    EXPECT_EQ(gpuModel("Tesla V100-SXM2-16GB"), "V100");
    EXPECT_EQ(gpuModel("NVIDIA GH200 480GB"), "GH200");
    EXPECT_EQ(gpuModel("AMD Radeon Graphics"), "Radeon");  // no known family: its first word
    EXPECT_EQ(gpuModel("profile"), "");                    // the trace names no device
    EXPECT_EQ(gpuModel(""), "");
}

TEST(WorkloadLabels, TwelveRealTracesGetShortDistinctNames) {
    const std::vector<std::string> s = shortNames(kTwelve);
    ASSERT_EQ(s.size(), kTwelve.size());
    EXPECT_EQ(s[0], "dlrm_sampled_rank0");      // "hta", the collection, left out
    EXPECT_EQ(s[1], "simple_add");              // short, but "hta" and "a100" are said elsewhere
    EXPECT_EQ(s[4], "bert_small");              // "tracelens" and "h100" left out
    EXPECT_EQ(s[6], "vllm_decode_graph");       // "decode" and "graph" alone are not enough
    EXPECT_EQ(s[8], "prefilldecode_graph");     // widened within 20 characters
    EXPECT_EQ(s[11], "fp8_scaled_mm_rowwise");  // a model's first word kept (28 at most)
    std::set<std::string> distinct;
    for (size_t i = 0; i < s.size(); ++i) {
        EXPECT_LE(s[i].size(), 28u) << kTwelve[i];
        EXPECT_NE(kTwelve[i].find(s[i]), std::string::npos) << s[i];  // a part of the name
        distinct.insert(s[i]);
    }
    EXPECT_EQ(distinct.size(), kTwelve.size());
}

TEST(WorkloadLabels, ShortNamesStayWholeAndTheDistinctingPartDependsOnTheOthers) {
    // Short enough already, or inside another name: whole (the tag tells such rows apart). A
    // short name with a GPU in it is shortened like a long one.
    EXPECT_EQ(shortNames({"simple_add_a100", "dlrm_inference"})[0], "simple_add");
    EXPECT_EQ(shortNames({"dlrm_inference", "resnet50_inference"}),
              (std::vector<std::string>{"dlrm_inference", "resnet50_inference"}));
    const auto twins = shortNames({"resnet50_inference_compiled_long", "resnet50_inference"});
    EXPECT_EQ(twins[1], "resnet50_inference");
    EXPECT_NE(twins[0], twins[1]);
    // Model names keep their dots and their dashed numbers.
    // (the H200 profiles of datasets/profiles/h200)
    const auto h200 =
        shortNames({"resnet50_inference", "resnet50_inference_compiled", "qwen2.5-1.5b_training",
                    "qwen2.5-14b_inference", "encoder12_training_compiled", "dlrm_inference"});
    EXPECT_EQ(h200[2], "qwen2.5-1.5b");
    EXPECT_EQ(h200[3], "qwen2.5-14b");
    EXPECT_EQ(shortNames({"ResNet-50 inference", "ResNet-50 training", "DLRM inference"})[0],
              "ResNet-50 inference");
    EXPECT_EQ(shortNames({"DeepSeek-R1-Distill-Llama-70B", "DLRM inference"})[0],
              "R1-Distill-Llama-70B");
    // Among the twelve, "tracelens" names a collection and is left out; beside one other name it
    // is context like any word.
    EXPECT_EQ(shortNames(kTwelve)[7], "vllm_moe");
    EXPECT_EQ(shortNames({"tracelens_vllm_moe_b200", "sdpa_backends_flash"})[0],
              "tracelens_vllm_moe");
    EXPECT_EQ(shortNames({"fp8_scaled_mm_rowwise", "fp8_scaled_mm_tensorwise"})[0],
              "fp8_scaled_mm_rowwise");
    // The sample's H200 profiles: the model stays in the name.
    EXPECT_EQ(shortNames({"resnet50_inference", "resnet50_inference_compiled",
                          "encoder12_training_compiled"})[1],
              "resnet50_inference_compiled");
    // A model's name without a digit is its first word too (issue 40: two VideoMAE traces were
    // "base-finetuned-k400" and "base-finetuned-ssv2" in the GUI, the model gone).
    EXPECT_EQ(
        shortNames({"videomae-base-finetuned-k400", "videomae-base-finetuned-ssv2"}),
        (std::vector<std::string>{"videomae-base-finetuned-k400", "videomae-base-finetuned-ssv2"}));
    // The same long name twice has no distinguishing part: both stay whole.
    const auto same = shortNames({"a_very_long_workload_name_x", "a_very_long_workload_name_x"});
    EXPECT_EQ(same[0], "a_very_long_workload_name_x");
    EXPECT_EQ(same[1], same[0]);
}

TEST(WorkloadLabels, AxisLabelsAreShortNameAndGpuWithTheWholeNameKept) {
    std::vector<ProjectWorkload> rows(3);
    rows[0].name = "tracelens_vllm_prefilldecode_graph_mi300x";
    rows[0].origin = "AMD Instinct MI300X";
    rows[1].name = "tracelens_vllm_decode_graph_mi300x";
    rows[1].origin = "AMD Instinct MI300X";
    rows[2].name = "hta_dlrm_sampled_rank0_a100";
    rows[2].origin = "profile";  // the trace names no device
    const std::vector<RowLabel> l = rowLabels(rows);
    EXPECT_EQ(l[0].text(), "prefilldecode_graph [MI300X]");
    EXPECT_EQ(l[1].text(), "vllm_decode_graph [MI300X]");
    EXPECT_EQ(l[2].text(), "hta_dlrm_sampled [A100]");  // no device: the GPU its name gives
    EXPECT_EQ(gpuModelInName("tracelens_vllm_moe_b200"), "B200");
    EXPECT_EQ(gpuModelInName("dlrm_inference"), "");
    rows[2].name = "dlrm_inference";  // no device, no GPU in the name: no brackets
    EXPECT_EQ(rowLabels(rows)[2].text(), "dlrm_inference");
    EXPECT_EQ(l[0].full, "tracelens_vllm_prefilldecode_graph_mi300x (AMD Instinct MI300X)");
}

}  // namespace reach_test_workloadlabels_test

namespace reach_test_workloadlabels_pair {  // unity builds: this block's names stay its own

using reach::mostAlikePair;

// Compare opens on the two workloads most alike (issue 40): the same model eager and compiled,
// or on two GPUs; not whichever two come first.
TEST(WorkloadLabels, TheMostAlikePairIsTheSameModel) {
    EXPECT_EQ(mostAlikePair({"dlrm_inference", "qwen2.5-14b_inference", "resnet50_inference",
                             "resnet50_inference_compiled"}),
              (std::pair<size_t, size_t>{2, 3}));
    // A GPU or a tool word says where or who recorded, not what ran.
    EXPECT_EQ(mostAlikePair({"hta_simple_add_a100", "encoder12_training",
                             "tracelens_llama_decode_mi300x", "llama_decode_h100"}),
              (std::pair<size_t, size_t>{2, 3}));
    // The longest shared start wins over a shorter one; ties keep the earlier pair.
    EXPECT_EQ(mostAlikePair({"qwen_training", "qwen_inference_a", "qwen_inference_b"}),
              (std::pair<size_t, size_t>{1, 2}));
    EXPECT_EQ(mostAlikePair({"qwen_a", "qwen_b", "qwen_c"}), (std::pair<size_t, size_t>{0, 1}));
    // The base first, its variant second, whatever their order.
    EXPECT_EQ(mostAlikePair({"dlrm", "resnet50_inference_compiled", "resnet50_inference"}),
              (std::pair<size_t, size_t>{2, 1}));
    // Nothing alike: the first two.
    EXPECT_EQ(mostAlikePair({"dlrm", "resnet", "bert"}), (std::pair<size_t, size_t>{0, 1}));
}

}  // namespace reach_test_workloadlabels_pair
