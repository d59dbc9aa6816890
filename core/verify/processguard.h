#pragma once

#include <string>
#include <vector>

namespace reach {

// Every Reach process that reads a verdict (reach-verify, reach-cli, the GUI) calls this first.
// A candidate runs as the same user; without it, the candidate could open this process's pipes
// through /proc/<pid>/fd (and write a forged verdict into the stream it reads) or ptrace it.
// A non-dumpable process (PR_SET_DUMPABLE 0) refuses both to processes without CAP_SYS_PTRACE,
// which Reach's runner drops (resources/python/reach_kb/procwatch.py). REACH_DEBUG_DUMPABLE=1
// keeps the process dumpable, for a debugger.
void guardProcessFromCandidates();

// Makes this process the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER): what a
// job's processes start and abandon comes back here instead of to init, to be killed.
void becomeSubreaper();

// For a process that is about to run a candidate (the runner): it keeps no capability and can gain
// none (PR_SET_NO_NEW_PRIVS, every capability dropped from the bounding, effective and permitted
// sets). Run as root, a candidate would otherwise hold CAP_SYS_PTRACE, which passes over the
// non-dumpable guard above. Dies with its parent (PR_SET_PDEATHSIG). Returns what could not be
// done (empty when all of it was).
std::vector<std::string> dropPrivilegesForCandidate();

// SIGKILLs every child process of this one (and its process group) that is still there, then
// reaps them, until none is left or `budgetSeconds` is spent: the leftovers of a finished job.
// Returns how many were killed.
int killLeftoverChildren(double budgetSeconds = 2.0);

}  // namespace reach
