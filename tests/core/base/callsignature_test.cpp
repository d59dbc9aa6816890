// A recorded call's signature and the profiler's element types (issue 39): one table of the
// types the profiler names, with torch's names and sizes, and one reader of the signature that
// core/trace keeps per shaped call, for headroom's formulas and for problem files alike.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/callsignature.h"

namespace reach_test_callsignature_test {  // unity builds: this file's names stay its own

using namespace reach;
using nlohmann::json;
using Ints = std::vector<int64_t>;

TEST(CallSignature, EveryProfilerTypeHasItsTorchNameAndSize) {
    struct Expected {
        const char* profiler;
        const char* torch;
        int bytes;
    };
    const std::vector<Expected> expected = {
        {"float", "float32", 4},
        {"double", "float64", 8},
        {"c10::Half", "float16", 2},
        {"c10::BFloat16", "bfloat16", 2},
        {"long int", "int64", 8},
        {"long", "int64", 8},
        {"int", "int32", 4},
        {"short int", "int16", 2},
        {"signed char", "int8", 1},
        {"unsigned char", "uint8", 1},
        {"bool", "bool", 1},
        {"c10::Float8_e4m3fn", "float8_e4m3fn", 1},
        {"c10::Float8_e5m2", "float8_e5m2", 1},
        {"c10::Float8_e4m3fnuz", "float8_e4m3fnuz", 1},
        {"c10::Float8_e5m2fnuz", "float8_e5m2fnuz", 1},
        {"c10::Float8_e8m0fnu", "float8_e8m0fnu", 1},
        {"c10::complex<float>", "complex64", 8},
        {"c10::complex<double>", "complex128", 16},
        {"unsigned int", "uint32", 4},
        {"unsigned long", "uint64", 8},
    };
    ASSERT_EQ(profilerDtypes().size(), expected.size());
    for (const Expected& e : expected) {
        const ProfilerDtype* d = profilerDtype(e.profiler);
        ASSERT_TRUE(d) << e.profiler;
        EXPECT_EQ(d->profilerType, e.profiler);
        EXPECT_EQ(d->torchName, e.torch) << e.profiler;
        EXPECT_EQ(d->bytes, e.bytes) << e.profiler;
    }
    // One entry per profiler name, each of them found.
    std::set<std::string_view> names;
    for (const ProfilerDtype& d : profilerDtypes()) {
        EXPECT_TRUE(names.insert(d.profilerType).second) << d.profilerType;
        EXPECT_EQ(profilerDtype(d.profilerType), &d);
    }
}

TEST(CallSignature, FloatEightComplexUnsignedAndLongAreKnown) {
    EXPECT_EQ(profilerDtype("c10::Float8_e4m3fn")->bytes, 1);
    EXPECT_EQ(profilerDtype("c10::Float8_e8m0fnu")->torchName, "float8_e8m0fnu");
    EXPECT_EQ(profilerDtype("c10::complex<double>")->bytes, 16);
    EXPECT_EQ(profilerDtype("unsigned long")->torchName, "uint64");
    // "long" (as some PyTorch builds name int64) is "long int".
    EXPECT_EQ(profilerDtype("long")->torchName, "int64");
    EXPECT_EQ(profilerDtype("long")->bytes, profilerDtype("long int")->bytes);
    // Not element types: non-tensors, torch's own names, near misses.
    for (const char* other :
         {"Scalar", "ScalarList", "TensorList", "", "float32", "Float", "c10::Float8", "long long"})
        EXPECT_EQ(profilerDtype(other), nullptr) << other;
}

TEST(CallSignature, ATensorWithItsTypeValueAndStrides) {
    // addmm as a trace records it: a bias, a transposed operand, two scalars.
    const auto args = parseCallSignature(
        R"({"dims":[[512],[13,512],[],[]],"types":["c10::BFloat16","c10::BFloat16","Scalar","Scalar"],)"
        R"("concrete":["","","1","0.5"],"strides":[[1],[1,13],[],[]]})");
    ASSERT_TRUE(args);
    ASSERT_EQ(args->size(), 4u);
    const CallArg& t = (*args)[1];
    EXPECT_FALSE(t.isList);
    EXPECT_EQ(t.dims, (Ints{13, 512}));
    EXPECT_EQ(t.strides, (Ints{1, 13}));
    EXPECT_EQ(t.type, "c10::BFloat16");
    EXPECT_TRUE(t.concrete.empty());
    EXPECT_TRUE(t.list.empty());
    EXPECT_TRUE(t.listStrides.empty());
    EXPECT_EQ((*args)[3].type, "Scalar");
    EXPECT_EQ((*args)[3].concrete, "0.5");
    EXPECT_TRUE((*args)[3].dims.empty());
    // Without "strides" (older traces) a tensor has none.
    const auto bare = parseCallSignature(R"({"dims":[[4,4]],"types":["float"]})");
    ASSERT_TRUE(bare);
    EXPECT_EQ((*bare)[0].dims, (Ints{4, 4}));
    EXPECT_TRUE((*bare)[0].strides.empty());
    EXPECT_TRUE((*bare)[0].concrete.empty());
}

TEST(CallSignature, ATensorListHasEachTensorsShapeAndStrides) {
    const json sig = {{"dims", {{{4, 8}, {8, 4}, {16}}, json::array()}},
                      {"types", {"TensorList", "Scalar"}},
                      {"concrete", {"", "0"}},
                      {"strides", {{{8, 1}, {1, 8}}, json::array()}}};
    std::string why;
    const auto args = parseCallSignature(sig, &why);
    ASSERT_TRUE(args) << why;
    const CallArg& l = (*args)[0];
    EXPECT_TRUE(l.isList);
    EXPECT_EQ(l.type, "TensorList");
    ASSERT_EQ(l.list.size(), 3u);
    EXPECT_EQ(l.list[1], (Ints{8, 4}));
    EXPECT_EQ(l.list[2], (Ints{16}));
    // One stride per tensor; the third was not recorded.
    ASSERT_EQ(l.listStrides.size(), 3u);
    EXPECT_EQ(l.listStrides[0], (Ints{8, 1}));
    EXPECT_EQ(l.listStrides[1], (Ints{1, 8}));
    EXPECT_TRUE(l.listStrides[2].empty());
    EXPECT_TRUE(l.dims.empty());
    EXPECT_TRUE(l.strides.empty());
}

TEST(CallSignature, ANoneHasNoTypeNoShape) {
    // gelu_backward's `approximate`: recorded with neither type nor value.
    const auto args = parseCallSignature(
        R"({"dims":[[16,512],[16,512],[]],"types":["float","float",""],"concrete":["","",""]})");
    ASSERT_TRUE(args);
    const CallArg& none = (*args)[2];
    EXPECT_TRUE(none.type.empty());
    EXPECT_TRUE(none.dims.empty());
    EXPECT_FALSE(none.isList);
    EXPECT_TRUE(none.concrete.empty());
    // Fewer types than dims: the rest have none either.
    const auto short_ = parseCallSignature(R"({"dims":[[2],[]],"types":["float"]})");
    ASSERT_TRUE(short_);
    EXPECT_TRUE((*short_)[1].type.empty());
}

TEST(CallSignature, AShapeThatCannotBeReadNamesItsArgument) {
    std::string why;
    EXPECT_FALSE(parseCallSignature(
        json::parse(R"({"dims":[[2],[],[],[2,"x"]],"types":["float","Scalar","Scalar","float"]})"),
        &why));
    EXPECT_EQ(why, "argument 3: a shape Reach cannot read");
    // Dims that are not an array, a float dimension, a list with a non-shape entry.
    for (const char* bad : {R"({"dims":[null]})", R"({"dims":[[2.5]]})", R"({"dims":[[[2],3]]})",
                            R"({"dims":[[[2],["x"]]]})"}) {
        why.clear();
        EXPECT_FALSE(parseCallSignature(json::parse(bad), &why)) << bad;
        EXPECT_EQ(why, "argument 0: a shape Reach cannot read") << bad;
        EXPECT_FALSE(parseCallSignature(std::string(bad))) << bad;
    }
    // Not a signature at all.
    for (const char* bad : {R"({"types":["float"]})", R"({"dims":{}})", R"([[2]])", "3"}) {
        why.clear();
        EXPECT_FALSE(parseCallSignature(json::parse(bad), &why)) << bad;
        EXPECT_EQ(why, "no recorded shapes") << bad;
    }
    EXPECT_FALSE(parseCallSignature("not json"));
    EXPECT_FALSE(parseCallSignature(json::parse(R"({"dims":[[2.5]]})"), nullptr));
}

TEST(CallSignature, AStrideThatIsNotAllIntegersIsNoStride) {
    const json sig =
        json::parse(R"({"dims":[[4,5],[4,5],[[2,3],[3,2]]],"types":["float","float","TensorList"],)"
                    R"("strides":[[0,"x",1],[5.0,1],[[3,1],[1,null]]]})");
    const auto args = parseCallSignature(sig, nullptr);
    ASSERT_TRUE(args);
    // [0, "x", 1] once read as [0, 1]: a stride for these two dims it never was.
    EXPECT_TRUE((*args)[0].strides.empty());
    EXPECT_TRUE((*args)[1].strides.empty());
    ASSERT_EQ((*args)[2].listStrides.size(), 2u);
    EXPECT_EQ((*args)[2].listStrides[0], (Ints{3, 1}));
    EXPECT_TRUE((*args)[2].listStrides[1].empty());
    // Strides that are not an array, or no array of them: none, the shapes still read.
    for (const char* s : {R"("strides":"x")", R"("strides":[7])", R"("strides":[[[1]]])"}) {
        const auto one =
            parseCallSignature(R"({"dims":[[4]],"types":["float"],)" + std::string(s) + "}");
        ASSERT_TRUE(one) << s;
        EXPECT_EQ((*one)[0].dims, (Ints{4})) << s;
        EXPECT_TRUE((*one)[0].strides.empty()) << s;
    }
}

// A problem file refuses arguments in order, each for what its type makes of it: the arguments
// whose dims cannot be read are kept and listed, not the end of the reading.
TEST(CallSignature, ReadingOnPastDimsThatCannotBeRead) {
    std::vector<UnreadableDims> unreadable;
    const auto args = readCallArguments(
        json::parse(R"({"dims":[null,[[2,2],[3],"x",[4]],[1,[2]],[4]],)"
                    R"("types":["Scalar","TensorList","float","float"],)"
                    R"("concrete":["1","","",""],"strides":[[],[[2,1],[1]],[],[1]]})"),
        unreadable);
    ASSERT_TRUE(args);
    ASSERT_EQ(args->size(), 4u);
    ASSERT_EQ(unreadable.size(), 3u);
    EXPECT_EQ(unreadable[0].argument, 0u);
    EXPECT_EQ(unreadable[0].entries, 0u);  // not an array
    EXPECT_EQ((*args)[0].type, "Scalar");
    EXPECT_EQ((*args)[0].concrete, "1");
    // The list keeps the tensors before its unreadable entry, and their strides.
    EXPECT_EQ(unreadable[1].argument, 1u);
    EXPECT_EQ(unreadable[1].entries, 4u);
    EXPECT_TRUE((*args)[1].isList);
    ASSERT_EQ((*args)[1].list.size(), 2u);
    EXPECT_EQ((*args)[1].list[1], (Ints{3}));
    ASSERT_EQ((*args)[1].listStrides.size(), 2u);
    EXPECT_EQ((*args)[1].listStrides[0], (Ints{2, 1}));
    EXPECT_EQ(unreadable[2].argument, 2u);
    EXPECT_EQ(unreadable[2].entries, 2u);
    EXPECT_FALSE((*args)[2].isList);
    EXPECT_EQ((*args)[2].dims, (Ints{1}));
    // The readable argument after them is whole.
    EXPECT_EQ((*args)[3].dims, (Ints{4}));
    EXPECT_EQ((*args)[3].strides, (Ints{1}));

    EXPECT_FALSE(readCallArguments(json::parse(R"({"dims":3})"), unreadable));
    EXPECT_TRUE(readCallArguments(json::parse(R"({"dims":[[2]]})"), unreadable));
    EXPECT_TRUE(unreadable.empty());
}

}  // namespace reach_test_callsignature_test
