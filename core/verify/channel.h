#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace reach {

// The controller's line to a runner process (docs/verifier.md, "Trust boundary"): one message per
// datagram on a Unix SOCK_SEQPACKET socket. A message is one JSON object, at most kMaxMessage
// bytes, with up to kMaxFds descriptors attached (SCM_RIGHTS: how shared GPU buffers cross). The
// runner runs the candidate: what it sends is a claim, and anything that is not a message of this
// protocol (too long, not JSON, not an object, descriptors where none belong) ends the job. The
// same protocol as resources/python/reach_kb/channel.py.
class ChannelError : public std::runtime_error {
public:
    enum class Kind { Gone, Silent, Protocol };
    ChannelError(Kind k, const std::string& what) : std::runtime_error(what), m_kind(k) {}
    Kind kind() const { return m_kind; }

private:
    Kind m_kind;
};

class MessageChannel {
public:
    static constexpr size_t kMaxMessage = size_t(128) << 10;
    // One descriptor per shared tensor, all in the runner's first message (a multi-table
    // embedding has ten); Linux allows 253 (SCM_MAX_FD). A problem with more is refused.
    static constexpr int kMaxFds = 64;

    MessageChannel() = default;
    explicit MessageChannel(int fd) : m_fd(fd) {}
    ~MessageChannel();
    MessageChannel(MessageChannel&& o) noexcept : m_fd(std::exchange(o.m_fd, -1)) {}
    MessageChannel& operator=(MessageChannel&& o) noexcept;
    MessageChannel(const MessageChannel&) = delete;
    MessageChannel& operator=(const MessageChannel&) = delete;

    // Sends msg (and fds, which stay open here). Throws ChannelError(Gone) when the other side
    // has closed its end.
    void send(const nlohmann::json& msg, const std::vector<int>& fds = {});
    // The next message and the descriptors attached to it (at most maxFds; the caller owns
    // them). timeoutSeconds < 0: wait for ever. Throws ChannelError: Gone (closed), Silent
    // (nothing before the timeout), Protocol (not a message of this protocol).
    std::pair<nlohmann::json, std::vector<int>> receive(double timeoutSeconds, int maxFds = 0);

    int fd() const { return m_fd; }
    // Gives the descriptor up (for exec into a runner process).
    int release() { return std::exchange(m_fd, -1); }

private:
    int m_fd = -1;
};

// A connected pair (controller end, runner end), both close-on-exec.
std::pair<MessageChannel, MessageChannel> channelPair();

}  // namespace reach
