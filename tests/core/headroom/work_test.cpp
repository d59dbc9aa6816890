// Golden bytes and FLOPs of the work table, on operator calls read from the shipped traces (the
// shapes below are looked up in the trace, not typed in) and, where no shipped trace holds the
// operator, on a signature in the trace format built from a real call's shapes (said so at
// each). Every expected value is worked out by hand in the comment beside it.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "core/base/servingoperators.h"
#include "core/headroom/work.h"
#include "core/trace/profilereader.h"

namespace reach_test_work_test {  // unity builds: this file's names stay its own

using namespace reach;

namespace {

std::string dataset(const std::string& rel) {
    return std::string(REACH_DATASETS) + "/" + rel;
}

const Workload& trace(const std::string& rel) {
    static std::map<std::string, std::unique_ptr<Workload>> cache;
    auto& w = cache[rel];
    if (!w)
        w = std::make_unique<Workload>(readProfile(dataset(rel)));
    return *w;
}

// The first shaped call of op in the trace whose signature contains `has`, and the element size
// its kernel's name states (for TensorList arguments).
struct Found {
    std::vector<CallArg> args;
    WorkContext ctx;
    std::string signature;
};
Found shaped(const std::string& rel, const std::string& op, const std::string& has) {
    for (const KernelStats& k : trace(rel).kernels) {
        for (const ShapedCall& c : k.shapedCalls) {
            if (c.op == op && c.signature.find(has) != std::string::npos) {
                auto args = parseCallSignature(c.signature);
                EXPECT_TRUE(args.has_value()) << c.signature;
                return {args.value_or(std::vector<CallArg>{}),
                        WorkContext{elementBytesFromKernelName(k.name)}, c.signature};
            }
        }
    }
    ADD_FAILURE() << rel << ": no shaped call of " << op << " with " << has;
    return {};
}

Work workOf(const std::string& op, const Found& f) {
    auto w = operatorWork(op, f.args, f.ctx);
    EXPECT_TRUE(w.has_value()) << op << " " << f.signature;
    return w.value_or(Work{});
}

Work workOf(const std::string& op, const std::string& signature, int listBytes = 0) {
    auto args = parseCallSignature(signature);
    EXPECT_TRUE(args.has_value()) << signature;
    auto w = operatorWork(op, args.value_or(std::vector<CallArg>{}), WorkContext{listBytes});
    EXPECT_TRUE(w.has_value()) << op << " " << signature;
    return w.value_or(Work{});
}

constexpr const char* kBert = "profiles/public/tracelens_bert_small_h100.json.gz";
constexpr const char* kResnet = "profiles/h200-shapes/resnet50_inference.json.gz";
constexpr const char* kDlrm = "profiles/h200-shapes/dlrm_inference.json.gz";
constexpr const char* kFp8 = "profiles/h200-current/fp8_scaled_mm_rowwise.json.gz";
constexpr const char* kMoe = "profiles/h200-current/moe_grouped_gemm_fwdbwd.json.gz";
constexpr const char* kFlash = "profiles/h200-current/sdpa_backends_flash.json.gz";
constexpr const char* kEfficient = "profiles/h200-current/sdpa_backends_efficient.json.gz";
constexpr const char* kCudnn = "profiles/h200-current/sdpa_backends_cudnn.json.gz";
constexpr const char* kAutotune = "profiles/h200-current/max_autotune.json.gz";

// Every operator the golden cases below cover (explicitly or through the alias each "as ..."
// entry names); the table test checks nothing in the table is left out.
const std::set<std::string>& covered() {
    static std::set<std::string> s;
    return s;
}
void cover(const std::string& op) {
    const_cast<std::set<std::string>&>(covered()).insert(op);
}

// Each golden case is a function its TEST runs; the table test runs them all (ctest runs every
// test in a process of its own) and checks that they covered every entry.
#define GOLDEN(Name)           \
    void golden##Name();       \
    TEST(HeadroomWork, Name) { \
        golden##Name();        \
    }                          \
    void golden##Name()

}  // namespace

GOLDEN(Gemm) {
    // bert H100: addmm(bias[512], A[141,512], B[512,512]) bf16. FLOPs 2*141*512*512 = 73,924,608
    // + bias 141*512 = 72,192 -> 73,996,800. Bytes: bias 1,024 + A 144,384 + B 524,288 +
    // C 141*512*2 = 144,384 -> 814,080.
    Work w = workOf("aten::addmm", shaped(kBert, "aten::addmm", "[[512],[141,512],[512,512]"));
    EXPECT_DOUBLE_EQ(w.flops, 73996800);
    EXPECT_DOUBLE_EQ(w.bytes, 814080);
    EXPECT_EQ(w.peak, Peak::Bf16);
    // xcheck matmul_4096_bf16: mm 4096^3: FLOPs 2*4096^3 = 137,438,953,472; bytes 3*4096^2*2 =
    // 100,663,296 (the verifier's minimal_bytes and flops for the problem, too).
    w = workOf("aten::mm", shaped("profiles/h200-xcheck/xcheck_matmul_4096_bf16.json.gz",
                                  "aten::mm", "[[4096,4096],[4096,4096]]"));
    EXPECT_DOUBLE_EQ(w.flops, 137438953472.0);
    EXPECT_DOUBLE_EQ(w.bytes, 100663296);
    // f32 matmul_2048: FLOPs 2*2048^3 = 17,179,869,184; bytes 3*2048^2*4 = 50,331,648; FP32 GEMM.
    w = workOf("aten::mm", shaped("profiles/h200-xcheck/xcheck_matmul_2048_f32.json.gz", "aten::mm",
                                  "[[2048,2048],[2048,2048]]"));
    EXPECT_DOUBLE_EQ(w.flops, 17179869184.0);
    EXPECT_DOUBLE_EQ(w.bytes, 50331648);
    EXPECT_EQ(w.peak, Peak::Fp32Gemm);
    // DLRM interaction: bmm([4096,9,128], [4096,128,9]) bf16: FLOPs 2*4096*9*128*9 = 84,934,656;
    // bytes 2 * 4096*9*128*2 (9,437,184 each) + C 4096*9*9*2 = 663,552 -> 19,537,920.
    w = workOf("aten::bmm", shaped(kDlrm, "aten::bmm", "[[4096,9,128],[4096,128,9]]"));
    EXPECT_DOUBLE_EQ(w.flops, 84934656);
    EXPECT_DOUBLE_EQ(w.bytes, 19537920);
    // The same shapes as batched matmul and baddbmm (signature in the trace format: no shipped
    // trace holds them). baddbmm adds C0 [4096,9,9] (663,552 bytes) and 4096*9*9 = 331,776 FLOPs.
    w = workOf(
        "aten::matmul",
        R"({"dims":[[4096,9,128],[4096,128,9]],"types":["c10::BFloat16","c10::BFloat16"],"concrete":["",""]})");
    EXPECT_DOUBLE_EQ(w.flops, 84934656);
    w = workOf(
        "aten::baddbmm",
        R"({"dims":[[4096,9,9],[4096,9,128],[4096,128,9],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"],"concrete":["","","","1","1"]})");
    EXPECT_DOUBLE_EQ(w.flops, 84934656 + 331776);
    EXPECT_DOUBLE_EQ(w.bytes, 19537920 + 663552);
    // linear(x[1,141,512], W[2048,512], b[2048]) as bert's FFN would call it: M = 141, K = 512,
    // N = 2048: FLOPs 2*141*512*2048 = 295,698,432; bytes x 144,384 + W 2,097,152 + b 4,096 +
    // out 141*2048*2 = 577,536 -> 2,823,168.
    w = workOf(
        "aten::linear",
        R"({"dims":[[1,141,512],[2048,512],[2048]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16"],"concrete":["","",""]})");
    EXPECT_DOUBLE_EQ(w.flops, 295698432);
    EXPECT_DOUBLE_EQ(w.bytes, 2823168);
    for (const char* op :
         {"aten::addmm", "aten::mm", "aten::bmm", "aten::matmul", "aten::baddbmm", "aten::linear"})
        cover(op);
}

