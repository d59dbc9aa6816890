// reach-verify's JSON as records (one document, a list, or one per line) and as the result of a
// run (resultFromRun: what the CLI and the GUI make of the verifier's stdout).
#include "core/records/recordreader.h"
#include "core/verify/verifyprocess.h"
#include "tests/fuzz/fuzzsupport.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace reach;
    const std::string path = fuzz::writeInput("verify.json", fuzz::asText(data, size));
    fuzz::acceptingInputErrors([&] { fuzz::useRecords(readRecords(path, {})); });
    VerifyProcessRequest req;
    req.verifier = "reach-verify";
    VerifierRun run;
    run.started = true;
    run.out.assign(fuzz::asText(data, size));
    (void)dumpJson(resultFromRun(req, run).toJson());
    return 0;
}
