#include "core/batch/batchpool.h"

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/base/inputerror.h"
#include "core/base/jsonparse.h"
#include "core/base/resourcepaths.h"
#include "core/verify/childprocess.h"
#include "core/verify/gputiminglock.h"
#include "core/verify/kbverify.h"
#include "core/verify/workerserver.h"

namespace reach {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// What a KernelBench-format job's baselines depend on in a batch: its problem's bytes and the
// precision it runs in (the GPU and stack are the batch's own). Jobs of one key share them
// through the results cache (resources/python/reach_kb/resultcache.py).
std::string baselineKey(const BatchJob& job) {
    std::string key = job.problemHash.empty() ? job.request.problemFile : job.problemHash;
    const auto& a = job.request.extraArgs;
    for (size_t i = 0; i + 1 < a.size(); ++i)
        if (a[i] == "--precision")
            key += "|" + a[i + 1];
    return key;
}

// The scheduler's state, under one mutex. Jobs wait in order; a GPU worker takes the first one
// that is ready (nothing to compile, or compiled ahead; for a KernelBench-format job, no other
// job of its problem measuring the baselines), else one nobody compiles yet (it then compiles
// it itself, rather than idle), else it waits for a compile or a first job to finish.
//
// Baselines first (issue 38): the first job of a problem measures its baselines (eager, and
// torch.compile: 36-114 s on an H100) and caches them; the problem's other jobs wait for that
// one, not for their own, and meanwhile the workers take other problems' jobs.
class Scheduler {
public:
    enum class Group { NotStarted, Compiling, Done };

    Scheduler(const std::vector<BatchJob>& jobs, bool compileAhead) {
        m_group.assign(jobs.size(), -1);
        m_problem.assign(jobs.size(), -1);
        std::map<std::string, int> byCandidate, byProblem;
        for (size_t j = 0; j < jobs.size(); ++j) {
            const BatchJob& job = jobs[j];
            if (job.kernelBenchFormat) {
                auto [it, fresh] = byProblem.emplace(baselineKey(job), int(m_problemState.size()));
                if (fresh) {
                    m_problemState.push_back(Group::NotStarted);
                    m_problemOwner.push_back(-1);
                }
                m_problem[j] = it->second;
            }
            if (job.pinnedGpu)
                m_pinned[*job.pinnedGpu].push_back(int(j));
            else
                m_waiting.push_back(int(j));
            if (!compileAhead || !job.needsCompile())
                continue;
            const std::string key =
                job.candidateHash.empty() ? job.request.candidateFile : job.candidateHash;
            auto [it, fresh] = byCandidate.emplace(key, int(m_groupState.size()));
            if (fresh) {
                m_groupState.push_back(Group::NotStarted);
                m_groupJob.push_back(int(j));
                m_groupOwner.push_back(-1);
            }
            m_group[j] = it->second;
        }
    }

    // The next job for a GPU worker, or -1 when there is none left for it (or stop).
    int takeForGpu(const std::string& gpu, const std::stop_token& stop) {
        std::unique_lock lk(m_mutex);
        while (!stop.stop_requested()) {
            std::list<int>* lists[2] = {&m_pinned[gpu], &m_waiting};
            std::list<int>* fallbackList = nullptr;
            std::list<int>::iterator fallback;
            bool compiling = false;
            for (std::list<int>* l : lists) {
                for (auto it = l->begin(); it != l->end(); ++it) {
                    const int p = m_problem[size_t(*it)];
                    if (p >= 0 && m_problemState[size_t(p)] == Group::Compiling) {
                        compiling = true;  // its problem's first job measures the baselines
                        continue;
                    }
                    if (p >= 0 && m_problemState[size_t(p)] == Group::NotStarted) {
                        m_problemState[size_t(p)] = Group::Compiling;
                        m_problemOwner[size_t(p)] = *it;
                        return take(*l, it);
                    }
                    const int g = m_group[size_t(*it)];
                    if (g < 0 || m_groupState[size_t(g)] == Group::Done)
                        return take(*l, it);
                    if (m_groupState[size_t(g)] == Group::NotStarted && !fallbackList) {
                        fallbackList = l;
                        fallback = it;
                    } else {
                        compiling = true;
                    }
                }
            }
            if (fallbackList) {
                const int g = m_group[size_t(*fallback)];
                m_groupState[size_t(g)] = Group::Compiling;
                m_groupOwner[size_t(g)] = *fallback;
                return take(*fallbackList, fallback);
            }
            if (!compiling)
                return -1;
            m_cv.wait(lk);  // a compile will finish (or stop is requested)
        }
        return -1;
    }

