#pragma once

#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/verify/verification.h"

namespace reach {

// One reach-verify job to run in its own process.
struct VerifyProcessRequest {
    std::string verifier;  // path of reach-verify (findVerifierExecutable)
    std::string problemFile;
    std::string candidateFile;
    std::vector<std::string> extraArgs;  // --reps N, --seed S, ...
    double timeoutSeconds = 60;  // the job's own work: its waits for the GPU are not counted
    // Its waits for the GPU, bounded apart (queueclock.h); past them, "the GPU was busy". More
    // than reach-verify's own limit for its workers (600 s), so that it reports first.
    double queueLimitSeconds = 660;
    // "NAME=value" entries set for the child only (a batch pins each worker to one GPU with
    // CUDA_VISIBLE_DEVICES and names its timing lock); see runChild for the rules.
    std::vector<std::string> env;
    // Descriptors the child inherits (runChild's inheritFds): a worker server's connection,
    // named to the child by REACH_KB_SERVER_FD=<n> in env (workerserver.h). runVerifierProcess
    // closes them once the child has started; a request that runs again needs new ones.
    std::vector<int> inheritFds;
};

// The command line of a request: verifier --problem P --candidate C extraArgs...
std::vector<std::string> verifierArguments(const VerifyProcessRequest& req);

// What the caller saw of one finished reach-verify process, however it ran it (the CLI through
// core/verify/childprocess.h, the GUI through a QProcess on its worker thread).
struct VerifierRun {
    bool started = true;      // false: the program could not be started (startError says why)
    std::string startError;   //
    bool timedOut = false;    // killed after the timeout
    bool gpuBusy = false;     // killed after waiting for the GPU past the queue limit
    double queueSeconds = 0;  // of `seconds`, waiting for the GPU (queueclock.h)
    bool crashed = false;     // died abnormally (a signal; termSignal when known)
    int exitCode = 0;
    int termSignal = 0;
    std::string out, err;  // stdout and stderr, whole
    double seconds = 0;
};

// The document the verifier printed, as it printed it (its signature included: docs/security.md,
// "Evidence Reach signs"), when it is a verifier result; nullopt otherwise (a crash cut it short,
// or the output is not one). What `reach-cli verify --json` passes on, so that the signature
// still holds.
std::optional<nlohmann::json> verifierDocument(const VerifierRun& run);

// The one way a finished run becomes a result: the verifier's JSON when it printed one (its
// verdict, whatever it is); otherwise a synthesized result whose verdict is "timeout" (killed
// after the timeout), "crashed" (a signal, or an exit without a document) or "error" (it could
// not start, or exit 2: bad input), with the tail of stderr in `log`.
VerificationResult resultFromRun(const VerifyProcessRequest& req, const VerifierRun& run);

// Runs the request in a child process (timeout, process group killed) and returns resultFromRun.
// The caller never dies with the child.
// `run`, when given, receives what the process did (its stdout verbatim, for storing).
// A stop request kills the child; the run then comes back with timedOut false and crashed true
// (term signal 9) and `cancelled`, when given, is set: the caller drops it (nothing was judged).
VerificationResult runVerifierProcess(const VerifyProcessRequest& req, VerifierRun* run = nullptr,
                                      std::stop_token stop = {}, bool* cancelled = nullptr);

// Where reach-verify is, by one rule for the CLI and the GUI: $REACH_VERIFY when set; else
// reach-verify beside the running executable; else "reach-verify" (found on PATH when started).
std::string findVerifierExecutable();
// Whether findVerifierExecutable() names a program that can be started.
bool verifierExecutableFound();

}  // namespace reach