GOLDEN(ScaledAndGroupedGemm) {
    // FP8 row-wise: _scaled_mm(A[8192,4096] e4m3, B[4096,28672] e4m3, scale_a[8192,1] f32,
    // scale_b[1,28672] f32, out_dtype 15 = bf16). FLOPs 2*8192*4096*28672 = 1,924,145,348,608.
    // Bytes: A 33,554,432 + B 117,440,512 + scales 32,768 + 114,688 + C 8192*28672*2 =
    // 469,762,048 -> 620,904,448. FP8 rate.
    Work w =
        workOf("aten::_scaled_mm", shaped(kFp8, "aten::_scaled_mm", "[[8192,4096],[4096,28672]"));
    EXPECT_DOUBLE_EQ(w.flops, 1924145348608.0);
    EXPECT_DOUBLE_EQ(w.bytes, 620904448);
    EXPECT_EQ(w.peak, Peak::Fp8);
    // MoE experts: _grouped_mm(A[16384,4096], B[8,4096,28672], offs[8] int32) bf16 (ragged M):
    // FLOPs 2*16384*4096*28672 = 3,848,290,697,216. Bytes: A 134,217,728 + B 1,879,048,192 +
    // offs 32 + C 16384*28672*2 = 939,524,096 -> 2,952,790,048.
    w = workOf("aten::_grouped_mm",
               shaped(kMoe, "aten::_grouped_mm", "[[16384,4096],[8,4096,28672]"));
    EXPECT_DOUBLE_EQ(w.flops, 3848290697216.0);
    EXPECT_DOUBLE_EQ(w.bytes, 2952790048.0);
    // Its weight gradient: A[28672,16384] x B[16384,4096], ragged K in 8 groups -> [8,28672,4096]:
    // FLOPs 2*28672*16384*4096 = 3,848,290,697,216; bytes A 939,524,096 + B 134,217,728 + offs 32
    // + C 8*28672*4096*2 = 1,879,048,192 -> 2,952,790,048.
    w = workOf("aten::_grouped_mm",
               shaped(kMoe, "aten::_grouped_mm", "[[28672,16384],[16384,4096]"));
    EXPECT_DOUBLE_EQ(w.flops, 3848290697216.0);
    EXPECT_DOUBLE_EQ(w.bytes, 2952790048.0);
    // _scaled_grouped_mm with the MoE shapes in FP8 (no shipped trace): A[16384,4096] e4m3 (67 MB),
    // B[8,4096,28672] e4m3 (939,524,096), scale_a[16384] f32 (65,536), scale_b[8,28672] f32
    // (917,504), offs 32, C bf16 939,524,096: bytes 67,108,864 + 939,524,096 + 65,536 + 917,504 +
    // 32 + 939,524,096 = 1,947,140,128; FLOPs as above.
    w = workOf(
        "aten::_scaled_grouped_mm",
        R"({"dims":[[16384,4096],[8,4096,28672],[16384],[8,28672],[8],[],[],[],[]],"types":["c10::Float8_e4m3fn","c10::Float8_e4m3fn","float","float","int","","","",""],"concrete":["","","","","","","","",""]})");
    EXPECT_DOUBLE_EQ(w.flops, 3848290697216.0);
    EXPECT_DOUBLE_EQ(w.bytes, 1947140128.0);
    EXPECT_EQ(w.peak, Peak::Fp8);
    for (const char* op : {"aten::_scaled_mm", "aten::_grouped_mm", "aten::_scaled_grouped_mm"})
        cover(op);
}

GOLDEN(Convolution) {
    // ResNet-50 stem: cudnn_convolution(x[64,3,224,224], w[64,3,7,7], padding 3, stride 2,
    // dilation 1, groups 1) bf16. Out = (224 + 6 - 6 - 1)/2 + 1 = 112. FLOPs 2*64*64*112*112*3*49
    // = 15,105,785,856. Bytes: x 19,267,584 + w 18,816 + out 64*64*112*112*2 = 102,760,448 ->
    // 122,046,848.
    const Found stem = shaped(kResnet, "aten::cudnn_convolution", "[[64,3,224,224]");
    Work w = workOf("aten::cudnn_convolution", stem);
    EXPECT_DOUBLE_EQ(w.flops, 15105785856.0);
    EXPECT_DOUBLE_EQ(w.bytes, 122046848);
    // A 1x1 stride-2 projection: x[64,256,56,56], w[512,256,1,1], stride 2: out 28x28:
    // FLOPs 2*64*512*28*28*256 = 13,153,337,344; bytes x 102,760,448 + w 262,144 + out
    // 64*512*784*2 = 51,380,224 -> 154,402,816.
    w = workOf("aten::cudnn_convolution",
               shaped(kResnet, "aten::cudnn_convolution", "[[64,256,56,56],[512,256,1,1]"));
    EXPECT_DOUBLE_EQ(w.flops, 13153337344.0);
    EXPECT_DOUBLE_EQ(w.bytes, 154402816);
    // The stem through aten::convolution / _convolution / miopen_convolution (signatures in the
    // trace format, argument orders of those operators; no bias): the same work.
    const char* conv =
        R"({"dims":[[64,3,224,224],[64,3,7,7],[],[],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar"],"concrete":["","","","[2, 2]","[3, 3]","[1, 1]","False","[0, 0]","1"]})";
    EXPECT_DOUBLE_EQ(workOf("aten::convolution", conv).flops, 15105785856.0);
    EXPECT_DOUBLE_EQ(workOf("aten::_convolution", conv).bytes, 122046848);
    const char* miopen =
        R"({"dims":[[64,3,224,224],[64,3,7,7],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","","ScalarList","ScalarList","ScalarList","Scalar"],"concrete":["","","","[3, 3]","[2, 2]","[1, 1]","1"]})";
    EXPECT_DOUBLE_EQ(workOf("aten::miopen_convolution", miopen).flops, 15105785856.0);
    // Its backward (training; no shipped trace has shapes for it): grad_out[64,64,112,112],
    // mask [False, True, False] (the stem needs no grad_input): wgrad FLOPs = the forward's,
    // 15,105,785,856; bytes grad_out 102,760,448 + x 19,267,584 + grad_w 18,816 = 122,046,848.
    // With mask [True, True, True]: 2x FLOPs + bias 64*64*112*112 = 51,380,224; bytes + w 18,816
    // + grad_x 19,267,584 + grad_bias 128.
    const char* bwd =
        R"({"dims":[[64,64,112,112],[64,3,224,224],[64,3,7,7],[],[],[],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","ScalarList","ScalarList","ScalarList","ScalarList","Scalar","ScalarList","Scalar","ScalarList"],"concrete":["","","","[64]","[2, 2]","[3, 3]","[1, 1]","False","[0, 0]","1","[False, True, False]"]})";
    w = workOf("aten::convolution_backward", bwd);
    EXPECT_DOUBLE_EQ(w.flops, 15105785856.0);
    EXPECT_DOUBLE_EQ(w.bytes, 122046848);
    std::string all = bwd;
    all.replace(all.find("[False, True, False]"), 20, "[True, True, True]");
    w = workOf("aten::convolution_backward", all);
    EXPECT_DOUBLE_EQ(w.flops, 2 * 15105785856.0 + 51380224);
    EXPECT_DOUBLE_EQ(w.bytes, 122046848 + 18816 + 19267584 + 128);
    for (const char* op : {"aten::cudnn_convolution", "aten::convolution", "aten::_convolution",
                           "aten::miopen_convolution", "aten::convolution_backward"})
        cover(op);
}