    // The next candidate to compile ahead: the job whose candidate it is, or -1.
    int takeForCompile(const std::stop_token& stop) {
        std::lock_guard lk(m_mutex);
        while (!stop.stop_requested() && m_cursor < m_groupState.size()) {
            const size_t g = m_cursor++;
            if (m_groupState[g] == Group::NotStarted) {
                m_groupState[g] = Group::Compiling;
                return m_groupJob[g];
            }
        }
        return -1;
    }

    void compileFinished(int job) {
        std::lock_guard lk(m_mutex);
        m_groupState[size_t(m_group[size_t(job)])] = Group::Done;
        ++m_compiled;
        m_cv.notify_all();
    }

    void jobFinished(int job) {
        std::lock_guard lk(m_mutex);
        --m_running;
        if (const int p = m_problem[size_t(job)]; p >= 0 && m_problemOwner[size_t(p)] == job) {
            m_problemState[size_t(p)] = Group::Done;
            m_cv.notify_all();
        }
        const int g = m_group[size_t(job)];
        if (g >= 0 && m_groupOwner[size_t(g)] == job) {
            m_groupState[size_t(g)] = Group::Done;
            m_cv.notify_all();
        }
    }

    void wakeAll() {
        std::lock_guard lk(m_mutex);
        m_cv.notify_all();
    }

    int running() {
        std::lock_guard lk(m_mutex);
        return m_running;
    }
    int compiled() {
        std::lock_guard lk(m_mutex);
        return m_compiled;
    }

private:
    int take(std::list<int>& l, std::list<int>::iterator it) {
        const int j = *it;
        l.erase(it);
        ++m_running;
        return j;
    }

    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::list<int> m_waiting;
    std::map<std::string, std::list<int>> m_pinned;
    std::vector<int> m_group;  // job -> compile group, -1: nothing to compile ahead
    std::vector<Group> m_groupState;
    std::vector<int> m_groupJob;    // the job whose candidate a group compiles
    std::vector<int> m_groupOwner;  // the GPU job compiling it itself, -1: a compile worker
    // job -> its KernelBench-format problem (baselineKey), -1: none; per problem, whether its
    // first job has not started, measures the baselines (Compiling) or is done.
    std::vector<int> m_problem;
    std::vector<Group> m_problemState;
    std::vector<int> m_problemOwner;
    size_t m_cursor = 0;
    int m_running = 0;
    int m_compiled = 0;
};

std::vector<std::string> slotEnv(const BatchPoolOptions& o, const BatchSlot& s) {
    std::vector<std::string> env = o.env;
    if (!s.gpu.empty())
        env.push_back("CUDA_VISIBLE_DEVICES=" + s.gpu);
    const std::string key = !s.uuid.empty() ? s.uuid : (s.gpu.empty() ? "" : "index" + s.gpu);
    if (!o.lockDir.empty() && !key.empty())
        env.push_back("REACH_GPU_LOCK=" + GpuTimingLock::pathFor(o.lockDir, key));
    return env;
}

std::string minutes(double seconds) {
    char b[32];
    if (seconds < 90)
        std::snprintf(b, sizeof b, "%.0f s", seconds);
    else if (seconds < 5400)
        std::snprintf(b, sizeof b, "%.1f min", seconds / 60);
    else
        std::snprintf(b, sizeof b, "%.1f h", seconds / 3600);
    return b;
}

}  // namespace

double BatchProgress::jobsPerHour() const {
    return elapsedSeconds > 0 ? done * 3600.0 / elapsedSeconds : 0;
}

double BatchProgress::etaSeconds() const {
    return done > 0 ? remaining() * elapsedSeconds / done : -1;
}

std::string BatchProgress::line(const std::vector<BatchSlot>& slots) const {
    std::ostringstream s;
    s << "batch: " << done << "/" << total << " done (" << failed << " failed)";
    if (skipped)
        s << ", " << skipped << " skipped (done before)";
    s << ", " << remaining() << " left, " << running << " running";
    if (done > 0) {
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.0f", jobsPerHour());
        s << ", " << rate << " jobs/h, ~" << minutes(etaSeconds()) << " left";
    }
    if (donePerSlot.size() > 1) {
        s << "; per GPU";
        std::map<std::string, int> perGpu;
        for (size_t i = 0; i < donePerSlot.size(); ++i)
            perGpu[i < slots.size() && !slots[i].gpu.empty() ? slots[i].gpu : std::to_string(i)] +=
                donePerSlot[i];
        for (const auto& [gpu, n] : perGpu)
            s << " " << gpu << ":" << n;
    }
    return s.str();
}

