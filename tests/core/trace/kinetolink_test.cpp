// A GPU activity's launching operator: by its External id as before, else by its correlation to
// the runtime call that launched it and the innermost cpu_op enclosing that call on its thread
// (HTA's and TraceLens's rule). The traces are small hand-written ones in tests/data/kineto
// (link_*.json: real event shapes, each case commented in the test that reads it) and the real
// public traces whose kernels carry no usable External id.
#include <gtest/gtest.h>

#include <string>

#include "core/base/inputerror.h"
#include "core/trace/kinetoreader.h"
#include "core/trace/profilereader.h"
#include "tests/core/testfiles.h"
#include "tests/core/trace/workloaddump.h"

namespace reach_test_kinetolink_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

std::string testData(const std::string& rel) {
    return std::string(REACH_TEST_DATA) + "/kineto/" + rel;
}

const KernelStats& kernel(const Workload& w, const std::string& prefix) {
    for (const KernelStats& k : w.kernels) {
        if (k.name.rfind(prefix, 0) == 0)
            return k;
    }
    ADD_FAILURE() << "no kernel named " << prefix << "...";
    static const KernelStats kNone;
    return kNone;
}

// The one operator a kernel's time went to ("" when unlinked, "several" when more than one).
std::string launcher(const Workload& w, const std::string& prefix) {
    const KernelStats& k = kernel(w, prefix);
    if (k.operators.empty())
        return "";
    if (k.operators.size() > 1)
        return "several";
    EXPECT_DOUBLE_EQ(k.operators.front().totalUs, k.totalUs) << prefix;
    return k.operators.front().op;
}

double linkedUs(const Workload& w) {
    double t = 0;
    for (const KernelStats& k : w.kernels)
        t += k.linkedUs();
    return t;
}

}  // namespace

TEST(KinetoLink, CorrelationLeadsToTheInnermostOperatorOnTheLaunchingThread) {
    // Every GPU activity comes before its launch call and its operator in the file. Thread 7000
    // runs aten::linear [10, 100] around aten::addmm [15, 65]; thread 7001 of the same process
    // runs aten::mul [0, 200] and aten::add [20, 25], and process 7005's thread 7000 aten::relu
    // [21, 24], all at the time of the launches.
    const Workload w = readProfile(testData("link_correlation.json"));
    // cudaLaunchKernelExC at 22 and 41, no External id anywhere: the inner aten::addmm, with its
    // recorded shapes; one operator call that launched the GEMM twice.
    const KernelStats& gemm = kernel(w, "nvjet_sm90_tst_128x256");
    EXPECT_EQ(launcher(w, "nvjet_sm90_tst_128x256"), "aten::addmm");
    ASSERT_EQ(gemm.operators.size(), 1u);
    EXPECT_EQ(gemm.operators.front().calls, 2);
    ASSERT_EQ(gemm.shapedCalls.size(), 1u);
    EXPECT_EQ(gemm.shapedCalls.front().op, "aten::addmm");
    EXPECT_EQ(gemm.shapedCalls.front().calls, 2);
    EXPECT_EQ(gemm.shapedCalls.front().opCalls, 1);
    EXPECT_DOUBLE_EQ(gemm.shapedCalls.front().totalUs, 50.75);
    EXPECT_NE(gemm.shapedCalls.front().signature.find("[16,2048],[2048,4096]"), std::string::npos)
        << gemm.shapedCalls.front().signature;
    // The launch call's own External id names aten::linear, which encloses it: the id wins over
    // the inner aten::addmm. Of the two other launches of this kernel, one call (a cuLaunchKernel
    // at 500) runs outside every operator: unlinked; the other's correlation names no call (its
    // launch is missing from the trace): linked through its twin, the linked launch of the same
    // kernel and shape (issue 41; tests/core/trace/kinetotwins_test.cpp).
    const KernelStats& add = kernel(
        w, "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add");
    EXPECT_EQ(add.calls, 3);
    ASSERT_EQ(add.operators.size(), 1u);
    EXPECT_EQ(add.operators.front().op, "aten::linear");
    EXPECT_DOUBLE_EQ(add.operators.front().totalUs, 6.125);
    EXPECT_DOUBLE_EQ(add.linkedUs(), 6.125);
    EXPECT_DOUBLE_EQ(w.twinLinkedUs, 3.0);
    // The call's External id names aten::mul on the other thread: not its launcher; the time
    // says aten::addmm.
    EXPECT_EQ(launcher(w, "void at::native::reduce_kernel<512"), "aten::addmm");
    // The kernel's own External id names aten::addmm: kept, although its launch call lies in
    // aten::t.
    EXPECT_EQ(launcher(w, "void cublasLt::epilogue::impl::globalKernel"), "aten::addmm");
    // Its External id names no operator (old traces put the correlation there): the correlation.
    EXPECT_EQ(launcher(w, "void at::native::unrolled_elementwise_kernel"), "aten::copy_");
    // cudaMemcpyAsync in aten::to > aten::_to_copy > aten::copy_; cudaMemsetAsync in aten::zeros >
    // aten::zero_.
    EXPECT_EQ(launcher(w, "Memcpy HtoD (Pinned -> Device)"), "aten::copy_");
    EXPECT_EQ(launcher(w, "Memset (Device)"), "aten::zero_");
    // Both kernels of one cudaGraphLaunch go to the operator that launched the graph.
    for (const char* name : {"triton_poi_fused_mul_silu_0", "triton_red_fused__to_copy"}) {
        SCOPED_TRACE(name);
        EXPECT_EQ(launcher(w, name), "Torch-Compiled Region: 0/0");
        EXPECT_EQ(kernel(w, name).graphCalls, 1);
    }
    // Never the operators of the other thread or the other process.
    for (const KernelStats& k : w.kernels) {
        for (const OperatorTime& o : k.operators) {
            EXPECT_NE(o.op, "aten::mul");
            EXPECT_NE(o.op, "aten::add");
            EXPECT_NE(o.op, "aten::relu");
        }
    }
    EXPECT_EQ(w.eventCount, 12);
    EXPECT_DOUBLE_EQ(w.gpuTimeUs, 81.625);
    EXPECT_DOUBLE_EQ(linkedUs(w), 78.625);
}

