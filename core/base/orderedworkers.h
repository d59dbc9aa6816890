#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace reach {

// A few threads that run jobs in any order and hand the results back in the order the jobs
// were submitted (a reader that parses pieces of a file on several threads and merges them in
// file order). A job's exception comes back, in its turn, from takeOldest. The destructor drops
// the jobs not started and waits for those running.
template <typename In, typename Out>
class OrderedWorkers {
public:
    OrderedWorkers(unsigned threads, std::function<Out(In&)> work) : m_work(std::move(work)) {
        for (unsigned i = 0; i < threads; ++i)
            m_threads.emplace_back([this] { loop(); });
    }
    ~OrderedWorkers() {
        {
            std::lock_guard lock(m_mutex);
            m_closing = true;
            m_todo.clear();
        }
        m_wake.notify_all();
        for (std::thread& t : m_threads)
            t.join();
    }
    OrderedWorkers(const OrderedWorkers&) = delete;
    OrderedWorkers& operator=(const OrderedWorkers&) = delete;

    void submit(In in) {
        {
            std::lock_guard lock(m_mutex);
            m_jobs.push_back(std::make_unique<Job>(std::move(in)));
            m_todo.push_back(m_jobs.back().get());
        }
        m_wake.notify_one();
    }

    // Jobs submitted and not yet taken.
    size_t pending() const {
        std::lock_guard lock(m_mutex);
        return m_jobs.size();
    }

    // The result of the oldest job not yet taken, once it is done (rethrows what it threw).
    Out takeOldest() {
        std::unique_lock lock(m_mutex);
        m_done.wait(lock, [this] { return m_jobs.front()->done; });
        std::unique_ptr<Job> job = std::move(m_jobs.front());
        m_jobs.pop_front();
        lock.unlock();
        if (job->error)
            std::rethrow_exception(job->error);
        return std::move(*job->out);
    }

private:
    struct Job {
        explicit Job(In i) : in(std::move(i)) {}
        In in;
        std::optional<Out> out;
        std::exception_ptr error;
        bool done = false;
    };

    void loop() {
        std::unique_lock lock(m_mutex);
        for (;;) {
            m_wake.wait(lock, [this] { return m_closing || !m_todo.empty(); });
            if (m_closing)
                return;
            Job* job = m_todo.front();
            m_todo.pop_front();
            lock.unlock();
            std::optional<Out> out;
            std::exception_ptr error;
            try {
                out.emplace(m_work(job->in));
            } catch (...) {
                error = std::current_exception();
            }
            lock.lock();
            job->out = std::move(out);
            job->error = error;
            job->done = true;
            m_done.notify_all();
        }
    }

    std::function<Out(In&)> m_work;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<std::unique_ptr<Job>> m_jobs;  // submitted, not taken, oldest first
    std::deque<Job*> m_todo;                  // not started, oldest first
    bool m_closing = false;
    std::vector<std::thread> m_threads;  // last: they start once the rest exists
};

}  // namespace reach