GOLDEN(Attention) {
    // Causal flash forward, q/k/v [8,2048,16,128] bf16 (bshd): pairs 2048*2049/2 = 2,098,176;
    // FLOPs 2*8*16*2,098,176*(128+128) = 137,506,062,336. Bytes q+k+v 3*67,108,864 + out
    // 67,108,864 + fp32 logsumexp 8*16*2048*4 = 1,048,576 -> 269,484,032.
    const std::string causalFwd = R"("concrete":["","","","","","2048","2048","0.","True")";
    Work w = workOf("aten::_flash_attention_forward",
                    shaped(kFlash, "aten::_flash_attention_forward", causalFwd));
    EXPECT_DOUBLE_EQ(w.flops, 137506062336.0);
    EXPECT_DOUBLE_EQ(w.bytes, 269484032);
    // Not causal: pairs 2048^2 = 4,194,304 -> FLOPs 2*8*16*4,194,304*256 = 274,877,906,944.
    w = workOf("aten::_flash_attention_forward",
               shaped(kFlash, "aten::_flash_attention_forward",
                      R"("concrete":["","","","","","2048","2048","0.","False")"));
    EXPECT_DOUBLE_EQ(w.flops, 274877906944.0);
    // bert on the H100: q/k/v [1,141,8,64], not causal: pairs 19,881, FLOPs 2*8*19,881*128 =
    // 40,716,288; bytes 4*144,384 + lse 8*141*4 = 4,512 -> 582,048.
    w = workOf("aten::_flash_attention_forward",
               shaped(kBert, "aten::_flash_attention_forward", "[[1,141,8,64]"));
    EXPECT_DOUBLE_EQ(w.flops, 40716288);
    EXPECT_DOUBLE_EQ(w.bytes, 582048);
    // Causal flash backward: FLOPs 2*8*16*2,098,176*(3*128 + 2*128) = 343,765,155,840. Bytes:
    // reads dout, q, k, v, out (5*67,108,864) and lse 1,048,576; writes dq, dk, dv
    // (3*67,108,864) -> 537,919,488.
    w = workOf("aten::_flash_attention_backward",
               shaped(kFlash, "aten::_flash_attention_backward", R"("0.","True")"));
    EXPECT_DOUBLE_EQ(w.flops, 343765155840.0);
    EXPECT_DOUBLE_EQ(w.bytes, 537919488);
    // The efficient and cuDNN backends, causal (custom_mask_type 1; is_causal True in bhsd):
    // the same work.
    w = workOf("aten::_efficient_attention_forward",
               shaped(kEfficient, "aten::_efficient_attention_forward", R"("0.","1","True")"));
    EXPECT_DOUBLE_EQ(w.flops, 137506062336.0);
    EXPECT_DOUBLE_EQ(w.bytes, 269484032);
    w = workOf("aten::_efficient_attention_backward",
               shaped(kEfficient, "aten::_efficient_attention_backward", R"("","","1","False")"));
    EXPECT_DOUBLE_EQ(w.flops, 343765155840.0);
    EXPECT_DOUBLE_EQ(w.bytes, 537919488);
    w = workOf("aten::_cudnn_attention_forward",
               shaped(kCudnn, "aten::_cudnn_attention_forward", R"("True","0.","True")"));
    EXPECT_DOUBLE_EQ(w.flops, 137506062336.0);
    EXPECT_DOUBLE_EQ(w.bytes, 269484032);
    w = workOf("aten::_cudnn_attention_backward",
               shaped(kCudnn, "aten::_cudnn_attention_backward", R"("0.","True")"));
    EXPECT_DOUBLE_EQ(w.flops, 343765155840.0);
    EXPECT_DOUBLE_EQ(w.bytes, 537919488);
    // The SDPA-level operators above them launch no kernel themselves in these traces (their
    // calls are no shaped calls): signatures in the trace format, copied from each cpu_op.
    const char* flashSdpa =
        R"({"dims":[[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar"],"concrete":["","","","0.","True","False","0.088388347648318433"]})";
    w = workOf("aten::_scaled_dot_product_flash_attention", flashSdpa);
    EXPECT_DOUBLE_EQ(w.flops, 137506062336.0);
    EXPECT_DOUBLE_EQ(w.bytes, 269484032);
    const char* effSdpa =
        R"({"dims":[[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","","Scalar","Scalar","Scalar",""],"concrete":["","","","","True","0.","True",""]})";
    EXPECT_DOUBLE_EQ(workOf("aten::_scaled_dot_product_efficient_attention", effSdpa).flops,
                     137506062336.0);
    EXPECT_DOUBLE_EQ(workOf("aten::_scaled_dot_product_cudnn_attention", effSdpa).flops,
                     137506062336.0);
    const char* flashSdpaBwd =
        R"({"dims":[[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048],[],[],[],[],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","","","Scalar","Scalar","Scalar","Scalar","","","Scalar"],"concrete":["","","","","","","","","2048","2048","0.","True","","",""]})";
    w = workOf("aten::_scaled_dot_product_flash_attention_backward", flashSdpaBwd);
    EXPECT_DOUBLE_EQ(w.flops, 343765155840.0);
    EXPECT_DOUBLE_EQ(w.bytes, 537919488);
    const char* effSdpaBwd =
        R"({"dims":[[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[],[8,16,2048,128],[8,16,2048],[],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","","c10::BFloat16","float","long int","long int","Scalar","ScalarList","Scalar",""],"concrete":["","","","","","","","","","0.","[True, True, True, False]","True",""]})";
    EXPECT_DOUBLE_EQ(
        workOf("aten::_scaled_dot_product_efficient_attention_backward", effSdpaBwd).flops,
        343765155840.0);
    const char* cudnnSdpaBwd =
        R"({"dims":[[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,128],[8,16,2048,1],[],[],[],[],[],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","float","long int","long int","","","","Scalar","Scalar","Scalar","Scalar",""],"concrete":["","","","","","","","","","","","2048","2048","0.","True",""]})";
    EXPECT_DOUBLE_EQ(
        workOf("aten::_scaled_dot_product_cudnn_attention_backward", cudnnSdpaBwd).bytes,
        537919488);
    for (const char* op :
         {"aten::_flash_attention_forward", "aten::_flash_attention_backward",
          "aten::_efficient_attention_forward", "aten::_efficient_attention_backward",
          "aten::_cudnn_attention_forward", "aten::_cudnn_attention_backward",
          "aten::_scaled_dot_product_flash_attention",
          "aten::_scaled_dot_product_efficient_attention",
          "aten::_scaled_dot_product_cudnn_attention",
          "aten::_scaled_dot_product_flash_attention_backward",
          "aten::_scaled_dot_product_efficient_attention_backward",
          "aten::_scaled_dot_product_cudnn_attention_backward"})
        cover(op);
}