TEST(KinetoLink, HipLaunchesKeepTheCudaRuntimeCategory) {
    // ROCm: hipLaunchKernel, hipExtModuleLaunchKernel (aiter), hipModuleLaunchKernel (hipBLASLt,
    // Triton) and hipMemcpyWithStream, cat cuda_runtime; the kernels carry no External id.
    const Workload w = readProfile(testData("link_hip.json"));
    EXPECT_EQ(w.device, "AMD Instinct MI300X");
    EXPECT_EQ(launcher(w, "void at::native::vectorized_gather_kernel"), "aten::index_select");
    EXPECT_EQ(launcher(w, "_ZN5aiter24add_rmsnorm_quant_kernel"), "aiter::add_rmsnorm_quant");
    EXPECT_EQ(launcher(w, "Cijk_Alik_Bljk"), "aten::mm");
    EXPECT_EQ(launcher(w, "Memcpy HtoD"), "aten::copy_");
    ASSERT_EQ(kernel(w, "Cijk_Alik_Bljk").shapedCalls.size(), 1u);
    EXPECT_EQ(kernel(w, "Cijk_Alik_Bljk").shapedCalls.front().op, "aten::mm");
    EXPECT_DOUBLE_EQ(linkedUs(w), w.gpuTimeUs);
}