namespace {

// Jobs share a GPU (--jobs-per-gpu 2); a job that ran out of GPU memory beside another is run
// again alone: it waits until nothing else runs on its GPU, and nothing new starts there until
// it is done.
class GpuGate {
public:
    void enter(const std::string& gpu) {
        std::unique_lock lk(m_mutex);
        m_cv.wait(lk, [&] { return !m_exclusive[gpu]; });
        ++m_running[gpu];
    }
    void leave(const std::string& gpu) {
        std::lock_guard lk(m_mutex);
        --m_running[gpu];
        m_cv.notify_all();
    }
    // Called by a job that holds one entry of its own (it gives it up while it waits).
    void enterAlone(const std::string& gpu) {
        std::unique_lock lk(m_mutex);
        --m_running[gpu];
        m_cv.notify_all();
        m_cv.wait(lk, [&] { return !m_exclusive[gpu]; });
        m_exclusive[gpu] = true;
        m_cv.wait(lk, [&] { return m_running[gpu] == 0; });
        ++m_running[gpu];
    }
    void leaveAlone(const std::string& gpu) {
        std::lock_guard lk(m_mutex);
        m_exclusive[gpu] = false;
        m_cv.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_cv;
    std::map<std::string, int> m_running;
    std::map<std::string, bool> m_exclusive;
};

bool outOfGpuMemory(const VerificationResult& r) {
    if (r.verdict != verdict::kError)
        return false;
    for (const std::string& reason : r.reasons)
        if (reason.find("out of GPU memory") != std::string::npos)
            return true;
    return false;
}

// What a batch's threads share: the jobs, the scheduler, the GPU gate, and the queue of finished
// jobs that the calling thread reports.
struct BatchState {
    BatchState(const std::vector<BatchJob>& jobs, const BatchPoolOptions& options,
               bool compileAhead)
        : jobs(jobs),
          options(options),
          sched(jobs, compileAhead),
          workersLeft(int(options.slots.size()) + (compileAhead ? options.compileWorkers : 0)) {
        for (const BatchSlot& slot : options.slots)
            ++workersOnGpu[slot.gpu];
    }

    const std::vector<BatchJob>& jobs;
    const BatchPoolOptions& options;
    Scheduler sched;
    GpuGate gate;
    // Whether a GPU has more than one worker (only then can a job run short of memory because of
    // another; alone, a retry would meet the same wall).
    std::map<std::string, int> workersOnGpu;
    std::stop_source halt;

    std::mutex resultsMutex;
    std::condition_variable resultsCv;
    std::deque<BatchOutcome> results;
    // Counted before any thread starts: each worker counts itself out when it ends.
    int workersLeft;