GOLDEN(ElementwiseWithBroadcasting) {
    // xcheck add_32M_f32: 3 x 33,554,432 x 4 = 402,653,184 bytes, 33,554,432 FLOPs (the
    // verifier's minimal_bytes and flops of the problem).
    const Found add = shaped("profiles/h200-xcheck/xcheck_add_32M_f32.json.gz", "aten::add",
                             "[[33554432],[33554432]");
    Work w = workOf("aten::add", add);
    EXPECT_DOUBLE_EQ(w.bytes, 402653184);
    EXPECT_DOUBLE_EQ(w.flops, 33554432);
    // Broadcasting, FP8 recipe: div(x[8192,14336] f32, amax[8192,1] f32): out 117,440,512
    // elements; bytes 469,762,048 + 32,768 + 469,762,048 = 939,556,864.
    w = workOf("aten::div", shaped(kFp8, "aten::div", "[[8192,14336],[8192,1]]"));
    EXPECT_DOUBLE_EQ(w.bytes, 939556864);
    EXPECT_DOUBLE_EQ(w.flops, 117440512);
    // MoE: mul(h[16384,4096] bf16, weights[16384,1] bf16): 134,217,728 + 32,768 + 134,217,728.
    w = workOf("aten::mul", shaped(kMoe, "aten::mul", "[[16384,4096],[16384,1]]"));
    EXPECT_DOUBLE_EQ(w.bytes, 268468224);
    // A wrapped Python scalar (0-d double) is no input: mul(x[8192,4096] f32, 0-d) reads and
    // writes 33,554,432 floats: 268,435,456 bytes.
    w = workOf("aten::mul",
               shaped(kMoe, "aten::mul", R"([[8192,4096],[]],"types":["float","double"])"));
    EXPECT_DOUBLE_EQ(w.bytes, 268435456);
    // In place with a Scalar: clamp_min_(x[64,256,56,56] bf16, 0): 2 x 102,760,448 bytes,
    // 51,380,224 FLOPs.
    w = workOf("aten::clamp_min_", shaped(kResnet, "aten::clamp_min_", "[[64,256,56,56]"));
    EXPECT_DOUBLE_EQ(w.bytes, 205520896);
    EXPECT_DOUBLE_EQ(w.flops, 51380224);
    // abs(x[8192,14336] bf16, out=[0]): the empty out= tensor is no input: 2 x 234,881,024.
    w = workOf("aten::abs", shaped(kFp8, "aten::abs", "[[8192,14336],[0]]"));
    EXPECT_DOUBLE_EQ(w.bytes, 469762048);
    // A comparison writes bool: eq(ids[1,141] int64, 1): 141*8 + 141 = 1,269 bytes.
    w = workOf("aten::eq", shaped(kBert, "aten::eq", "[[1,141]"));
    EXPECT_DOUBLE_EQ(w.bytes, 1269);
    // fill_(buf[134250496] u8, 0) writes only: 134,250,496 bytes.
    w = workOf("aten::fill_", shaped(kEfficient, "aten::fill_", "[[134250496]"));
    EXPECT_DOUBLE_EQ(w.bytes, 134250496);
    EXPECT_DOUBLE_EQ(w.flops, 0);

    // Every other elementwise entry, on the FP8 broadcast above: the same work as div (a
    // comparison: out in bool, 117,440,512 bytes instead of 469,762,048).
    const Found div = shaped(kFp8, "aten::div", "[[8192,14336],[8192,1]]");
    for (const WorkEntry& e : workTable()) {
        if (e.kind != "elementwise" || e.op == "aten::fill_" || e.op == "aten::zero_")
            continue;
        Work x = workOf(std::string(e.op), div);
        const bool comparison = e.formula.find("bool") != std::string_view::npos;
        EXPECT_DOUBLE_EQ(x.bytes, comparison ? 469762048 + 32768 + 117440512 : 939556864) << e.op;
        cover(std::string(e.op));
    }
    EXPECT_DOUBLE_EQ(workOf("aten::zero_", shaped(kEfficient, "aten::fill_", "[[134250496]")).bytes,
                     134250496);
    cover("aten::fill_");
    cover("aten::zero_");
}

