#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/verify/channel.h"
#include "core/verify/hosttensor.h"
#include "core/verify/runnerprocess.h"
#include "gpu/sharedregion.h"

namespace reach {

// The controller's side of a C++ candidate's runner (gpu/candidaterunner.cpp): it starts
// reach-verify again as the runner, hands it the shared input and output buffers, and asks it to
// load and run things. Every answer is read as a claim; a runner that dies, stops answering or
// breaks the protocol throws ChannelError (the job's verdict: crashed or timeout).
struct RunnerReply {
    int rc = 0;
    double eventUs = 0;     // the runner's event time (a claim)
    std::string cudaError;  // a CUDA error the call left (the context is unusable afterwards)
};

class RunnerClient {
public:
    // Starts `self --runner-channel 3` and says hello with the buffers (throws ChannelError or
    // std::runtime_error when it cannot).
    // `flags`: the words the two streams meet on (streamflags.h).
    RunnerClient(const std::string& self, const std::vector<const SharedRegion*>& inputs,
                 const std::vector<TensorSpec>& inputSpecs,
                 const std::vector<const SharedRegion*>& outputs,
                 const std::vector<TensorSpec>& outputSpecs, const SharedRegion& flags,
                 double timeoutSeconds);
    ~RunnerClient();

    // Loads what "use" names ({"which": "cublas", m, n, k, dtype} or {"which": "object",
    // "path"}). False with `error` when it could not be loaded.
    bool use(const nlohmann::json& what, std::string* error);
    RunnerReply run(int id);
    // A timed call in two halves, so the controller queues its side between them: the runner's
    // stream waits for `go` = token and writes `done` = token after the call.
    void sendTimed(int id, uint32_t token);
    RunnerReply receive(int id);
    pid_t pid() const;
    std::string log() const;
    void end();

private:
    nlohmann::json ask(const nlohmann::json& msg, const std::vector<int>& fds = {});

    MessageChannel m_channel;
    std::unique_ptr<RunnerProcess> m_process;
    double m_timeout;
};

}  // namespace reach
