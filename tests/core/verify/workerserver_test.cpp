// The worker server's client (core/verify/workerserver.h) against a fake server that the test
// holds the other end of, and runChild's inherited descriptors (issue 36): the client never
// signals a process a server names, it asks for the kill instead; a descriptor passed to one
// child reaches that child and no other, and the caller's copy is closed.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/verify/childprocess.h"
#include "core/verify/workerserver.h"

namespace reach_test_workerserver_test {  // unity builds: this file's names stay its own

using nlohmann::json;

namespace {

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A process of the test's own, in a session of its own, as an unrelated victim would be.
pid_t startVictim() {
    const pid_t pid = fork();
    if (pid == 0) {
        setsid();
        execlp("sleep", "sleep", "60", static_cast<char*>(nullptr));
        _exit(127);
    }
    return pid;
}

bool alive(pid_t pid) {
    return waitpid(pid, nullptr, WNOHANG) == 0 && kill(pid, 0) == 0;
}

void endVictim(pid_t pid) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
}

// One frame of the client's: the JSON (its descriptors, when any, closed at once).
std::optional<json> readFrame(int sock, std::string& buf) {
    while (true) {
        if (buf.size() >= 4) {
            const uint32_t n = (uint32_t(uint8_t(buf[0])) << 24) |
                               (uint32_t(uint8_t(buf[1])) << 16) |
                               (uint32_t(uint8_t(buf[2])) << 8) | uint32_t(uint8_t(buf[3]));
            if (buf.size() >= 4 + n) {
                const std::string body = buf.substr(4, n);
                buf.erase(0, 4 + n);
                return json::parse(body, nullptr, false);
            }
        }
        char data[65536];
        alignas(cmsghdr) char control[CMSG_SPACE(8 * sizeof(int))];
        iovec iov{data, sizeof data};
        msghdr mh{};
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = control;
        mh.msg_controllen = sizeof control;
        const ssize_t got = recvmsg(sock, &mh, 0);
        if (got <= 0)
            return std::nullopt;
        for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                const size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < n; ++i) {
                    int fd;
                    std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                    close(fd);  // the job's pipes: EOF for the client once it closes its own
                }
            }
        }
        buf.append(data, size_t(got));
    }
}

void say(int sock, const json& line) {
    const std::string s = line.dump() + "\n";
    ASSERT_EQ(send(sock, s.data(), s.size(), MSG_NOSIGNAL), ssize_t(s.size()));
}

struct Pair {
    int client = -1, server = -1;
    Pair() {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0) {
            client = sv[0];
            server = sv[1];
        }
    }
    ~Pair() {
        if (client >= 0)
            close(client);
        if (server >= 0)
            close(server);
    }
};

}  // namespace

// Issue 36: the client killed the process group of whatever pid the "server" named.
TEST(WorkerServerClient, NeverSignalsAProcessTheServerNamesAndAsksForTheKill) {
    const pid_t victim = startVictim();
    Pair pair;
    ASSERT_GE(pair.client, 0);
    std::vector<json> received;
    std::thread fake([&] {
        std::string buf;
        if (auto req = readFrame(pair.server, buf))
            received.push_back(*req);
        say(pair.server, {{"started", true}, {"pid", victim}});
        say(pair.server, {{"pid", victim}});
        // Never reports: the client gives up after its grace and closes the connection.
        while (auto m = readFrame(pair.server, buf))
            received.push_back(*m);
    });
    const auto t0 = std::chrono::steady_clock::now();
    std::string why;
    bool usable = true;
    const auto r = reach::runInWorkerServer(pair.client, {"probe"}, 1.0, {}, &why, &usable);
    const double s = since(t0);
    shutdown(pair.client, SHUT_RDWR);  // what closing it does for the fake server
    fake.join();
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->timedOut);
    EXPECT_EQ(r->termSignal, SIGKILL);
    EXPECT_FALSE(usable) << "a connection whose job was never reported is given up";
    EXPECT_NEAR(s, 1.0 + reach::kWorkerServerKillGraceSeconds, 1.5);
    EXPECT_TRUE(alive(victim)) << "the client signalled the process the server named";
    ASSERT_EQ(received.size(), 2u);
    EXPECT_EQ(received[0]["argv"], json::array({"probe"}));
    EXPECT_EQ(received[1], json({{"kill", true}}));
    endVictim(victim);
}

TEST(WorkerServerClient, AnAnswerThatIsNotStartedIsARefusalNeverAPidToKill) {
    const pid_t victim = startVictim();
    Pair pair;
    std::thread fake([&] {
        std::string buf;
        readFrame(pair.server, buf);
        say(pair.server, {{"pid", victim}});  // the protocol before issue 36
        while (readFrame(pair.server, buf)) {
        }
    });
    std::string why;
    bool usable = true;
    const auto r = reach::runInWorkerServer(pair.client, {"probe"}, 1.0, {}, &why, &usable);
    shutdown(pair.client, SHUT_RDWR);
    fake.join();
    EXPECT_FALSE(r);
    EXPECT_FALSE(usable);
    EXPECT_NE(why.find("refused"), std::string::npos) << why;
    EXPECT_TRUE(alive(victim));
    endVictim(victim);
}