TEST(KinetoLink, HostileTraceLinksWhatItCanAndNothingElse) {
    const Workload w = readProfile(testData("link_hostile.json"));
    EXPECT_EQ(w.eventCount, 20);
    EXPECT_DOUBLE_EQ(w.gpuTimeUs, 20);
    // Two calls with one correlation: the first in the file; both kernels it names.
    EXPECT_EQ(launcher(w, "dup_a"), "aten::first");
    EXPECT_EQ(kernel(w, "dup_a").operators.front().calls, 2);
    // Overlapping, not nested: the latest begun of the operators running at the call.
    EXPECT_EQ(launcher(w, "overlap_in_y"), "aten::y");
    EXPECT_EQ(launcher(w, "overlap_in_both"), "aten::y");
    EXPECT_EQ(launcher(w, "zero_dur"), "aten::zero_dur");
    EXPECT_EQ(launcher(w, "same_start"), "aten::inner_same_start");
    EXPECT_EQ(launcher(w, "deep"), "aten::level199");
    // Ids that name nothing fall back to the correlation; a call's id naming an operator on
    // another thread, or one without an interval, does not decide.
    EXPECT_EQ(launcher(w, "ext_names_nothing"), "aten::first");
    EXPECT_EQ(launcher(w, "call_id_elsewhere"), "aten::second");
    EXPECT_EQ(launcher(w, "ext_instant"), "aten::instant");
    EXPECT_EQ(launcher(w, "call_id_instant"), "");
    EXPECT_EQ(launcher(w, "string_thread"), "aten::string_thread");
    EXPECT_EQ(launcher(w, "driver_launch"), "aten::first");
    for (const char* unlinked :
         {"outside", "lonely_thread", "no_ts", "corr_string", "corr_huge", "not_a_launch"}) {
        EXPECT_EQ(launcher(w, unlinked), "") << unlinked;
    }
    EXPECT_DOUBLE_EQ(linkedUs(w), 13);
}

TEST(KinetoLink, NegativeDurationOfAnOperatorOrCallIsRefusedAtItsByte) {
    reach::test::TempFolder dir;
    for (const char* cat : {"cpu_op", "cuda_runtime"}) {
        SCOPED_TRACE(cat);
        const std::string text =
            std::string(R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,)") +
            R"("ts":10,"dur":1,"args":{"correlation":1}},{"ph":"X","cat":")" + cat +
            R"(","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":5,"dur":-3,"args":{"correlation":1}}]})";
        const std::string path = reach::test::writeText(dir.path("negative.json"), text);
        try {
            readProfile(path);
            ADD_FAILURE() << "read";
        } catch (const InputError& e) {
            const std::string msg = e.what();
            EXPECT_EQ(msg.rfind(path + ": byte ", 0), 0u) << msg;
            EXPECT_NE(msg.find("dur"), std::string::npos) << msg;
        }
    }
}

// Pieces of one event each, parsed on three threads: the same links (threads, operators and
// calls are numbered per piece and merged in file order).
TEST(KinetoLink, SplitReadingGivesTheSameLinks) {
    for (const char* file : {"link_correlation.json", "link_hip.json", "link_hostile.json"}) {
        SCOPED_TRACE(file);
        KinetoOptions serial;
        serial.threads = 0;
        const std::string want = dumpWorkload(readProfile(testData(file), {}, {}, serial));
        for (size_t piece : {size_t(1), size_t(300), size_t(4096)}) {
            KinetoOptions split;
            split.threads = 3;
            split.pieceBytes = piece;
            EXPECT_EQ(dumpWorkload(readProfile(testData(file), {}, {}, split)), want) << piece;
        }
    }
}

// Real traces of the 2023 format (HTA's test data): a kernel's External id is its correlation,
// which names no operator, so the correlation links it. Totals from kineto_reference.py.
TEST(KinetoLink, RealTracesWithoutOperatorIdsLinkThroughTheirLaunchCalls) {
    const Workload dlrm = readProfile(std::string(REACH_DATASETS) +
                                      "/profiles/public/hta_dlrm_sampled_rank0_a100.json.gz");
    EXPECT_NEAR(linkedUs(dlrm), 607225, 1e-6);  // of 607844 us: 99.9 %; none before
    EXPECT_TRUE(dlrm.hasShapes());
    const KernelStats& nccl = kernel(dlrm, "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t");
    EXPECT_EQ(nccl.dominantOperator(), "record_param_comms");
    const Workload add =
        readProfile(std::string(REACH_DATASETS) + "/profiles/public/hta_simple_add_a100.json.gz");
    EXPECT_NEAR(linkedUs(add), 49816, 1e-6);  // every activity; 39153 us before
}

}  // namespace reach_test_kinetolink_test
