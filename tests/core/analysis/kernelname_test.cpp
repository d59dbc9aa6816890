// Display names of kernels (core/analysis/kernelname.h): the issue's examples, the golden table of
// real names from every shipped trace (tests/golden/kernelnames/display_names.json), and how
// often distinct kernels of one trace read alike (tests/golden/kernelnames/collisions.json).
// A mismatch writes <file>.actual; REACH_UPDATE_GOLDEN=1 rewrites the display names and the
// collision report (the names themselves are chosen by hand and only checked).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "core/analysis/kernelname.h"
#include "core/base/demangle.h"
#include "core/trace/profilereader.h"

namespace reach_test_kernelname_test {  // unity builds: this file's names stay its own

using namespace reach;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string readText(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool updateGolden() {
    const char* update = std::getenv("REACH_UPDATE_GOLDEN");
    return update && std::string(update) == "1";
}

// Compares text with a golden file; writes .actual on mismatch (or the golden when updating).
void expectGolden(const fs::path& golden, const std::string& actual) {
    const fs::path actualPath = golden.string() + ".actual";
    if (updateGolden()) {
        fs::create_directories(golden.parent_path());
        std::ofstream(golden, std::ios::binary) << actual;
        fs::remove(actualPath);
        return;
    }
    ASSERT_TRUE(fs::exists(golden)) << golden << " is missing; run with REACH_UPDATE_GOLDEN=1";
    if (readText(golden) != actual) {
        std::ofstream(actualPath, std::ios::binary) << actual;
        ADD_FAILURE() << "differs from " << golden << "; wrote " << actualPath << "\n  diff -u "
                      << golden << " " << actualPath;
    } else {
        fs::remove(actualPath);
    }
}

// Every shipped profile (datasets/profiles/**), relative to datasets/profiles, with the distinct
// names Reach reads from it. Read once for all tests of this file.
const std::map<std::string, std::vector<std::string>>& shippedNames() {
    static const auto names = [] {
        std::map<std::string, std::vector<std::string>> out;
        const fs::path root = fs::path(REACH_DATASETS) / "profiles";
        for (const auto& e : fs::recursive_directory_iterator(root)) {
            const std::string file = e.path().filename().string();
            if (!e.is_regular_file() || !(file.ends_with(".json.gz") || file.ends_with(".sqlite")))
                continue;
            const Workload w = readProfile(e.path().string());
            std::vector<std::string>& list = out[fs::relative(e.path(), root).generic_string()];
            for (const KernelStats& k : w.kernels)
                list.push_back(k.name);
        }
        return out;
    }();
    return names;
}

}  // namespace

TEST(KernelDisplayName, IssueExamples) {
    EXPECT_EQ(kernelDisplayName(
                  "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<"
                  "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
                  "MulFunctor<float>>, std::array<char*, 3>>(int, at::native::BinaryFunctor<"
                  "c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::"
                  "MulFunctor<float>>, std::array<char*, 3>)"),
              "vectorized_elementwise_kernel<MulFunctor<bf16>>");
    EXPECT_EQ(kernelDisplayName("void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, "
                                "c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)"),
              "rms_norm_kernel<bf16>");
    // A demangled return type first; a comparison inside its template arguments.
    const std::string actAndMul = kernelDisplayName(
        "std::enable_if<(8)>0, void>::type vllm::act_and_mul_kernel<"
        "c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>("
        "c10::BFloat16*, c10::BFloat16 const*, int)");
    EXPECT_EQ(actAndMul, "act_and_mul_kernel<silu_kernel<bf16>>");
    EXPECT_EQ(actAndMul.find("enable_if"), std::string::npos);
    EXPECT_EQ(kernelDisplayName("std::enable_if<(8)>(0), void>::type vllm::act_and_mul_kernel<"
                                "c10::Half, &vllm::gelu_kernel<c10::Half>, true>(c10::Half*)"),
              "act_and_mul_kernel<gelu_kernel<fp16>>");
    EXPECT_EQ(kernelDisplayName("nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_TNN"),
              "nvjet_sm90_tst_192x192_64x4_2x1_v_bz_coopB_TNN");
    EXPECT_EQ(kernelDisplayName("triton_poi_fused_add_5"), "triton_poi_fused_add_5");
    EXPECT_EQ(kernelDisplayName("Memcpy HtoD (Pageable -> Device)"),
              "Memcpy HtoD (Pageable -> Device)");
    EXPECT_EQ(kernelDisplayName("Memset (Device)"), "Memset (Device)");
}

TEST(KernelDisplayName, LambdasAnonymousNamespacesAndMangledNames) {
    // The op of a lambda is the function it is defined in; its element type the lambda's own.
    EXPECT_EQ(kernelDisplayName(
                  "void at::native::vectorized_elementwise_kernel<4, at::native::nan_to_num_kernel_"
                  "cuda(at::TensorIteratorBase&, c10::optional<double>, c10::optional<double>, "
                  "c10::optional<double>)::{lambda()#1}::operator()() const::{lambda()#2}::"
                  "operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, ...)"),
              "vectorized_elementwise_kernel<nan_to_num_kernel_cuda<f32>>");
    EXPECT_EQ(kernelDisplayName("void at::native::(anonymous namespace)::max_pool_forward_nhwc<"
                                "c10::BFloat16, int>(c10::BFloat16 const*, int)"),
              "max_pool_forward_nhwc<bf16>");
    // Mangled names are demangled first.
    EXPECT_EQ(kernelDisplayName("_ZN5reach4test12saxpy_kernelIfEEvPT_S3_fi"), "saxpy_kernel<f32>");
    // One the demangler rejects is read from its source names.
    EXPECT_EQ(kernelDisplayName("_ZN7cutlass13device_kernelIN4gemm13GemmUniversalINS_10bfloat16_t"
                                "E28MMA_64x256x16_F32BF16BF16_SSIEEEEvNT_6ParamsE!"),
              "GemmUniversal<bf16, MMA_64x256x16_F32BF16BF16_SS>");
    EXPECT_EQ(kernelDisplayName("_Zgarbage"), "_Zgarbage");
}

TEST(KernelDisplayName, ShortTypesAndElision) {
    EXPECT_EQ(shortTypeName("c10::BFloat16"), "bf16");
    EXPECT_EQ(shortTypeName("c10::Half const"), "fp16");
    EXPECT_EQ(shortTypeName("float"), "f32");
    EXPECT_EQ(shortTypeName("unsigned long"), "u64");
    EXPECT_EQ(shortTypeName("at::native::OpaqueType<2u>"), "b16");
    EXPECT_EQ(shortTypeName("float*"), "");
    EXPECT_EQ(shortTypeName("at::native::MulFunctor<float>"), "");
    // Elided in the middle: the head names the kernel, the tail keeps tile shape and layout.
    const std::string cutlass =
        "cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8";
    EXPECT_EQ(kernelDisplayName("void cutlass::Kernel2<" + cutlass + ">(" + cutlass + "::Params)"),
              cutlass);
    const std::string elided = kernelDisplayName(cutlass, 40);
    EXPECT_EQ(elided.size(), 40u);
    EXPECT_TRUE(elided.starts_with("cutlass_80_tensorop")) << elided;
    EXPECT_TRUE(elided.ends_with("_tn_align8")) << elided;
    EXPECT_NE(elided.find("..."), std::string::npos) << elided;
    EXPECT_LE(kernelDisplayName(std::string(500, 'x'), 40).size(), 40u);
    EXPECT_EQ(kernelDisplayName(""), "");
}

// Real names, pinned: each must occur in the trace it names, and read as the golden file says.
TEST(KernelDisplayName, GoldenNamesFromShippedTraces) {
    const fs::path golden = fs::path(REACH_GOLDEN) / "kernelnames" / "display_names.json";
    ASSERT_TRUE(fs::exists(golden)) << golden;
    json doc = json::parse(readText(golden));
    ASSERT_TRUE(doc.is_array());
    EXPECT_GE(doc.size(), 60u);
    const auto& traces = shippedNames();
    std::set<std::string> kinds;
    for (json& entry : doc) {
        const std::string trace = entry.at("trace").get<std::string>();
        const std::string name = entry.at("name").get<std::string>();
        ASSERT_TRUE(traces.count(trace)) << "no shipped trace " << trace;
        const auto& names = traces.at(trace);
        EXPECT_NE(std::find(names.begin(), names.end(), name), names.end())
            << trace << " has no kernel named " << name.substr(0, 200);
        entry["display_name"] = kernelDisplayName(name);
        kinds.insert(entry.at("kind").get<std::string>());
    }
    // The table covers what the issue asks for.
    for (const char* k : {"templated", "lambda", "mangled", "return_type_first", "library",
                          "triton", "activity", "anonymous_namespace"}) {
        EXPECT_TRUE(kinds.count(k)) << "no golden name of kind " << k;
    }
    expectGolden(golden, doc.dump(1) + "\n");
}

namespace {

// Identifiers of a demangled name that tell kernels apart to a reader: everything but numbers,
// booleans, lambda ordinals (not identifiers) and the allowed differences below.
std::set<std::string> tellingTokens(const std::string& name) {
    // Differences a display name may drop: which operand of a binary op is a CPU scalar (A/B
    // unary wrappers around the same functor), the value type or null type of a cub policy, and
    // whether an elementwise loop casts its operands (gpu_kernel_impl against _nocast, as it drops
    // LoadWithCast; the eager encoder's add of fp32 gradients has both).
    static const std::set<std::string> kAllowed = {
        "AUnaryFunctor", "BUnaryFunctor", "BinaryFunctor",   "NullType",
        "float",         "int",           "gpu_kernel_impl", "gpu_kernel_impl_nocast"};
    static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
    std::set<std::string> out;
    for (auto it = std::sregex_iterator(name.begin(), name.end(), word);
         it != std::sregex_iterator(); ++it) {
        const std::string w = it->str();
        if (w != "true" && w != "false" && !kAllowed.count(w))
            out.insert(w);
    }
    return out;
}

}  // namespace

// Distinct kernels of one trace rarely read alike, and when they do, only because they differ in
// what a display name leaves out (launch bounds, vector widths, flags, index types, layouts).
TEST(KernelDisplayName, DistinctKernelsOfOneTraceRarelyCollide) {
    json report = json::object();
    size_t kernels = 0, collisions = 0;
    for (const auto& [trace, names] : shippedNames()) {
        std::map<std::string, std::vector<std::string>> byDisplay;
        for (const std::string& n : names)
            byDisplay[kernelDisplayName(n)].push_back(n);
        json groups = json::array();
        size_t extra = 0;
        for (const auto& [display, group] : byDisplay) {
            if (group.size() < 2)
                continue;
            extra += group.size() - 1;
            groups.push_back({{"display_name", display}, {"kernels", group.size()}});
            const bool mangled = std::all_of(group.begin(), group.end(), [](const auto& n) {
                return looksMangled(n) && looksMangled(demangle(n));
            });
            if (mangled)
                continue;  // names the demangler rejects have no readable parts to compare
            const std::set<std::string> first = tellingTokens(group.front());
            for (const std::string& other : group) {
                EXPECT_EQ(tellingTokens(other), first)
                    << trace << ": '" << display << "' is the display name of kernels that differ"
                    << " in a telling part:\n  " << group.front().substr(0, 300) << "\n  "
                    << other.substr(0, 300);
            }
        }
        report[trace] = {{"kernels", names.size()},
                         {"display_names", byDisplay.size()},
                         {"colliding", extra},
                         {"groups", groups}};
        kernels += names.size();
        collisions += extra;
        // Rarely: at most one kernel in five of a trace (small traces of templated kernels such
        // as flash attention's forward with and without a causal flag reach 2 of 14) and one in
        // twenty over all traces shares its display name with another; the token check above is
        // what guarantees nothing telling was dropped.
        EXPECT_LE(extra * 5, names.size()) << trace;
    }
    EXPECT_GE(report.size(), 30u) << "the shipped traces were not all found";
    EXPECT_LE(collisions * 20, kernels);
    std::cout << "[ kernel display names ] " << collisions << " of " << kernels
              << " distinct kernels share a display name with another kernel of their trace\n";
    expectGolden(fs::path(REACH_GOLDEN) / "kernelnames" / "collisions.json", report.dump(1) + "\n");
}

}  // namespace reach_test_kernelname_test
