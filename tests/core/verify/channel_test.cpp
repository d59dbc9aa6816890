// The controller's line to a runner (core/verify/channel.h): what the runner sends is a claim, and
// anything that is not a message of the protocol ends the job without reaching the verdict.
#include "core/verify/channel.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

using nlohmann::json;
using reach::ChannelError;
using reach::channelPair;
using reach::MessageChannel;

namespace {

ChannelError::Kind kindOf(MessageChannel& c, double timeout, int maxFds = 0) {
    try {
        c.receive(timeout, maxFds);
    } catch (const ChannelError& e) {
        return e.kind();
    }
    ADD_FAILURE() << "a message was accepted";
    return ChannelError::Kind::Gone;
}

bool isOpen(int fd) {
    return ::fcntl(fd, F_GETFD) >= 0;
}

}  // namespace

TEST(MessageChannel, AnObjectAndItsDescriptorsCrossIntact) {
    auto [a, b] = channelPair();
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    a.send({{"op", "run"}, {"id", 7}, {"text", "é\n\""}}, {p[1]});
    auto [msg, fds] = b.receive(5, 1);
    EXPECT_EQ(msg["op"], "run");
    EXPECT_EQ(msg["id"], 7);
    EXPECT_EQ(msg["text"], "é\n\"");
    ASSERT_EQ(fds.size(), 1u);
    EXPECT_NE(::fcntl(fds[0], F_GETFD) & FD_CLOEXEC, 0);  // never leaks into a later exec
    ASSERT_EQ(::write(fds[0], "x", 1), 1);                // the same pipe, from the other copy
    char c = 0;
    ASSERT_EQ(::read(p[0], &c, 1), 1);
    EXPECT_EQ(c, 'x');
    ::close(fds[0]);
    ::close(p[0]);
    ::close(p[1]);
}

TEST(MessageChannel, DescriptorsWhereNoneBelongAreRefusedAndClosed) {
    auto [a, b] = channelPair();
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    // The received copy is the lowest free number: after the refusal it must be free again.
    const int probe = ::dup(p[0]);
    ::close(probe);
    a.send({{"op", "x"}}, {p[0], p[1]});
    EXPECT_EQ(kindOf(b, 5, 1), ChannelError::Kind::Protocol);
    EXPECT_FALSE(isOpen(probe));
    ::close(p[0]);
    ::close(p[1]);
}

TEST(MessageChannel, WhatIsNotAJsonObjectIsAProtocolError) {
    for (const std::string& raw :
         std::vector<std::string>{"not json", "[1,2,3]", "42", "{\"a\":", std::string(1, '\0')}) {
        auto [a, b] = channelPair();
        ASSERT_EQ(::send(a.fd(), raw.data(), raw.size(), 0), ssize_t(raw.size()));
        EXPECT_EQ(kindOf(b, 5), ChannelError::Kind::Protocol) << raw;
    }
}

TEST(MessageChannel, AnOverlongMessageIsRefusedOnBothSides) {
    auto [a, b] = channelPair();
    const json big = {{"pad", std::string(MessageChannel::kMaxMessage, 'x')}};
    try {
        a.send(big);
        ADD_FAILURE() << "sent";
    } catch (const ChannelError& e) {
        EXPECT_EQ(e.kind(), ChannelError::Kind::Protocol);
    }
    // A runner writing raw bytes past the limit: the receiver sees it truncated and refuses it.
    int size = 4 << 20;
    ASSERT_EQ(::setsockopt(a.fd(), SOL_SOCKET, SO_SNDBUF, &size, sizeof size), 0);
    const std::string raw =
        "{\"pad\":\"" + std::string(MessageChannel::kMaxMessage + 100, 'y') + "\"}";
    ASSERT_EQ(::send(a.fd(), raw.data(), raw.size(), 0), ssize_t(raw.size()));
    EXPECT_EQ(kindOf(b, 5), ChannelError::Kind::Protocol);
}

TEST(MessageChannel, SilenceAndAClosedEndAreTold) {
    auto [a, b] = channelPair();
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(kindOf(b, 0.2), ChannelError::Kind::Silent);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
    a = MessageChannel();  // closes
    EXPECT_EQ(kindOf(b, 5), ChannelError::Kind::Gone);
    try {
        b.send({{"op", "ping"}});
        ADD_FAILURE() << "sent to a closed end";
    } catch (const ChannelError& e) {
        EXPECT_EQ(e.kind(), ChannelError::Kind::Gone);
    }
}

TEST(MessageChannel, MessagesKeepTheirBoundariesAndOrder) {
    auto [a, b] = channelPair();
    for (int i = 0; i < 50; ++i)
        a.send({{"id", i}});
    for (int i = 0; i < 50; ++i)
        EXPECT_EQ(b.receive(5).first["id"], i);
}
