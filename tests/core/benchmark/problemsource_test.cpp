// A problem file is code a user runs, made from a stranger's trace: nothing from the trace may
// reach it but checked numbers, a checked operator name and harmless comments.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/benchmark/problemsource.h"

using namespace reach;
using nlohmann::json;

namespace {

json sig(json dims, json types, json concrete, json strides = nullptr) {
    json j = {{"dims", dims}, {"types", types}, {"concrete", concrete}};
    if (!strides.is_null())
        j["strides"] = strides;
    return j;
}

// Every line of the file that is not a comment, a blank or the fixed helper code.
bool hasLineStartingWith(const std::string& source, const std::string& prefix) {
    size_t at = 0;
    while (at < source.size()) {
        const size_t end = source.find('\n', at);
        const std::string line = source.substr(at, end - at);
        if (line.rfind(prefix, 0) == 0)
            return true;
        if (end == std::string::npos)
            break;
        at = end + 1;
    }
    return false;
}

}  // namespace

TEST(ProblemSource, AddmmKeepsItsShapesDtypesStridesAndScalars) {
    const ProblemSource p = problemSource(
        "aten::addmm",
        sig({{512}, {4096, 13}, {13, 512}, json::array(), json::array()},
            {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"},
            {"", "", "", "1", "1"}, {{1}, {13, 1}, {1, 13}, json::array(), json::array()}),
        {"operator: aten::addmm"}, "float32");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("_overload(torch.ops.aten.addmm, args)"), std::string::npos);
    EXPECT_NE(p.source.find("args = [x0, x1, x2, 1, 1]"), std::string::npos);
    // The transposed operand stays transposed: its strides go to _draw.
    EXPECT_NE(p.source.find("_draw([13, 512], [1, 13], torch.bfloat16)"), std::string::npos);
    EXPECT_NE(p.source.find("def get_init_inputs():"), std::string::npos);
}

// As the H200's eager encoder recorded it (torch 2.11): gelu_backward's `approximate` is a string
// the profiler shows with neither type nor value. Passed as None the call is an error; left out,
// the operator's default applies, and the header says so. A None inside the call stays.
TEST(ProblemSource, AnUnrecordedTrailingArgumentIsLeftToTheDefault) {
    const ProblemSource p =
        problemSource("aten::gelu_backward",
                      sig({{16, 512, 4096}, {16, 512, 4096}, json::array()},
                          {"c10::BFloat16", "c10::BFloat16", ""}, {"", "", ""},
                          {{2097152, 4096, 1}, {2097152, 4096, 1}, json::array()}),
                      {"operator: aten::gelu_backward"}, "float32");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("args = [x0, x1]\n"), std::string::npos) << p.source;
    EXPECT_NE(p.source.find("# assumed: arguments recorded without type or value at the end of "
                            "the call are left to the operator's defaults"),
              std::string::npos);

    const ProblemSource inner =
        problemSource("aten::native_layer_norm",
                      sig({{8, 1024}, json::array(), json::array(), json::array(), json::array()},
                          {"float", "ScalarList", "", "", "Scalar"},
                          {"", "[1024]", "", "", "1.0000000000000001e-05"},
                          {{1024, 1}, json::array(), json::array(), json::array(), json::array()}),
                      {"operator: aten::native_layer_norm"}, "float32");
    ASSERT_TRUE(inner.ok) << inner.why;
    // The literal Reach prints from the value: the shortest that reads back the same double.
    EXPECT_NE(inner.source.find("args = [x0, [1024], None, None, 1e-05]"), std::string::npos)
        << inner.source;
    EXPECT_EQ(inner.source.find("left to the operator's defaults"), std::string::npos);
}