GOLDEN(ReductionsSoftmaxPooling) {
    // ResNet head: mean(x[64,2048,7,7] bf16, [-1,-2], keepdim): reads 6,422,528 x 2 =
    // 12,845,056, writes 64*2048 x 2 = 262,144 -> 13,107,200; 6,422,528 FLOPs.
    Work w = workOf("aten::mean", shaped(kResnet, "aten::mean", "[[64,2048,7,7]"));
    EXPECT_DOUBLE_EQ(w.bytes, 13107200);
    EXPECT_DOUBLE_EQ(w.flops, 6422528);
    // FP8 amax(x[8192,14336] bf16, [1], keepdim): 234,881,024 + 8192*2 = 234,897,408.
    w = workOf("aten::amax", shaped(kFp8, "aten::amax", "[[8192,14336]"));
    EXPECT_DOUBLE_EQ(w.bytes, 234897408);
    // bert's all(mask[1,141] bool): 141 + 1 bytes.
    w = workOf("aten::all", shaped(kBert, "aten::all", "[[1,141]]"));
    EXPECT_DOUBLE_EQ(w.bytes, 142);
    // Every other reduction as sum over dim 1 of [8192,14336] bf16 (a signature in the trace
    // format): reads 234,881,024, writes 8192 values (x their output size).
    const char* sum =
        R"({"dims":[[8192,14336],[],[],[]],"types":["c10::BFloat16","ScalarList","Scalar",""],"concrete":["","[1]","False",""]})";
    const std::map<std::string, double> outBytes = {{"aten::all", 1},    {"aten::any", 1},
                                                    {"aten::argmax", 8}, {"aten::argmin", 8},
                                                    {"aten::max", 10},   {"aten::min", 10}};
    for (const WorkEntry& e : workTable()) {
        if (e.kind != "reduction" || e.op == "aten::cumsum")
            continue;
        const std::string op(e.op);
        std::string sig = sum;
        if (op == "aten::linalg_vector_norm" || op == "aten::norm")  // dims at argument 2
            sig =
                R"({"dims":[[8192,14336],[],[],[],[]],"types":["c10::BFloat16","Scalar","ScalarList","Scalar",""],"concrete":["","2","[1]","False",""]})";
        const double ob = outBytes.count(op) ? outBytes.at(op) : 2;
        EXPECT_DOUBLE_EQ(workOf(op, sig).bytes, 234881024 + 8192 * ob) << op;
        cover(op);
    }
    // cumsum(x[4096,4096] f32, 1): 2 x 67,108,864 bytes, as the verifier's cumsum problem.
    w = workOf(
        "aten::cumsum",
        R"({"dims":[[4096,4096],[],[]],"types":["float","Scalar",""],"concrete":["","1",""]})");
    EXPECT_DOUBLE_EQ(w.bytes, 134217728);
    cover("aten::cumsum");

    // xcheck softmax_4096x8192_bf16: 2 x 67,108,864 bytes, 5 x 33,554,432 = 167,772,160 FLOPs
    // (the verifier's minimal_bytes and flops).
    const Found sm = shaped("profiles/h200-xcheck/xcheck_softmax_4096x8192_bf16.json.gz",
                            "aten::_softmax", "[[4096,8192]");
    w = workOf("aten::_softmax", sm);
    EXPECT_DOUBLE_EQ(w.bytes, 134217728);
    EXPECT_DOUBLE_EQ(w.flops, 167772160);
    EXPECT_DOUBLE_EQ(workOf("aten::_log_softmax", sm).bytes, 134217728);
    // Backward (no shipped trace): _softmax_backward_data(grad, out [4096,8192] bf16, -1, bf16):
    // reads 2 x 67,108,864, writes 67,108,864: 201,326,592.
    const char* smb =
        R"({"dims":[[4096,8192],[4096,8192],[],[]],"types":["c10::BFloat16","c10::BFloat16","Scalar","Scalar"],"concrete":["","","-1","15"]})";
    EXPECT_DOUBLE_EQ(workOf("aten::_softmax_backward_data", smb).bytes, 201326592);
    EXPECT_DOUBLE_EQ(workOf("aten::_log_softmax_backward_data", smb).bytes, 201326592);
    for (const char* op : {"aten::_softmax", "aten::_log_softmax", "aten::_softmax_backward_data",
                           "aten::_log_softmax_backward_data"})
        cover(op);

    // ResNet max pool: x[64,64,112,112] bf16, k 3, s 2, p 1: out 56x56 = 12,845,056 elements;
    // bytes 102,760,448 + 12,845,056 x (2 + 8 index) = 231,211,008; FLOPs 9 x 12,845,056.
    w = workOf("aten::max_pool2d_with_indices",
               shaped(kResnet, "aten::max_pool2d_with_indices", "[[64,64,112,112]"));
    EXPECT_DOUBLE_EQ(w.bytes, 231211008);
    EXPECT_DOUBLE_EQ(w.flops, 115605504);
    // avg_pool2d with the same window (no indices): 102,760,448 + 25,690,112 = 128,450,560.
    w = workOf(
        "aten::avg_pool2d",
        R"({"dims":[[64,64,112,112],[],[],[],[],[],[]],"types":["c10::BFloat16","ScalarList","ScalarList","ScalarList","Scalar","Scalar",""],"concrete":["","[3, 3]","[2, 2]","[1, 1]","False","True",""]})");
    EXPECT_DOUBLE_EQ(w.bytes, 128450560);
    // adaptive average pool of the head to 1x1: reads 12,845,056, writes 64*2048*2 = 262,144.
    const char* adaptive =
        R"({"dims":[[64,2048,7,7],[]],"types":["c10::BFloat16","ScalarList"],"concrete":["","[1, 1]"]})";
    EXPECT_DOUBLE_EQ(workOf("aten::_adaptive_avg_pool2d", adaptive).bytes, 13107200);
    EXPECT_DOUBLE_EQ(workOf("aten::adaptive_avg_pool2d", adaptive).bytes, 13107200);
    for (const char* op : {"aten::max_pool2d_with_indices", "aten::avg_pool2d",
                           "aten::_adaptive_avg_pool2d", "aten::adaptive_avg_pool2d"})
        cover(op);
}

