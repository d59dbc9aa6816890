// A stand-in for reach-verify used by the VerifyQueue tests: it behaves like the real verifier
// process from the outside (same arguments, one JSON document on stdout built with the real
// VerificationResult type) but decides what to do from the candidate's file name, so the tests
// can drive the real queue through a crash, a hang, garbage output and a verdict.
//   *crash*   abort() after writing to stderr      *hang*    sleep far beyond any timeout
//   *garbage* print text that is not JSON          *nogpu*   verdict no_gpu
//   *fail*    verdict fail with a reason           anything else: verdict pass
// With REACH_FAKE_VERIFIER_ARGS set, it appends its arguments to that file, one JSON list per
// run (the parity tests compare what the GUI and reach-cli asked of the verifier). With
// REACH_FAKE_VERIFIER_SERVER set, it appends what it was given of a worker server: "none", or
// the number in $REACH_KB_SERVER_FD and whether that descriptor is an AF_UNIX stream socket.
#include <sys/socket.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "core/verify/verification.h"

int main(int argc, char** argv) {
    if (const char* log = std::getenv("REACH_FAKE_VERIFIER_ARGS")) {
        nlohmann::json args = nlohmann::json::array();
        for (int i = 1; i < argc; ++i)
            args.push_back(argv[i]);
        std::ofstream(log, std::ios::app) << args.dump() << "\n";
    }
    if (const char* log = std::getenv("REACH_FAKE_VERIFIER_SERVER")) {
        std::string line = "none";
        if (const char* fd = std::getenv("REACH_KB_SERVER_FD")) {
            struct stat st {};
            int domain = 0, type = 0;
            socklen_t len = sizeof domain;
            const int n = std::atoi(fd);
            const bool stream =
                fstat(n, &st) == 0 && S_ISSOCK(st.st_mode) &&
                getsockopt(n, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX &&
                getsockopt(n, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
            line = std::string(fd) + (stream ? " stream" : " not-a-connection");
        }
        std::ofstream(log, std::ios::app) << line << "\n";
    }
    std::string problem, candidate;
    for (int i = 1; i + 1 < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--problem")
            problem = argv[i + 1];
        if (a == "--candidate")
            candidate = argv[i + 1];
    }
    if (candidate.empty() || problem.empty()) {
        std::cerr << "fakeverifier: --problem and --candidate are required\n";
        return 2;
    }
    const auto has = [&](const char* s) { return candidate.find(s) != std::string::npos; };
    if (has("crash")) {
        std::cerr << "fakeverifier: simulated illegal memory access\n";
        std::abort();
    }
    if (has("hang")) {
        std::this_thread::sleep_for(std::chrono::hours(1));
        return 0;
    }
    if (has("garbage")) {
        std::cout << "Segmentation fault? no JSON here\n";
        return 0;
    }
    reach::VerificationResult r;
    r.problemFile = problem;
    r.candidateFile = candidate;
    r.problemId = "fake";
    r.op = "softmax";
    r.dtype = "bf16";
    if (has("nogpu")) {
        r.verdict = reach::verdict::kNoGpu;
        r.device.available = false;
        r.device.reason = "no CUDA device (fake verifier)";
    } else if (has("fail")) {
        r.verdict = reach::verdict::kFail;
        r.reasons = {"written_fraction 0.003 below 1.0"};
    } else {
        r.verdict = reach::verdict::kPass;
        r.speedup = 1.25;
    }
    std::cout << r.toJson().dump() << "\n";
    return r.passed() ? 0 : 1;
}