TEST(ProblemSource, EmbeddingBagIndicesAreInRangeAndOffsetsValid) {
    const ProblemSource p =
        problemSource("aten::_embedding_bag",
                      sig({{2000000, 128},
                           {262144},
                           {4096},
                           json::array(),
                           json::array(),
                           json::array(),
                           json::array(),
                           json::array(),
                           json::array()},
                          {"c10::BFloat16", "long int", "long int", "Scalar", "Scalar", "Scalar",
                           "", "Scalar", "Scalar"},
                          {"", "", "", "False", "0", "False", "", "False", "-1"}),
                      {}, "float32");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("_draw([262144], [], torch.int64, 0, 2000000)"), std::string::npos)
        << p.source;
    EXPECT_NE(p.source.find("_offsets(4096, 262144, torch.int64)"), std::string::npos);
    EXPECT_NE(p.source.find("args = [x0, x1, x2, False, 0, False, None, False, -1]"),
              std::string::npos);
}

TEST(ProblemSource, ATensorListTakesTheDtypeItIsGivenAndSaysSo) {
    const ProblemSource p = problemSource(
        "aten::cat",
        sig({{{4096, 128}, {4096, 128}}, json::array()}, {"TensorList", "Scalar"}, {"", "1"}), {},
        "bfloat16");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("args = [[x0, x1], 1]"), std::string::npos) << p.source;
    EXPECT_NE(p.source.find("torch.bfloat16"), std::string::npos);
    ASSERT_FALSE(p.assumptions.empty());
}

TEST(ProblemSource, CopyWritesAFreshTensorLaidOutAsItsDestination) {
    const ProblemSource p =
        problemSource("aten::copy_",
                      sig({{8, 16}, {8, 16}, json::array()}, {"float", "c10::BFloat16", "Scalar"},
                          {"", "", "False"}),
                      {}, "float32");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("return torch.empty_like(x0).copy_(x1, False)"), std::string::npos)
        << p.source;
}

// Qwen2.5-14B's rotate_half negates x[..., 64:] of a [4, 40, 1, 128] tensor: a slice with
// gaps. Moved to the GPU as a tensor it would become contiguous and launch the vectorized kernel,
// not the strided one of the trace (measured on the H200), so the storage goes in and forward
// views it; a dense transposed operand still goes in as a tensor.
TEST(ProblemSource, ASliceWithGapsIsItsStorageViewedInForward) {
    const ProblemSource p = problemSource(
        "aten::neg", sig({{4, 40, 1, 64}}, {"c10::BFloat16"}, {""}, {{5120, 128, 5120, 1}}), {},
        "float32");
    ASSERT_TRUE(p.ok) << p.why;
    // 1 + 3*5120 + 39*128 + 0 + 63*1 elements span the view.
    EXPECT_NE(p.source.find("_values([20416], torch.bfloat16)"), std::string::npos) << p.source;
    EXPECT_NE(p.source.find("args = [x0.as_strided([4, 40, 1, 64], [5120, 128, 5120, 1])]"),
              std::string::npos);
    // An expanded (stride 0) operand is a view too; a dense one is not.
    const ProblemSource e = problemSource(
        "aten::mul", sig({{8, 16}, {8, 16}}, {"float", "float"}, {"", ""}, {{16, 1}, {0, 1}}), {},
        "float32");
    ASSERT_TRUE(e.ok) << e.why;
    EXPECT_NE(e.source.find("args = [x0, x1.as_strided([8, 16], [0, 1])]"), std::string::npos)
        << e.source;
    EXPECT_NE(e.source.find("_values([16], torch.float32)"), std::string::npos);
    // A copy into a viewed destination writes a fresh storage viewed the same way.
    const ProblemSource c =
        problemSource("aten::copy_",
                      sig({{4, 64}, {4, 64}, json::array()}, {"float", "float", "Scalar"},
                          {"", "", "False"}, {{128, 1}, {64, 1}, json::array()}),
                      {}, "float32");
    ASSERT_TRUE(c.ok) << c.why;
    EXPECT_NE(c.source.find("torch.empty_like(x0).as_strided([4, 64], [128, 1]).copy_("),
              std::string::npos)
        << c.source;
}