GOLDEN(Norms) {
    // bert layer_norm(x[1,141,512] bf16, [512], w, b): 2 x 144,384 + 2 x 1,024 + fp32 mean and
    // rstd 2 x 141 x 4 = 1,128 -> 291,944 bytes; 8 x 72,192 = 577,536 FLOPs.
    const Found ln = shaped(kBert, "aten::native_layer_norm", "[[1,141,512]");
    Work w = workOf("aten::native_layer_norm", ln);
    EXPECT_DOUBLE_EQ(w.bytes, 291944);
    EXPECT_DOUBLE_EQ(w.flops, 577536);
    // xcheck layernorm_8192x4096_bf16: 2 x 67,108,864 + 2 x 8,192 + 2 x 8192 x 4 = 134,299,648
    // (the verifier counts 134,234,112: its problem has no mean/rstd outputs).
    w = workOf("aten::native_layer_norm",
               shaped("profiles/h200-xcheck/xcheck_layernorm_8192x4096_bf16.json.gz",
                      "aten::native_layer_norm", "[[8192,4096]"));
    EXPECT_DOUBLE_EQ(w.bytes, 134299648);
    // Its backward on bert's shapes (no shipped trace holds one): reads grad 144,384, x 144,384,
    // mean 564, rstd 564, w 1,024; writes grad_x 144,384, grad_w 1,024, grad_b 1,024 ->
    // 437,352 bytes; 10 x 72,192 FLOPs.
    w = workOf(
        "aten::native_layer_norm_backward",
        R"({"dims":[[1,141,512],[1,141,512],[],[1,141,1],[1,141,1],[512],[512],[]],"types":["c10::BFloat16","c10::BFloat16","ScalarList","float","float","c10::BFloat16","c10::BFloat16","ScalarList"],"concrete":["","","[512]","","","","","[True, True, True]"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 437352);
    EXPECT_DOUBLE_EQ(w.flops, 721920);
    // RMS norm of the same rows: reads x 144,384 and w 1,024, writes y 144,384 and rstd 564.
    w = workOf(
        "aten::_fused_rms_norm",
        R"({"dims":[[1,141,512],[],[512],[]],"types":["c10::BFloat16","ScalarList","c10::BFloat16","Scalar"],"concrete":["","[512]","","1e-06"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 290356);
    // ResNet eval batch norm x[64,256,56,56] bf16 + 4 x [256] bf16: 2 x 102,760,448 + 2,048.
    const Found bn = shaped(kResnet, "aten::native_batch_norm", "[[64,256,56,56]");
    w = workOf("aten::native_batch_norm", bn);
    EXPECT_DOUBLE_EQ(w.bytes, 205522944);
    EXPECT_DOUBLE_EQ(w.flops, 4 * 51380224.0);
    for (const char* op :
         {"aten::cudnn_batch_norm", "aten::miopen_batch_norm", "aten::_native_batch_norm_legit",
          "aten::_native_batch_norm_legit_no_training"})
        EXPECT_DOUBLE_EQ(workOf(op, bn).bytes, 205522944) << op;
    // Backward (no shipped trace): grad, x [64,256,56,56] bf16 and five [256] f32 vectors:
    // 102,760,448 + 2 x 102,760,448 + 5 x 1,024 = 308,286,464.
    w = workOf(
        "aten::native_batch_norm_backward",
        R"({"dims":[[64,256,56,56],[64,256,56,56],[256],[256],[256],[256],[256],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","float","float","float","float","float","Scalar","Scalar","ScalarList"],"concrete":["","","","","","","","True","1e-05","[True, True, True]"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 308286464);
    // Group norm, 32 groups on x[64,256,56,56] bf16: 2 x 102,760,448 + w, b 2 x 512 + fp32
    // mean/rstd 2 x 64 x 32 x 4 = 16,384 -> 205,538,304. Backward: grad + 2 x x + mean 8,192 +
    // rstd 8,192 + 3 x w 512 = 308,299,264.
    w = workOf(
        "aten::native_group_norm",
        R"({"dims":[[64,256,56,56],[256],[256],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar","Scalar","Scalar","Scalar"],"concrete":["","","","64","256","3136","32","1e-05"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 205538304);
    w = workOf(
        "aten::native_group_norm_backward",
        R"({"dims":[[64,256,56,56],[64,256,56,56],[64,32],[64,32],[256],[],[],[],[],[]],"types":["c10::BFloat16","c10::BFloat16","float","float","c10::BFloat16","Scalar","Scalar","Scalar","Scalar","ScalarList"],"concrete":["","","","","","64","256","3136","32","[True, True, True]"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 308299264);
    for (const char* op :
         {"aten::native_layer_norm", "aten::native_layer_norm_backward", "aten::_fused_rms_norm",
          "aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::miopen_batch_norm",
          "aten::_native_batch_norm_legit", "aten::_native_batch_norm_legit_no_training",
          "aten::native_batch_norm_backward", "aten::native_group_norm",
          "aten::native_group_norm_backward"})
        cover(op);
}

GOLDEN(EmbeddingIndexCopy) {
    // DLRM EmbeddingBag(weight[2000000,128] bf16, indices[262144], offsets[4096]): rows
    // 262,144 x 256 = 67,108,864 + indices 2,097,152 + offsets 32,768 + out 4096 x 256 =
    // 1,048,576 + int64 offset2bag and bag_size (262,144 + 4,096) x 8 = 2,129,920 -> 72,417,280;
    // 262,144 x 128 = 33,554,432 FLOPs.
    Work w =
        workOf("aten::_embedding_bag", shaped(kDlrm, "aten::_embedding_bag", "[[2000000,128]"));
    EXPECT_DOUBLE_EQ(w.bytes, 72417280);
    EXPECT_DOUBLE_EQ(w.flops, 33554432);
    // xcheck embedding_bag_sum_dlrm_f32 (forward only): weight [1000000,128] f32, L 524,288,
    // B 16,384: 268,435,456 + 4,194,304 + 131,072 + 8,388,608 + (524,288 + 16,384) x 8 =
    // 4,325,376 -> 285,474,816.
    w = workOf("aten::_embedding_bag_forward_only",
               shaped("profiles/h200-xcheck/xcheck_embedding_bag_sum_dlrm_f32.json.gz",
                      "aten::_embedding_bag_forward_only", "[[1000000,128]"));
    EXPECT_DOUBLE_EQ(w.bytes, 285474816);
    // bert's word embedding: index_select(weight[30522,512] bf16, 0, ids[141]): 2 x 141 x 512
    // x 2 + 141 x 8 = 289,896 bytes.
    w = workOf("aten::index_select", shaped(kBert, "aten::index_select", "[[30522,512]"));
    EXPECT_DOUBLE_EQ(w.bytes, 289896);
    // embedding(weight[30522,512], ids[1,141]) the same; its dense backward writes the whole
    // 30522 x 512 x 2 = 31,254,528 gradient + reads grad 144,384 and ids 1,128.
    EXPECT_DOUBLE_EQ(
        workOf(
            "aten::embedding",
            R"({"dims":[[30522,512],[1,141],[],[],[]],"types":["c10::BFloat16","long int","Scalar","Scalar","Scalar"],"concrete":["","","-1","False","False"]})")
            .bytes,
        289896);
    EXPECT_DOUBLE_EQ(
        workOf(
            "aten::embedding_dense_backward",
            R"({"dims":[[1,141,512],[1,141],[],[],[]],"types":["c10::BFloat16","long int","Scalar","Scalar","Scalar"],"concrete":["","","30522","-1","False"]})")
            .bytes,
        31254528 + 144384 + 1128);
    // MoE gather(x[8192,4096] bf16, 0, index[16384,4096] expanded (strides [1,0]),
    // out[16384,4096]): the index is 16,384 int64 in memory (131,072 bytes); gathered and
    // written 2 x 134,217,728 -> 268,566,528.
    w = workOf("aten::gather", shaped(kMoe, "aten::gather", "[[8192,4096],[],[16384,4096]"));
    EXPECT_DOUBLE_EQ(w.bytes, 268566528);
    // MoE index_add_(out[8192,4096], 0, index[16384], src[16384,4096] bf16): index 131,072 +
    // src 134,217,728 + read-modify-write 2 x 134,217,728 -> 402,784,256.
    w = workOf("aten::index_add_", shaped(kMoe, "aten::index_add_", "[[8192,4096],[],[16384]"));
    EXPECT_DOUBLE_EQ(w.bytes, 402784256);
    // index_copy_, scatter, scatter_add on the same shapes (no shipped trace): index_copy_
    // writes once: 131,072 + 2 x 134,217,728; scatter(self, 0, index[16384,4096] int64 dense,
    // src[16384,4096]): index 536,870,912 + src 134,217,728 + writes 134,217,728; scatter_add
    // reads them too: + 134,217,728.
    const char* idx =
        R"({"dims":[[8192,4096],[],[16384],[16384,4096]],"types":["c10::BFloat16","Scalar","long int","c10::BFloat16"],"concrete":["","0","",""]})";
    EXPECT_DOUBLE_EQ(workOf("aten::index_copy_", idx).bytes, 131072 + 2 * 134217728.0);
    const char* sc =
        R"({"dims":[[8192,4096],[],[16384,4096],[16384,4096]],"types":["c10::BFloat16","Scalar","long int","c10::BFloat16"],"concrete":["","0","",""]})";
    for (const char* op : {"aten::scatter", "aten::scatter_"})
        EXPECT_DOUBLE_EQ(workOf(op, sc).bytes, 536870912 + 2 * 134217728.0) << op;
    for (const char* op : {"aten::scatter_add", "aten::scatter_add_"})
        EXPECT_DOUBLE_EQ(workOf(op, sc).bytes, 536870912 + 3 * 134217728.0) << op;
    // DLRM cat of 9 x [4096,128] bf16 (element size 2 from the kernel's OpaqueType<2u>): read and
    // written once, 2 x 9 x 1,048,576 = 18,874,368 bytes.
    const Found cat = shaped(kDlrm, "aten::cat", "[[[4096,128],[4096,128],[4096,128]");
    EXPECT_EQ(cat.ctx.listElementBytes, 2);
    EXPECT_DOUBLE_EQ(workOf("aten::cat", cat).bytes, 18874368);
    EXPECT_DOUBLE_EQ(workOf("aten::stack", cat).bytes, 18874368);
    // ResNet copy_(f32[512] <- bf16[512]): 2,048 + 1,024 bytes.
    EXPECT_DOUBLE_EQ(workOf("aten::copy_", shaped(kResnet, "aten::copy_", "[[512],[512]")).bytes,
                     3072);
    // _to_copy(x[8192,4096] bf16, dtype 6 = float): 67,108,864 + 134,217,728; clone: 2 x the
    // input.
    EXPECT_DOUBLE_EQ(
        workOf(
            "aten::_to_copy",
            R"({"dims":[[8192,4096],[],[],[],[],[],[]],"types":["c10::BFloat16","Scalar","","","","Scalar",""],"concrete":["","6","","","","False",""]})")
            .bytes,
        201326592);
    EXPECT_DOUBLE_EQ(
        workOf("aten::clone",
               R"({"dims":[[8192,4096],[]],"types":["c10::BFloat16",""],"concrete":["",""]})")
            .bytes,
        134217728);
    for (const char* op :
         {"aten::_embedding_bag", "aten::_embedding_bag_forward_only", "aten::index_select",
          "aten::embedding", "aten::embedding_dense_backward", "aten::gather", "aten::index_add_",
          "aten::index_copy_", "aten::scatter", "aten::scatter_", "aten::scatter_add",
          "aten::scatter_add_", "aten::cat", "aten::stack", "aten::copy_", "aten::_to_copy",
          "aten::clone"})
        cover(op);
}

GOLDEN(Optimizer) {
    // max_autotune's _foreach_copy_([[8192,2048]] <- [[8192,2048]]), element size from the
    // multi_tensor_apply kernel's name: read and write 16,777,216 elements of 2 bytes =
    // 67,108,864 bytes.
    const Found fc = shaped(kAutotune, "aten::_foreach_copy_", "[[[8192,2048]]");
    EXPECT_EQ(fc.ctx.listElementBytes, 2);
    EXPECT_DOUBLE_EQ(workOf("aten::_foreach_copy_", fc).bytes, 67108864);
    cover("aten::_foreach_copy_");
    // A fused AdamW step over two f32 tensors [4096,4096] and [4096] (no shipped trace records
    // one with shapes): 7 x 16,781,312 x 4 = 469,876,736 bytes, 16 x 16,781,312 FLOPs.
    const char* adam =
        R"({"dims":[[[4096,4096],[4096]],[[4096,4096],[4096]],[[4096,4096],[4096]],[[4096,4096],[4096]],[],[[],[]],[],[],[],[],[],[],[],[],[]],"types":["TensorList","TensorList","TensorList","TensorList","TensorList","TensorList","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","Scalar","",""],"concrete":["","","","","","","0.001","0.9","0.999","0.01","1e-08","False","False","",""]})";
    for (const char* op : {"aten::_fused_adam_", "aten::_fused_adamw_"}) {
        Work w = workOf(op, adam, 4);
        EXPECT_DOUBLE_EQ(w.bytes, 469876736) << op;
        EXPECT_DOUBLE_EQ(w.flops, 16 * 16781312.0) << op;
        cover(op);
    }
    // _foreach_norm over the same two tensors: 16,781,312 x 4 + 2 x 4 = 67,125,256 bytes.
    const char* norm =
        R"({"dims":[[[4096,4096],[4096]],[]],"types":["TensorList","Scalar"],"concrete":["","2"]})";
    EXPECT_DOUBLE_EQ(workOf("aten::_foreach_norm", norm, 4).bytes, 67125256);
    cover("aten::_foreach_norm");
    // Every other foreach entry, (self, other) lists of those tensors: reads 2 lists, writes 1:
    // 3 x 67,125,248 = 201,375,744 bytes.
    const char* two =
        R"({"dims":[[[4096,4096],[4096]],[[4096,4096],[4096]]],"types":["TensorList","TensorList"],"concrete":["",""]})";
    for (const WorkEntry& e : workTable()) {
        const std::string op(e.op);
        if (op.rfind("aten::_foreach_", 0) != 0 || covered().count(op))
            continue;
        EXPECT_DOUBLE_EQ(workOf(op, two, 4).bytes, 201375744) << op;
        cover(op);
    }
    // Without an element size (no kernel name to read it from): no estimate, never a guess.
    auto args = parseCallSignature(two);
    ASSERT_TRUE(args);
    EXPECT_FALSE(operatorWork("aten::_foreach_add_", *args, WorkContext{0}));
}

TEST(HeadroomWork, InductorKernelsCountEachBufferOnce) {
    // resnet50 under torch.compile: triton_poi_fused__native_batch_norm_legit_no_training_relu_2
    // (x[64,64,56,56] bf16 in place, four [64] bf16 parameter vectors, xnumel 12,845,056): at
    // least xnumel bf16 elements stored: 25,690,112 bytes, no FLOPs counted.
    const char* kCompiled = "profiles/h200-shapes/resnet50_inference_compiled.json.gz";
    const std::string op = "triton_poi_fused__native_batch_norm_legit_no_training_relu_2";
    Work w = workOf(op, shaped(kCompiled, op, "[[64,64,56,56],[64],[64],[64],[64],[]]"));
    EXPECT_DOUBLE_EQ(w.bytes, 25690112);
    EXPECT_DOUBLE_EQ(w.flops, 0);
    EXPECT_EQ(w.peak, Peak::Vector);
    const WorkEntry* e = findWorkEntry(op);
    ASSERT_TRUE(e);
    EXPECT_EQ(e->op, "triton_poi_*");
    EXPECT_TRUE(findWorkEntry("triton_red_fused_sum_0"));
    EXPECT_TRUE(findWorkEntry("triton_per_fused_native_layer_norm_3"));
    // A GEMM template Inductor wrote says nothing of its shape: no entry, no estimate.
    EXPECT_FALSE(findWorkEntry("triton_tem_fused_mm_0"));
    EXPECT_FALSE(findWorkEntry("triton_poi_"));  // the prefix alone is no kernel name
    // A reduction: xnumel 4096, r0_numel 1024, bf16 and fp32 buffers: (4096 * 1024 + 4096) x 2.
    auto red = parseCallSignature(
        R"({"dims":[[4096,1024],[4096],[],[]],"types":["c10::BFloat16","float","Scalar","Scalar"],"concrete":["","","4096","1024"]})");
    ASSERT_TRUE(red);
    auto rw = operatorWork("triton_red_fused_sum_0", *red);
    ASSERT_TRUE(rw);
    EXPECT_DOUBLE_EQ(rw->bytes, (4096.0 * 1024 + 4096) * 2);
    // Without its sizes (no Concrete Inputs) there is no estimate.
    auto bare = parseCallSignature(
        R"({"dims":[[4096,1024],[]],"types":["c10::BFloat16","Scalar"],"concrete":["",""]})");
    EXPECT_FALSE(operatorWork("triton_poi_fused_add_0", *bare));
}

TEST(HeadroomWork, NoEntryOrNoShapesIsNoEstimate) {
    // DLRM's aten::index: the trace does not record its index tensors' shapes ([] for the
    // optional list): no estimate, and an operator not in the table has none either.
    const Found index = shaped(kDlrm, "aten::index", "[[4096,9,9]");
    EXPECT_FALSE(operatorWork("aten::index", index.args, index.ctx));
    EXPECT_FALSE(operatorWork("aten::tril_indices", index.args, index.ctx));
    EXPECT_FALSE(parseCallSignature("not json"));
    // A GEMM whose recorded dims do not fit (a 1-d operand): no estimate.
    EXPECT_FALSE(operatorWork(
        "aten::mm",
        *parseCallSignature(
            R"({"dims":[[4096],[4096,4096]],"types":["float","float"],"concrete":["",""]})")));
}

TEST(HeadroomWork, EveryTableEntryHasAGoldenCase) {
    // Every golden case again (each cover()s the operators it computes), then the table.
    goldenGemm();
    goldenScaledAndGroupedGemm();
    goldenConvolution();
    goldenAttention();
    goldenElementwiseWithBroadcasting();
    goldenReductionsSoftmaxPooling();
    goldenNorms();
    goldenEmbeddingIndexCopy();
    goldenOptimizer();
    for (const WorkEntry& e : workTable()) {
        EXPECT_TRUE(covered().count(std::string(e.op))) << e.op << " has no golden case";
        EXPECT_FALSE(e.formula.empty()) << e.op;
    }
    // The table is sorted and unique (findWorkEntry's binary search relies on it).
    for (size_t i = 1; i < workTable().size(); ++i)
        EXPECT_LT(workTable()[i - 1].op, workTable()[i].op);
}

TEST(HeadroomWork, ElementSizeFromKernelNames) {
    EXPECT_EQ(
        elementBytesFromKernelName(
            "void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::"
            "(anonymous namespace)::OpaqueType<2u>, unsigned int, 2, 128, 1, 16, 8>(char*)"),
        2);
    EXPECT_EQ(elementBytesFromKernelName("void at::native::vectorized_elementwise_kernel<4, "
                                         "at::native::CUDAFunctor_add<float>, std::array<char*, "
                                         "3ul> >(int, ...)"),
              4);
    EXPECT_EQ(elementBytesFromKernelName("nvjet_sm90_tst_128x64_64x8_1x2_h_bz_bias_TNT"), 0);
    EXPECT_EQ(dtypeBytes("c10::Float8_e4m3fn"), 1);
    EXPECT_EQ(dtypeBytes("Scalar"), 0);
}

// Serving stacks' operators (core/base/servingoperators.h), on the vLLM layer of
// tests/data/kineto/serving_vllm.json (256 tokens, hidden 4096, bf16), by hand.
TEST(HeadroomWork, ServingOperatorsByHand) {
    auto work = [](const char* op, const char* signature) {
        const auto args = parseCallSignature(signature);
        EXPECT_TRUE(args) << op;
        const auto w = operatorWork(op, *args);
        EXPECT_TRUE(w) << op;
        return w.value_or(Work{});
    };
    // rms_norm(out, x, w): out 2,097,152 + x 2,097,152 + w 8,192; 4 x 1,048,576 FLOPs.
    Work w = work(
        "_C::rms_norm",
        R"({"dims":[[256,4096],[256,4096],[4096],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"],"concrete":["","","","1e-05"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 4202496);
    EXPECT_DOUBLE_EQ(w.flops, 4194304);
    // Without a weight (vLLM's newest): out + x.
    w = work(
        "_C::rms_norm",
        R"({"dims":[[256,4096],[256,4096],[],[]],"types":["c10::BFloat16","c10::BFloat16","","Scalar"],"concrete":["","","","1e-05"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 4194304);
    // fused_add_rms_norm(x!, residual!, w): x and residual read and written, w read.
    w = work(
        "_C::fused_add_rms_norm",
        R"({"dims":[[256,4096],[256,4096],[4096],[]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar"],"concrete":["","","","1e-05"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 8396800);
    EXPECT_DOUBLE_EQ(w.flops, 5242880);
    // silu_and_mul(out [256,14336], x [256,28672]): 7,340,032 + 14,680,064.
    w = work(
        "_C::silu_and_mul",
        R"({"dims":[[256,14336],[256,28672]],"types":["c10::BFloat16","c10::BFloat16"],"concrete":["",""]})");
    EXPECT_DOUBLE_EQ(w.bytes, 22020096);
    EXPECT_DOUBLE_EQ(w.flops, 4.0 * 256 * 14336);
    // rotary_embedding: positions 2,048 + 256 cache rows of 128 bf16 (65,536) + query (2,097,152)
    // and key (524,288) read and written; 3 FLOPs per rotated element (all 128 of each head).
    w = work(
        "_C::rotary_embedding",
        R"({"dims":[[256],[256,4096],[256,1024],[],[8192,128],[]],"types":["long int","c10::BFloat16","c10::BFloat16","Scalar","c10::BFloat16","Scalar"],"concrete":["","","","128","","True"]})");
    EXPECT_DOUBLE_EQ(w.bytes, 2048 + 65536 + 2 * (2097152 + 524288));
    EXPECT_DOUBLE_EQ(w.flops, 3.0 * (1048576 + 262144));
    // static_scaled_fp8_quant: one byte out per element, x and the float scale read.
    w = work(
        "_C::static_scaled_fp8_quant",
        R"({"dims":[[256,4096],[256,4096],[1]],"types":["c10::Float8_e4m3fn","c10::BFloat16","float"],"concrete":["","",""]})");
    EXPECT_DOUBLE_EQ(w.bytes, 1048576 + 2097152 + 4);
    // reshape_and_cache_flash: key and value read, as many bf16 elements written into each
    // cache (not the caches' size), the slots read.
    w = work(
        "_C_cache_ops::reshape_and_cache_flash",
        R"({"dims":[[256,8,128],[256,8,128],[2048,16,8,128],[2048,16,8,128],[256],[],[1],[1]],"types":["c10::BFloat16","c10::BFloat16","c10::BFloat16","c10::BFloat16","long int","","float","float"],"concrete":["","","","","","","",""]})");
    EXPECT_DOUBLE_EQ(w.bytes, 4 * 524288 + 2048);
    EXPECT_DOUBLE_EQ(w.flops, 0);
    // Every serving operator has an entry with a formula, found by its name.
    for (const ServingOperator& s : servingOperators()) {
        const WorkEntry* e = findWorkEntry(s.name);
        ASSERT_TRUE(e) << s.name;
        EXPECT_EQ(e->op, s.name);
        EXPECT_FALSE(e->formula.empty());
    }
}

}  // namespace reach_test_work_test
