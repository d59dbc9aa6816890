#include "core/verify/channel.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>

#include "core/base/jsonparse.h"

namespace reach {

using nlohmann::json;

MessageChannel::~MessageChannel() {
    if (m_fd >= 0)
        ::close(m_fd);
}

MessageChannel& MessageChannel::operator=(MessageChannel&& o) noexcept {
    if (this != &o) {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = std::exchange(o.m_fd, -1);
    }
    return *this;
}

void MessageChannel::send(const json& msg, const std::vector<int>& fds) {
    const std::string data = msg.dump(-1, ' ', false, json::error_handler_t::replace);
    if (data.size() > kMaxMessage)
        throw ChannelError(ChannelError::Kind::Protocol,
                           "message of " + std::to_string(data.size()) + " bytes is too long");
    if (fds.size() > size_t(kMaxFds))
        throw ChannelError(ChannelError::Kind::Protocol, "too many descriptors for one message");
    iovec iov{const_cast<char*>(data.data()), data.size()};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    if (!fds.empty()) {
        m.msg_control = control;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr* c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    while (::sendmsg(m_fd, &m, MSG_NOSIGNAL) < 0) {
        if (errno == EINTR)
            continue;
        throw ChannelError(
            ChannelError::Kind::Gone,
            std::string("the other side closed the channel (") + std::strerror(errno) + ")");
    }
}

std::pair<json, std::vector<int>> MessageChannel::receive(double timeoutSeconds, int maxFds) {
    const auto t0 = std::chrono::steady_clock::now();
    while (true) {
        int waitMs = -1;
        if (timeoutSeconds >= 0) {
            const double left =
                timeoutSeconds -
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (left <= 0)
                throw ChannelError(
                    ChannelError::Kind::Silent,
                    "no answer in " + std::to_string(int(std::lround(timeoutSeconds))) + " s");
            waitMs = int(std::ceil(left * 1000));
        }
        pollfd p{m_fd, POLLIN, 0};
        const int n = ::poll(&p, 1, waitMs);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0)
            break;
        if (n < 0)
            throw ChannelError(ChannelError::Kind::Gone,
                               std::string("poll: ") + std::strerror(errno));
    }
    std::string buf(kMaxMessage + 1, '\0');
    iovec iov{buf.data(), buf.size()};
    msghdr m{};
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    ssize_t got;
    while ((got = ::recvmsg(m_fd, &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    std::vector<int> fds;
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            const int* p = reinterpret_cast<const int*>(CMSG_DATA(c));
            fds.insert(fds.end(), p, p + n);
        }
    }
    auto refuse = [&](ChannelError::Kind k, const std::string& why) {
        for (int fd : fds)
            ::close(fd);
        return ChannelError(k, why);
    };
    if (got < 0)
        throw refuse(ChannelError::Kind::Gone, std::string("recvmsg: ") + std::strerror(errno));
    if (got == 0 && fds.empty())
        throw refuse(ChannelError::Kind::Gone, "the other side closed the channel");
    if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || size_t(got) > kMaxMessage ||
        int(fds.size()) > maxFds)
        throw refuse(ChannelError::Kind::Protocol,
                     "a message too long, or with descriptors it should not carry");
    buf.resize(size_t(got));
    std::optional<json> doc = tryParseJson(buf);
    if (!doc || !doc->is_object())
        throw refuse(ChannelError::Kind::Protocol, "a message that is not a JSON object");
    return {std::move(*doc), std::move(fds)};
}

std::pair<MessageChannel, MessageChannel> channelPair() {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        throw ChannelError(ChannelError::Kind::Gone,
                           std::string("socketpair: ") + std::strerror(errno));
    return {MessageChannel(sv[0]), MessageChannel(sv[1])};
}

}  // namespace reach