TEST(ProblemSource, StridesSpanningTooMuchAreRefused) {
    std::string why;
    EXPECT_TRUE(
        decodeArguments(sig({{2, 2}}, {"float"}, {""}, {{int64_t(1) << 40, 1}}), &why).empty());
    EXPECT_NE(why.find("strides spanning"), std::string::npos) << why;
}

// x + 1e-6 on a float32 tensor: the profiler records the Python number as a 0-dim float64
// tensor without its value. Drawn as a GPU tensor it launched a two-operand kernel instead of
// the trace's CUDAFunctorOnSelf_add (measured on the H200): it is a number.
TEST(ProblemSource, AWrappedPythonNumberIsANumber) {
    const ProblemSource p =
        problemSource("aten::add",
                      sig({{4, 1, 1}, json::array(), json::array()}, {"float", "double", "Scalar"},
                          {"", "", "1"}, {{1, 1, 1}, json::array(), json::array()}),
                      {}, "float32");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("args = [x0, 0.5, 1]"), std::string::npos) << p.source;
    EXPECT_NE(p.source.find("def forward(self, x0):"), std::string::npos);
    // Beside tensors of its own dtype a 0-dim float64 tensor may be a real one: kept a tensor.
    const ProblemSource d = problemSource(
        "aten::add", sig({{4}, json::array()}, {"double", "double"}, {"", ""}), {}, "float32");
    ASSERT_TRUE(d.ok) << d.why;
    EXPECT_NE(d.source.find("args = [x0, x1]"), std::string::npos) << d.source;
}

TEST(ProblemSource, WhatCannotBeCalledSaysWhy) {
    EXPECT_FALSE(problemSource("vllm::moe_forward", sig({{4}}, {"float"}, {""}), {}, "").ok);
    EXPECT_FALSE(problemSource("triton_poi_fused_add_0", sig({{4}}, {"float"}, {""}), {}, "").ok);
    const ProblemSource random =
        problemSource("aten::native_dropout",
                      sig({{4}, {}, {}}, {"float", "Scalar", ""}, {"", "0.1", ""}), {}, "");
    EXPECT_FALSE(random.ok);
    EXPECT_NE(random.why.find("random"), std::string::npos);
    const ProblemSource list = problemSource(
        "aten::_foreach_add_",
        sig({json::array(), json::array()}, {"TensorList", "Scalar"}, {"", "1"}), {}, "");
    EXPECT_FALSE(list.ok);
    EXPECT_NE(list.why.find("without its tensors"), std::string::npos) << list.why;
    // Larger than any benchmark: 2^32 elements.
    EXPECT_FALSE(problemSource("aten::relu", sig({{65536, 65536}}, {"float"}, {""}), {}, "").ok);
}

// A hostile trace: code in a scalar, in an operator name, in a dtype, in a kernel name.
TEST(ProblemSource, NothingOfAHostileTraceBecomesCode) {
    for (const char* scalar : {"__import__('os').system('id')", "1; import os", "1)\nimport os#",
                               "[1, __import__('os')]", "0x10", "1e", "--1", "True or 1"}) {
        const ProblemSource p = problemSource(
            "aten::add",
            sig({{4}, {4}, json::array()}, {"float", "float", "Scalar"}, {"", "", scalar}), {}, "");
        EXPECT_FALSE(p.ok) << scalar << "\n" << p.source;
    }
    const ProblemSource list = problemSource(
        "aten::view", sig({{4}, json::array()}, {"float", "ScalarList"}, {"", "[2, os.getpid()]"}),
        {}, "");
    EXPECT_FALSE(list.ok);
    for (const char* op : {"aten::relu(x);import os", "aten::__class__.x", "aten::", "aten::1relu",
                           "aten::relu\nimport os"})
        EXPECT_FALSE(problemSource(op, sig({{4}}, {"float"}, {""}), {}, "").ok) << op;
    EXPECT_FALSE(problemSource("aten::relu", sig({{4}}, {"float')\nimport os#"}, {""}), {}, "").ok);

    const std::string evil = "kernel\nimport os\r\nos.system('id')\xe2\x80\xa8x";
    const ProblemSource p =
        problemSource("aten::relu", sig({{4}}, {"float"}, {""}), {"  kernel: " + evil}, "");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_FALSE(hasLineStartingWith(p.source, "import os")) << p.source;
    EXPECT_FALSE(hasLineStartingWith(p.source, "os.system")) << p.source;
    EXPECT_NE(p.source.find("kernel\\x0aimport os\\x0d\\x0aos.system('id')\\xe2\\x80\\xa8x"),
              std::string::npos)
        << p.source;
}

