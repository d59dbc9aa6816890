#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace reach {

// One argument of a recorded operator call, decoded from the profiler's record_shapes fields
// ("Input Dims", "Input type", "Input Strides", "Concrete Inputs"; FORMATS.md).
struct CallArgument {
    enum class Kind { Tensor, TensorList, Scalar, None };
    Kind kind = Kind::None;
    // Tensor: one shape; TensorList: one per element.
    std::vector<std::vector<int64_t>> shapes, strides;
    std::string dtype;    // torch dtype name ("bfloat16"); empty when the trace does not say
    std::string literal;  // Scalar: a Python literal checked to be a number, bool or int list
    bool wrappedNumber = false;  // Scalar: a Python number the trace recorded as a 0-dim
                                 // tensor, without its value (the literal is Reach's)
};

// What a problem is made of, or why it cannot be made.
struct ProblemSource {
    bool ok = false;
    std::string why;                       // when not ok: one sentence
    std::string source;                    // when ok: the whole KernelBench-format file
    std::vector<std::string> assumptions;  // what the file had to guess (dtypes, index ranges)
};

// The text a stranger's trace put in a problem's header comment, made harmless: one line of
// printable ASCII (anything else written as \xNN), at most `limit` characters. A kernel name
// with a line break must not end the comment and become code.
std::string commentSafe(const std::string& text, size_t limit = 200);

// A KernelBench-format problem (Model, get_inputs, get_init_inputs) whose forward calls the
// ATen operator `op` ("aten::addmm") with the recorded arguments of `signature` (the JSON that
// core/trace keeps per shaped call: {"dims", "types", "concrete", "strides"}). Tensors are drawn
// at their recorded shapes, dtypes and strides (a transposed operand stays transposed, so the
// same kernel runs); index arguments of the operators that take them (embedding, embedding_bag,
// index_select, gather) are drawn in range, embedding_bag's offsets are valid. `header` lines
// go in the file's first comment (commentSafe). Nothing from the trace reaches the file but
// checked numbers, a checked operator name and harmless comments: the file is code a user will
// run. `fallbackDtype` is the dtype for tensors whose type the trace does not record (a
// TensorList's): the caller's best guess, named in the assumptions.
ProblemSource problemSource(const std::string& op, const nlohmann::json& signature,
                            const std::vector<std::string>& header,
                            const std::string& fallbackDtype);

// "[13, 512]": a Python list literal of integers Reach printed (a shape, strides).
std::string pyIntList(const std::vector<int64_t>& values);

// The decoded arguments (for tests and the extraction's report); empty with `why` set when the
// signature cannot be called. `anyKnownDtype`: a tensor of a dtype Reach cannot draw (FP8) is
// decoded too, for a caller that draws none of those (a serving operator's output argument).
std::vector<CallArgument> decodeArguments(const nlohmann::json& signature, std::string* why,
                                          bool anyKnownDtype = false);

// The precision a recorded call ran in, as reach-verify's --precision names it (bf16, fp16, fp32;
// fp64 has none): the one floating dtype of its recorded tensors. reach-verify casts every
// floating input of a problem to its --precision, so a problem verified in another one verified
// another call. Empty when the trace records none (a tensor list's dtype is not recorded: any
// precision is taken), "mixed" when they differ (no --precision reproduces the call). A serving
// stack's operator (`op`, core/base/servingoperators.h) runs in its data's precision, whatever
// its scales' or caches' (servingPrecision).
std::string callPrecision(const std::string& op, const nlohmann::json& signature);

// How a problem file says that precision: this line, then the word (one of its header lines,
// before `import torch`; absent when the trace records no floating dtype).
inline constexpr const char* kPrecisionLine = "# reach-precision: ";

// The precision a problem file says (kPrecisionLine in its leading comment block), nullopt when
// it says none; reads at most the first 64 KiB. Throws InputError when the file cannot be read.
std::optional<std::string> readProblemPrecision(const std::string& problemPath);

}  // namespace reach
