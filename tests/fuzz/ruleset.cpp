// A rule file (docs/rules.md): parsed, compiled with RE2, then used on names of every kind.
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string text(fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] {
        RuleSet rules = RuleSet::fromJsonText(text, "rules.json");
        for (std::string_view name :
             {std::string_view("ampere_sgemm_128x64_nn"), std::string_view(""),
              std::string_view("void at::native::reduce_kernel<512, 1>(int)\n\x1b[0m\xff"),
              std::string_view(text)}) {
            (void)rules.classify(name, ActivityKind::Kernel);
            (void)rules.classify(name, ActivityKind::Memcpy);
        }
        const RuleSet back = RuleSet::fromJsonText(rules.toJson(), "back.json");
        if (back.hash() != rules.hash())
            std::abort();  // the written form must read back to the same rules
        if (!rules.rules().empty())
            (void)RuleSet::patternError(rules.rules().front().pattern);
    });
    return 0;
}
