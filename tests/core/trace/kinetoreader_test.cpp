#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <unistd.h>

#include "core/base/demangle.h"
#include "core/base/inputerror.h"
#include "core/base/progress.h"
#include "core/trace/bytesource.h"
#include "core/trace/profilereader.h"

namespace reach_test_kinetoreader_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;

namespace {

std::string dataset(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/" + rel;
}
std::string testData(const std::string& rel) {
    return std::string(REACH_TEST_DATA) + "/" + rel;
}

const KernelStats* findKernel(const Workload& w, const std::string& name) {
    for (const KernelStats& k : w.kernels) {
        if (k.name == name)
            return &k;
    }
    return nullptr;
}

// Totals pinned from tests/core/trace/kineto_reference.py, an independent Python computation: json
// (not Reach's scanner) with Decimal timestamps; GPU activities = cat kernel/gpu_memcpy/
// gpu_memset with ph X; busy = exact union of [ts, ts+dur]; span over all ph X events.
struct Expected {
    const char* file;
    int64_t events;
    size_t names;
    double gpuUs;
    double busyUs;
    double spanUs;
    const char* device;
    bool linked;
};

const Expected kExpected[] = {
    {"profiles/h200/dlrm_inference.json.gz", 81, 14, 1934.851, 1934.851, 5512.957, "NVIDIA H200",
     true},
    {"profiles/h200/encoder12_training_compiled.json.gz", 2151, 61, 68101.342, 68101.342,
     127016.477, "NVIDIA H200", true},
    {"profiles/h200/qwen2.5-1.5b_training.json.gz", 4811, 74, 207571.683, 207563.042, 236786.316,
     "NVIDIA H200", true},
    {"profiles/h200/qwen2.5-14b_inference.json.gz", 36408, 41, 403543.643, 403426.674, 1085124.671,
     "NVIDIA H200", true},
    {"profiles/h200/resnet50_inference.json.gz", 885, 23, 13070.532, 13070.532, 38475.027,
     "NVIDIA H200", true},
    {"profiles/h200/resnet50_inference_compiled.json.gz", 357, 34, 8318.687, 8318.687, 13723.711,
     "NVIDIA H200", true},
    // 2023 format: integer microseconds, no deviceProperties; kernels link to operators only
    // through their launch calls (their External id is their correlation).
    {"profiles/public/hta_dlrm_sampled_rank0_a100.json.gz", 1204, 199, 607844, 547656, 3367344, "",
     true},
    // 2023 format with integer microseconds and deviceProperties; the memcpys' External ids
    // (their correlations) happen to name operators, the kernels link through their launches.
    {"profiles/public/hta_simple_add_a100.json.gz", 98, 18, 49816, 49758, 41602354,
     "NVIDIA A100-PG509-200", true},
    // Newest format (baseTimeNanoseconds), one Triton kernel launched through the driver API.
    {"profiles/public/hta_triton_example_a100.json.gz", 1, 1, 1.760, 1.760, 13690136.806,
     "NVIDIA A100-PG509-200", true},
    {"profiles/public/tracelens_bert_small_h100.json.gz", 61, 12, 309.437, 309.437, 4966.632,
     "NVIDIA H100 80GB HBM3", true},
    // Current serving stacks from TraceLens: vLLM on a B200 (MXFP4 MoE), SGLang on an MI300X,
    // vLLM replayed from HIP graphs (deviceProperties without a name).
    {"profiles/public/tracelens_vllm_moe_b200.json.gz", 929, 32, 11665.760, 11596.482, 87412.863,
     "NVIDIA B200", true},
    {"profiles/public/tracelens_sglang_qwen3_8b_decode_mi300x.json.gz", 558, 29, 9778.614, 9772.926,
     473830.532, "AMD Instinct MI300X", true},
    {"profiles/public/tracelens_vllm_decode_graph_mi300x.json.gz", 434, 25, 10717.708, 10717.708,
     19114.059, "", true},
    {"profiles/public/tracelens_vllm_prefilldecode_graph_mi300x.json.gz", 423, 24, 156085.905,
     156085.793, 307697.688, "", true},
    // Current kernels (torch 2.11, H200, record_shapes=True): FP8 _scaled_mm, grouped-GEMM MoE,
    // SDPA backends, max-autotune with and without CUDA graphs, a model replayed from a graph
    // (no kernel is launched by an operator there: the graph launch is).
    {"profiles/h200-current/cuda_graph_eager.json.gz", 6340, 34, 37583.732, 37538.323, 160828.421,
     "NVIDIA H200", true},
    {"profiles/h200-current/cuda_graph_replay.json.gz", 6340, 34, 37719.489, 37719.489, 43676.039,
     "NVIDIA H200", false},
    {"profiles/h200-current/fp8_scaled_mm_bf16_reference.json.gz", 35, 6, 21508.113, 21508.113,
     23697.948, "NVIDIA H200", true},
    {"profiles/h200-current/fp8_scaled_mm_rowwise.json.gz", 125, 12, 22214.786, 22214.786,
     24566.332, "NVIDIA H200", true},
    {"profiles/h200-current/fp8_scaled_mm_tensorwise.json.gz", 135, 13, 21736.143, 21736.143,
     24722.286, "NVIDIA H200", true},
    {"profiles/h200-current/max_autotune.json.gz", 135, 9, 16593.653, 16593.014, 20126.379,
     "NVIDIA H200", true},
    {"profiles/h200-current/max_autotune_no_cudagraphs.json.gz", 130, 9, 16598.418, 16598.418,
     18645.308, "NVIDIA H200", true},
    {"profiles/h200-current/moe_grouped_gemm.json.gz", 230, 27, 50775.694, 50775.694, 60806.101,
     "NVIDIA H200", true},
    {"profiles/h200-current/moe_grouped_gemm_fwdbwd.json.gz", 285, 49, 94643.356, 94642.941,
     100302.201, "NVIDIA H200", true},
    {"profiles/h200-current/sdpa_backends_cudnn.json.gz", 126, 12, 25509.416, 25509.416, 31169.387,
     "NVIDIA H200", true},
    {"profiles/h200-current/sdpa_backends_efficient.json.gz", 108, 11, 52157.093, 52157.093,
     56775.299, "NVIDIA H200", true},
    {"profiles/h200-current/sdpa_backends_flash.json.gz", 114, 14, 32253.565, 32253.565, 35758.866,
     "NVIDIA H200", true},
    {"profiles/h200-shapes/dlrm_inference.json.gz", 81, 14, 1926.905, 1926.905, 5330.749,
     "NVIDIA H200", true},
    {"profiles/h200-shapes/resnet50_inference.json.gz", 885, 23, 13093.278, 13093.278, 50739.909,
     "NVIDIA H200", true},
};

}  // namespace

