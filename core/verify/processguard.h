#pragma once

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

// SIGKILLs every child process of this one (and its process group) that is still there, then
// reaps them, until none is left or `budgetSeconds` is spent: the leftovers of a finished job.
// Returns how many were killed.
int killLeftoverChildren(double budgetSeconds = 2.0);

}  // namespace reach
