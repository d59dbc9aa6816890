#include "core/verify/controlset.h"

#include <filesystem>
#include <fstream>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"

namespace reach {

std::vector<ControlSpec> loadControls(const std::string& manifest, const std::string& resourceDir) {
    const nlohmann::json j =
        parseJson(readJsonFile(manifest, "a readable controls manifest"), manifest, "valid JSON");
    if (!j.contains("controls") || !j.at("controls").is_array())
        throw InputError(manifest, "key 'controls'", "an array of controls");
    auto abs = [&](const std::string& p) {
        return std::filesystem::path(p).is_absolute() ? p : resourceDir + "/" + p;
    };
    std::vector<ControlSpec> out;
    size_t i = 0;
    for (const auto& c : j.at("controls")) {
        std::string where = "controls[" + std::to_string(i++) + "]";
        auto str = [&](const char* k) {
            if (!c.contains(k) || !c.at(k).is_string())
                throw InputError(manifest, where + "." + k, "a string");
            return c.at(k).get<std::string>();
        };
        ControlSpec s;
        s.name = str("name");
        s.kind = str("kind");
        s.candidate = abs(str("candidate"));
        s.problem = abs(str("problem"));
        s.expectVerdict = str("expect_verdict");
        if (c.contains("expect_checks"))
            s.expectChecks = c.at("expect_checks").get<std::vector<std::string>>();
        s.timeoutSeconds = c.value("timeout_s", 60.0);
        s.purpose = c.value("purpose", "");
        out.push_back(s);
    }
    return out;
}

ControlJudgement judgeControl(const ControlSpec& c, const VerificationResult& r) {
    ControlJudgement j;
    if (r.verdict != c.expectVerdict) {
        j.why = "expected verdict " + c.expectVerdict + ", got " + r.verdict;
        if (!r.reasons.empty())
            j.why += " (" + r.reasons.front() + ")";
        return j;
    }
    if (c.expectChecks.empty()) {
        j.asDesigned = true;
        j.why = r.verdict;
        return j;
    }
    std::string failed;
    for (const auto& chk : r.checks) {
        if (chk.passed)
            continue;
        failed += (failed.empty() ? "" : ",") + chk.name;
        for (const auto& want : c.expectChecks)
            if (chk.name == want)
                j.asDesigned = true;
    }
    j.why = j.asDesigned ? "failed " + failed
                         : "failed " + (failed.empty() ? std::string("nothing") : failed) +
                               ", none of the intended checks";
    return j;
}

}  // namespace reach
