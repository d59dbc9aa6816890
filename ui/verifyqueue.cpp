#include "ui/verifyqueue.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcess>
#include <QTimer>

#include "core/verify/verifyprocess.h"

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
    m_startedMs = QDateTime::currentMSecsSinceEpoch();
    delete m_process;
    m_process = new QProcess(this);
    if (!m_timer) {
        m_timer = new QTimer(this);
        m_timer->setSingleShot(true);
        connect(m_timer, &QTimer::timeout, this, [this] {
            if (m_done || !m_process)
                return;
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
    QStringList args{QStringLiteral("--problem"),   job.problemPath,
                     QStringLiteral("--candidate"), job.candidatePath,
                     QStringLiteral("--reps"),      QString::number(job.reps)};
    args << job.extraArguments;
    m_timer->start(timeoutMs);
    m_process->start(program, args);
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
    } else if (status == VerifyOutcome::Status::TimedOut) {
        log += QStringLiteral("\nreach: the verifier was killed after %1 s without finishing")
                   .arg(out.wallMs / 1000.0, 0, 'f', 1);
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

VerifyQueue::VerifyQueue(QObject* parent) : QObject(parent), m_program(defaultProgram()) {
    qRegisterMetaType<VerifyJob>();
    qRegisterMetaType<VerifyOutcome>();
    m_thread.setObjectName(QStringLiteral("reach-verify-queue"));
    m_worker = new VerifyWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(this, &VerifyQueue::startOnWorker, m_worker, &VerifyWorker::start,
            Qt::QueuedConnection);
    connect(this, &VerifyQueue::cancelOnWorker, m_worker, &VerifyWorker::cancelCurrent,
            Qt::QueuedConnection);
    connect(m_worker, &VerifyWorker::finished, this, &VerifyQueue::onWorkerFinished,
            Qt::QueuedConnection);
    m_thread.start();
}

VerifyQueue::~VerifyQueue() {
    m_pending.clear();
    if (m_running)
        emit cancelOnWorker();
    m_thread.quit();
    m_thread.wait();
}

QString VerifyQueue::defaultProgram() {
    return QString::fromStdString(findVerifierExecutable());
}

void VerifyQueue::setGpuAvailable(bool available, const QString& reason) {
    if (available == m_gpuAvailable && reason == m_gpuReason)
        return;
    m_gpuAvailable = available;
    m_gpuReason = reason;
    emit gpuAvailabilityChanged(available, reason);
}

QList<int> VerifyQueue::enqueue(QList<VerifyJob> jobs) {
    QList<int> ids;
    if (!m_gpuAvailable)
        return ids;
    if (!busy()) {
        m_done = 0;
        m_total = 0;
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

void VerifyQueue::cancelAll() {
    m_total -= int(m_pending.size());
    m_pending.clear();
    if (m_running) {
        emit cancelOnWorker();
    } else {
        emit progressChanged(m_done, m_total);
        emit idle();
    }
}

void VerifyQueue::dispatchNext() {
    if (m_running || m_pending.empty())
        return;
    m_running = m_pending.front();
    m_pending.pop_front();
    emit jobStarted(m_running->id, m_running->recordKey);
    emit startOnWorker(m_program, *m_running,
                       m_running->timeoutMs > 0 ? m_running->timeoutMs : m_timeoutMs);
}

void VerifyQueue::onWorkerFinished(const VerifyOutcome& outcome) {
    m_running.reset();
    ++m_done;
    emit jobFinished(outcome);
    emit progressChanged(m_done, m_total);
    if (m_pending.empty()) {
        emit idle();
    } else {
        dispatchNext();
    }
}

}  // namespace reach