    // Read by every GPU worker at once: a lookup, never an insertion.
    bool sharedGpu(const std::string& gpu) const {
        const auto it = workersOnGpu.find(gpu);
        return it != workersOnGpu.end() && it->second > 1;
    }
    void finishWorker() {
        std::lock_guard lk(resultsMutex);
        --workersLeft;
        resultsCv.notify_all();
    }
};

// One run of a job's verifier. KernelBench-format jobs share the batch's warm worker server
// (workerserver.h): PyTorch imported once for the batch, not twice per job. Each run of the
// verifier gets a connection of its own, passed to it alone.
VerificationResult runVerifierOnce(const VerifyProcessRequest& req, bool kernelBench,
                                   VerifierRun* into, const std::stop_token& token,
                                   bool* cancelledOut) {
    VerifyProcessRequest r = req;
    if (kernelBench)
        if (const auto server =
                sharedWorkerServer(findPython(""), findResourceDir() + "/python/reach_kbserver.py"))
            if (const int fd = server->connect(); fd >= 0) {
                r.inheritFds = {fd};
                r.env.push_back(std::string(kWorkerServerFdVariable) + "=" + std::to_string(fd));
            }
    return runVerifierProcess(r, into, token, cancelledOut);
}

// A GPU worker: runs the jobs the scheduler gives slot `s`, one at a time, and queues each
// outcome for the calling thread.
void gpuWorker(BatchState& b, size_t s, const std::stop_token& token) {
    const BatchSlot& slot = b.options.slots[s];
    const std::vector<std::string> env = slotEnv(b.options, slot);
    for (int j; (j = b.sched.takeForGpu(slot.gpu, token)) >= 0;) {
        VerifyProcessRequest req = b.jobs[size_t(j)].request;
        req.verifier = b.options.verifier;
        req.env.insert(req.env.begin(), env.begin(), env.end());
        const bool kernelBench = isKernelBenchFormat(req.problemFile, req.candidateFile);
        BatchOutcome out;
        out.job = &b.jobs[size_t(j)];
        out.slot = int(s);
        bool cancelled = false;
        b.gate.enter(slot.gpu);
        out.result = runVerifierOnce(req, kernelBench, &out.run, token, &cancelled);
        if (!cancelled && outOfGpuMemory(out.result) && b.sharedGpu(slot.gpu)) {
            // Out of memory beside another job: once more, alone on this GPU.
            b.gate.enterAlone(slot.gpu);
            out.run = {};
            out.result = runVerifierOnce(req, kernelBench, &out.run, token, &cancelled);
            out.retried = true;
            b.gate.leaveAlone(slot.gpu);
        }
        b.gate.leave(slot.gpu);
        b.sched.jobFinished(j);
        if (cancelled)
            break;  // nothing was judged: a resume runs it again
        // SIGTERM, SIGINT or SIGHUP come from outside (scancel, a Slurm time limit or
        // preemption signal the whole task; an operator): the candidate was not judged
        // either. A candidate's own crash is SIGSEGV, SIGABRT, ... or the verifier's
        // verdict; the timeout's kill is SIGKILL.
        const int sig = out.run.termSignal;
        if (out.run.crashed && !out.run.timedOut &&
            (sig == SIGTERM || sig == SIGINT || sig == SIGHUP))
            continue;
        std::lock_guard lk(b.resultsMutex);
        b.results.push_back(std::move(out));
        b.resultsCv.notify_all();
    }
    b.finishWorker();
}

// A compile worker: compiles the candidates the scheduler gives it ahead of their GPU runs.
void compileWorker(BatchState& b, const std::vector<std::string>& env,
                   const std::stop_token& token) {
    for (int j; (j = b.sched.takeForCompile(token)) >= 0;) {
        const VerifyProcessRequest& req = b.jobs[size_t(j)].request;
        std::vector<std::string> argv = {b.options.verifier, "--candidate", req.candidateFile,
                                         "--compile-only",   "--arch",      b.options.compileArch};
        argv.insert(argv.end(), req.extraArgs.begin(), req.extraArgs.end());
        // A failed compile is not reported here: the GPU run compiles again and
        // its verdict (compile_error, with the log) is the job's answer.
        runChild(argv, b.options.compileTimeoutSeconds, env, token);
        b.sched.compileFinished(j);
    }
    b.finishWorker();
}

// The calling thread's part: each finished job handed to onResult (and the progress to
// onProgress) until every worker has ended. An exception from either stops the workers and is
// returned, for the caller to rethrow once they are joined.
std::exception_ptr reportOutcomes(BatchState& b, Clock::time_point t0, int skipped,
                                  const std::function<void(const BatchOutcome&)>& onResult,
                                  const std::function<void(const BatchProgress&)>& onProgress) {
    BatchProgress progress;
    progress.total = int(b.jobs.size());
    progress.skipped = skipped;
    progress.donePerSlot.assign(b.options.slots.size(), 0);
    std::exception_ptr error;
    while (true) {
        std::unique_lock lk(b.resultsMutex);
        b.resultsCv.wait(lk, [&] { return !b.results.empty() || b.workersLeft == 0; });
        if (b.results.empty())
            break;
        BatchOutcome out = std::move(b.results.front());
        b.results.pop_front();
        lk.unlock();
        try {
            ++progress.done;
            ++progress.donePerSlot[size_t(out.slot)];
            ++progress.verdicts[out.result.verdict];
            if (!out.result.passed())
                ++progress.failed;
            onResult(out);
            if (onProgress) {
                progress.running = b.sched.running();
                progress.compiled = b.sched.compiled();
                progress.elapsedSeconds = since(t0);
                onProgress(progress);
            }
        } catch (...) {
            error = std::current_exception();
            b.halt.request_stop();
            b.sched.wakeAll();
            break;
        }
    }
    return error;
}

}  // namespace

void runBatch(const std::vector<BatchJob>& jobs, const BatchPoolOptions& options,
              const std::function<void(const BatchOutcome&)>& onResult,
              const std::function<void(const BatchProgress&)>& onProgress, std::stop_token stop,
              int skipped) {
    if (options.slots.empty())
        throw std::invalid_argument("runBatch: no GPU worker");
    const bool compileAhead = options.compileWorkers > 0 && !options.compileArch.empty();
    BatchState b(jobs, options, compileAhead);
    std::stop_callback forward(stop, [&] {
        b.halt.request_stop();
        b.sched.wakeAll();
    });
    const std::stop_token token = b.halt.get_token();

    const auto t0 = Clock::now();
    std::vector<std::thread> workers;
    for (size_t s = 0; s < options.slots.size(); ++s)
        workers.emplace_back([&, s] { gpuWorker(b, s, token); });
    if (compileAhead) {
        std::vector<std::string> env = options.env;
        env.push_back("CUDA_VISIBLE_DEVICES=");  // compiling needs no GPU (--arch)
        for (int c = 0; c < options.compileWorkers; ++c)
            workers.emplace_back([&, env] { compileWorker(b, env, token); });
    }

    const std::exception_ptr error = reportOutcomes(b, t0, skipped, onResult, onProgress);
    for (std::thread& t : workers)
        t.join();
    if (error)
        std::rethrow_exception(error);
}

std::vector<BatchSlot> batchSlots(const std::string& verifier, const std::string& gpus,
                                  int jobsPerGpu) {
    auto ask = [&](const std::optional<std::string>& gpu) {
        std::vector<std::string> env;
        if (gpu)
            env.push_back("CUDA_VISIBLE_DEVICES=" + *gpu);
        const ChildResult c = runChild({verifier, "--device-info"}, 120, env);
        const auto j = tryParseJson(c.out).value_or(nlohmann::json());
        if (!c.started || !j.is_object())
            throw InputError(verifier, "--device-info",
                             "the verifier's device (it " +
                                 (c.started ? "printed no JSON" : "could not start: " + c.error) +
                                 ")");
        return j;
    };
    auto noGpu = [&](const std::string& which, const nlohmann::json& d) {
        std::string reason = d.value("reason", std::string());
        return InputError("--gpus " + which, "device",
                          "a GPU to verify on (" + (reason.empty() ? "none found" : reason) + ")");
    };
    std::vector<std::string> list;
    if (gpus == "all") {
        const nlohmann::json d = ask(std::nullopt);
        const int n = d.value("device_count", d.value("available", false) ? 1 : 0);
        if (!d.value("available", false) || n < 1)
            throw noGpu(gpus, d);
        const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
        std::vector<std::string> given;
        if (visible && *visible) {
            std::stringstream in(visible);
            for (std::string g; std::getline(in, g, ',');)
                if (!g.empty())
                    given.push_back(g);
        }
        for (int i = 0; i < n; ++i)
            list.push_back(i < int(given.size()) ? given[size_t(i)] : std::to_string(i));
    } else {
        std::stringstream in(gpus);
        for (std::string g; std::getline(in, g, ',');) {
            if (g.empty() || g.find_first_not_of("0123456789") != std::string::npos)
                throw InputError("--gpus " + gpus, "'" + g + "'",
                                 "all, or GPU indices separated by commas (0,1,3)");
            list.push_back(g);
        }
    }
    // One question per GPU, in parallel: each starts a CUDA context (a second or so).
    std::vector<std::future<nlohmann::json>> answers;
    for (const std::string& g : list)
        answers.push_back(std::async(std::launch::async, ask, std::optional<std::string>(g)));
    std::vector<BatchSlot> gpuSlots;
    for (size_t i = 0; i < list.size(); ++i) {
        const nlohmann::json d = answers[i].get();
        if (!d.value("available", false))
            throw noGpu(list[i], d);
        gpuSlots.push_back({list[i], d.value("uuid", std::string()), d.value("name", std::string()),
                            d.value("arch", std::string())});
    }
    // Slot order spreads the first jobs over every GPU before doubling up on one.
    std::vector<BatchSlot> slots;
    for (int k = 0; k < jobsPerGpu; ++k)
        slots.insert(slots.end(), gpuSlots.begin(), gpuSlots.end());
    return slots;
}

}  // namespace reach
