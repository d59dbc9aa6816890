#include "gpu/runnerclient.h"

#include <unistd.h>

#include <cmath>

#include "core/base/jsoninteger.h"

namespace reach {

using nlohmann::json;

namespace {

json bufferSpec(const SharedRegion& r, const TensorSpec& s) {
    return {{"dtype", int(s.dtype)},
            {"shape", s.shape},
            {"total", r.total()},
            {"canary", r.canary()},
            {"bytes", r.bytes()}};
}

}  // namespace

RunnerClient::RunnerClient(const std::string& self, const std::vector<const SharedRegion*>& inputs,
                           const std::vector<TensorSpec>& inputSpecs,
                           const std::vector<const SharedRegion*>& outputs,
                           const std::vector<TensorSpec>& outputSpecs, const SharedRegion& flags,
                           double timeoutSeconds)
    : m_timeout(timeoutSeconds) {
    auto [mine, theirs] = channelPair();
    m_channel = std::move(mine);
    m_process = std::make_unique<RunnerProcess>(
        std::vector<std::string>{self, "--runner-channel", "3"}, std::move(theirs));
    if (inputs.size() + outputs.size() + 1 > size_t(MessageChannel::kMaxFds))
        throw std::runtime_error("the problem has " +
                                 std::to_string(inputs.size() + outputs.size()) +
                                 " tensors; at most " + std::to_string(MessageChannel::kMaxFds) +
                                 " can be shared with the runner");
    json hello = {{"op", "hello"}, {"inputs", json::array()}, {"outputs", json::array()}};
    std::vector<int> fds;
    for (size_t i = 0; i < inputs.size(); ++i) {
        hello["inputs"].push_back(bufferSpec(*inputs[i], inputSpecs[i]));
        fds.push_back(inputs[i]->exportFd());
    }
    for (size_t i = 0; i < outputs.size(); ++i) {
        hello["outputs"].push_back(bufferSpec(*outputs[i], outputSpecs[i]));
        fds.push_back(outputs[i]->exportFd());
    }
    hello["flags"] = {
        {"total", flags.total()}, {"canary", flags.canary()}, {"bytes", flags.bytes()}};
    fds.push_back(flags.exportFd());
    json reply;
    try {
        reply = ask(hello, fds);
    } catch (...) {
        for (int fd : fds)
            ::close(fd);
        throw;
    }
    for (int fd : fds)
        ::close(fd);
    if (reply.value("op", "") != "ready")
        throw std::runtime_error("the runner did not start: " + reply.value("error", reply.dump()));
}

RunnerClient::~RunnerClient() {
    end();
}

json RunnerClient::ask(const json& msg, const std::vector<int>& fds) {
    m_channel.send(msg, fds);
    auto [reply, got] = m_channel.receive(m_timeout);
    for (int fd : got)
        ::close(fd);
    return reply;
}

bool RunnerClient::use(const json& what, std::string* error) {
    json msg = what;
    msg["op"] = "use";
    const json reply = ask(msg);
    if (reply.value("op", "") == "using" && reply.value("ok", false))
        return true;
    if (error)
        *error = reply.value("error", std::string("the runner could not load it"));
    return false;
}

RunnerReply RunnerClient::run(int id) {
    m_channel.send({{"op", "run"}, {"id", id}});
    return receive(id);
}

void RunnerClient::sendTimed(int id, uint32_t token) {
    m_channel.send({{"op", "run"}, {"id", id}, {"token", token}});
}

RunnerReply RunnerClient::receive(int id) {
    auto [reply, received] = m_channel.receive(m_timeout);
    for (int fd : received)
        ::close(fd);
    // Every answer is for the call asked for: a runner that answers ahead (to be "done" before
    // its work is) desynchronizes, and that ends the job.
    const std::optional<int> got =
        reply.contains("id") ? jsonInteger<int>(reply["id"]) : std::optional<int>();
    if (reply.value("op", "") != "ran" || got != id)
        throw ChannelError(ChannelError::Kind::Protocol, "the runner answered " +
                                                             reply.dump().substr(0, 200) +
                                                             " to call " + std::to_string(id));
    RunnerReply r;
    r.rc = reply.contains("rc") ? jsonInteger<int>(reply["rc"]).value_or(-1) : -1;
    if (reply.contains("cuda_error") && reply["cuda_error"].is_string())
        r.cudaError = reply["cuda_error"].get<std::string>().substr(0, 400);
    const json e = reply.value("e_us", json());
    if (r.cudaError.empty()) {
        if (!e.is_number() || !std::isfinite(e.get<double>()) || e.get<double>() < 0 ||
            e.get<double>() > 1e12)
            throw ChannelError(ChannelError::Kind::Protocol,
                               "the runner's time is not a time: " + e.dump().substr(0, 60));
        r.eventUs = e.get<double>();
    }
    return r;
}

pid_t RunnerClient::pid() const {
    return m_process ? m_process->pid() : -1;
}

std::string RunnerClient::log() const {
    return m_process ? m_process->logTail() : std::string();
}

void RunnerClient::end() {
    if (!m_process)
        return;
    try {
        m_channel.send({{"op", "exit"}});
    } catch (const ChannelError&) {
    }
    m_process->end();
}

}  // namespace reach
