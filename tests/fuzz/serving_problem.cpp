// A serving stack's operator call as a trace records it (issue 41, item 2): the first byte picks
// the operator of Reach's library, the rest is the recorded signature's JSON. The problem writer,
// the call's precision and the work formula must take any of it: a refusal with why, or a
// problem whose code holds nothing of the input but checked numbers.
#include <string>

#include "core/base/jsonparse.h"
#include "core/base/servingoperators.h"
#include "core/benchmark/problemsource.h"
#include "core/headroom/work.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    if (size < 1)
        return 0;
    const auto ops = servingOperators();
    const std::string op(ops[data[0] % ops.size()].name);
    const std::optional<nlohmann::json> sig =
        tryParseJson(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    if (!sig)
        return 0;
    const ProblemSource p = problemSource(op, *sig, {"fuzz"}, "bfloat16");
    if (p.ok && p.source.find("class Model(nn.Module)") == std::string::npos)
        __builtin_trap();  // a problem without its Model: the writer lost its way
    if (!p.ok && p.why.empty())
        __builtin_trap();  // a refusal says why
    (void)callPrecision(op, *sig);
    if (const auto args = parseCallSignature(*sig))
        (void)operatorWork(op, *args);
    return 0;
}
