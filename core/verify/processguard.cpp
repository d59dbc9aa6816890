#include "core/verify/processguard.h"

#include <dirent.h>
#include <linux/capability.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace reach {

void guardProcessFromCandidates() {
    const char* keep = std::getenv("REACH_DEBUG_DUMPABLE");
    if (!keep || std::string(keep) != "1")
        ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

std::vector<std::string> dropPrivilegesForCandidate() {
    std::vector<std::string> notes;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        notes.push_back("no_new_privs not set");
    for (int cap = 0; cap < 64; ++cap)
        ::prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);  // fails without CAP_SETPCAP: then there is none
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capset, &hdr, data) != 0)
        notes.push_back("capabilities not dropped (capset failed)");
    return notes;
}

void becomeSubreaper() {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

namespace {

// The live (not zombie) children of this process, from /proc/<pid>/stat.
std::vector<pid_t> liveChildren() {
    std::vector<pid_t> out;
    const pid_t self = ::getpid();
    DIR* d = ::opendir("/proc");
    if (!d)
        return out;
    while (dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream in("/proc/" + name + "/stat");
        std::string stat((std::istreambuf_iterator<char>(in)), {});
        const size_t close = stat.rfind(')');
        if (close == std::string::npos)
            continue;
        std::istringstream rest(stat.substr(close + 1));
        std::string state;
        long ppid = 0;
        rest >> state >> ppid;
        if (ppid == self && state != "Z")
            out.push_back(pid_t(std::stol(name)));
    }
    ::closedir(d);
    return out;
}

}  // namespace

int killLeftoverChildren(double budgetSeconds) {
    int killed = 0;
    const auto t0 = std::chrono::steady_clock::now();
    while (true) {
        const std::vector<pid_t> kids = liveChildren();
        for (pid_t k : kids) {
            ::kill(-k, SIGKILL);  // its group, when it leads one
            ::kill(k, SIGKILL);
            ++killed;
        }
        int status = 0;
        while (::waitpid(-1, &status, WNOHANG) > 0) {
        }
        const double spent =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (kids.empty() || spent > budgetSeconds)
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return killed;
}

}  // namespace reach