TEST(KinetoReader, EveryDatasetTraceMatchesTheIndependentReference) {
    for (const Expected& e : kExpected) {
        SCOPED_TRACE(e.file);
        Workload w = readProfile(dataset(e.file));
        EXPECT_EQ(w.format, "kineto");
        EXPECT_EQ(w.eventCount, e.events);
        EXPECT_EQ(w.kernels.size(), e.names);
        EXPECT_NEAR(w.gpuTimeUs, e.gpuUs, 1e-6 * e.gpuUs + 1e-6);
        // Busy time from doubles of ~5e12 us timestamps: exact to ~1e-7 relative.
        EXPECT_NEAR(w.busyTimeUs, e.busyUs, 1e-6 * e.busyUs + 1e-6);
        EXPECT_NEAR(w.spanUs, e.spanUs, 1e-6 * e.spanUs);
        EXPECT_LE(w.busyTimeUs, w.gpuTimeUs * (1 + 1e-9) + 1e-6);
        EXPECT_LE(w.busyTimeUs, w.spanUs);
        EXPECT_EQ(w.device, e.device);
        EXPECT_EQ(w.hasOperatorLinks(), e.linked);
        EXPECT_EQ(w.sourceHash.size(), 64u);
        int64_t calls = 0;
        double sum = 0;
        for (size_t i = 0; i < w.kernels.size(); ++i) {
            const KernelStats& k = w.kernels[i];
            calls += k.calls;
            sum += k.totalUs;
            EXPECT_LE(k.minUs, k.maxUs);
            EXPECT_NEAR(k.linkedUs(), std::min(k.linkedUs(), k.totalUs), 1e-6);
            if (i > 0) {
                EXPECT_GE(w.kernels[i - 1].totalUs, k.totalUs);  // largest first
            }
        }
        EXPECT_EQ(calls, w.eventCount);
        EXPECT_NEAR(sum, w.gpuTimeUs, 1e-6 * sum);
    }
}