TEST(ProblemSource, CommentSafeIsOneLineOfPrintableAscii) {
    const std::string s = commentSafe(std::string("a\nb\x01\x7f\xff", 6), 100);
    EXPECT_EQ(s, "a\\x0ab\\x01\\x7f\\xff");
    EXPECT_EQ(commentSafe(std::string(300, 'k'), 10), std::string(10, 'k') + "...");
}

// reach-verify casts a problem's floating inputs to its --precision: the precision a verified run
// must have to count is the one its recorded call ran in.
TEST(ProblemSource, TheCallsPrecisionIsItsOneFloatingDtype) {
    const json addmm = sig({{512}, {4096, 13}, {13, 512}, json::array(), json::array()},
                           {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "Scalar", "Scalar"},
                           {"", "", "", "1", "1"});
    EXPECT_EQ(callPrecision("aten::addmm", addmm), "bf16");
    // Integer tensors beside it do not count (embedding_bag's indices and offsets).
    EXPECT_EQ(callPrecision("aten::add", sig({{1000, 64}, {256}, {8}},
                                             {"float", "long int", "long int"}, {"", "", ""})),
              "fp32");
    EXPECT_EQ(callPrecision("aten::add", sig({{8, 8}}, {"c10::Half"}, {""})), "fp16");
    EXPECT_EQ(callPrecision("aten::add", sig({{8, 8}}, {"double"}, {""})), "fp64");
    // Mixed (a bf16 activation, fp32 statistics): no single --precision reproduces the call.
    EXPECT_EQ(callPrecision("aten::add", sig({{8, 8}, {8}}, {"c10::BFloat16", "float"}, {"", ""})),
              "mixed");
    // A tensor list's dtype is not recorded: nothing to hold a run to.
    EXPECT_EQ(callPrecision("aten::add", sig({{{4, 8}, {4, 8}}, json::array()},
                                             {"TensorList", "Scalar"}, {"", "1"})),
              "");
    EXPECT_EQ(callPrecision("aten::add", json("not a signature")), "");
}

// The problem file carries that precision on a line of its own in its leading comments, where
// reach-verify reads it; a call with no floating tensor says none.
TEST(ProblemSource, TheFileSaysItsCallsPrecision) {
    const ProblemSource bf =
        problemSource("aten::relu", sig({{4}}, {"c10::BFloat16"}, {""}), {"profile: p.json"}, "");
    ASSERT_TRUE(bf.ok) << bf.why;
    const size_t at = bf.source.find(std::string("\n") + kPrecisionLine + "bf16\n");
    ASSERT_NE(at, std::string::npos) << bf.source;
    EXPECT_LT(at, bf.source.find("import torch"));
    const ProblemSource none =
        problemSource("aten::relu", sig({{4}}, {"long int"}, {""}), {"profile: p.json"}, "");
    ASSERT_TRUE(none.ok) << none.why;
    EXPECT_EQ(none.source.find(kPrecisionLine), std::string::npos);
}

