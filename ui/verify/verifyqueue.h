#pragma once

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QThread>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/verify/queueclock.h"
#include "core/verify/verification.h"

class QProcess;
class QTimer;

namespace reach {

// One run of reach-verify on one candidate. recordKey says which evaluation record it checks; the
// queue never interprets it.
struct VerifyJob {
    int id = 0;  // assigned by VerifyQueue::enqueue
    QString recordKey;
    QString problemPath;
    QString candidatePath;
    int reps = 100;
    QStringList extraArguments;
    int timeoutMs = 0;  // 0: the queue's limit (a KernelBench-format job needs longer)
};

// What came back from one job. A verifier that crashes, hangs or prints garbage is an outcome
// like any other: the GUI shows it and carries on.
struct VerifyOutcome {
    enum class Status {
        Finished,       // the verifier exited and printed one JSON document (any verdict)
        Crashed,        // the verifier process died (signal, abort)
        TimedOut,       // killed after the timeout
        Cancelled,      // killed because the user cancelled
        FailedToStart,  // program missing or not executable
        BadOutput,      // exited but stdout was not one JSON document
    };
    int jobId = 0;
    QString recordKey;
    Status status = Status::Finished;
    int exitCode = -1;
    QByteArray stdoutJson;  // the verifier's JSON, verbatim (stored in the project)
    QString log;            // stderr (tail) and what the queue saw
    double wallMs = 0;
    // The run as a verification result, by the one rule the CLI uses too (core resultFromRun):
    // the verifier's document, or a synthesized timeout / crashed / error verdict.
    VerificationResult result;

    static QString statusKey(Status s);  // "finished", "crashed", "timeout", ...
};

// One worker of the queue: the GPU its jobs run on (CUDA_VISIBLE_DEVICES), as a batch's pool
// does (core/batch/batchpool.h). gpu empty: the environment's (every GPU the verifier sees).
struct VerifySlot {
    QString gpu;
    QString uuid;  // names the GPU's timing lock when known (else its index)
};

// Runs jobs one at a time in a reach-verify process, pinned to its slot's GPU. Lives on
// VerifyQueue's worker thread: every QProcess and timer is created there, so a verifier that
// hangs never blocks the GUI thread.
class VerifyWorker : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // "NAME=value" entries the worker's processes get on top of the environment.
    void setEnvironment(const QStringList& env) { m_env = env; }

public slots:
    void start(const QString& program, const reach::VerifyJob& job, int timeoutMs);
    void cancelCurrent();

signals:
    void finished(const reach::VerifyOutcome& outcome);

private:
    void finish(VerifyOutcome::Status status);

    QProcess* m_process = nullptr;
    QTimer* m_timer = nullptr;
    VerifyJob m_job;
    int m_timeoutMs = 0;
    qint64 m_startedMs = 0;
    std::optional<VerifyOutcome::Status> m_killReason;
    bool m_gpuBusy = false;  // killed after waiting for the GPU past the queue limit
    double m_queueSeconds = 0;
    std::unique_ptr<QueueFile> m_queue;  // where the job reports its waits (queueclock.h)
    bool m_done = true;
    QStringList m_env;
};

// The GUI's queue of verifier runs: several jobs queued, one running per slot (one slot per GPU
// or configured slot; by default one, on the environment's GPUs), progress overall and per slot,
// Cancel, a timeout. It owns a dedicated QThread with one VerifyWorker per slot. Results arrive
// on the GUI thread as jobFinished, in the order they finish (job order with one slot); the
// caller stores them and updates the views. Two slots on one GPU never time at once: each
// verifier takes that GPU's timing lock (core/verify/gputiminglock.h) around its timed loops.
class VerifyQueue : public QObject {
    Q_OBJECT
public:
    explicit VerifyQueue(QObject* parent = nullptr);
    ~VerifyQueue() override;

    // core's findVerifierExecutable(): $REACH_VERIFY, else reach-verify beside the program.
    static QString defaultProgram();
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }
    // Wall-clock limit of one verifier run (default 120 s: the verifier's own candidate timeout
    // is 60 s, plus compile time).
    void setTimeoutMs(int ms) { m_timeoutMs = ms; }
    int timeoutMs() const { return m_timeoutMs; }

    // The workers: one per entry (a GPU listed twice runs two jobs at once). Applied at once when
    // nothing runs, else when the queue is next idle. Empty: one slot on the environment's GPUs.
    void setWorkerSlots(const QList<VerifySlot>& workerSlots);
    QList<VerifySlot> workerSlots() const { return m_slots; }
    int slotCount() const { return int(m_slots.size()); }
    // gpus "0,1,3" (or "" for the environment's), each jobsPerGpu times, every GPU once before
    // any twice.
    static QList<VerifySlot> workerSlotsFor(const QStringList& gpus, int jobsPerGpu);
    // Jobs finished by each slot since the queue was last idle.
    QList<int> doneBySlot() const { return m_doneBySlot; }

    // Whether a GPU answers; without one, enqueue refuses and the actions are disabled.
    void setGpuAvailable(bool available, const QString& reason = {});
    bool gpuAvailable() const { return m_gpuAvailable; }
    QString gpuReason() const { return m_gpuReason; }

    // Returns the job ids (in order), or an empty list when no GPU is available.
    QList<int> enqueue(QList<VerifyJob> jobs);
    // Drops queued jobs and kills the running one (its outcome is Cancelled).
    void cancelAll();

    bool busy() const { return runningCount() > 0 || !m_pending.empty(); }
    int runningCount() const;
    int pendingCount() const { return int(m_pending.size()); }
    int doneCount() const { return m_done; }
    int totalCount() const { return m_total; }

signals:
    void jobStarted(int jobId, const QString& recordKey);
    void jobFinished(const reach::VerifyOutcome& outcome);
    void progressChanged(int done, int total);
    // Per slot (per GPU): what it has finished and what it runs now ("" when idle).
    void slotProgressChanged(int slot, const QString& gpu, int done, const QString& runningKey);
    void idle();
    void gpuAvailabilityChanged(bool available, const QString& reason);

private:
    struct Worker {
        VerifyWorker* worker = nullptr;
        std::optional<VerifyJob> running;
    };
    void buildWorkers();
    void dispatchNext();
    void onWorkerFinished(int slot, const reach::VerifyOutcome& outcome);
    void cancelRunning();

    QThread m_thread;
    QList<VerifySlot> m_slots;
    QList<VerifySlot> m_nextSlots;  // waiting for the queue to be idle
    bool m_slotsChanged = false;
    std::vector<Worker> m_workers;
    QList<int> m_doneBySlot;
    QString m_program;
    int m_timeoutMs = 120000;
    bool m_gpuAvailable = true;
    QString m_gpuReason;
    std::deque<VerifyJob> m_pending;
    int m_nextId = 1;
    int m_done = 0;
    int m_total = 0;
};

}  // namespace reach

Q_DECLARE_METATYPE(reach::VerifyJob)
Q_DECLARE_METATYPE(reach::VerifyOutcome)
