#include "ui/verify/verifyqueue.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>

#include "core/base/resourcepaths.h"
#include "core/verify/gputiminglock.h"
#include "core/verify/kbverify.h"
#include "core/verify/queueclock.h"
#include "core/verify/verifyprocess.h"
#include "core/verify/workerserver.h"

namespace reach {

namespace {

// The log shown to the user: enough of stderr to see a backtrace or a compiler error.
constexpr qsizetype kLogTailBytes = 64 * 1024;

QString tail(const QByteArray& bytes) {
    return QString::fromUtf8(bytes.size() > kLogTailBytes ? bytes.right(kLogTailBytes) : bytes);
}

}  // namespace

QString VerifyOutcome::statusKey(Status s) {
    switch (s) {
        case Status::Finished:
            return QStringLiteral("finished");
        case Status::Crashed:
            return QStringLiteral("crashed");
        case Status::TimedOut:
            return QStringLiteral("timeout");
        case Status::Cancelled:
            return QStringLiteral("cancelled");
        case Status::FailedToStart:
            return QStringLiteral("failed_to_start");
        case Status::BadOutput:
            return QStringLiteral("bad_output");
    }
    return {};
}

// ---- worker (runs on the queue's thread) ----

void VerifyWorker::start(const QString& program, const VerifyJob& job, int timeoutMs) {
    m_job = job;
    m_timeoutMs = timeoutMs;
    m_done = false;
    m_killReason.reset();
    m_gpuBusy = false;
    m_queueSeconds = 0;
    m_queue = std::make_unique<QueueFile>(QueueFile::make());
    m_startedMs = QDateTime::currentMSecsSinceEpoch();
    delete m_process;
    m_process = new QProcess(this);
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setSingleShot(true);
        // Each second: the job's own work is timed, its waits for the GPU are not, but are
        // bounded apart (core/verify/queueclock.h): a job queued behind another is no hang.
        connect(m_timer, &QTimer::timeout, this, [this] {
            if (m_done || !m_process)
                return;
            const double elapsed =
                double(QDateTime::currentMSecsSinceEpoch() - m_startedMs) / 1000.0;
            m_queueSeconds = m_queue ? m_queue->queuedSeconds(elapsed) : 0;
            const double own = elapsed - m_queueSeconds;
            m_gpuBusy = m_queueSeconds > VerifyProcessRequest{}.queueLimitSeconds;
            if (!m_gpuBusy && own * 1000.0 < m_timeoutMs) {
                m_timer->start(int(std::min(1000.0, m_timeoutMs - own * 1000.0)) + 1);
                return;
            }
            m_killReason = VerifyOutcome::Status::TimedOut;
            m_process->kill();
        });
    }
    connect(m_process, &QProcess::finished, this, [this](int, QProcess::ExitStatus status) {
        if (m_killReason) {
            finish(*m_killReason);
        } else if (status == QProcess::CrashExit) {
            finish(VerifyOutcome::Status::Crashed);
        } else {
            finish(VerifyOutcome::Status::Finished);
        }
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        // Only a failed start ends the job here; crashes and kills also arrive as finished().
        if (error == QProcess::FailedToStart)
            finish(VerifyOutcome::Status::FailedToStart);
    });
    QStringList entries = m_env;
    if (!m_queue->path().empty())
        entries << QStringLiteral("REACH_QUEUE_FILE=") + QString::fromStdString(m_queue->path());
    // A KernelBench-format job uses the GUI's warm worker server (PyTorch imported once for the
    // session; core/verify/workerserver.h): a re-verify no longer pays `import torch` twice. The
    // verifier gets a connection of its own, inherited by that child alone (close-on-exec is
    // cleared in the child only) and named by its number.
    int serverFd = -1;
    if (isKernelBenchFormat(job.problemPath.toStdString(), job.candidatePath.toStdString())) {
        if (const auto server =
                sharedWorkerServer(findPython(""), findResourceDir() + "/python/reach_kbserver.py"))
            serverFd = server->connect();
    }
    if (serverFd >= 0) {
        entries << QString::fromLatin1(kWorkerServerFdVariable) + QLatin1Char('=') +
                       QString::number(serverFd);
        m_process->setChildProcessModifier([serverFd] { ::fcntl(serverFd, F_SETFD, 0); });
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Only the connection given here: one named in the GUI's own environment is nobody's.
    env.remove(QString::fromLatin1(kWorkerServerFdVariable));
    for (const QString& e : entries) {
        const qsizetype eq = e.indexOf(QLatin1Char('='));
        env.insert(e.left(eq), e.mid(eq + 1));
    }
    m_process->setProcessEnvironment(env);
    QStringList args{QStringLiteral("--problem"),   job.problemPath,
                     QStringLiteral("--candidate"), job.candidatePath,
                     QStringLiteral("--reps"),      QString::number(job.reps)};
    args << job.extraArguments;
    m_timer->start(std::min(timeoutMs, 1000));
    m_process->start(program, args);
    // The child has its own copy from the fork on (or there is no child): this one goes, so
    // that the connection closes (and the server kills the job) when the verifier is gone.
    if (serverFd >= 0)
        ::close(serverFd);
}

void VerifyWorker::cancelCurrent() {
    if (m_done || !m_process)
        return;
    m_killReason = VerifyOutcome::Status::Cancelled;
    if (m_process->state() == QProcess::NotRunning) {
        finish(VerifyOutcome::Status::Cancelled);
    } else {
        m_process->kill();
    }
}

void VerifyWorker::finish(VerifyOutcome::Status status) {
    if (m_done)
        return;
    m_done = true;
    m_timer->stop();
    VerifyOutcome out;
    out.jobId = m_job.id;
    out.recordKey = m_job.recordKey;
    out.wallMs = double(QDateTime::currentMSecsSinceEpoch() - m_startedMs);
    const QByteArray stdoutBytes = m_process->readAllStandardOutput();
    QString log = tail(m_process->readAllStandardError());
    out.exitCode = m_process->exitStatus() == QProcess::NormalExit ? m_process->exitCode() : -1;
    if (status == VerifyOutcome::Status::Finished) {
        // Exit 1 is "the candidate failed" (DESIGN.md): still a verdict with a document.
        QJsonParseError error{};
        const QByteArray trimmed = stdoutBytes.trimmed();
        QJsonDocument::fromJson(trimmed, &error);
        if (trimmed.isEmpty() || error.error != QJsonParseError::NoError) {
            status = VerifyOutcome::Status::BadOutput;
            log += QStringLiteral(
                       "\nreach: the verifier exited with %1 without printing one JSON "
                       "document (%2)")
                       .arg(out.exitCode)
                       .arg(trimmed.isEmpty() ? QStringLiteral("no output") : error.errorString());
        } else {
            out.stdoutJson = trimmed;
        }
    } else if (status == VerifyOutcome::Status::Crashed) {
        log += QStringLiteral("\nreach: the verifier process crashed (%1)")
                   .arg(m_process->errorString());
    } else if (status == VerifyOutcome::Status::TimedOut && m_gpuBusy) {
        log += QStringLiteral("\nreach: the verifier waited %1 s for the GPU (other jobs held it)")
                   .arg(m_queueSeconds, 0, 'f', 1);
    } else if (status == VerifyOutcome::Status::TimedOut) {
        log += QStringLiteral(
                   "\nreach: the verifier was killed after %1 s of its own work "
                   "without finishing")
                   .arg(out.wallMs / 1000.0 - m_queueSeconds, 0, 'f', 1);
    } else if (status == VerifyOutcome::Status::FailedToStart) {
        log += QStringLiteral("\nreach: could not start the verifier '%1': %2")
                   .arg(m_process->program(), m_process->errorString());
    }
    out.status = status;
    out.log = log.trimmed();
    // The same translation of a finished process as reach-cli's (core/verify/verifyprocess.h).
    VerifyProcessRequest req;
    req.verifier = m_process->program().toStdString();
    req.problemFile = m_job.problemPath.toStdString();
    req.candidateFile = m_job.candidatePath.toStdString();
    req.timeoutSeconds = m_timeoutMs / 1000.0;
    VerifierRun run;
    run.started = status != VerifyOutcome::Status::FailedToStart;
    run.startError = m_process->errorString().toStdString();
    run.timedOut = status == VerifyOutcome::Status::TimedOut;
    run.gpuBusy = run.timedOut && m_gpuBusy;
    run.queueSeconds = m_queueSeconds;
    run.crashed = status == VerifyOutcome::Status::Crashed;
    run.exitCode = out.exitCode;
    run.out = out.stdoutJson.toStdString();
    run.err = log.toStdString();
    run.seconds = out.wallMs / 1000.0;
    out.result = resultFromRun(req, run);
    // Keep the QProcess object until the next start: deleting it inside its own signal is unsafe.
    m_process->disconnect(this);
    emit finished(out);
}

// ---- queue (lives on the GUI thread) ----

VerifyQueue::VerifyQueue(QObject* parent)
    : QObject(parent), m_slots{VerifySlot{}}, m_program(defaultProgram()) {
    qRegisterMetaType<VerifyJob>();
    qRegisterMetaType<VerifyOutcome>();
    m_thread.setObjectName(QStringLiteral("reach-verify-queue"));
    m_thread.start();
    buildWorkers();
}

VerifyQueue::~VerifyQueue() {
    m_pending.clear();
    cancelRunning();
    m_thread.quit();
    m_thread.wait();
}

QString VerifyQueue::defaultProgram() {
    return QString::fromStdString(findVerifierExecutable());
}

QList<VerifySlot> VerifyQueue::workerSlotsFor(const QStringList& gpus, int jobsPerGpu) {
    QList<VerifySlot> out;
    for (int k = 0; k < std::max(1, jobsPerGpu); ++k) {
        if (gpus.isEmpty())
            out.push_back(VerifySlot{});
        for (const QString& g : gpus)
            out.push_back(VerifySlot{g.trimmed(), QString()});
    }
    return out;
}

void VerifyQueue::setWorkerSlots(const QList<VerifySlot>& workerSlots) {
    m_nextSlots = workerSlots.isEmpty() ? QList<VerifySlot>{VerifySlot{}} : workerSlots;
    m_slotsChanged = true;
    if (!busy())
        buildWorkers();
}

// Workers are made (on the queue's thread) only while nothing runs.
void VerifyQueue::buildWorkers() {
    if (m_slotsChanged) {
        m_slots = m_nextSlots;
        m_slotsChanged = false;
    }
    for (Worker& w : m_workers)
        QMetaObject::invokeMethod(w.worker, &QObject::deleteLater, Qt::QueuedConnection);
    m_workers.clear();
    m_doneBySlot.clear();
    for (int i = 0; i < int(m_slots.size()); ++i) {
        const VerifySlot& slot = m_slots[i];
        auto* worker = new VerifyWorker;
        QStringList env;
        if (!slot.gpu.isEmpty()) {
            env << QStringLiteral("CUDA_VISIBLE_DEVICES=") + slot.gpu;
            // The same lock file a reach-cli batch names for this GPU (core's pool).
            const QString key =
                slot.uuid.isEmpty() ? QStringLiteral("index") + slot.gpu : slot.uuid;
            env << QStringLiteral("REACH_GPU_LOCK=") +
                       QString::fromStdString(GpuTimingLock::pathFor("/tmp", key.toStdString()));
        }
        worker->setEnvironment(env);
        worker->moveToThread(&m_thread);
        connect(&m_thread, &QThread::finished, worker, &QObject::deleteLater);
        connect(
            worker, &VerifyWorker::finished, this,
            [this, i](const VerifyOutcome& o) { onWorkerFinished(i, o); }, Qt::QueuedConnection);
        m_workers.push_back({worker, std::nullopt});
        m_doneBySlot.push_back(0);
    }
}

void VerifyQueue::setGpuAvailable(bool available, const QString& reason) {
    if (available == m_gpuAvailable && reason == m_gpuReason)
        return;
    m_gpuAvailable = available;
    m_gpuReason = reason;
    emit gpuAvailabilityChanged(available, reason);
}

int VerifyQueue::runningCount() const {
    int n = 0;
    for (const Worker& w : m_workers)
        n += w.running.has_value();
    return n;
}

QList<int> VerifyQueue::enqueue(QList<VerifyJob> jobs) {
    QList<int> ids;
    if (!m_gpuAvailable)
        return ids;
    if (!busy()) {
        m_done = 0;
        m_total = 0;
        if (m_slotsChanged)
            buildWorkers();
        for (int& d : m_doneBySlot)
            d = 0;
    }
    for (VerifyJob& job : jobs) {
        job.id = m_nextId++;
        ids << job.id;
        m_pending.push_back(job);
        ++m_total;
    }
    emit progressChanged(m_done, m_total);
    dispatchNext();
    return ids;
}

void VerifyQueue::cancelRunning() {
    for (Worker& w : m_workers)
        if (w.running)
            QMetaObject::invokeMethod(w.worker, &VerifyWorker::cancelCurrent, Qt::QueuedConnection);
}

void VerifyQueue::cancelAll() {
    m_total -= int(m_pending.size());
    m_pending.clear();
    if (runningCount() > 0) {
        cancelRunning();
    } else {
        emit progressChanged(m_done, m_total);
        emit idle();
    }
}

void VerifyQueue::dispatchNext() {
    for (int i = 0; i < int(m_workers.size()) && !m_pending.empty(); ++i) {
        Worker& w = m_workers[size_t(i)];
        if (w.running)
            continue;
        w.running = m_pending.front();
        m_pending.pop_front();
        const VerifyJob job = *w.running;
        const int timeout = job.timeoutMs > 0 ? job.timeoutMs : m_timeoutMs;
        emit jobStarted(job.id, job.recordKey);
        emit slotProgressChanged(i, m_slots[i].gpu, m_doneBySlot[i], job.recordKey);
        VerifyWorker* worker = w.worker;
        const QString program = m_program;
        QMetaObject::invokeMethod(
            worker, [worker, program, job, timeout] { worker->start(program, job, timeout); },
            Qt::QueuedConnection);
    }
}

void VerifyQueue::onWorkerFinished(int slot, const VerifyOutcome& outcome) {
    if (slot >= int(m_workers.size()))
        return;
    m_workers[size_t(slot)].running.reset();
    ++m_done;
    ++m_doneBySlot[slot];
    emit jobFinished(outcome);
    emit progressChanged(m_done, m_total);
    emit slotProgressChanged(slot, m_slots[slot].gpu, m_doneBySlot[slot], QString());
    if (m_pending.empty() && runningCount() == 0) {
        if (m_slotsChanged)
            buildWorkers();
        emit idle();
    } else {
        dispatchNext();
    }
}

}  // namespace reach