// Python honours a coding declaration on line 1 or 2 (PEP 263): both are Reach's own, whatever
// the header holds (issue 37: a trace named `coding=unicode_escape` made a kernel name code).
TEST(ProblemSource, TheFirstTwoLinesAreReachsOwn) {
    const ProblemSource p =
        problemSource("aten::relu", sig({{4}}, {"float"}, {""}),
                      {"profile: x coding=unicode_escape y", "kernel: a\nb"}, "");
    ASSERT_TRUE(p.ok) << p.why;
    const size_t first = p.source.find('\n'), second = p.source.find('\n', first + 1);
    EXPECT_EQ(p.source.substr(0, first), "# -*- coding: utf-8 -*-");
    EXPECT_EQ(p.source.substr(first + 1, second - first - 1),
              "# A KernelBench-format problem made by reach-cli extract from a profile.");
    // On line 3, where Python reads no declaration.
    const size_t third = p.source.find('\n', second + 1);
    EXPECT_GT(p.source.find("coding=unicode_escape"), second);
    EXPECT_LT(p.source.find("coding=unicode_escape"), third);
}

// Every literal is one Reach printed from the value it parsed, never the trace's text.
TEST(ProblemSource, EveryLiteralIsOneReachPrinted) {
    auto literal = [](const std::string& scalar) {
        const ProblemSource p = problemSource(
            "aten::add",
            sig({{4}, {4}, json::array()}, {"float", "float", "Scalar"}, {"", "", scalar}), {}, "");
        if (!p.ok)
            return std::string("refused: ") + p.why;
        const std::string call = "args = [x0, x1, ";
        const size_t at = p.source.find(call);
        return p.source.substr(at + call.size(), p.source.find(']', at) - at - call.size());
    };
    EXPECT_EQ(literal("01"), "1");  // no Python: a leading zero
    EXPECT_EQ(literal("-0"), "0");
    EXPECT_EQ(literal("-007"), "-7");
    EXPECT_EQ(literal("2."), "2.0");  // stays a float
    EXPECT_EQ(literal("1.50"), "1.5");
    EXPECT_EQ(literal("1e999"), "float('inf')");
    EXPECT_EQ(literal("-1e999"), "float('-inf')");
    EXPECT_EQ(literal("1e-400"), "0.0");
    EXPECT_EQ(literal("9223372036854775807"), "9223372036854775807");
    // Past int64: no scalar a call takes; it ended extract with `internal error: stoll`.
    EXPECT_EQ(literal("9999999999999999999").rfind("refused: ", 0), 0u);
    EXPECT_EQ(literal("-9999999999999999999").rfind("refused: ", 0), 0u);

    const ProblemSource list = problemSource(
        "aten::view", sig({{4}, json::array()}, {"float", "ScalarList"}, {"", "[02, -01]"}), {},
        "");
    ASSERT_TRUE(list.ok) << list.why;
    EXPECT_NE(list.source.find("args = [x0, [2, -1]]"), std::string::npos) << list.source;
    // A dimension argument past int64 (index_select's dim) is refused, never a crash.
    const ProblemSource dim =
        problemSource("aten::index_select",
                      sig({{64, 8}, json::array(), {16}}, {"float", "Scalar", "long int"},
                          {"", "9999999999999999999", ""}),
                      {}, "");
    EXPECT_FALSE(dim.ok);
}

// The outputs of a problem are sized on meta tensors before anything is allocated.
TEST(ProblemSource, EveryProblemBoundsItsOutputsBeforeItAllocatesThem) {
    const ProblemSource p = problemSource(
        "aten::repeat", sig({{4, 4}, json::array()}, {"float", "ScalarList"}, {"", "[2, 3]"}), {},
        "");
    ASSERT_TRUE(p.ok) << p.why;
    EXPECT_NE(p.source.find("_MAX_OUTPUT_BYTES = 16 << 30"), std::string::npos);
    EXPECT_NE(p.source.find("_bounded(call(_meta(args), meta=True))"), std::string::npos);
}
