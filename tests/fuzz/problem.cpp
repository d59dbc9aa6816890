// A problem file (JSON naming an operator, dtype, shapes and parameters).
#include "core/verify/problem.h"
#include "core/verify/operators.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("problem.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] {
        const Problem p = Problem::load(path);
        (void)dumpJson(p.toJson());
        const Problem back = parseProblem(p.toJson(), "back.json");
        (void)back;
    });
    return 0;
}