TEST(KinetoReader, PerNameAggregatesAndOperatorsOfTheH200Qwen14bTrace) {
    Workload w = readProfile(dataset("profiles/h200/qwen2.5-14b_inference.json.gz"));
    EXPECT_EQ(w.name, "qwen2.5-14b_inference");
    ASSERT_FALSE(w.kernels.empty());
    // Reference: kineto_reference.py (calls, total, min, max, dominant operator).
    const KernelStats* top = findKernel(w, "nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_TNN");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(&w.kernels.front(), top);
    EXPECT_EQ(top->calls, 96);
    EXPECT_NEAR(top->totalUs, 70018.194, 1e-6);
    EXPECT_NEAR(top->minUs, 703.834, 1e-9);
    EXPECT_NEAR(top->maxUs, 751.386, 1e-9);
    EXPECT_EQ(top->dominantOperator(), "aten::mm");
    const KernelStats* gemv = findKernel(w, "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
    ASSERT_NE(gemv, nullptr);
    EXPECT_EQ(gemv->calls, 2304);
    EXPECT_NEAR(gemv->totalUs, 69484.827, 1e-6);
    EXPECT_NEAR(gemv->minUs, 17.568, 1e-9);
    EXPECT_NEAR(gemv->maxUs, 41.599, 1e-9);
    EXPECT_EQ(gemv->grid, "4,20,1");
    EXPECT_EQ(gemv->block, "384,1,1");
    EXPECT_EQ(gemv->streams, std::vector<int>{7});
    // Every GPU activity of this trace links to its launching operator.
    double linked = 0;
    for (const KernelStats& k : w.kernels)
        linked += k.linkedUs();
    EXPECT_NEAR(linked, 403543.643, 1e-3);
}

TEST(KinetoReader, IntegerMicrosecondTraceOf2023) {
    Workload w = readProfile(dataset("profiles/public/hta_simple_add_a100.json.gz"));
    const KernelStats* memcpy = findKernel(w, "Memcpy HtoD (Pageable -> Device)");
    ASSERT_NE(memcpy, nullptr);
    EXPECT_EQ(memcpy->kind, ActivityKind::Memcpy);
    EXPECT_EQ(memcpy->calls, 16);
    EXPECT_EQ(memcpy->totalUs, 39080);
    EXPECT_EQ(memcpy->minUs, 1);
    EXPECT_EQ(memcpy->maxUs, 24451);
    EXPECT_EQ(memcpy->dominantOperator(), "aten::to");
    const KernelStats* sgemm = findKernel(w, "ampere_sgemm_32x32_sliced1x4_tn");
    ASSERT_NE(sgemm, nullptr);
    EXPECT_EQ(sgemm->calls, 6);
    EXPECT_EQ(sgemm->totalUs, 2673);
    EXPECT_EQ(sgemm->grid, "128,4,1");
    EXPECT_EQ(sgemm->block, "128,1,1");
    // cuda_sync events sit on the GPU rows of this trace and must not count.
    for (const KernelStats& k : w.kernels)
        EXPECT_EQ(k.name.find("Sync"), std::string::npos);
}

TEST(KinetoReader, TraceWithoutDevicePropertiesHasNcclAndNoDevice) {
    Workload w = readProfile(dataset("profiles/public/hta_dlrm_sampled_rank0_a100.json.gz"));
    EXPECT_TRUE(w.device.empty());
    const KernelStats* nccl =
        findKernel(w,
                   "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, "
                   "ncclWork*)");
    ASSERT_NE(nccl, nullptr);
    EXPECT_EQ(nccl->calls, 10);
    EXPECT_EQ(nccl->totalUs, 396199);
    EXPECT_EQ(nccl->minUs, 11727);
    EXPECT_EQ(nccl->maxUs, 67827);
    EXPECT_LT(w.busyTimeUs, w.gpuTimeUs);  // overlapping streams: 547656 < 607844
}

TEST(KinetoReader, BaseTimeNanosecondsTraceWithTritonKernel) {
    Workload w = readProfile(dataset("profiles/public/hta_triton_example_a100.json.gz"));
    ASSERT_EQ(w.kernels.size(), 1u);
    EXPECT_EQ(w.kernels[0].name, "triton_poi_fused_add_cos_sin_0");
    EXPECT_NEAR(w.kernels[0].totalUs, 1.76, 1e-12);
    EXPECT_EQ(w.kernels[0].dominantOperator(), "triton_poi_fused_add_cos_sin_0");
}

// Derived from hta_triton_example (tests/data/kineto/reordered_triton.json, made by a Python
// snippet): every event's keys reversed (args before cat), traceEvents first, a large metadata
// value to skip, plus a mangled kernel launched by an operator whose name has JSON escapes, a
// gpu_user_annotation span and a cuda_sync on the GPU row (neither is GPU time).
TEST(KinetoReader, KeysInAnyOrderMangledNamesEscapesAndNonGpuRows) {
    Workload w = readProfile(testData("kineto/reordered_triton.json"));
    EXPECT_EQ(w.eventCount, 2);
    EXPECT_NEAR(w.gpuTimeUs, 4.26, 1e-9);
    EXPECT_NEAR(w.busyTimeUs, 4.26, 1e-6);
    const KernelStats* k = findKernel(w, "reach::test::saxpy_kernel(float*, float*, float, int)");
    ASSERT_NE(k, nullptr) << "the mangled name is demangled";
    EXPECT_EQ(k->dominantOperator(), "my::op \"quoted\" \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    EXPECT_EQ(k->grid, "7,2,1");
    EXPECT_EQ(k->streams, std::vector<int>{13});
    EXPECT_EQ(w.device, "NVIDIA A100-PG509-200");
}

TEST(KinetoReader, PlainAndGzipReadTheSame) {
    // Gzip is detected by content: the decompressed copy, named .json.gz on purpose, reads too.
    std::string gz = dataset("profiles/h200/resnet50_inference.json.gz");
    std::string plain =
        (fs::temp_directory_path() / ("reach_plain_" + std::to_string(::getpid()) + ".json.gz"))
            .string();
    {
        ByteSource src(gz);
        std::ofstream out(plain, std::ios::binary);
        for (std::string_view c = src.next(); !c.empty(); c = src.next()) {
            out.write(c.data(), std::streamsize(c.size()));
        }
    }
    Workload a = readProfile(gz);
    Workload b = readProfile(plain);
    fs::remove(plain);
    EXPECT_EQ(a.eventCount, b.eventCount);
    EXPECT_EQ(a.gpuTimeUs, b.gpuTimeUs);
    EXPECT_EQ(a.busyTimeUs, b.busyTimeUs);
    ASSERT_EQ(a.kernels.size(), b.kernels.size());
    for (size_t i = 0; i < a.kernels.size(); ++i)
        EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_NE(a.sourceHash, b.sourceHash);  // the hash is of the file bytes, not the JSON
}

TEST(KinetoReader, ProgressRisesToOne) {
    std::vector<double> seen;
    readProfile(dataset("profiles/h200/qwen2.5-14b_inference.json.gz"),
                [&](double f) { seen.push_back(f); });
    ASSERT_GE(seen.size(), 3u);
    for (size_t i = 1; i < seen.size(); ++i)
        EXPECT_GE(seen[i], seen[i - 1]);
    EXPECT_EQ(seen.back(), 1.0);
    EXPECT_GT(seen.front(), 0.0);
}

TEST(KinetoReader, StopRequestThrowsCancelled) {
    std::stop_source stop;
    int calls = 0;
    EXPECT_THROW(readProfile(
                     dataset("profiles/h200/qwen2.5-14b_inference.json.gz"),
                     [&](double) {
                         if (++calls == 2)
                             stop.request_stop();
                     },
                     stop.get_token()),
                 Cancelled);
    std::stop_source already;
    already.request_stop();
    EXPECT_THROW(
        readProfile(dataset("profiles/h200/dlrm_inference.json.gz"), {}, already.get_token()),
        Cancelled);
}

TEST(ProfileReader, WorkloadNameFromPath) {
    EXPECT_EQ(workloadNameFromPath("/a/b/resnet50_inference.json.gz"), "resnet50_inference");
    EXPECT_EQ(workloadNameFromPath("w0.1700000000.pt.trace.json"), "w0.1700000000");
    EXPECT_EQ(workloadNameFromPath("run.sqlite"), "run");
    EXPECT_EQ(workloadNameFromPath("plain"), "plain");
}

TEST(Demangle, ItaniumNamesOnlyAndNeverThrows) {
    EXPECT_EQ(demangle("_ZN5reach4test12saxpy_kernelEPfS1_fi"),
              "reach::test::saxpy_kernel(float*, float*, float, int)");
    // Already demangled, not mangled at all, or rejected by the demangler: unchanged.
    EXPECT_EQ(demangle("void at::native::f<float>(float*)"), "void at::native::f<float>(float*)");
    EXPECT_EQ(demangle("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT"),
              "nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT");
    EXPECT_EQ(demangle("_Z"), "_Z");
    EXPECT_EQ(demangle("_Zgarbage!!"), "_Zgarbage!!");
    EXPECT_FALSE(looksMangled("Memcpy HtoD (Pageable -> Device)"));
}

TEST(KinetoReader, CudaGraphReplayCountsEveryKernelAndSaysSo) {
    // The same model run eagerly and replayed from a captured graph (h200-current/manifest.json):
    // in the replay one cudaGraphLaunch per step launches every kernel, and every kernel's
    // correlation id is that launch's.
    const Workload eager = readProfile(dataset("profiles/h200-current/cuda_graph_eager.json.gz"));
    const Workload graph = readProfile(dataset("profiles/h200-current/cuda_graph_replay.json.gz"));
    EXPECT_EQ(graph.eventCount, eager.eventCount);
    EXPECT_EQ(graph.kernels.size(), eager.kernels.size());
    EXPECT_NEAR(graph.gpuTimeUs / eager.gpuTimeUs, 1.0, 0.01);
    for (const KernelStats& k : graph.kernels) {
        SCOPED_TRACE(k.name);
        EXPECT_EQ(k.graphCalls, k.calls);
        EXPECT_NEAR(k.graphUs, k.totalUs, 1e-6 * k.totalUs);
        const KernelStats* e = findKernel(eager, k.name);
        ASSERT_NE(e, nullptr);
        EXPECT_EQ(e->calls, k.calls);
        EXPECT_EQ(e->graphCalls, 0);
    }
}

TEST(KinetoReader, RecordedShapesBecomeShapedCallsPerOperator) {
    // record_shapes=True: each kernel's time per (launching operator, input shapes).
    const Workload w = readProfile(dataset("profiles/h200-shapes/resnet50_inference.json.gz"));
    ASSERT_TRUE(w.hasShapes());
    double shapedUs = 0, linkedUs = 0;
    bool convSeen = false;
    for (const KernelStats& k : w.kernels) {
        linkedUs += k.linkedUs();
        double sum = 0;
        for (const ShapedCall& c : k.shapedCalls) {
            sum += c.totalUs;
            EXPECT_FALSE(c.op.empty());
            EXPECT_EQ(c.signature.rfind("{\"dims\":[", 0), 0u) << c.signature;
            if (c.op == "aten::cudnn_convolution") {
                // The batch-64 input of the stem convolution, channels-last bf16 (manifest).
                convSeen = convSeen || c.signature.find("[64,3,224,224]") != std::string::npos;
                EXPECT_NE(c.signature.find("c10::BFloat16"), std::string::npos) << c.signature;
            }
        }
        EXPECT_LE(sum, k.totalUs * (1 + 1e-9));
        shapedUs += sum;
    }
    EXPECT_TRUE(convSeen);
    // Every linked kernel of this trace has its operator's shapes.
    EXPECT_NEAR(shapedUs, linkedUs, 1e-6 * linkedUs);
    // A trace profiled without shapes has none.
    EXPECT_FALSE(readProfile(dataset("profiles/h200/resnet50_inference.json.gz")).hasShapes());
}

}  // namespace reach_test_kinetoreader_test
