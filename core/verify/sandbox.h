#pragma once

#include <string>
#include <vector>

namespace reach {

// `reach-verify --sandbox`: the verifier (and the candidate it loads, and the Python worker)
// runs under bubblewrap (Debian `bubblewrap`, docs/security.md). Inside: the system read-only,
// no network, its own PID/IPC/UTS namespaces, a private /tmp and /dev/shm, the user's home
// directory replaced by an empty one, and visible again only what the job needs: the problem's and
// the candidate's folders and Reach's files read-only, the compile cache writable. A malicious
// candidate can then still use the GPU and burn time, but cannot read the user's files, send
// them anywhere, or change anything outside the cache.
struct SandboxSpec {
    std::string bwrap;                       // path of bwrap
    std::vector<std::string> command;        // program and its arguments, run inside
    std::vector<std::string> readOnlyPaths;  // made visible read-only (files or folders)
    std::vector<std::string> writablePaths;  // made visible read-write (folders that exist)
    std::string home;                        // hidden behind an empty tmpfs; empty: not hidden
};

// bwrap found on PATH (or $REACH_BWRAP), empty when it is not installed.
std::string findBubblewrap();

// The full argv to exec: bwrap, its options, "--", then spec.command. The environment variable
// REACH_SANDBOXED=1 is set inside so the verifier does not wrap itself again.
std::vector<std::string> sandboxArguments(const SandboxSpec& spec);

// The one-line error when --sandbox is asked for and bwrap is missing.
std::string sandboxUnavailableMessage();

}  // namespace reach