TEST(WorkerServerClient, AKilledJobThatIsReportedKeepsTheConnectionForTheNextJob) {
    Pair pair;
    std::thread fake([&] {
        std::string buf;
        for (int job = 0; job < 2; ++job) {
            if (!readFrame(pair.server, buf))
                return;
            if (job == 0) {
                say(pair.server, {{"started", true}});
                const auto kill = readFrame(pair.server, buf);  // the client's timeout
                if (kill && kill->value("kill", false))
                    say(pair.server, {{"signal", SIGKILL}});
            } else {
                // A job that ended at once: its report in the same write as its start.
                const std::string both = R"({"started": true})"
                                         "\n"
                                         R"({"exit": 0})"
                                         "\n";
                send(pair.server, both.data(), both.size(), MSG_NOSIGNAL);
            }
        }
    });
    bool usable = false;
    const auto t0 = std::chrono::steady_clock::now();
    const auto first = reach::runInWorkerServer(pair.client, {"probe"}, 0.5, {}, nullptr, &usable);
    EXPECT_LT(since(t0), 3.0);
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->timedOut);
    EXPECT_EQ(first->termSignal, SIGKILL);
    EXPECT_TRUE(usable);
    const auto t1 = std::chrono::steady_clock::now();
    const auto second = reach::runInWorkerServer(pair.client, {"probe"}, 5, {}, nullptr, &usable);
    EXPECT_LT(since(t1), 2.0) << "the report that came with the start was not seen";
    fake.join();
    ASSERT_TRUE(second);
    EXPECT_FALSE(second->timedOut);
    EXPECT_EQ(second->exitCode, 0);
    EXPECT_TRUE(usable);
}

TEST(WorkerServerClient, AServerThatGoesAwayIsAKilledJobAndAClosedConnection) {
    Pair pair;
    std::thread fake([&] {
        std::string buf;
        readFrame(pair.server, buf);
        say(pair.server, {{"started", true}});
        close(pair.server);
        pair.server = -1;
    });
    bool usable = true;
    std::string why;
    const auto r = reach::runInWorkerServer(pair.client, {"probe"}, 10, {}, &why, &usable);
    fake.join();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->termSignal, SIGKILL);
    EXPECT_NE(r->error.find("went away"), std::string::npos) << r->error;
    EXPECT_FALSE(usable);
}

TEST(RunChildInheritFds, OnlyTheChildGivenADescriptorHoldsItAndTheCallersCopyIsClosed) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    int given = sv[0];
    if (given <= 2)
        given = fcntl(given, F_DUPFD_CLOEXEC, 3);
    const std::string probe = "test -e /proc/self/fd/" + std::to_string(given) + " && echo held";
    const auto other = reach::runChild({"sh", "-c", probe}, 10);
    EXPECT_EQ(other.out, "") << "a child not given the descriptor inherited it";
    const auto r = reach::runChild({"sh", "-c", probe}, 10, {}, {}, {given});
    EXPECT_EQ(r.out, "held\n") << r.err;
    EXPECT_EQ(fcntl(given, F_GETFD), -1) << "the caller's copy is still open";
    close(sv[1]);
}

TEST(AdoptWorkerServerConnection, TakesAStreamSocketAndRemovesTheVariable) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);  // inheritable, as a child gets it
    setenv(reach::kWorkerServerFdVariable, std::to_string(sv[0]).c_str(), 1);
    reach::adoptWorkerServerConnection();
    EXPECT_EQ(std::getenv(reach::kWorkerServerFdVariable), nullptr);
    EXPECT_TRUE(reach::hasWorkerServerConnection());
    EXPECT_EQ(fcntl(sv[0], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC) << "workers would inherit it";
    close(sv[1]);  // the "server" is gone: the next worker finds the connection closed
    std::string why;
    EXPECT_FALSE(reach::runInAdoptedWorkerServer({"probe"}, 5, {}, &why));
    EXPECT_FALSE(reach::hasWorkerServerConnection()) << "a broken connection is dropped";

    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    setenv(reach::kWorkerServerFdVariable, std::to_string(pipeFds[0]).c_str(), 1);
    reach::adoptWorkerServerConnection();
    EXPECT_FALSE(reach::hasWorkerServerConnection()) << "a pipe is no connection";
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    setenv(reach::kWorkerServerFdVariable, std::to_string(sv[0]).c_str(), 1);
    reach::adoptWorkerServerConnection();
    EXPECT_FALSE(reach::hasWorkerServerConnection()) << "a datagram socket is no connection";
    for (const char* bad : {"1", "-4", "3x", ""}) {
        setenv(reach::kWorkerServerFdVariable, bad, 1);
        reach::adoptWorkerServerConnection();
        EXPECT_FALSE(reach::hasWorkerServerConnection()) << bad;
    }
    for (int fd : {pipeFds[0], pipeFds[1], sv[0], sv[1]})
        close(fd);
}

}  // namespace reach_test_workerserver_test
