#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace reach {

// A recorded call's signature and the profiler's element types: what PyTorch's profiler
// (record_shapes=True) wrote of one operator call, as core/trace keeps it per shaped call:
// {"dims":[...],"types":[...],"concrete":[...],"strides":[...]} ("Input Dims", "Input type",
// "Concrete Inputs", "Input Strides"). The one reader of it; what an argument means (a tensor to
// draw, a formula's operand) is its readers' question.

// One element type the profiler names in "Input type": torch's dtype name and its size.
struct ProfilerDtype {
    std::string_view profilerType;  // "c10::BFloat16", "float", "long int", ...
    std::string_view torchName;     // "bfloat16", "float32", "int64", ...
    int bytes = 0;
};

// Every element type Reach knows, in a fixed order.
std::span<const ProfilerDtype> profilerDtypes();

// The entry of a profiler type name; nullptr for non-tensors ("Scalar", "TensorList", "" for
// None) and names Reach does not know.
const ProfilerDtype* profilerDtype(std::string_view profilerType);

// One input of an operator call as the profiler recorded it: its "Input Dims" entry, "Input
// type", "Concrete Inputs" value and "Input Strides" entry. A TensorList has list dims.
struct CallArg {
    std::vector<int64_t> dims;
    std::vector<std::vector<int64_t>> list;  // TensorList: one shape per tensor
    // "Input Strides" when recorded (0: expanded); empty when not, or not all integers.
    std::vector<int64_t> strides;
    // TensorList: the strides of each tensor of `list`, as `strides` (empty when not recorded).
    std::vector<std::vector<int64_t>> listStrides;
    bool isList = false;
    std::string type;      // "c10::BFloat16", "float", "Scalar", "TensorList", "" (None)
    std::string concrete;  // "1", "[3, 3]", "False", "" when not recorded
};

// The signature read back; nullopt when it is not that JSON ("dims" must be an array) or an
// argument's dims are neither a shape (integers) nor a list of shapes (arrays of integers). Then
// `why`, when given, says which: "no recorded shapes", "argument 3: a shape Reach cannot read".
std::optional<std::vector<CallArg>> parseCallSignature(const nlohmann::json& signature,
                                                       std::string* why = nullptr);
// The same from the signature's text; nullopt when it is not JSON either.
std::optional<std::vector<CallArg>> parseCallSignature(const std::string& signature);
inline std::optional<std::vector<CallArg>> parseCallSignature(const char* signature) {
    return parseCallSignature(std::string(signature));  // a literal is the text, not a JSON string
}

// An argument whose dims readCallArguments could not read (see parseCallSignature). The argument
// keeps its type, concrete value and the entries of its dims before the unreadable one.
struct UnreadableDims {
    size_t argument = 0;
    size_t entries = 0;  // how many entries its dims have; 0 when they are not an array
};

// As parseCallSignature, but an argument whose dims cannot be read does not end the reading: it
// is kept and listed in `unreadable`, so that a reader checking the arguments in order (a problem
// file's) still says what is wrong with the first one it refuses. nullopt with no "dims" array.
std::optional<std::vector<CallArg>> readCallArguments(const nlohmann::json& signature,
                                                      std::vector<UnreadableDims>& unreadable);

}  // namespace reach
